"""ONNX for convolutions, pools and their gradients, in the graph's NHWC layout.

ONNX's ``Conv``, ``ConvTranspose``, ``MaxPool`` and ``AveragePool`` are NCHW (filters OIHW),
so the rules transpose around them. Padding is TensorFlow's: explicit ``pads`` computed from
the shapes known while tracing (an odd SAME total puts the extra element after, as the
kernels' ``conv_ops.pads`` does), or ``auto_pad="SAME_UPPER"``, which is the same rule, when
the height or width is unknown. An average pool divides by the real elements of each window
(``count_include_pad=0``).

ONNX Runtime has ``Conv``, ``ConvTranspose`` and ``AveragePool`` kernels for float32 only
(float16 computes in float32). In float64 the rules compose the same results from ``Slice``,
``Concat`` and ``MatMul`` over the taps of each window (which needs the height and width known
while tracing): a convolution is one matrix product of the stacked taps with the flattened
filters, the transposed convolutions spread the output gradient back with the taps in
reverse.

``MaxPool`` skips a NaN after the first element of a window and, without its ``Indices``
output, reports -FLT_MAX for a window of -inf; the rules ask for the indices and pool
``IsNaN`` beside the values, so a window holding NaN is NaN (NumPy's ``max``) and its gradient
goes to the first NaN (NumPy's ``argmax``). A VALID window longer than its input, an empty
result in the graph, is an error in ONNX Runtime ("Invalid input shape").

A rule is ``rule(builder, node, inputs) -> output names``, as in ``onnx_rules_math``.
"""

from __future__ import annotations

import numpy as np
from onnx import numpy_helper

from runtime.errors import ExportError
from runtime.export.onnx_builder import Builder, compute_dtype, onnx_type
from runtime.export.window_geometry import (output_hw, spatial_pads, unread_tail,
                                            window_counts)
from runtime.ops import conv_ops, pool_ops

_NCHW, _NHWC = [0, 3, 1, 2], [0, 2, 3, 1]
_OIHW = [3, 2, 0, 1]  # HWIO filters for Conv; also ConvTranspose's [in, out, h, w] from dy to x
_CHANNELS_FIRST = [3, 0, 1, 2]  # NHWC -> CNHW: the batch as channels, to convolve over it
_ONES = (1, 1)
_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
# MaxPool has float and 8-bit kernels; these integers pool exactly as floats that hold them.
_MAX_POOL_WORK = {np.dtype(t): np.dtype(w) for t, w in (
    (np.float16, np.float32), (np.float32, np.float32), (np.float64, np.float64),
    (np.int8, np.float32), (np.uint8, np.float32), (np.int16, np.float32),
    (np.uint16, np.float32), (np.int32, np.float64), (np.uint32, np.float64))}


def _transpose(b: Builder, name: str, perm: list[int]) -> str:
    return b.emit("Transpose", [name], perm=perm)


def _hw(node, index: int, why: str) -> tuple[int, int] | None:
    """The height and width of input ``index``; raises saying ``why`` they must be known, or
    returns None when ``why`` is empty."""
    shape = node.inputs[index].shape
    if shape is not None and None not in shape[1:3]:
        return int(shape[1]), int(shape[2])
    if not why:
        return None
    raise ExportError(f"{why}, so the height and width of its input must be known while "
                      f"tracing; give the function an input_signature with them.")


def _filter_hw(node) -> tuple[int, int]:
    shape = node.inputs[1].shape
    if shape is None or None in shape[:2]:
        raise ExportError("the filters' height and width must be known while tracing (ONNX "
                          "takes the padding as numbers); make the filters a constant or a "
                          "variable, or give them a full input_signature.")
    return int(shape[0]), int(shape[1])


def _onnx_pads(pad) -> list[int]:
    """``[(top, bottom), (left, right)]`` as ONNX's ``[top, left, bottom, right]``."""
    return [pad[0][0], pad[1][0], pad[0][1], pad[1][1]]


def _padding(node, window, dilations) -> dict:
    """``pads`` (or ``auto_pad`` when the input's height or width is unknown)."""
    padding, hw = node.attrs["padding"], _hw(node, 0, "")
    if padding == "VALID":
        return {"pads": [0, 0, 0, 0]}
    if hw is None and tuple(dilations) != _ONES:
        _hw(node, 0, "ONNX Runtime's Conv refuses dilations with auto_pad, and the SAME "
                     "padding of a dilated convolution depends on the input's size")
    if hw is None:
        return {"auto_pad": "SAME_UPPER"}  # TensorFlow's rule: the odd element after
    return {"pads": _onnx_pads(spatial_pads(hw, window, node.attrs["strides"], dilations,
                                            padding))}


def _pad(b: Builder, name: str, pad, value: str | None = None) -> str:
    """An NHWC value padded by ``[(top, bottom), (left, right)]`` (with 0, or ``value``)."""
    if not any(any(p) for p in pad):
        return name
    pads = b.int64s([0, pad[0][0], pad[1][0], 0, 0, pad[0][1], pad[1][1], 0])
    return b.emit("Pad", [name, pads] + ([value] if value else []), mode="constant")


def _taps(b: Builder, padded: str, window, strides, dilations, out, reverse=False) -> list[str]:
    """Tap ``(i, j)`` of every window of an already padded NHWC value, in row-major order of
    the taps: ``[N, out_h, out_w, C]`` slices. ``reverse`` reads tap ``(i, j)`` where tap
    ``(h - 1 - i, w - 1 - j)`` would (the transposed convolution's order)."""
    slices = []
    for i in range(window[0]):
        for j in range(window[1]):
            tap = (window[0] - 1 - i, window[1] - 1 - j) if reverse else (i, j)
            starts = [tap[k] * dilations[k] for k in range(2)]
            ends = [max(starts[k] + strides[k] * (out[k] - 1) + 1, starts[k]) for k in range(2)]
            slices.append(b.emit("Slice", [padded, b.int64s(starts), b.int64s(ends),
                                           b.int64s([1, 2]), b.int64s(strides)]))
    return slices


def _windows(b: Builder, x: str, hw, window, strides, dilations, padding) -> list[str]:
    """The taps of every window of the NHWC value ``x``, padded as the graph pads it."""
    pad = spatial_pads(hw, window, strides, dilations, padding)
    out = output_hw(hw, window, strides, dilations, padding)
    return _taps(b, _pad(b, x, pad), window, strides, dilations, out)


def _spread(b: Builder, dy: str, hw, window, strides, dilations, padding, combine) -> str:
    """The transpose of taking windows, for an input of height and width ``hw``: what each
    window's tap received (``dy``, combined over the taps by ``combine``) goes back to the
    position it read. ``dy`` is dilated by the strides and padded by the window's reach, so
    that each input position reads the taps of every window that read it."""
    out = output_hw(hw, window, strides, dilations, padding)
    pad = spatial_pads(hw, window, strides, dilations, padding)
    tail = unread_tail(hw, window, strides, dilations, padding)
    reach = [(window[k] - 1) * dilations[k] for k in range(2)]
    spread = _pad(b, _dilate(b, dy, strides, out),
                  [(reach[k], reach[k] + tail[k]) for k in range(2)])
    full = [hw[k] + sum(pad[k]) for k in range(2)]
    grad = combine(_taps(b, spread, window, _ONES, dilations, full, reverse=True))
    starts = [pad[0][0], pad[1][0]]
    return b.emit("Slice", [grad, b.int64s(starts), b.int64s([starts[0] + hw[0],
                                                              starts[1] + hw[1]]),
                            b.int64s([1, 2])])


def _dilate(b: Builder, value: str, strides, out) -> str:
    """``[N, OH, OW, C]`` with ``stride - 1`` zeros between rows and between columns."""
    if tuple(strides) == _ONES:
        return value
    rows = b.emit("Unsqueeze", [value, b.int64s([2, 4])])  # [N, OH, 1, OW, 1, C]
    pads = b.int64s([0] * 6 + [0, 0, strides[0] - 1, 0, strides[1] - 1, 0])
    spaced = b.emit("Pad", [rows, pads], mode="constant")
    flat = b.emit("Reshape", [spaced, b.int64s([0, out[0] * strides[0], out[1] * strides[1],
                                                 -1])])
    ends = [(out[k] - 1) * strides[k] + 1 for k in range(2)]
    return b.emit("Slice", [flat, b.int64s([0, 0]), b.int64s(ends), b.int64s([1, 2])])


def _operands(b: Builder, node, ins, work) -> list[str]:
    return [b.cast(name, value.dtype, work) for name, value in zip(ins, node.inputs)]


# -- convolutions ---------------------------------------------------------------------------


def _conv_attrs(node) -> tuple:
    return node.attrs["strides"], node.attrs["dilations"], node.attrs["padding"]


def _f64_why(op_type: str, work) -> str:
    return (f"ONNX Runtime has no {work.name} {op_type} kernel and the exporter composes it "
            f"from slices of the padded input")


def _conv2d(b: Builder, node, ins):
    out = node.outputs[0].dtype
    work = compute_dtype(out)
    window = _filter_hw(node)
    strides, dilations, padding = _conv_attrs(node)
    x, filters = _operands(b, node, ins, work)
    if work == _F32:
        y = b.emit("Conv", [_transpose(b, x, _NCHW), _transpose(b, filters, _OIHW)],
                   strides=list(strides), dilations=list(dilations),
                   **_padding(node, window, dilations))
        return [b.cast(_transpose(b, y, _NHWC), work, out)]
    hw = _hw(node, 0, _f64_why("Conv", work))
    taps = _windows(b, x, hw, window, strides, dilations, padding)
    stacked = b.emit("Concat", taps, axis=3)  # [N, OH, OW, KH * KW * C], the filters' order
    return [b.cast(b.emit("MatMul", [stacked, b.emit("Flatten", [filters], axis=3)]), work, out)]


def _conv2d_backprop_input(b: Builder, node, ins):
    out = node.outputs[0].dtype
    work = compute_dtype(out)
    window = _filter_hw(node)
    strides, dilations, padding = _conv_attrs(node)
    hw = _hw(node, 0, "the gradient's padding depends on the input's size")
    _, filters, dy = _operands(b, node, ins, work)
    if work == _F32:
        pad = spatial_pads(hw, window, strides, dilations, padding)
        y = b.emit("ConvTranspose", [_transpose(b, dy, _NCHW), _transpose(b, filters, _OIHW)],
                   strides=list(strides), dilations=list(dilations), pads=_onnx_pads(pad),
                   output_padding=unread_tail(hw, window, strides, dilations, padding))
        return [b.cast(_transpose(b, y, _NHWC), work, out)]
    # [KH * KW * O, C]: filters with their in and out channels swapped, flattened by tap.
    swapped = b.emit("Flatten", [_transpose(b, filters, [0, 1, 3, 2])], axis=3)

    def combine(taps):
        return b.emit("MatMul", [b.emit("Concat", taps, axis=3), swapped])
    return [b.cast(_spread(b, dy, hw, window, strides, dilations, padding, combine), work, out)]


def _conv2d_backprop_filter(b: Builder, node, ins):
    """float32: a convolution over the batch (the input as CNHW, ``dy`` as its filters, the
    strides and dilations swapped), cropped to the window. float64: the taps of every window
    contracted with ``dy``."""
    out = node.outputs[0].dtype
    work = compute_dtype(out)
    window = _filter_hw(node)
    strides, dilations, padding = _conv_attrs(node)
    hw = _hw(node, 0, "the gradient's padding depends on the input's size")
    x, filters, dy = _operands(b, node, ins, work)
    if work == _F32:
        pad = spatial_pads(hw, window, strides, dilations, padding)
        y = b.emit("Conv", [_transpose(b, x, _CHANNELS_FIRST), _transpose(b, dy, _CHANNELS_FIRST)],
                   strides=list(dilations), dilations=list(strides), pads=_onnx_pads(pad))
        y = b.emit("Slice", [y, b.int64s([0, 0]), b.int64s(window), b.int64s([2, 3])])
        return [b.cast(_transpose(b, y, [2, 3, 0, 1]), work, out)]
    taps = _windows(b, x, hw, window, strides, dilations, padding)
    grad = b.emit("Einsum", [b.emit("Concat", taps, axis=3), dy], equation="nhwk,nhwo->ko")
    return [b.cast(b.emit("Reshape", [grad, b.emit("Shape", [filters])]), work, out)]


# -- pools ----------------------------------------------------------------------------------


def _pool_attrs(node) -> dict:
    ksize = node.attrs["ksize"]
    return {"kernel_shape": list(ksize), "strides": list(node.attrs["strides"]),
            **_padding(node, ksize, _ONES)}


def _max_pool_work(node, dtype) -> np.dtype:
    work = _MAX_POOL_WORK.get(np.dtype(dtype))
    if work is None:
        raise ExportError(f"ONNX's MaxPool pools floats and 8-bit integers, and {dtype.name} "
                          f"values do not all fit a float; cast the input to export it.")
    return work


def _max_pool_nchw(b: Builder, node, x: str, work) -> tuple[str, str]:
    """The maximum of each window of the NCHW ``x`` and its flat index (the first maximum, or
    the first NaN)."""
    attrs = _pool_attrs(node)
    values, indices = b.emit("MaxPool", [x], outputs=2, **attrs)
    if np.dtype(node.inputs[0].dtype).kind != "f":
        return values, indices
    nan = b.emit("Cast", [b.emit("IsNaN", [x])], to=onnx_type(work))
    has_nan, first_nan = b.emit("MaxPool", [nan], outputs=2, **attrs)
    has_nan = b.emit("Greater", [has_nan, b.scalar(0, work)])
    return (b.emit("Where", [has_nan, b.scalar(np.nan, work), values]),
            b.emit("Where", [has_nan, first_nan, indices]))


def _max_pool(b: Builder, node, ins):
    out = node.outputs[0].dtype
    work = _max_pool_work(node, out)
    x = _transpose(b, b.cast(ins[0], out, work), _NCHW)
    values, _ = _max_pool_nchw(b, node, x, work)
    return [b.cast(_transpose(b, values, _NHWC), work, out)]


def _max_pool_grad(b: Builder, node, ins):
    """``dy`` added at the flat index of each window's first maximum (``ScatterElements``
    with ``reduction="add"``: overlapping windows may share one)."""
    source, out = node.inputs[0].dtype, node.outputs[0].dtype
    work, grad_work = _max_pool_work(node, source), compute_dtype(out)
    x = _transpose(b, b.cast(ins[0], source, work), _NCHW)
    _, indices = _max_pool_nchw(b, node, x, work)
    dy = _transpose(b, b.cast(ins[1], node.inputs[1].dtype, grad_work), _NCHW)
    shape = b.emit("Shape", [x])
    zeros = b.emit("ConstantOfShape", [b.emit("ReduceProd", [shape], keepdims=1)],
                   value=numpy_helper.from_array(np.zeros(1, grad_work)))
    flat = b.int64s([-1])
    grad = b.emit("ScatterElements", [zeros, b.emit("Reshape", [indices, flat]),
                                      b.emit("Reshape", [dy, flat])], axis=0, reduction="add")
    grad = _transpose(b, b.emit("Reshape", [grad, shape]), _NHWC)
    return [b.cast(grad, grad_work, out)]


def _counts(b: Builder, node, hw, dtype) -> str:
    return b.constant(window_counts(hw, node.attrs["ksize"], node.attrs["strides"],
                                    node.attrs["padding"], dtype))


def _avg_pool(b: Builder, node, ins):
    out = node.outputs[0].dtype
    work = compute_dtype(out)
    x = b.cast(ins[0], out, work)
    ksize, strides = node.attrs["ksize"], node.attrs["strides"]
    if node.attrs["padding"] == "SAME" and any(s > k for s, k in zip(strides, ksize)):
        _hw(node, 0, "with a stride longer than the window, ONNX Runtime's AveragePool fails "
                     "on the negative padding auto_pad gives where TensorFlow pads nothing")
    if work == _F32:
        y = b.emit("AveragePool", [_transpose(b, x, _NCHW)], count_include_pad=0,
                   **_pool_attrs(node))
        return [b.cast(_transpose(b, y, _NHWC), work, out)]
    hw = _hw(node, 0, _f64_why("AveragePool", work))
    total = b.emit("Sum", _windows(b, x, hw, ksize, strides, _ONES, node.attrs["padding"]))
    return [b.cast(b.emit("Div", [total, _counts(b, node, hw, work)]), work, out)]


def _avg_pool_grad(b: Builder, node, ins):
    """Each window's share ``dy / count`` added back over the window (in every dtype: a sum
    of slices, without ConvTranspose's one-filter-per-channel weights)."""
    out = node.outputs[0].dtype
    work = compute_dtype(out)
    hw = _hw(node, 0, "the gradient's padding depends on the input's size")
    share = b.emit("Div", [b.cast(ins[1], node.inputs[1].dtype, work),
                           _counts(b, node, hw, work)])
    grad = _spread(b, share, hw, node.attrs["ksize"], node.attrs["strides"], _ONES,
                   node.attrs["padding"], lambda taps: b.emit("Sum", taps))
    return [b.cast(grad, work, out)]


RULES = {
    conv_ops.CONV2D: _conv2d,
    conv_ops.CONV2D_BACKPROP_INPUT: _conv2d_backprop_input,
    conv_ops.CONV2D_BACKPROP_FILTER: _conv2d_backprop_filter,
    pool_ops.MAX_POOL: _max_pool,
    pool_ops.AVG_POOL: _avg_pool,
    pool_ops.MAX_POOL_GRAD: _max_pool_grad,
    pool_ops.AVG_POOL_GRAD: _avg_pool_grad,
}
