"""ONNX for ``rt.TensorArray`` (and the loops whose gradients keep each iteration's values in
one): the buffer is a plain tensor.

The runtime shares buffers between arrays and over-allocates them; in the model every write
makes a new tensor, with exactly ``size`` rows, the rows from ``filled`` on zeros. That is
what every reader sees in the runtime, so a read or a gather is a ``Gather`` and a stack is
the buffer itself. Out-of-range indices make the model fail (``Builder.check``), as they raise
in the runtime. A TensorArray created without a known element shape (a 0-d stand-in until
its first write) is refused: its rank would change inside the model.
"""

from __future__ import annotations

import numpy as np
from onnx import TensorProto, numpy_helper

from runtime.errors import ExportError
from runtime.export.onnx_builder import Builder
from runtime.ops import tensor_array_ops as ta


def _int64(b: Builder, name: str, value) -> str:
    return b.cast(name, value.dtype, np.int64)


def _in_range(b: Builder, indices: str, size: str, method: str) -> str:
    """``indices`` (int64), failing the model unless all are in ``[0, size)``."""
    outside = b.emit("Or", [b.emit("Less", [indices, b.scalar(0, np.int64)]),
                            b.emit("GreaterOrEqual", [indices, size])])
    count = b.emit("ReduceSum", [b.emit("Cast", [outside], to=TensorProto.INT64)],
                  keepdims=0)
    ok = b.emit("Equal", [count, b.scalar(0, np.int64)])
    return b.check(indices, ok, f"TensorArray.{method}: an index is out of bounds")


def _element_rank(node, buffer) -> int:
    shape = buffer.shape if buffer.shape is not None else node.attrs.get("shape")
    if shape is None or len(shape) == 0:
        raise ExportError("a TensorArray whose element shape is unknown while tracing cannot be "
                          "exported; pass element_shape= when creating it.")
    return len(shape) - 1


def _new(b: Builder, node, ins):
    element = node.attrs["element_shape"]
    if element is None:
        raise ExportError("a TensorArray whose element shape is unknown while tracing cannot be "
                          "exported; pass element_shape= when creating it.")
    shape = b.emit("Concat", [b.emit("Reshape", [_int64(b, ins[0], node.inputs[0]),
                                                 b.int64s([1])]), b.int64s(element)], axis=0)
    zero = numpy_helper.from_array(np.zeros(1, node.attrs["dtype"]))
    return [b.emit("ConstantOfShape", [shape], value=zero)]


def _write(b: Builder, node, ins):
    buffer, size, filled, index, value = ins
    rank = _element_rank(node, node.inputs[0]) + 1
    index64 = _int64(b, index, node.inputs[3])
    size64, filled64 = _int64(b, size, node.inputs[1]), _int64(b, filled, node.inputs[2])
    negative = b.emit("Less", [index64, b.scalar(0, np.int64)])
    ok = b.emit("Not", [negative])
    if not node.attrs["dynamic"]:
        ok = b.emit("And", [ok, b.emit("Less", [index64, size64])])
    index64 = b.check(index64, ok, "TensorArray.write: the index is negative or out of bounds")
    after = b.emit("Add", [index64, b.scalar(1, np.int64)])
    new_size, new_filled = b.emit("Max", [size64, after]), b.emit("Max", [filled64, after])
    rows = b.emit("Gather", [b.emit("Shape", [buffer]), b.scalar(0, np.int64)])
    grow = b.emit("Max", [b.emit("Sub", [new_size, rows]), b.scalar(0, np.int64)])
    pads = b.emit("Concat", [b.int64s([0] * rank), b.emit("Reshape", [grow, b.int64s([1])]),
                             b.int64s([0] * (rank - 1))], axis=0)
    grown = b.emit("Pad", [buffer, pads])
    row = b.emit("Reshape", [index64, b.int64s([1, 1])])
    written = b.emit("ScatterND", [grown, row, b.emit("Unsqueeze", [value, b.int64s([0])])])
    return [written, b.cast(new_size, np.int64, np.int32), b.cast(new_filled, np.int64, np.int32)]


def _read(b: Builder, node, ins):
    buffer, size, _filled, index = ins
    index64 = _in_range(b, _int64(b, index, node.inputs[3]), _int64(b, size, node.inputs[1]),
                        "read")
    return [b.emit("Gather", [buffer, index64], axis=0)]


def _gather(b: Builder, node, ins):
    buffer, size, _filled, indices = ins
    indices64 = _in_range(b, _int64(b, indices, node.inputs[3]),
                          _int64(b, size, node.inputs[1]), "gather")
    return [b.emit("Gather", [buffer, indices64], axis=0)]


def _stack(b: Builder, node, ins):
    return [b.emit("Identity", [ins[0]])]


def _concat(b: Builder, node, ins):
    if _element_rank(node, node.inputs[0]) < 1:
        raise ExportError("TensorArray.concat joins elements along their first axis, and these "
                          "are scalars; use stack() for scalars.")
    rest = b.emit("Slice", [b.emit("Shape", [ins[0]]), b.int64s([2]), b.int64s([1 << 62])])
    return [b.emit("Reshape", [ins[0], b.emit("Concat", [b.int64s([-1]), rest], axis=0)])]


def _unstack(b: Builder, node, ins):
    value, size = ins[0], ins[1]
    count = b.emit("Gather", [b.emit("Shape", [value]), b.scalar(0, np.int64)])
    if not node.attrs["dynamic"]:
        fits = b.emit("LessOrEqual", [count, _int64(b, size, node.inputs[1])])
        count = b.check(count, fits, "TensorArray.unstack: more elements than the fixed size")
    count32 = b.cast(count, np.int64, np.int32)
    return [b.emit("Identity", [value]), count32, b.emit("Identity", [count32])]


# -- gradients ---------------------------------------------------------------------------------


def _row_mask(b: Builder, rows_of: str, keep, element_rank: int) -> str:
    """A bool mask over the rows of ``rows_of`` (shaped to broadcast over its elements)."""
    rows = b.emit("Gather", [b.emit("Shape", [rows_of]), b.scalar(0, np.int64)])
    positions = b.emit("Range", [b.scalar(0, np.int64), rows, b.scalar(1, np.int64)])
    mask = keep(positions)
    return b.emit("Reshape", [mask, b.int64s([-1] + [1] * element_rank)])


def _buffer_zeros(b: Builder, node, ins, dtype) -> str:
    shape = node.attrs["shape"]
    target = b.int64s(shape) if shape is not None and None not in shape \
        else _int64(b, ins[-1], node.inputs[-1])
    return b.emit("Expand", [b.scalar(0, dtype), target])


def _reader_grad(b: Builder, node, ins):
    dy_value = node.inputs[0]
    reader, dtype = node.attrs["reader"], dy_value.dtype
    rank = _element_rank(node, node.outputs[0])
    zeros = _buffer_zeros(b, node, ins, dtype)
    dy, filled = ins[0], _int64(b, ins[2], node.inputs[2])
    if reader in ("read", "gather"):
        indices = _int64(b, ins[3], node.inputs[3])
        kept = b.emit("Less", [indices, filled])  # unwritten elements read as constant zeros
        if reader == "read":
            updates = b.emit("Unsqueeze", [b.emit("Where", [kept, dy, b.scalar(0, dtype)]),
                                           b.int64s([0])])
            rows = b.emit("Reshape", [indices, b.int64s([1, 1])])
        else:
            mask = b.emit("Reshape", [kept, b.emit("Concat", [b.emit("Shape", [kept]),
                                                              b.int64s([1] * rank)], axis=0)])
            updates = b.emit("Where", [mask, dy, b.scalar(0, dtype)])
            rows = b.emit("Unsqueeze", [indices, b.int64s([-1])])
        return [b.emit("ScatterND", [zeros, rows, updates], reduction="add")]
    if reader == "concat":
        dy = b.emit("Reshape", [dy, b.emit("Shape", [zeros])])
    mask = _row_mask(b, zeros, lambda rows: b.emit("Less", [rows, filled]), rank)
    return [b.emit("Where", [mask, dy, zeros])]


def _write_grad(b: Builder, node, ins):
    d_buffer, dtype = ins[0], node.inputs[0].dtype
    rank = _element_rank(node, node.outputs[0])
    zeros = _buffer_zeros(b, node, ins, dtype)
    filled, index = _int64(b, ins[1], node.inputs[1]), _int64(b, ins[2], node.inputs[2])
    rows = b.emit("Gather", [b.emit("Shape", [zeros]), b.scalar(0, np.int64)])
    head = b.emit("Slice", [d_buffer, b.int64s([0]), b.emit("Reshape", [rows, b.int64s([1])]),
                            b.int64s([0])])

    def keep(positions):
        return b.emit("And", [b.emit("Less", [positions, filled]),
                              b.emit("Not", [b.emit("Equal", [positions, index])])])
    return [b.emit("Where", [_row_mask(b, zeros, keep, rank), head, zeros])]


RULES = {ta.NEW: _new, ta.WRITE: _write, ta.READ: _read, ta.GATHER: _gather, ta.STACK: _stack,
         ta.CONCAT: _concat, ta.UNSTACK: _unstack, ta.READER_GRAD: _reader_grad,
         ta.WRITE_GRAD: _write_grad}
