"""The export rules of the ops added with TensorFlow's names: ensure_shape (ONNX and JAX, the
check included), truncatemod, the shifts and cumulative_logsumexp (JAX), and the refusal of
py_function and numpy_function by both exporters."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("onnxruntime")

import runtime as rt  # noqa: E402
from runtime.errors import ExportError, InvalidArgumentError  # noqa: E402
from runtime.export import onnx_export  # noqa: E402
from runtime.ops.bitwise_ops import left_shift, right_shift  # noqa: E402
from runtime.ops.ensure_shape_ops import ensure_shape  # noqa: E402
from runtime.ops.python_function_ops import numpy_function, py_function  # noqa: E402
from tests.runtime.test_export_onnx_harness import export_and_compare, run_model  # noqa: E402
from tests.runtime.test_export_jax import x64  # noqa: E402,F401  (JAX's 64-bit mode here too)


def rows_of_three(x):
    return ensure_shape(x, [None, 3]) * 2.0


def rows_of_three_from_a_rank_unknown_while_tracing(x):
    sizes = rt.shape(x)
    return rows_of_three(rt.reshape(x, rt.boolean_mask(sizes, sizes > 1)))


@pytest.mark.parametrize("fn, spec", [(rows_of_three, rt.TensorSpec([None, None])),
                                      (rows_of_three_from_a_rank_unknown_while_tracing,
                                       rt.TensorSpec([None, None])),
                                      (rows_of_three, rt.TensorSpec([None, 3]))],
                         ids=["sizes", "rank", "static"])
def test_ensure_shape_checks_the_shape_in_onnx_and_jax(fn, spec):
    concrete = rt.function(fn).get_concrete_function(spec)
    good = np.ones((2, 3), np.float32)
    model = export_and_compare(concrete, good)
    exported = rt.export.jax(concrete)
    np.testing.assert_array_equal(exported(good), concrete(good).numpy())
    if spec.shape[1] == 3:
        return  # the input's shape itself says 3: a (2, 2) input is refused before the check
    for bad in (np.ones((2, 2), np.float32), np.ones((1, 3), np.float32)):
        if fn is rows_of_three and bad.shape[1] == 3:
            continue  # (1, 3) has rows of three
        with pytest.raises(Exception, match="ensure_shape"):
            run_model(model, [bad])
        with pytest.raises(InvalidArgumentError, match="not compatible with the expected shape"):
            exported(bad)


def integer_and_float_math(i, j, x):
    return (rt.math.truncatemod(i, j), rt.math.truncatemod(x, 0.75), left_shift(i, j),
            right_shift(i, j), right_shift(rt.cast(i, rt.uint8), rt.cast(j, rt.uint8)),
            rt.math.cumulative_logsumexp(x), rt.math.cumulative_logsumexp(x, exclusive=True),
            rt.math.cumulative_logsumexp(x, reverse=True, exclusive=True))


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_truncatemod_shifts_and_cumulative_logsumexp_in_jax(dtype):
    i = np.array([7, -7, 16, -1, 5, 200], dtype)
    j = np.array([3, 2, 40, 31, -1, 3], dtype)
    x = np.array([-1000.0, 0.5, -2.0, 3.0, 0.0, 1.0], np.float64)
    concrete = rt.function(integer_and_float_math).get_concrete_function(i, j, x)
    expected = [leaf.numpy() for leaf in concrete(i, j, x)]
    actual = [np.asarray(leaf) for leaf in jax.jit(rt.export.jax(concrete))(i, j, x)]
    for e, a in zip(expected, actual):
        assert e.dtype == a.dtype
        np.testing.assert_allclose(a, e, rtol=1e-12)


@pytest.mark.parametrize("op", [py_function, numpy_function])
def test_python_functions_are_refused_by_both_exporters(op):
    concrete = rt.function(lambda x: op(lambda v: v, [x], rt.float32) + 1.0
                           ).get_concrete_function(rt.TensorSpec([2]))
    with pytest.raises(ExportError, match=f"{op.__name__} .* calls a Python function"):
        onnx_export.export(concrete, None)
    with pytest.raises(ExportError, match=f"cannot export {op.__name__} .* Python function"):
        rt.export.jax(concrete)
