"""rt.export.onnx for convolutions, pools, their gradients, einsum and determinants: each gives
the graph's results in ONNX Runtime (floats to 1e-5 of the largest magnitude; accumulation
order differs), with TensorFlow's SAME padding (odd totals), strides and dilations, in float32
(ONNX's Conv, ConvTranspose, MaxPool, AveragePool) and float64 (composed from slices), with
symbolic dimensions where ONNX takes them; the linear algebra ONNX lacks is refused saying
what is missing."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("onnxruntime")

import runtime as rt  # noqa: E402
from runtime.errors import ExportError  # noqa: E402
from runtime.export import onnx_table  # noqa: E402
from runtime.export.onnx_export import export  # noqa: E402
from runtime.ops import decompositions_ops  # noqa: E402
from tests.runtime.test_export_onnx_harness import (assert_close, export_and_compare,  # noqa: E402
                                                    graph_results, op_types, run_model, spec_of)

FLOATS = [np.float32, np.float64]
RNG = np.random.RandomState(7)


def _check(fn, *arrays, specs=None):
    concrete = rt.function(fn).get_concrete_function(*(specs or [spec_of(a) for a in arrays]))
    return export_and_compare(concrete, *arrays)


def _random(*shape, dtype=np.float32):
    return RNG.randn(*shape).astype(dtype)


def convolutions(x, f, g, v, k):
    """SAME with odd totals (7 rows, 6 columns; 3x2 filters), strides, dilations, VALID, a
    1x1 filter, conv1d (a conv2d over a height of 1) and both pools."""
    return (rt.nn.conv2d(x, f, 1, "SAME"), rt.nn.conv2d(x, f, (2, 3), "SAME"),
            rt.nn.conv2d(x, f, 1, "SAME", dilations=(2, 3)), rt.nn.conv2d(x, f, (3, 2), "VALID"),
            rt.nn.conv2d(x, g, 2, "VALID"), rt.nn.conv1d(v, k, 2, "SAME"),
            rt.nn.max_pool2d(x, (3, 2), (2, 2), "SAME"), rt.nn.max_pool2d(x, 2, 3, "VALID"),
            rt.nn.avg_pool2d(x, (3, 2), (2, 1), "SAME"), rt.nn.avg_pool2d(x, 3, (1, 2), "VALID"))


def _conv_args(dtype):
    return (_random(2, 7, 6, 3, dtype=dtype), _random(3, 2, 3, 4, dtype=dtype),
            _random(1, 1, 3, 2, dtype=dtype), _random(2, 9, 3, dtype=dtype),
            _random(3, 3, 2, dtype=dtype))


@pytest.mark.parametrize("dtype", FLOATS, ids=["float32", "float64"])
def test_convolutions_and_pools(dtype):
    model = _check(convolutions, *_conv_args(dtype))
    native = {"Conv", "MaxPool", "AveragePool"}
    assert native <= op_types(model) if dtype == np.float32 else "Conv" not in op_types(model)


def _gradients(x, f):
    with rt.GradientTape() as tape:
        tape.watch([x, f])
        # (2, 3) VALID leaves the last column unread: ConvTranspose's output_padding.
        losses = [rt.nn.conv2d(x, f, (2, 1), "SAME"), rt.nn.conv2d(x, f, (2, 3), "VALID"),
                  rt.nn.conv2d(x, f, 1, "VALID", dilations=(1, 2)),
                  rt.nn.max_pool2d(x, (3, 2), (2, 3), "SAME"), rt.nn.max_pool2d(x, 2, 1, "VALID"),
                  rt.nn.avg_pool2d(x, (3, 2), (2, 3), "SAME"), rt.nn.avg_pool2d(x, 2, 2, "VALID")]
        loss = sum(rt.reduce_sum(part * part * (i + 1.0)) for i, part in enumerate(losses))
    return tape.gradient(loss, [x, f])


@pytest.mark.parametrize("dtype", FLOATS, ids=["float32", "float64"])
def test_gradients_of_convolutions_and_pools(dtype):
    x, f = _random(2, 7, 6, 3, dtype=dtype), _random(3, 2, 3, 4, dtype=dtype)
    model = _check(_gradients, x, f, specs=[rt.TensorSpec([None, 7, 6, 3], dtype), spec_of(f)])
    assert {"ScatterElements"} <= op_types(model)
    if dtype == np.float32:
        assert {"ConvTranspose", "Conv"} <= op_types(model)


def test_symbolic_height_and_width_use_same_upper_padding():
    f = _random(3, 2, 3, 4)

    def fn(x):
        return (rt.nn.conv2d(x, f, (2, 3), "SAME"), rt.nn.max_pool2d(x, (3, 2), (2, 3), "SAME"),
                rt.nn.avg_pool2d(x, 3, 2, "SAME"), rt.nn.conv2d(x, f, 1, "VALID"))
    concrete = rt.function(fn).get_concrete_function(rt.TensorSpec([None, None, None, 3],
                                                                    rt.float32))
    model = export(concrete, None)
    for shape in [(1, 7, 6, 3), (3, 4, 9, 3), (2, 3, 2, 3)]:
        x = _random(*shape)
        assert_close(run_model(model, [x]), graph_results(concrete, (x,)))


def test_max_pools_keep_nan_and_minus_infinity_and_send_gradients_to_the_first_maximum():
    x = np.array([[1.0, np.nan, 2.0, 2.0], [3.0, 0.5, 2.0, 1.0],
                  [-np.inf, -np.inf, np.nan, 5.0], [-np.inf, -np.inf, np.nan, np.inf]],
                 np.float32).reshape(1, 4, 4, 1)

    def fn(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = rt.nn.max_pool2d(x, 2, 2, "VALID") + rt.nn.max_pool2d(x, 3, 1, "SAME")[:, ::2, ::2]
            loss = rt.reduce_sum(y * 3.0)
        return y, tape.gradient(loss, x)
    model = _check(fn, x)
    pooled, grad = (result[0, :, :, 0] for result in run_model(model, [x]))
    assert np.isnan(pooled[0, 0]) and pooled[1, 0] == -np.inf
    assert grad[0, 1] == 9.0 and grad[0, 0] == 0.0  # the first NaN of the three windows over it


@pytest.mark.parametrize("dtype", [np.int32, np.uint8], ids=["int32", "uint8"])
def test_integer_max_pools_are_exact(dtype):
    info = np.iinfo(dtype)
    x = RNG.randint(info.min, info.max, size=(2, 5, 5, 2), dtype=np.int64).astype(dtype)
    _check(lambda a: (rt.nn.max_pool2d(a, 2, 2, "SAME"), rt.nn.max_pool2d(a, 3, 1, "VALID")), x)


def test_what_the_float64_compositions_need_is_said():
    f = np.ones((2, 2, 3, 4), np.float64)
    unknown = rt.TensorSpec([None, None, None, 3], rt.float64)
    for fn, why in [(lambda x: rt.nn.conv2d(x, f, 1, "SAME"), "no float64 Conv kernel"),
                    (lambda x: rt.nn.avg_pool2d(x, 2, 1, "VALID"), "no float64 AveragePool"),
                    (lambda x: rt.nn.conv2d(rt.cast(x, rt.float32), rt.cast(f, rt.float32), 1,
                                            "SAME", dilations=2), "refuses dilations"),
                    (lambda x: rt.nn.avg_pool2d(rt.cast(x, rt.float32), 2, 3, "SAME"),
                     "negative padding")]:
        concrete = rt.function(fn).get_concrete_function(unknown)
        with pytest.raises(ExportError, match=rf"created at test_export_onnx_nn_linalg\.py:\d+\)"
                                              rf" cannot be exported to ONNX: .*{why}.*height and "
                                              rf"width of its input must be known"):
            export(concrete, None)


def test_a_small_cnn_exports_with_a_symbolic_batch():
    filters, weights = _random(3, 3, 1, 4) * 0.5, _random(16, 3) * 0.3

    def cnn(images):
        hidden = rt.nn.max_pool2d(rt.nn.relu(rt.nn.conv2d(images, filters, 1, "SAME")), 2, 2,
                                  "SAME")
        return rt.nn.softmax(rt.matmul(rt.reshape(hidden, [-1, 16]), weights))
    concrete = rt.function(cnn).get_concrete_function(rt.TensorSpec([None, 4, 4, 1], rt.float32))
    model = export(concrete, None)
    assert model.graph.input[0].type.tensor_type.shape.dim[0].dim_param
    for batch in (1, 5):
        images = _random(batch, 4, 4, 1)
        assert_close(run_model(model, [images]), graph_results(concrete, (images,)))


# -- einsum and determinants ------------------------------------------------------------------


def _einsums(a, b, v, square):
    return (rt.einsum("bij,jk->bik", a, b), rt.einsum("...j,jk", a, b), rt.einsum("ii->i", square),
            rt.einsum("ii", square), rt.einsum("bij->jb", a), rt.einsum("i,j->ij", v, v),
            rt.einsum("bij,i,jk->bk", a, v, b), rt.tensordot(a, b, 1))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int8, np.bool_],
                         ids=["float32", "float64", "int32", "int8", "bool"])
def test_einsum(dtype):
    values = [RNG.randn(*shape) * 40 for shape in ((2, 3, 4), (4, 5), (3,), (3, 3))]
    _check(_einsums, *[(v > 0) if dtype == np.bool_ else v.astype(dtype) for v in values])


def test_einsum_with_a_symbolic_batch():
    b = _random(4, 5, dtype=np.float64)
    concrete = rt.function(lambda a: rt.einsum("bij,jk->bki", a, b)).get_concrete_function(
        rt.TensorSpec([None, 3, 4], rt.float64))
    model = export(concrete, None)
    for batch in (0, 3):
        a = _random(batch, 3, 4, dtype=np.float64)
        assert_close(run_model(model, [a]), graph_results(concrete, (a,)))


def test_determinants_in_float32_and_the_float64_refusal():
    _check(lambda m: rt.linalg.det(m), _random(2, 3, 3) * 2)
    _check(lambda m: rt.linalg.det(m), np.array([[1.0, 2.0], [2.0, 4.0]], np.float32))
    concrete = rt.function(rt.linalg.det).get_concrete_function(rt.TensorSpec([3, 3], rt.float64))
    with pytest.raises(ExportError, match="Det computes float32 only.*cast the matrices"):
        export(concrete, None)


def test_linear_algebra_without_an_onnx_operator_is_refused_saying_what_onnx_lacks():
    d = decompositions_ops
    for op, lacks in [(d.INV, "no matrix inverse"), (d.SOLVE, "no linear solve"),
                      (d.SLOGDET, "only Det"), (d.CHOLESKY, "no matrix factorization"),
                      (d.SVD, "no matrix factorization"), (d.EIGH, "no matrix factorization")]:
        reason = onnx_table.NOT_EXPORTED[op]
        assert lacks in reason and "rt.export.jax" in reason, (op.name, reason)
    concrete = rt.function(rt.linalg.inv).get_concrete_function(rt.TensorSpec([3, 3], rt.float32))
    with pytest.raises(ExportError, match=r"matrix_inverse .* cannot be exported to ONNX: the "
                                          r"standard ONNX operators include no matrix inverse"):
        export(concrete, None)
