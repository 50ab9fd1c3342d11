"""ONNX for reductions, arg-reductions and the neural-network ops.

ONNX Runtime saturates integer sums and products where NumPy wraps around, and its
``ReduceMax``/``ReduceMin``/``ArgMax`` skip NaN where NumPy returns (the index of) the first
NaN; the rules add what gives NumPy's answers. Integer sums are exact in int64 (64-bit values
are split into two 32-bit halves, each summed exactly) and wrap when cast back.
"""

from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper

from runtime.errors import ExportError
from runtime.export.onnx_builder import Builder, compute_dtype, value_info
from runtime.export.onnx_rules_math import precise_log1p
from runtime.ops import nn_ops, reduce_ops as r


def reduce(b: Builder, op_type: str, x: str, axes, keepdims: bool) -> str:
    """``op_type`` over ``axes`` (None: all of them)."""
    inputs = [x] if axes is None else [x, b.int64s(axes)]
    return b.emit(op_type, inputs, keepdims=int(keepdims))


def _attrs(node):
    return node.attrs["axis"], node.attrs["keepdims"]


def exact_int_sum(b: Builder, x64: str, axes, keepdims: bool) -> str:
    """The int64 sum of int64 values, wrapping around like NumPy's."""
    low = b.emit("BitwiseAnd", [x64, b.scalar(0xFFFFFFFF, np.int64)])
    high = b.emit("Div", [b.emit("Sub", [x64, low]), b.scalar(1 << 32, np.int64)])
    return b.emit("Add", [b.emit("Mul", [reduce(b, "ReduceSum", high, axes, keepdims),
                                         b.scalar(1 << 32, np.int64)]),
                          reduce(b, "ReduceSum", low, axes, keepdims)])


def _reduce_sum(b: Builder, node, ins):
    x, out = node.inputs[0], node.outputs[0].dtype
    axes, keepdims = _attrs(node)
    if axes == ():  # NumPy reduces nothing; ONNX would reduce everything
        return [b.cast(ins[0], x.dtype, out)]
    if out.kind == "f":
        work = compute_dtype(out)
        return [b.cast(reduce(b, "ReduceSum", b.cast(ins[0], x.dtype, work), axes, keepdims),
                       work, out)]
    x64 = b.cast(ins[0], x.dtype, np.int64)
    if out.itemsize < 8:  # fewer than 2**32 terms of 32 bits cannot overflow int64
        return [b.cast(reduce(b, "ReduceSum", x64, axes, keepdims), np.int64, out)]
    return [b.cast(exact_int_sum(b, x64, axes, keepdims), np.int64, out)]


def _plain_reduction(b: Builder, node, ins, onnx_op: str) -> list | None:
    """A reduction over no axes (the input, cast), or a float one by ONNX's own op; None for
    the integer cases, whose wrap-around each rule writes itself."""
    x, out = node.inputs[0], node.outputs[0].dtype
    axes, keepdims = _attrs(node)
    if axes == ():
        return [b.cast(ins[0], x.dtype, out)]
    if out.kind != "f":
        return None
    work = compute_dtype(out)
    return [b.cast(reduce(b, onnx_op, b.cast(ins[0], x.dtype, work), axes, keepdims), work, out)]


def _reduce_prod(b: Builder, node, ins):
    return _plain_reduction(b, node, ins, "ReduceProd") or [_int_product(b, node, ins[0])]


def _int_product(b: Builder, node, x: str) -> str:
    """An integer product that wraps around: a ``Loop`` multiplying the reduced elements
    one at a time (``ReduceProd`` saturates)."""
    value, out = node.inputs[0], node.outputs[0].dtype
    work = np.dtype(np.int64) if out.itemsize == 8 else np.dtype(np.int32)
    rows, count, width, shape, _ = _rows_of(b, node, b.cast(x, value.dtype, work))
    total = _running_products(b, rows, count, width, work)[0]
    axes = node.attrs["axis"]
    rank = len(value.shape)
    reduced = rank if axes is None else len(axes)
    product = b.emit("Reshape", [total, b.emit("Slice", [shape, b.int64s([reduced]),
                                                          b.int64s([rank])])])
    if node.attrs["keepdims"]:
        product = b.emit("Unsqueeze", [product, b.int64s(range(rank) if axes is None else axes)])
    return b.cast(product, work, out)


def _rows_of(b: Builder, node, x: str):
    """``x`` with the reduced axes moved to the front and flattened into rows: ``(rows,
    row count, the moved tensor's shape, the permutation)``."""
    value = node.inputs[0]
    if value.shape is None:
        raise ExportError(f"{node.op.name} needs a tensor of known rank to be exported.")
    rank = len(value.shape)
    axes = node.attrs["axis"]
    axes = list(range(rank)) if axes is None else list(axes)
    perm = axes + [i for i in range(rank) if i not in axes]
    moved = b.emit("Transpose", [x], perm=perm)
    shape = b.emit("Shape", [moved])
    count = b.emit("ReduceProd", [b.emit("Slice", [shape, b.int64s([0]), b.int64s([len(axes)])])],
                   keepdims=0)
    width = b.emit("ReduceProd", [b.emit("Slice", [shape, b.int64s([len(axes)]),
                                                   b.int64s([rank])])], keepdims=1)
    rows = b.emit("Reshape", [moved, b.emit("Concat", [b.emit("Reshape", [count, b.int64s([1])]),
                                                       width], axis=0)])
    return rows, count, width, shape, perm


def _running_products(b: Builder, rows: str, count: str, width: str, dtype) -> list[str]:
    """The product of all rows, and the exclusive products: row ``i`` the product of rows
    ``0 .. i-1`` (a ``Loop`` multiplying in NumPy's order; its scan output is the running
    product before each multiplication)."""
    names = [b.fresh(f"{b.prefix}/prefix/{n}") for n in ("i", "cond", "acc")]
    with b.subgraph() as body:
        row = b.emit("Gather", [rows, names[0]], axis=0)
        outs = [b.emit("Identity", [names[1]]), b.emit("Mul", [names[2], row]),
                b.emit("Identity", [names[2]])]
    graph = helper.make_graph(
        body, b.fresh(f"{b.prefix}/prefix"),
        [value_info(names[0], np.int64, ()), value_info(names[1], np.bool_, ()),
         value_info(names[2], dtype, None)],
        [value_info(outs[0], np.bool_, None), value_info(outs[1], dtype, None),
         value_info(outs[2], dtype, None)])
    ones = b.emit("Expand", [b.scalar(1, dtype), width])
    return b.emit("Loop", [count, "", ones], outputs=2, body=graph)


def _reversed_rows(b: Builder, rows: str) -> str:
    return b.emit("Slice", [rows, b.int64s([-1]), b.int64s([np.iinfo(np.int64).min]),
                            b.int64s([0]), b.int64s([-1])])


def _product_of_others(b: Builder, node, ins):
    """Each element's share of ``reduce_prod``: exclusive products from both ends, without
    division (so zeros are exact), as the runtime's kernel computes them."""
    dtype = node.outputs[0].dtype
    work = compute_dtype(dtype) if dtype.kind == "f" else \
        (np.dtype(np.int64) if dtype.itemsize == 8 else np.dtype(np.int32))
    rows, count, width, shape, perm = _rows_of(b, node, b.cast(ins[0], dtype, work))
    before = _running_products(b, rows, count, width, work)[1]
    after = _reversed_rows(b, _running_products(b, _reversed_rows(b, rows), count, width, work)[1])
    product = b.emit("Reshape", [b.emit("Mul", [before, after]), shape])
    return [b.cast(b.emit("Transpose", [product], perm=[int(p) for p in np.argsort(perm)]),
                   work, dtype)]


def _extremum(op_type: str):
    def rule(b: Builder, node, ins):
        x, out = node.inputs[0], node.outputs[0].dtype
        axes, keepdims = _attrs(node)
        if axes == ():
            return [b.cast(ins[0], x.dtype, out)]
        work = np.dtype(np.int32) if x.dtype == np.bool_ else compute_dtype(x.dtype)
        value = b.cast(ins[0], x.dtype, work)
        result = reduce(b, op_type, value, axes, keepdims)
        if work.kind == "f":  # NumPy's extremum of a slice holding NaN is NaN
            nans = b.emit("Cast", [b.emit("IsNaN", [value])], to=TensorProto.INT32)
            has_nan = b.emit("Greater", [reduce(b, "ReduceMax", nans, axes, keepdims),
                                         b.scalar(0, np.int32)])
            result = b.emit("Where", [has_nan, b.scalar(np.nan, work), result])
        return [b.cast(result, work, out)]
    return rule


def _reduce_mean(b: Builder, node, ins):
    plain = _plain_reduction(b, node, ins, "ReduceMean")
    if plain is not None:
        return plain
    x, out = node.inputs[0], node.outputs[0].dtype
    axes, keepdims = _attrs(node)
    if out.kind not in "iu":
        raise ExportError(f"reduce_mean of {out.name} tensors has no ONNX equivalent.")
    # The integer mean truncates toward zero (TensorFlow's rule): sign(sum) * (|sum| // count).
    x64 = b.cast(ins[0], x.dtype, np.int64)
    total = exact_int_sum(b, x64, axes, keepdims)
    count = b.emit("Div", [b.emit("Size", [x64]),
                           b.emit("Max", [b.emit("Size", [total]), b.scalar(1, np.int64)])])
    mean = b.emit("Mul", [b.emit("Sign", [total]), b.emit("Div", [b.emit("Abs", [total]), count])])
    return [b.cast(mean, np.int64, out)]


def _reduce_logsumexp(b: Builder, node, ins):
    """Shifted by the largest value (0 where it is not finite), as the runtime's kernel."""
    axes, keepdims = _attrs(node)
    if axes == ():
        return [b.emit("Identity", ins[:1])]
    dtype = node.outputs[0].dtype
    work = compute_dtype(dtype)
    x = b.cast(ins[0], node.inputs[0].dtype, work)
    peak = reduce(b, "ReduceMax", x, axes, True)
    finite = b.emit("Not", [b.emit("Or", [b.emit("IsInf", [peak]), b.emit("IsNaN", [peak])])])
    peak = b.emit("Where", [finite, peak, b.scalar(0, work)])
    total = b.emit("Log", [reduce(b, "ReduceSum", b.emit("Exp", [b.emit("Sub", [x, peak])]),
                                  axes, keepdims)])
    if not keepdims:
        peak = reduce(b, "ReduceMax", peak, axes, False)  # drops the size-1 axes
    return [b.cast(b.emit("Add", [total, peak]), work, dtype)]


def _truth(b: Builder, node, ins) -> str:
    return b.cast(ins[0], node.inputs[0].dtype, np.bool_)


def _reduce_any(b: Builder, node, ins):
    axes, keepdims = _attrs(node)
    if axes == ():
        return [_truth(b, node, ins)]
    hits = b.emit("Cast", [_truth(b, node, ins)], to=TensorProto.INT64)
    return [b.emit("Greater", [reduce(b, "ReduceSum", hits, axes, keepdims),
                               b.scalar(0, np.int64)])]


def _reduce_all(b: Builder, node, ins):
    axes, keepdims = _attrs(node)
    if axes == ():
        return [_truth(b, node, ins)]
    misses = b.emit("Cast", [b.emit("Not", [_truth(b, node, ins)])], to=TensorProto.INT64)
    return [b.emit("Equal", [reduce(b, "ReduceSum", misses, axes, keepdims),
                             b.scalar(0, np.int64)])]


def _arg(op_type: str):
    def rule(b: Builder, node, ins):
        x, axis = node.inputs[0], node.attrs["axis"]
        work = np.dtype(np.int32) if x.dtype == np.bool_ else compute_dtype(x.dtype)
        value = b.cast(ins[0], x.dtype, work)
        index = b.emit(op_type, [value], axis=axis, keepdims=0)
        if work.kind == "f":  # NumPy: the first NaN wins
            nans = b.emit("Cast", [b.emit("IsNaN", [value])], to=TensorProto.INT32)
            has_nan = b.emit("Greater", [b.emit("ReduceMax", [nans, b.int64s([axis])], keepdims=0),
                                         b.scalar(0, np.int32)])
            first_nan = b.emit("ArgMax", [nans], axis=axis, keepdims=0)
            index = b.emit("Where", [has_nan, first_nan, index])
        return [b.cast(index, np.int64, node.attrs["output_type"])]
    return rule


# -- neural-network ops ---------------------------------------------------------------------


def _float_rule(build):
    """A rule computing ``build(b, node, x, dtype)`` on the first input, float16 widened."""
    def rule(b: Builder, node, ins):
        out = node.outputs[0].dtype
        work = compute_dtype(out)
        operands = [b.cast(n, v.dtype, work) if v.dtype.kind == "f" else n
                    for n, v in zip(ins, node.inputs)]
        return [b.cast(build(b, node, operands, work), work, out)]
    return rule


def _relu(b: Builder, node, ins):
    dtype = node.outputs[0].dtype
    work = compute_dtype(dtype)
    x = b.cast(ins[0], dtype, work)
    return [b.cast(b.emit("Max", [x, b.scalar(0, work)]), work, dtype)]


def _softplus(b: Builder, node, x, dtype):
    """``log(exp(x) + 1)`` as ``max(x, 0) + log1p(exp(-|x|))``: no overflow."""
    tail = precise_log1p(b, b.emit("Exp", [b.emit("Neg", [b.emit("Abs", [x[0]])])]), dtype)
    return b.emit("Add", [b.emit("Max", [x[0], b.scalar(0, dtype)]), tail])


def _leaky_relu(b: Builder, node, x, dtype):
    scaled = b.emit("Mul", [x[0], b.scalar(node.attrs["alpha"], dtype)])
    return b.emit("Where", [b.emit("Greater", [x[0], b.scalar(0, dtype)]), x[0], scaled])


def _sigmoid_xent(b: Builder, node, ins, dtype):
    labels, logits = ins
    zero = b.scalar(0, dtype)
    positive = b.emit("GreaterOrEqual", [logits, zero])
    negated = b.emit("Neg", [logits])
    tail = precise_log1p(b, b.emit("Exp", [b.emit("Where", [positive, negated, logits])]), dtype)
    head = b.emit("Sub", [b.emit("Where", [positive, logits, zero]),
                          b.emit("Mul", [logits, labels])])
    return b.emit("Add", [head, tail])


def _softmax_xent(b: Builder, node, ins, dtype):
    labels, logits = ins
    axis = node.attrs["axis"]
    log_probs = b.emit("LogSoftmax", [logits], axis=axis)
    return b.emit("ReduceSum", [b.emit("Mul", [labels, b.emit("Neg", [log_probs])]),
                                b.int64s([axis])], keepdims=0)


def _sparse_xent(b: Builder, node, ins, dtype):
    """Labels outside ``[0, classes)`` make the model fail, as the runtime's kernel raises:
    negative ones are moved out of range, which ``GatherElements`` refuses."""
    labels, logits = ins
    labels = b.cast(labels, node.inputs[0].dtype, np.int64)
    classes = b.emit("Gather", [b.emit("Shape", [logits]), b.scalar(-1, np.int64)])
    labels = b.emit("Where", [b.emit("Less", [labels, b.scalar(0, np.int64)]), classes, labels])
    log_probs = b.emit("LogSoftmax", [logits], axis=-1)
    picked = b.emit("GatherElements", [log_probs, b.emit("Unsqueeze", [labels, b.int64s([-1])])],
                    axis=-1)
    return b.emit("Neg", [b.emit("Squeeze", [picked, b.int64s([-1])])])


def _axis_op(op_type: str):
    def build(b: Builder, node, x, dtype):
        return b.emit(op_type, x, axis=node.attrs["axis"])
    return _float_rule(build)


RULES = {
    r.REDUCE_SUM: _reduce_sum,
    r.REDUCE_PROD: _reduce_prod,
    r.PRODUCT_OF_OTHERS: _product_of_others,
    r.REDUCE_MAX: _extremum("ReduceMax"),
    r.REDUCE_MIN: _extremum("ReduceMin"),
    r.REDUCE_MEAN: _reduce_mean,
    r.REDUCE_LOGSUMEXP: _reduce_logsumexp,
    r.REDUCE_ANY: _reduce_any,
    r.REDUCE_ALL: _reduce_all,
    r.ARGMAX: _arg("ArgMax"),
    r.ARGMIN: _arg("ArgMin"),
    nn_ops.RELU: _relu,
    nn_ops.SOFTMAX: _axis_op("Softmax"),
    nn_ops.LOG_SOFTMAX: _axis_op("LogSoftmax"),
    nn_ops.SOFTPLUS: _float_rule(_softplus),
    nn_ops.LEAKY_RELU: _float_rule(_leaky_relu),
    nn_ops.SIGMOID_XENT: _float_rule(_sigmoid_xent),
    nn_ops.SOFTMAX_XENT: _float_rule(_softmax_xent),
    nn_ops.SPARSE_SOFTMAX_XENT: _float_rule(_sparse_xent),
}
