"""Keras 3's backend-agnostic ``keras.ops`` and the Keras 2 functions ``tf.keras.backend``
still has, as users call them: in custom layers and losses, and directly."""

import numpy as np

from tests.keras_programs import deterministic_weights
from tests.tf_programs import error_name


def ops_math_and_reductions(tf):
    ops = tf.keras.ops
    x = ops.convert_to_tensor(np.array([[1.0, -2.0, 0.5], [3.0, 4.0, -0.25]], "float32"))
    i = np.array([[1, 4, 9], [16, 2, 3]], "int32")
    return (ops.sum(x, axis=0), ops.sum(i), ops.mean(x), ops.mean(i),
            ops.mean(x, axis=1, keepdims=True), ops.max(x), ops.min(i, axis=1),
            ops.prod(x, axis=0), ops.std(x), ops.var(i, axis=0), ops.sqrt(i), ops.exp(i[:, :1]),
            ops.log(ops.abs(x)), ops.square(i), ops.argmax(x), ops.argmax(x, axis=1),
            ops.argmin(i, axis=0, keepdims=True), ops.argmax(x, keepdims=True),
            ops.clip(x, -1.0, 1.0), ops.clip(i, 2, 5), ops.round(x), ops.round(x * 3.14159, 2),
            ops.divide(i, 2), ops.divide(i, i), ops.true_divide(x, 2.0), ops.power(i, 2),
            ops.floor(x), ops.ceil(i), ops.sign(x), ops.negative(i), ops.abs(i), ops.cumsum(x),
            ops.cumsum(x, axis=1), ops.cumprod(i, axis=0), ops.logsumexp(x, axis=1), ops.norm(x),
            ops.norm(x, axis=1), ops.norm(x, ord=1, axis=1), ops.any(x > 3),
            ops.all(x > -3, axis=1), ops.isnan(x), ops.isfinite(i), ops.maximum(x, 0.0),
            ops.minimum(i, 3), ops.add(i, 1.5), ops.multiply(i, x), ops.subtract(x, i),
            ops.equal(i, 4), ops.logical_and(x > 0, x < 2), ops.where(x > 0, x, 0.0),
            ops.where(i > 3, i, 0), ops.mod(i, 4), ops.floor_divide(i, 4), ops.sin(x),
            ops.tanh(i), ops.arctan(x), ops.expm1(x), ops.log1p(ops.abs(x)))


def ops_shapes_and_creation(tf):
    ops = tf.keras.ops
    x = ops.reshape(ops.arange(12), (3, 4))
    f = ops.reshape(ops.arange(0.0, 6.0), (2, 3))
    return (ops.arange(5), ops.arange(1, 7, 2), ops.arange(0.0, 1.0, 0.25),
            ops.arange(3, dtype="float32"), ops.linspace(0, 1, 5),
            ops.linspace(0.0, 10.0, 3, dtype="int32"), ops.zeros((2, 2)),
            ops.ones(3, dtype="int32"),
            ops.full((2, 2), 7), ops.full_like(f, 3), ops.eye(3), ops.eye(2, 3, dtype="int32"),
            ops.transpose(x), ops.shape(ops.transpose(ops.reshape(ops.arange(24), (2, 3, 4)),
                                                      (1, 0, 2))),
            ops.shape(ops.expand_dims(x, 0)), ops.shape(ops.squeeze(ops.ones((1, 3, 1)))),
            ops.concatenate([x, x], axis=1), ops.concatenate([x, x]), ops.stack([f, f], axis=1),
            ops.split(x, 2, axis=1), ops.split(x, [1, 3], axis=1), ops.unstack(f), ops.flip(x),
            ops.flip(x, axis=1), ops.repeat(f, 2, axis=0), ops.repeat(f, 2), ops.tile(f, (1, 2)),
            ops.take(x, [0, 5]), ops.take(x, [2, 0], axis=1), ops.broadcast_to(f[0], (2, 3)),
            ops.tril(x), ops.triu(x, 1), ops.tril(x, -1), ops.matmul(f, ops.transpose(f)),
            ops.dot(f, ops.ones(3)), ops.dot(f, ops.ones((3, 2))), ops.einsum("ij,kj->ik", f, f),
            ops.tensordot(f, f, axes=([1], [1])), ops.one_hot(np.array([0, 2, 1]), 3),
            ops.one_hot(np.array([0, 2]), 3, dtype="int32"), ops.cast(f, "int32"),
            ops.convert_to_numpy(f), ops.convert_to_tensor([1, 2]),
            ops.convert_to_tensor([1.0], dtype="float64"), ops.zeros_like(x), ops.ones_like(f),
            ops.sort(ops.convert_to_tensor([3, 1, 2])),
            ops.argsort(ops.convert_to_tensor([3.0, 1.0, 2.0])))


def ops_activations(tf):
    ops = tf.keras.ops
    x = ops.convert_to_tensor(np.array([[-2.0, -0.5, 0.0, 1.0, 3.0]], "float32"))
    return (ops.relu(x), ops.relu6(x * 3), ops.sigmoid(x), ops.softmax(x), ops.log_softmax(x),
            ops.softplus(x), ops.silu(x), ops.swish(x), ops.elu(x), ops.selu(x), ops.gelu(x),
            ops.gelu(x, approximate=False), ops.leaky_relu(x),
            ops.leaky_relu(x, negative_slope=0.1), ops.relu(np.array([-1, 2])),
            error_name(lambda: ops.softmax(np.array([1, 2, 3]))),
            error_name(lambda: ops.sigmoid(np.array([0, 1]))), ops.stop_gradient(x))


def ops_in_a_custom_layer_and_lambda(tf):
    ops = tf.keras.ops

    class RootMeanSquareNormalization(tf.keras.layers.Layer):
        def build(self, input_shape):
            self.scale = self.add_weight(shape=(input_shape[-1],), initializer="ones",
                                         name="scale")

        def call(self, x):
            mean_square = ops.mean(ops.square(x), axis=-1, keepdims=True)
            return x / ops.sqrt(mean_square + 1e-6) * self.scale

    inputs = tf.keras.Input((4,))
    hidden = tf.keras.layers.Dense(4)(inputs)
    normalized = RootMeanSquareNormalization()(hidden)
    outputs = tf.keras.layers.Lambda(
        lambda t: ops.concatenate([t, ops.relu(-t)], axis=-1))(normalized)
    model = tf.keras.Model(inputs, outputs)
    deterministic_weights(model, seed=120)
    x = np.arange(8, dtype="float32").reshape(2, 4) - 3
    model.compile(tf.keras.optimizers.SGD(0.1), "mse")
    history = model.fit(x, np.ones((2, 8), "float32"), epochs=2, verbose=0)
    return model.predict(x, verbose=0), history.history, model.output_shape


def backend_functions_in_a_custom_loss_and_metric(tf):
    backend = tf.keras.backend

    def root_mean_squared_error(y_true, y_pred):
        return backend.sqrt(backend.mean(backend.square(y_pred - y_true), axis=-1))

    def r_squared(y_true, y_pred):
        residual = backend.sum(backend.square(y_true - y_pred))
        total = backend.sum(backend.square(y_true - backend.mean(y_true)))
        return 1 - residual / (total + backend.epsilon())

    rng = np.random.default_rng(121)
    x = rng.normal(size=(16, 3)).astype("float32")
    y = x @ np.array([[1.0], [-2.0], [0.5]], "float32")
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
    deterministic_weights(model, seed=121)
    model.compile(tf.keras.optimizers.SGD(0.05), loss=root_mean_squared_error,
                  metrics=[r_squared])
    return model.fit(x, y, epochs=3, batch_size=4, verbose=0, shuffle=False).history


def backend_functions_called_directly(tf):
    backend = tf.keras.backend
    x = backend.constant([[1.0, -4.0], [9.0, 0.25]])
    variable = tf.Variable([1.0, 2.0])
    backend.set_value(variable, [3.0, 4.0])
    flags = tf.constant([[True, False], [True, True]])
    return (backend.sum(x), backend.sum(x, axis=0), backend.mean(x, axis=1, keepdims=True),
            backend.max(x), backend.min(x, axis=-1), backend.prod(x), backend.std(x),
            backend.var(x, axis=0), backend.mean(flags), backend.any(x > 5),
            backend.all(x > -5, axis=1), backend.argmax(x), backend.argmin(x, axis=0),
            backend.sqrt(x), backend.clip(x, 0.0, 2.0), backend.clip(x, 1.0, 0.5),
            backend.abs(x), backend.exp(x[0]), backend.log(backend.abs(x)), backend.pow(x, 2),
            backend.concatenate([x, x]), backend.concatenate([x, x], axis=0),
            backend.stack([x, x]), backend.reshape(x, (4,)), backend.expand_dims(x),
            backend.flatten(x), backend.batch_flatten(backend.reshape(x, (2, 2, 1))),
            backend.permute_dimensions(x, (1, 0)), backend.dot(x, x),
            backend.one_hot(tf.constant([0, 2]), 3), backend.cast(x, "int32"),
            backend.get_value(variable), backend.ndim(x), backend.int_shape(x),
            backend.count_params(variable), backend.cast_to_floatx([1, 2]), backend.relu(x),
            backend.relu(x, max_value=2.0), backend.softmax(x), backend.round(x),
            backend.equal(x, 9.0), backend.cumsum(x), backend.cumprod(x, axis=1),
            backend.repeat_elements(x, 2, axis=1), backend.arange(3), backend.arange(1, 7, 2),
            backend.l2_normalize(x, axis=1), backend.is_keras_tensor(x),
            backend.is_keras_tensor(tf.keras.Input((2,))), backend.shape(x),
            backend.squeeze(backend.reshape(x, (1, 4)), 0), backend.gather(x, [1]),
            backend.tile(x, (1, 2)))


def activations_by_name(tf):
    activations = tf.keras.activations
    x = tf.constant([-3.0, -0.5, 0.0, 0.5, 3.0])
    names = ["mish", "hard_silu", "hard_swish", "celu", "hard_tanh", "tanh_shrink",
             "log_sigmoid", "squareplus"]
    column = tf.reshape(x, [5, 1])
    return ([activations.get(name)(x) for name in names],
            [activations.get(name).__name__ for name in names], activations.celu(x, alpha=0.5),
            [tf.keras.layers.Dense(2, activation=name, kernel_initializer="ones")(column)
             for name in names], tf.keras.layers.Activation("mish")(x))


def ops_shape_of_a_batch_in_a_custom_layer(tf):
    ops = tf.keras.ops

    class Pairs(tf.keras.layers.Layer):
        def call(self, x):
            return ops.reshape(x, (ops.shape(x)[0], -1, 2))

    inputs = tf.keras.Input((4, 3))
    pooled = tf.keras.layers.GlobalAveragePooling1D()(Pairs()(inputs))
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(1)(pooled))
    deterministic_weights(model, seed=122)
    x = np.arange(24, dtype="float32").reshape(2, 4, 3) / 24
    model.compile(tf.keras.optimizers.SGD(0.1), "mse")
    history = model.fit(x, np.ones((2, 1), "float32"), epochs=2, verbose=0)
    return model.predict(x, verbose=0), history.history, ops.shape(x), model.output_shape


def ops_statistics_padding_and_matrices(tf):
    ops = tf.keras.ops
    x = ops.convert_to_tensor(np.array([[1.0, -2.0, 0.5], [3.0, 4.0, 0.0]], "float32"))
    found = ops.top_k(ops.convert_to_tensor([3.0, 1.0, 2.0]), 2)
    return (ops.rsqrt(ops.abs(x) + 1.0), ops.erf(x), ops.log_sigmoid(x),
            ops.logical_xor(x > 0, x > 1), ops.isclose(x, x + 1e-7),
            ops.isclose(ops.convert_to_tensor([np.nan]), np.nan, equal_nan=True),
            ops.average(x, axis=1, weights=np.array([1.0, 2.0, 3.0], "float32")), ops.average(x),
            ops.moments(x, axes=[1]), ops.moments(x, axes=[0, 1], keepdims=True),
            ops.count_nonzero(x), ops.count_nonzero(x, axis=0), found.values, found.indices,
            ops.outer(ops.arange(3), ops.arange(2)), ops.pad(x, ((1, 0), (0, 2))),
            ops.pad(x, ((0, 0), (1, 1)), constant_values=9.0), ops.slice(x, (0, 1), (2, 2)),
            ops.diag(ops.convert_to_tensor([1.0, 2.0])),
            ops.diag(ops.reshape(ops.arange(9), (3, 3))),
            ops.trace(ops.reshape(ops.arange(9.0), (3, 3))))
