"""A gather's gradient comes as rows (``rt.IndexedSlices``) where TensorFlow's tape gives
``tf.IndexedSlices``, and dense where it gives a tensor. The kinds and row indices expected
below are what TensorFlow 2.21 gave for the same code (``tf.GradientTape`` eagerly, printing
``type(g)`` and ``g.indices``); how optimizers apply rows is checked against TensorFlow by
the Keras programs (``optimizers.embedding_rows_with_each_optimizer``,
``custom_loops.embedding_gradient_rows_in_a_loop``)."""

import numpy as np
import pytest

import runtime as rt

TABLE = np.arange(12, dtype=np.float32).reshape(4, 3) / 10

CASES = [  # (name, lookup, indices of the rows, or None for a dense gradient)
    ("axis_0", lambda v: rt.gather(v, [[0, 2], [2, 2]]), [0, 2, 2, 2]),
    ("two_lookups", lambda v: rt.gather(v, [0, 2]) * 2 + rt.gather(v, [2])[0], [0, 2, 2]),
    ("negative_axis", lambda v: rt.gather(v, [0, 1], axis=-2), None),
    ("axis_1", lambda v: rt.gather(v, [[0, 1]], axis=1), None),
    ("lookup_and_whole", lambda v: rt.gather(v, [0, 2]) + v[0], None),
]


def _gradient(lookup, source):
    with rt.GradientTape() as tape:
        tape.watch(source)
        loss = rt.reduce_sum(rt.square(lookup(source)))
    return tape.gradient(loss, source)


def _dense_gradient(lookup):
    x = rt.constant(TABLE)
    with rt.GradientTape() as tape:
        tape.watch(x)
        loss = rt.reduce_sum(rt.square(lookup(x)))
    return rt.convert_to_tensor(tape.gradient(loss, x)).numpy()


@pytest.mark.parametrize("name, lookup, indices", CASES, ids=[c[0] for c in CASES])
def test_rows_where_tensorflow_keeps_them(name, lookup, indices):
    variable = rt.Variable(TABLE)
    for gradient in (_gradient(lookup, variable), _gradient(lookup, rt.constant(TABLE))):
        assert isinstance(gradient, rt.IndexedSlices) == (indices is not None)
        if indices is not None:
            np.testing.assert_array_equal(gradient.indices.numpy(), indices)
            assert gradient.shape == TABLE.shape and gradient.dtype == np.float32
            assert gradient.values.shape == (len(indices), 3)

    @rt.function
    def traced():
        gradient = _gradient(lookup, variable)
        assert isinstance(gradient, rt.IndexedSlices) == (indices is not None)
        return gradient  # a traced function returns the dense gradient

    np.testing.assert_allclose(traced().numpy(), _dense_gradient(lookup), rtol=1e-6)


def test_rows_become_the_dense_gradient_in_ops():
    gradient = _gradient(CASES[0][1], rt.Variable(TABLE))
    expected = np.zeros_like(TABLE)
    np.add.at(expected, [0, 2, 2, 2], 2 * TABLE[[0, 2, 2, 2]])
    np.testing.assert_allclose(rt.convert_to_tensor(gradient).numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose((gradient + rt.zeros((4, 3))).numpy(), expected, rtol=1e-6)
    np.testing.assert_array_equal(gradient.dense_shape.numpy(), [4, 3])
