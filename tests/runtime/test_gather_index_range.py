"""Issue 22, item 3: an index outside ``[0, size)`` is an error in every gather, as in
TensorFlow, eagerly and in graphs, with a message naming the index, its position and the valid
range; a negative index does not count from the end. Valid indices (and the gradients and
exports of gathers) are unaffected."""

from __future__ import annotations

import re
import traceback

import numpy as np
import pytest

import runtime as rt
import transpiler
from runtime.errors import InvalidArgumentError

PARAMS = np.arange(6, dtype=np.float32).reshape(3, 2)
NEGATIVE = ("indices[1] = -1 is not in [0, 3): index -1 is out of range for axis 0 of size 3, in "
            "a tensor of shape (3, 2).")


def _raises(message: str):
    return pytest.raises(InvalidArgumentError, match=re.escape(message))


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_a_negative_index_is_an_error_eagerly(dtype):
    with _raises(NEGATIVE + " A negative index does not count from the end"):
        rt.gather(PARAMS, np.array([0, -1], dtype))
    with _raises(NEGATIVE):
        rt.nn.embedding_lookup(rt.constant(PARAMS), rt.constant(np.array([2, -1], dtype)))
    with _raises("indices[0, 1] = -2 is not in [0, 2): index -2 is out of range for axis 1"):
        rt.gather(PARAMS, np.array([[1, -2]], dtype), axis=1)
    with _raises("indices[0] = -1 is not in [0, 2): index -1 is out of range for axis 1"):
        rt.gather(PARAMS, np.array([-1], dtype), axis=-1)
    with _raises("indices = -1 is not in [0, 3): index -1 is out of range for axis 0 of size 3, "
                 "in a tensor of shape (3,)."):
        rt.gather([10, 20, 30], dtype(-1))


def test_too_large_an_index_names_the_size():
    with _raises("indices[2] = 3 is not in [0, 3): index 3 is out of range for axis 0 of size 3, "
                 "in a tensor of shape (3, 2). Keep the indices below the axis size, 3."):
        rt.gather(PARAMS, [0, 1, 3])


def test_gather_nd_and_scatter_nd_say_the_same_with_batch_dims():
    with _raises("indices[1, 0] = -1 is not in [0, 3): index -1 is out of range for axis 0"):
        rt.gather_nd(PARAMS, [[1], [-1]])
    with _raises("indices[2, 0] = 2 is not in [0, 2): index 2 is out of range for axis 1 of "
                 "size 2, in a tensor of shape (3, 2)."):
        rt.gather_nd(PARAMS, [[1], [0], [2]], batch_dims=1)
    with _raises("indices[0, 0] = -1 is not in [0, 2): index -1 is out of range for axis 1"):
        rt.gather_nd(PARAMS, [[-1], [0], [1]], batch_dims=1)
    with _raises("indices[1, 0] = -1 is not in [0, 3)"):
        rt.scatter_nd([[0], [-1]], [1.0, 2.0], [3])


def _last_user_frame(error: BaseException):
    frames = [f for f in traceback.extract_tb(error.__traceback__)
              if f.filename == __file__]
    return frames[-1]


@pytest.mark.parametrize("decorate", [rt.function, transpiler.function], ids=["rt", "transpiler"])
def test_a_negative_index_is_an_error_in_graphs_at_the_users_line(decorate):
    @decorate
    def pick(params, ids):
        rows = rt.gather(params, ids)  # the user's line
        return rows * 2.0

    np.testing.assert_array_equal(pick(PARAMS, np.array([2, 0], np.int64)), PARAMS[[2, 0]] * 2)
    with _raises(NEGATIVE) as caught:
        pick(PARAMS, np.array([0, -1], np.int64))
    assert _last_user_frame(caught.value).line == "rows = rt.gather(params, ids)  # the user's line"

    @decorate
    def lookup(params, ids):
        return rt.nn.embedding_lookup(params, ids)
    with _raises(NEGATIVE):
        lookup(PARAMS, np.array([1, -1], np.int32))


def test_a_constant_negative_index_in_a_graph_is_not_folded_into_an_answer():
    @rt.function
    def last(params):
        return rt.gather(params, [1, -1])
    with _raises(NEGATIVE):
        last(PARAMS)


def test_the_compiled_tier_leaves_gather_to_the_numpy_plan_which_checks():
    pytest.importorskip("numba")

    @rt.function(jit_compile=True)
    def pick(params, ids):
        return rt.gather(params * 2.0 + 1.0, ids) - 1.0
    np.testing.assert_array_equal(pick(PARAMS, np.array([2, 1], np.int32)), PARAMS[[2, 1]] * 2)
    with _raises(NEGATIVE):
        pick(PARAMS, np.array([0, -1], np.int32))


@pytest.mark.parametrize("decorate", [lambda f: f, rt.function], ids=["eager", "graph"])
def test_the_gradient_of_a_gather_of_valid_indices_is_unchanged(decorate):
    @decorate
    def grads(params, ids):
        with rt.GradientTape() as tape:
            tape.watch(params)
            loss = rt.reduce_sum(rt.gather(params, ids, axis=1) * [[1.0, 2.0, 3.0]])
        return tape.gradient(loss, params)
    x = rt.constant(np.ones((2, 3), np.float32))
    expected = np.zeros((2, 3), np.float32)
    np.add.at(expected, (slice(None), [2, 0, 2]), [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(grads(x, rt.constant([2, 0, 2])), expected)


def test_tensor_array_gather_rejects_a_negative_index_too():
    array = rt.TensorArray(rt.float32, size=2).unstack([1.0, 2.0])
    np.testing.assert_array_equal(array.gather([1, 0]), [2.0, 1.0])
    with pytest.raises(InvalidArgumentError, match="index -1 is out of bounds"):
        array.gather([0, -1])


def test_exports_take_valid_indices_as_before_and_refuse_a_negative_one():
    pytest.importorskip("onnxruntime")
    jax = pytest.importorskip("jax")
    from tests.runtime.test_export_onnx_harness import run_model

    @rt.function
    def pick(params, ids):
        return rt.gather(params, ids)
    concrete = pick.get_concrete_function(PARAMS, np.zeros(2, np.int32))
    model = rt.export.onnx(concrete, None)
    good, bad = np.array([2, 0], np.int32), np.array([0, -1], np.int32)
    np.testing.assert_array_equal(run_model(model, [PARAMS, good])[0], PARAMS[[2, 0]])
    with pytest.raises(Exception, match="gather: an index is negative"):
        run_model(model, [PARAMS, bad])
    exported = jax.jit(rt.export.jax(concrete))
    np.testing.assert_array_equal(exported(PARAMS, good), PARAMS[[2, 0]])
    with pytest.raises(Exception, match=re.escape(NEGATIVE)):
        exported(PARAMS, bad).block_until_ready()
