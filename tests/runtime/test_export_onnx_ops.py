"""Every op either exports or is listed with its reason; each exported op gives the graph's
results in ONNX Runtime on the edge values where NumPy and ONNX differ (integer division by 0
and -1, wrap-around, NaN, -0.0, infinities), in int32, int64, float32 and float64."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("onnxruntime")

import runtime as rt  # noqa: E402
from runtime.export import onnx_table  # noqa: E402
from runtime.export.onnx_export import export  # noqa: E402
from runtime.ops.registry import all_ops  # noqa: E402
from tests.runtime.test_export_onnx_harness import (assert_close, export_and_compare,  # noqa: E402
                                                    graph_results, run_model, spec_of)


def test_every_registered_op_exports_or_is_listed_with_a_reason():
    exported = set(onnx_table.RULES) | set(onnx_table.LOWERED)
    refused = set(onnx_table.NOT_EXPORTED)
    assert not exported & refused, sorted(op.name for op in exported & refused)
    missing = [op.name for op in all_ops().values() if op not in exported | refused]
    assert not missing, f"ops neither exported nor listed in onnx_table.NOT_EXPORTED: {missing}"
    for op, reason in onnx_table.NOT_EXPORTED.items():
        assert len(reason) > 30 and reason[0].islower(), (op.name, reason)
    assert list(onnx_table.not_exported()) == sorted(op.name for op in refused)


def _check(fn, *arrays):
    concrete = rt.function(fn).get_concrete_function(*[spec_of(a) for a in arrays])
    return export_and_compare(concrete, *arrays)


INT_EDGES = {
    np.int32: (np.array([7, -7, 7, -7, 0, -2**31, 2**31 - 1, 5, -1, 2**31 - 1, 6], np.int32),
               np.array([2, 2, -2, -2, 3, -1, -1, 0, 0, 2, -4], np.int32)),
    np.int64: (np.array([7, -7, 7, -7, 0, -2**63, 2**63 - 1, 5, -1, 2**62, 6], np.int64),
               np.array([2, 2, -2, -2, 3, -1, -1, 0, 0, 4, -4], np.int64)),
}
FLOAT_X = [7.5, -7.5, 7.5, -7.5, 0.0, -0.0, np.inf, np.nan, 1.0, 5.0, 1e-30, -3.0, 6.0, -np.inf]
FLOAT_Y = [2.0, 2.0, -2.0, -2.0, 3.0, 3.0, 2.0, 1.0, 0.0, -0.0, 3.0, 0.0, 0.1, np.inf]
FLOAT_EDGES = {t: (np.array(FLOAT_X, t), np.array(FLOAT_Y, t)) for t in (np.float32, np.float64)}
EDGES = {**INT_EDGES, **FLOAT_EDGES}
BINARY = {
    "add": rt.add, "subtract": rt.subtract, "multiply": rt.multiply, "divide": rt.divide,
    "floordiv": rt.floordiv, "mod": rt.mod, "maximum": rt.maximum, "minimum": rt.minimum,
    "equal": rt.equal, "not_equal": rt.not_equal, "greater": rt.greater,
    "greater_equal": rt.greater_equal, "less": rt.less, "less_equal": rt.less_equal,
    "logical_and": rt.logical_and, "logical_or": rt.logical_or,
}


@pytest.mark.parametrize("dtype", list(EDGES), ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_ops_on_edge_values(name, dtype):
    x, y = EDGES[dtype]
    _check(BINARY[name], x, y)


@pytest.mark.parametrize("dtype", list(INT_EDGES), ids=lambda t: np.dtype(t).name)
def test_integer_only_ops(dtype):
    x, y = INT_EDGES[dtype]
    _check(lambda a, b: (a & b, a | b, a ^ b, ~a, -a, rt.abs(a), rt.sign(a), rt.square(a)), x, y)
    _check(lambda a: (a // 3, a % 3, a // -3, a % -3, a ** 3, a ** 0), x)


@pytest.mark.parametrize("dtype", [np.int32, np.int64], ids=["int32", "int64"])
def test_integer_powers_wrap_around_and_refuse_negative_exponents(dtype):
    import onnxruntime as ort
    base = np.array([3, -2, 7, 0, 1, -1], dtype)
    exponent = np.array([40, 31, 0, 5, 1000, 7], dtype)
    model = _check(rt.pow, base, exponent)
    with pytest.raises(ort.capi.onnxruntime_pybind11_state.InvalidArgument,
                       match="negative integer powers"):
        run_model(model, [base, np.array([1, 2, -1, 1, 1, 1], dtype)])


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
def test_float_unary_ops(dtype):
    x = np.array([0.5, -2.25, 3.0, 1e-8, -1e-9, 80.0, -0.0, np.inf, -np.inf, np.nan, 2.5, -0.5],
                 dtype)
    positive = np.abs(x) + dtype(1e-3)
    _check(lambda a: (-a, rt.abs(a), rt.sign(a), rt.exp(a), rt.square(a), rt.sin(a), rt.cos(a),
                      rt.tanh(a), rt.floor(a), rt.ceil(a), rt.round(a), rt.sigmoid(a),
                      rt.logical_not(a)), x)
    _check(lambda a: (rt.log(a), rt.log1p(a), rt.sqrt(a), rt.tan(a), a ** 0.5, a ** a,
                      rt.math.rsqrt(a)), positive)
    _check(lambda a: rt.math.reciprocal(a), x)
    _check(lambda a: rt.log1p(a), np.array([1e-10, -1e-12, -1.0, 1e30, np.inf, 0.0], dtype))


@pytest.mark.parametrize("dtype", list(EDGES), ids=lambda t: np.dtype(t).name)
def test_reductions(dtype):
    x = EDGES[dtype][0][:10].reshape(2, 5)
    _check(lambda a: (rt.reduce_sum(a), rt.reduce_sum(a, 1), rt.reduce_sum(a, 0, keepdims=True),
                      rt.reduce_max(a, 1), rt.reduce_min(a, 0), rt.reduce_max(a),
                      rt.reduce_prod(a, 1), rt.reduce_any(a, 1), rt.reduce_all(a),
                      rt.argmax(a, 1), rt.argmin(a, 0), rt.reduce_sum(a, ())), x)
    if np.dtype(dtype).kind == "f":
        finite = np.nan_to_num(x, posinf=9.0, neginf=-9.0, nan=1.0)
        _check(lambda a: (rt.reduce_mean(a, 1), rt.reduce_logsumexp(a, 1),
                          rt.reduce_logsumexp(a, keepdims=True)), x)
        _check(lambda a: rt.reduce_prod(a, 0), finite)
    else:
        _check(lambda a: (rt.reduce_mean(a, 1), rt.reduce_mean(a)), x)


def test_integer_sums_and_products_wrap_around():
    _check(lambda a: (rt.reduce_sum(a), rt.reduce_prod(a)),
           np.array([2**31 - 1, 2**31 - 1, 2**31 - 1, 3], np.int32))
    _check(lambda a: (rt.reduce_sum(a), rt.reduce_prod(a), rt.reduce_mean(a)),
           np.array([2**63 - 1, 2**62, -5, 2**40], np.int64))


def test_neural_network_ops():
    logits = np.array([[2.0, -1.0, 0.5], [100.0, -100.0, 0.0]], np.float32)
    labels = np.array([[0.2, 0.3, 0.5], [1.0, 0.0, 0.0]], np.float32)
    _check(lambda x, z: (rt.nn.relu(x), rt.nn.softmax(x), rt.nn.log_softmax(x, axis=0),
                         rt.nn.softplus(x), rt.nn.leaky_relu(x, 0.1), rt.nn.l2_loss(x),
                         rt.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x),
                         rt.nn.softmax_cross_entropy_with_logits(z, x)), logits, labels)
    _check(lambda x, i: rt.nn.sparse_softmax_cross_entropy_with_logits(labels=i, logits=x),
           logits, np.array([2, 0], np.int32))
    _check(lambda x: rt.nn.relu(x), np.array([-3, 4], np.int32))


def test_array_ops():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    _check(lambda a: (rt.reshape(a, [4, -1]), rt.transpose(a), rt.transpose(a, [1, 0, 2]),
                      rt.concat([a, a], 1), rt.stack([a, a], -1), rt.unstack(a, axis=1)[2],
                      rt.squeeze(rt.expand_dims(a, 0)), rt.gather(a, [2, 3, 0], axis=2),
                      rt.where(a > 5, a, -a), rt.clip_by_value(a, 2.0, 9.5),
                      rt.cast(-a / 7, rt.int32), rt.eye(3, 4), rt.range(5, -7, -3),
                      rt.range(0.5, 2.0, 0.25), rt.broadcast_to(a[0, :, :1], [2, 3, 5]),
                      rt.matmul(a, rt.transpose(a, [0, 2, 1])), rt.matmul(a[0, 0], a[0, 0]),
                      rt.where(a > 20), rt.zeros_like(a), rt.identity(a)), x)
    _check(lambda a, b: rt.matmul(a, b), np.full((2, 3), 100, np.int8), np.full((3, 2), 9, np.int8))


def test_shapes_stay_symbolic_through_shape_ops():
    def fn(a):
        return (rt.shape(a), rt.size(a), rt.rank(a), rt.zeros_like(a), rt.reshape(a, [-1]),
                rt.fill(rt.shape(a), 2.0), rt.ones([rt.shape(a)[0], 2]))
    concrete = rt.function(fn).get_concrete_function(rt.TensorSpec([None, 3], rt.float32))
    model = export(concrete, None)
    for rows in (0, 2, 5):
        a = np.ones((rows, 3), np.float32)
        assert_close(run_model(model, [a]), graph_results(concrete, (a,)))


def test_checked_cast_fails_in_the_model_when_a_value_does_not_fit():
    import onnxruntime as ort
    from runtime.ops.array_ops import checked_cast
    model = _check(lambda a: checked_cast(a, rt.int32), np.array([2.9, -3.7, 2e9], np.float64))
    with pytest.raises(ort.capi.onnxruntime_pybind11_state.InvalidArgument,
                       match="does not fit in int32"):
        run_model(model, [np.array([1.0, 3e9, 0.0])])


KEYS = {
    "slices": lambda a, i, n: (a[1:], a[::-2], a[:, -1:0:-1], a[..., 1], a[None, 0, ..., None]),
    "tensor bounds": lambda a, i, n: (a[n:], a[:, :n], a[i[0]], a[-n]),
    "tensor index": lambda a, i, n: (a[i], a[:, i], a[:, :, i], a[0, :, i], a[i, 1]),
    "mask": lambda a, i, n: (a[a > 10], a[:, a[0, :, 0] > 3], a[a[:, 0, 0] > 3]),
}


@pytest.mark.parametrize("key", sorted(KEYS))
def test_indexing(key):
    a = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    _check(KEYS[key], a, np.array([2, 0, -1, 2], np.int64), np.array(2, np.int32))


@pytest.mark.parametrize("key", sorted(KEYS))
def test_indexing_gradients_scatter_into_zeros(key):
    def gradients(a, i, n):
        with rt.GradientTape() as tape:
            tape.watch(a)
            total = sum(rt.reduce_sum(part * part) for part in KEYS[key](a, i, n))
        return tape.gradient(total, a)

    a = np.arange(60, dtype=np.float64).reshape(3, 4, 5) / 7
    _check(gradients, a, np.array([2, 0, -1, 2], np.int64), np.array(2, np.int32))


def test_gradients_with_dynamic_shapes():
    def gradients(x, y):
        with rt.GradientTape() as tape:
            tape.watch([x, y])
            loss = rt.reduce_mean(rt.square(x * y + x)) + rt.reduce_max(rt.nn.softmax(x * y))
        return tape.gradient(loss, [x, y])

    concrete = rt.function(gradients).get_concrete_function(
        rt.TensorSpec([None, 3], rt.float32), rt.TensorSpec([3], rt.float32))
    model = export(concrete, None)
    for rows in (1, 4):
        x = np.linspace(-1, 1, rows * 3).astype(np.float32).reshape(rows, 3)
        y = np.array([0.5, -1.0, 2.0], np.float32)
        assert_close(run_model(model, [x, y]), graph_results(concrete, (x, y)))


def test_tensor_arrays():
    def arrays(x, n):
        fixed = rt.TensorArray(rt.float32, size=3, element_shape=[2])
        for i in range(3):
            fixed = fixed.write(i, x * float(i))
        grown = rt.TensorArray(rt.float32, size=0, dynamic_size=True, element_shape=[2])
        grown = rt.while_loop(lambda k, a: k < n, lambda k, a: (k + 1, a.write(k, x + 1.0)),
                              (0, grown))[1]
        unstacked = rt.TensorArray(rt.float32, size=2).unstack(rt.reshape(x, [2, 1]))
        return (fixed.stack(), fixed.read(1), fixed.gather([2, 0]), fixed.concat(),
                grown.stack(), grown.size(), unstacked.read(1))

    x = np.array([1.5, -2.0], np.float32)
    fn = rt.function(arrays).get_concrete_function(spec_of(x), rt.TensorSpec([], rt.int32))
    model = export(fn, None)
    for n in (0, 1, 5):
        assert_close(run_model(model, [x, np.array(n, np.int32)]),
                     graph_results(fn, (x, np.array(n, np.int32))))


def test_out_of_bounds_tensor_array_reads_fail_in_the_model():
    import onnxruntime as ort

    def read(x, i):
        return rt.TensorArray(rt.float32, size=2).unstack(x).read(i)

    model = _check(read, np.array([1.0, 2.0], np.float32), np.array(1, np.int32))
    with pytest.raises(ort.capi.onnxruntime_pybind11_state.InvalidArgument,
                       match="out of bounds"):
        run_model(model, [np.array([1.0, 2.0], np.float32), np.array(2, np.int32)])


def test_gradients_through_loops_with_a_tensor_trip_count():
    def gradient(x, n):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = rt.while_loop(lambda k, v: k < n, lambda k, v: (k + 1, rt.sin(v) * v),
                              (0, x))[1]
            loss = rt.reduce_sum(y * y)
        return loss, tape.gradient(loss, x)

    x = np.array([0.5, -1.25, 2.0], np.float64)
    fn = rt.function(gradient).get_concrete_function(spec_of(x), rt.TensorSpec([], rt.int32))
    model = export(fn, None)
    for n in (0, 1, 4):
        assert_close(run_model(model, [x, np.array(n, np.int32)]),
                     graph_results(fn, (x, np.array(n, np.int32))))


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
def test_gradients_of_products_with_zeros(dtype):
    def gradient(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            loss = rt.reduce_sum(rt.reduce_prod(x, 1)) + rt.reduce_prod(x)
        return tape.gradient(loss, x)

    _check(gradient, np.array([[2.0, 0.0, 3.0], [1.5, -2.0, 4.0]], dtype))
