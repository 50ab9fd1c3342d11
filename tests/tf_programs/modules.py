"""tf.Module models with tf.function methods, trained with loops."""

import numpy as np


def dense_module(tf):
    class Dense(tf.Module):
        def __init__(self, in_features, out_features, name=None):
            super().__init__(name=name)
            self.w = tf.Variable(tf.reshape(tf.range(in_features * out_features, dtype=tf.float32),
                                            [in_features, out_features]) / 10.0, name="w")
            self.b = tf.Variable(tf.zeros([out_features]), name="b")

        def __call__(self, x):
            y = tf.matmul(x, self.w) + self.b
            return tf.nn.relu(y)

    class SequentialModule(tf.Module):
        def __init__(self, name=None):
            super().__init__(name=name)
            self.dense_1 = Dense(in_features=3, out_features=3)
            self.dense_2 = Dense(in_features=3, out_features=2)

        @tf.function
        def __call__(self, x):
            x = self.dense_1(x)
            return self.dense_2(x)

    model = SequentialModule(name="the_model")
    out = model(tf.constant([[2.0, 2.0, 2.0]]))
    return (out, len(model.trainable_variables), len(model.variables),
            sorted(v.shape.as_list() for v in model.trainable_variables), len(model.submodules))


def module_trained_in_function_loop(tf):
    class Model(tf.Module):
        def __init__(self):
            self.w = tf.Variable(5.0)
            self.b = tf.Variable(0.0)

        def __call__(self, x):
            return self.w * x + self.b

    model = Model()
    x = tf.linspace(-2.0, 2.0, 20)
    y = x * 3.0 + 2.0

    @tf.function
    def train(model, x, y, epochs):
        loss = tf.constant(0.0)
        for epoch in tf.range(epochs):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(y - model(x)))
            dw, db = tape.gradient(loss, [model.w, model.b])
            model.w.assign_sub(0.1 * dw)
            model.b.assign_sub(0.1 * db)
        return loss

    final = train(model, x, y, tf.constant(30))
    return final, model.w, model.b


def module_lazy_build(tf):
    class FlexibleDense(tf.Module):
        def __init__(self, out_features, name=None):
            super().__init__(name=name)
            self.is_built = False
            self.out_features = out_features

        def __call__(self, x):
            if not self.is_built:
                self.w = tf.Variable(tf.ones([x.shape[-1], self.out_features]), name="w")
                self.b = tf.Variable(tf.zeros([self.out_features]), name="b")
                self.is_built = True
            return tf.matmul(x, self.w) + self.b

    layer = FlexibleDense(2)
    eager = layer(tf.constant([[1.0, 2.0, 3.0]]))
    traced_layer = FlexibleDense(3)
    traced = tf.function(traced_layer)(tf.constant([[1.0, 2.0]]))
    again = tf.function(traced_layer.__call__)(tf.constant([[3.0, 4.0]]))
    return eager, traced, again, traced_layer.w.shape.as_list()


def rnn_cell_loop(tf):
    class Cell(tf.Module):
        def __init__(self, units):
            self.units = units
            self.wx = tf.Variable(tf.fill([1, units], 0.5))
            self.wh = tf.Variable(tf.eye(units) * 0.9)

        @tf.function
        def __call__(self, xs):
            h = tf.zeros([1, self.units])
            outputs = tf.TensorArray(tf.float32, size=tf.shape(xs)[0])
            for t in tf.range(tf.shape(xs)[0]):
                h = tf.tanh(tf.matmul(tf.reshape(xs[t], [1, 1]), self.wx) + tf.matmul(h, self.wh))
                outputs = outputs.write(t, h[0])
            return outputs.stack(), h

    cell = Cell(2)
    seq = tf.constant([[1.0], [0.5], [-1.0], [2.0]])
    return cell(seq)


def module_with_list_of_layers(tf):
    class MLP(tf.Module):
        def __init__(self, sizes):
            self.layers = []
            for i, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:])):
                w = tf.Variable(tf.ones([n_in, n_out]) * (0.1 * (i + 1)))
                self.layers.append(w)

        @tf.function
        def __call__(self, x):
            for w in self.layers:
                x = tf.nn.relu(x @ w)
            return x

    mlp = MLP([2, 3, 3, 1])
    return mlp(tf.constant([[1.0, 2.0], [0.5, -1.0]])), len(mlp.trainable_variables)


def checkpoint_like_assign(tf):
    class Counter(tf.Module):
        def __init__(self):
            self.step = tf.Variable(0, dtype=tf.int64)
            self.total = tf.Variable(0.0)

        @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
        def add(self, x):
            self.step.assign_add(1)
            self.total.assign_add(x)
            return self.total / tf.cast(self.step, tf.float32)

    c = Counter()
    means = [c.add(tf.constant(v)) for v in (1.0, 2.0, 6.0)]
    return means, c.step, c.add.experimental_get_tracing_count()


def checkpoint_manager_saves_and_restores_a_training_run(tf):
    import os
    import tempfile

    x = np.arange(12, dtype=np.float32).reshape(4, 3) / 10
    y = np.ones((4, 2), np.float32)

    def make():
        model = tf.keras.Sequential([tf.keras.Input((3,)),
                                     tf.keras.layers.Dense(2, kernel_initializer="ones")])
        return model, tf.keras.optimizers.Adam(0.1)

    def step(model, optimizer):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((model(x) - y) ** 2)
        gradients = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(gradients, model.trainable_variables))
        return float(loss)

    with tempfile.TemporaryDirectory() as directory:
        model, optimizer = make()
        manager = tf.train.CheckpointManager(tf.train.Checkpoint(model=model, optimizer=optimizer),
                                             directory, max_to_keep=2)
        before = manager.latest_checkpoint
        for _ in range(3):
            step(model, optimizer)
        first = manager.save()
        after = [step(model, optimizer) for _ in range(3)]
        manager.save()
        manager.save()
        kept = [os.path.basename(path) for path in manager.checkpoints]
        restored, fresh_optimizer = make()
        tf.train.Checkpoint(model=restored, optimizer=fresh_optimizer).restore(
            os.path.join(directory, "ckpt-2"))
        again = [step(restored, fresh_optimizer) for _ in range(2)]
        return (before, os.path.basename(first), kept,
                os.path.basename(tf.train.latest_checkpoint(directory)), after, again)


def checkpoint_step_counter(tf):
    """The checkpoint guide's loop: a step variable held by the checkpoint, read back as
    ``ckpt.step``, and ``save_counter`` a variable that a restore sets."""
    import os
    import tempfile

    with tempfile.TemporaryDirectory() as directory:
        ckpt = tf.train.Checkpoint(step=tf.Variable(1), scale=tf.Variable(2.0))
        manager = tf.train.CheckpointManager(ckpt, directory, max_to_keep=3)
        saved = []
        for _ in range(4):
            ckpt.step.assign_add(1)
            ckpt.scale.assign(ckpt.scale * 1.5)
            if int(ckpt.step) % 2 == 0:
                saved.append((os.path.basename(manager.save()), int(ckpt.save_counter)))
        fresh = tf.train.Checkpoint(step=tf.Variable(0), scale=tf.Variable(0.0))
        fresh.restore(manager.latest_checkpoint)
        return (saved, int(fresh.step), float(fresh.scale), int(fresh.save_counter),
                ckpt.save_counter.numpy())


def module_name_scopes(tf):
    class Scaled(tf.Module):
        def __init__(self, name=None):
            super().__init__(name=name)
            with self.name_scope:
                self.scale = tf.Variable(2.0, name="scale")
                self.built_in = tf.get_current_name_scope()

        @tf.Module.with_name_scope
        def __call__(self, x):
            return x * self.scale, tf.get_current_name_scope()

    module = Scaled(name="scaler")
    value, scope = module(tf.constant(3.0))
    return (module.name_scope.name, module.built_in, value, scope,
            Scaled().name_scope.name, tf.get_current_name_scope())
