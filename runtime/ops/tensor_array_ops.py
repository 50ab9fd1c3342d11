"""The ops behind ``rt.TensorArray`` (see ``runtime.tensor_array``): kernels on its components.

An array is three values: ``buffer`` (storage, shape ``[capacity, *element_shape]``, or a 0-d
stand-in until the first write when the element shape is not fully known), ``size`` (int32)
and ``filled``: rows ``[0, filled)`` of the buffer hold the array's elements, and the elements
from ``filled`` to ``size`` are zeros (never written, as in TensorFlow). A fixed-size array's
buffer has exactly ``size`` rows; a dynamic-size one over-allocates by doubling.

Writes are O(1) when they fill the buffer in increasing index order, the way loops do: several
arrays may share one buffer, and ``_claimed`` remembers per buffer how many rows some array
has taken. Taken rows never change and the others are zeros, so a write at or past them goes
into the buffer in place while every older array still sees its own elements; any other write
(overwriting, or writing from an array whose buffer was extended since) copies the buffer.
Results (``read``, ``stack``, ...) are new arrays, never views of a buffer.

Gradients treat an array as what it holds: rows ``[0, filled)`` of its buffer. The rows past
``filled`` are zeros no op reads, so the gradient of a buffer is zero there (whatever another
array sharing the buffer wrote into them). A reader's gradient puts ``dy`` into zeros of the
buffer's shape at the rows it read (``tensor_array_grad``, whose own gradient is the reader
again); a write gives the value the buffer gradient's row at the index and passes the rest,
with that row zeroed, to the array written to (``tensor_array_write_grad``). The buffer's
shape comes in as a static attribute when it is known while tracing, else as a tensor: a
buffer not yet allocated (0-d) gets a 0-d gradient.
"""

from __future__ import annotations

import threading
import weakref

import numpy as np

from runtime import dtypes
from runtime.errors import InvalidArgumentError, ShapeError
from runtime.ops.array_ops import shape_for_gradient
from runtime.ops.dispatch import apply_op, constant_value
from runtime.ops.registry import NOT_DIFFERENTIABLE, OpDef, register
from runtime.tensor import Shape, format_shape

# -- buffers shared by several arrays ---------------------------------------------------------

# id(buffer) -> how many of its rows some array has claimed (those rows never change again).
# Only buffers allocated here are listed: any other array (a constant, a caller's array) is
# copied before it is written.
_claimed: dict[int, int] = {}
_claim_lock = threading.Lock()


def _new_buffer(rows: int, element_shape: Shape, dtype, claimed: int) -> np.ndarray:
    buffer = np.zeros((rows,) + tuple(element_shape), dtype)
    _claimed[id(buffer)] = claimed
    weakref.finalize(buffer, _claimed.pop, id(buffer), None)
    return buffer


def _claim(buffer: np.ndarray, filled: int, rows: int) -> bool:
    """Claims the buffer's rows up to ``rows`` for an array that holds ``filled`` of them, if
    no other array claimed any row past ``filled`` yet (they are still zeros)."""
    with _claim_lock:
        if _claimed.get(id(buffer)) != filled or rows > len(buffer):
            return False
        _claimed[id(buffer)] = rows
        return True


def _allocated(buffer) -> bool:
    return np.ndim(buffer) > 0


def element_of(buffer_shape: Shape | None) -> Shape | None:
    """The element shape a buffer's static shape tells (``None`` if not allocated or unknown)."""
    return buffer_shape[1:] if buffer_shape else None


def _known_size(size) -> int | None:
    """The size, if known while tracing (``TensorArray.size()`` passes a constant when it is)."""
    known = constant_value(size)
    return None if known is None else int(known)


def _check_indices(method: str, indices, size: int) -> None:
    indices = np.asarray(indices)
    outside = (indices < 0) | (indices >= size)
    if np.any(outside):
        raise InvalidArgumentError(
            f"TensorArray.{method}: index {indices[outside].ravel()[0]} is out of bounds for a "
            f"TensorArray of size {size}. Use an index in [0, {size}).")


def _unwritten(method: str, size: int) -> InvalidArgumentError:
    return InvalidArgumentError(
        f"TensorArray.{method}: none of the {size} elements has been written and the element "
        f"shape is not fully known, so there is no value to return (TensorFlow returns zeros "
        f"only for a known shape). Write the elements first, or pass element_shape= when "
        f"creating the TensorArray.")


def int32(value: int) -> np.ndarray:
    return np.asarray(value, dtype=np.int32)


def _scalar_types(count: int) -> list:
    return [(dtypes.int32, ())] * count


# -- ops -----------------------------------------------------------------------------------


def _new_kernel(size, dtype, element_shape):
    size = int(size)
    if size < 0:
        raise InvalidArgumentError(f"TensorArray: the size must not be negative, got {size}.")
    if element_shape is None:
        return np.zeros((), dtype)
    return _new_buffer(size, element_shape, dtype, claimed=0)


def _new_infer(size, dtype, element_shape):
    if element_shape is None:
        return dtype, ()
    known = constant_value(size)
    return dtype, (None if known is None else int(known),) + element_shape


# The buffer of a new array; its size component is the size itself and ``filled`` is 0.
NEW = register(OpDef("tensor_array_new", _new_kernel, _new_infer, gradient=NOT_DIFFERENTIABLE))


def _write_kernel(buffer, size, filled, index, value, dynamic):
    size, filled, index, value = int(size), int(filled), int(index), np.asarray(value)
    if index < 0:
        raise InvalidArgumentError(f"TensorArray.write: index {index} is negative; the elements "
                                   f"of a TensorArray are numbered from 0.")
    if index >= size and not dynamic:
        raise InvalidArgumentError(
            f"TensorArray.write: index {index} is out of bounds for a TensorArray of size {size}. "
            f"Use an index in [0, {size}), or create the array with dynamic_size=True to let it "
            f"grow.")
    new_size = max(size, index + 1)
    allocated = _allocated(buffer)
    if allocated and buffer.shape[1:] != value.shape:
        raise InvalidArgumentError(
            f"TensorArray.write: the value for index {index} has shape "
            f"{format_shape(value.shape)}, but the elements written before have shape "
            f"{format_shape(buffer.shape[1:])}. All elements of a TensorArray have one shape.")
    new_filled = max(filled, index + 1)
    if allocated and index >= filled and _claim(buffer, filled, new_filled):
        buffer[index] = value
        return buffer, int32(new_size), int32(new_filled)
    capacity = len(buffer) if allocated else 0
    if new_size > capacity:
        capacity = max(new_size, 2 * capacity) if dynamic else new_size
    result = _new_buffer(capacity, value.shape, value.dtype, claimed=new_filled)
    if filled:  # an array that is not allocated has no elements to keep
        result[:filled] = buffer[:filled]
    result[index] = value
    return result, int32(new_size), int32(new_filled)


def _write_infer(buffer, size, filled, index, value, dynamic):
    element = merge_shapes(element_of(buffer.shape), value.shape)
    if element is None:
        return [(buffer.dtype, None)] + _scalar_types(2)
    leading = None if dynamic else _known_size(size)
    return [(buffer.dtype, (leading,) + element)] + _scalar_types(2)


def _write_gradient(node, d_buffer, _d_size, _d_filled):
    """The value gets row ``index`` of the new buffer's gradient; the old buffer the rest of
    its rows ``[0, filled)``, that row zeroed (an overwritten element gets nothing)."""
    buffer, _size, filled, index, _value = node.inputs
    if d_buffer is None:
        return (None,) * 5
    new_size, new_filled = node.outputs[1], node.outputs[2]
    d_value = apply_op(READ, (d_buffer, new_size, new_filled, index))
    return _write_grad(d_buffer, buffer, filled, index), None, None, None, d_value


WRITE = register(OpDef("tensor_array_write", _write_kernel, _write_infer, num_outputs=3,
                       gradient=_write_gradient))


def _read_kernel(buffer, size, filled, index):
    _check_indices("read", index, int(size))
    if not _allocated(buffer):
        raise _unwritten("read", int(size))
    index = int(index)
    return buffer[index].copy() if index < int(filled) else np.zeros(buffer.shape[1:], buffer.dtype)


def _read_infer(buffer, size, filled, index):
    return buffer.dtype, element_of(buffer.shape)


def _read_gradient(node, dy):
    buffer, size, filled, index = node.inputs
    return _reader_grad("read", dy, buffer, size, filled, index), None, None, None


READ = register(OpDef("tensor_array_read", _read_kernel, _read_infer, gradient=_read_gradient))


def _stack_kernel(buffer, size, filled):
    size, filled = int(size), int(filled)
    if not _allocated(buffer):
        if size:
            raise _unwritten("stack", size)
        return np.zeros((0,), buffer.dtype)
    result = np.zeros((size,) + buffer.shape[1:], buffer.dtype)
    result[:filled] = buffer[:filled]
    return result


def _stack_infer(buffer, size, filled):
    element = element_of(buffer.shape)
    if element is None:
        return buffer.dtype, None
    return buffer.dtype, (_known_size(size),) + element


def _stack_gradient(node, dy):
    buffer, size, filled = node.inputs
    return _reader_grad("stack", dy, buffer, size, filled), None, None


STACK = register(OpDef("tensor_array_stack", _stack_kernel, _stack_infer, gradient=_stack_gradient))


def _gather_kernel(buffer, size, filled, indices):
    _check_indices("gather", indices, int(size))
    if not _allocated(buffer):
        if np.size(indices):
            raise _unwritten("gather", int(size))
        return np.zeros(np.shape(indices), buffer.dtype)
    indices = np.asarray(indices)
    result = np.zeros(indices.shape + buffer.shape[1:], buffer.dtype)
    written = indices < int(filled)
    result[written] = buffer[indices[written]]
    return result


def _gather_infer(buffer, size, filled, indices):
    element = element_of(buffer.shape)
    if element is None or indices.shape is None:
        return buffer.dtype, None
    return buffer.dtype, indices.shape + element


def _gather_gradient(node, dy):
    buffer, size, filled, indices = node.inputs
    return _reader_grad("gather", dy, buffer, size, filled, indices), None, None, None


GATHER = register(OpDef("tensor_array_gather", _gather_kernel, _gather_infer,
                        gradient=_gather_gradient))


_SCALAR_CONCAT = ("TensorArray.concat: the elements are scalars, and concat joins elements "
                  "along their first axis, so they need rank 1 or more. Use stack() for scalars.")


def _concat_kernel(buffer, size, filled):
    stacked = _stack_kernel(buffer, size, filled)
    if not _allocated(buffer):
        return stacked  # empty: shape (0,)
    if buffer.ndim < 2:
        raise InvalidArgumentError(_SCALAR_CONCAT)
    return stacked.reshape((stacked.shape[0] * stacked.shape[1],) + stacked.shape[2:])


def _concat_infer(buffer, size, filled):
    if not buffer.shape:  # unknown, or not allocated yet
        return buffer.dtype, None
    if len(buffer.shape) < 2:
        raise ShapeError(_SCALAR_CONCAT)
    rows, length = _known_size(size), buffer.shape[1]
    joined = None if rows is None or length is None else rows * length
    return buffer.dtype, (joined,) + buffer.shape[2:]


def _concat_gradient(node, dy):
    buffer, size, filled = node.inputs
    return _reader_grad("concat", dy, buffer, size, filled), None, None


CONCAT = register(OpDef("tensor_array_concat", _concat_kernel, _concat_infer,
                        gradient=_concat_gradient))


SCALAR_UNSTACK = ("TensorArray.unstack: cannot unstack a scalar; the value needs rank 1 or more "
                   "(its first axis indexes the elements).")


def _unstack_kernel(value, size, dynamic):
    if np.ndim(value) == 0:
        raise InvalidArgumentError(SCALAR_UNSTACK)
    count = value.shape[0]
    if not dynamic and count > int(size):
        raise InvalidArgumentError(
            f"TensorArray.unstack: a tensor of shape {format_shape(value.shape)} has {count} "
            f"elements, more than the fixed size {int(size)} of the TensorArray. Create it with "
            f"size={count} or with dynamic_size=True.")
    buffer = _new_buffer(count, value.shape[1:], value.dtype, claimed=count)
    buffer[...] = value
    return buffer, int32(count), int32(count)


def _unstack_infer(value, size, dynamic):
    shape = value.shape
    if dynamic and shape is not None:
        shape = (None,) + shape[1:]
    return [(value.dtype, shape)] + _scalar_types(2)


def _unstack_gradient(node, d_buffer, _d_size, _d_filled):
    """The buffer is the value itself (all of its rows are elements)."""
    return d_buffer, None


UNSTACK = register(OpDef("tensor_array_unstack", _unstack_kernel, _unstack_infer, num_outputs=3,
                         gradient=_unstack_gradient))


def merge_shapes(a: Shape | None, b: Shape | None) -> Shape | None:
    """The most specific shape that both describe (they must be compatible)."""
    if a is None or b is None:
        return b if a is None else a
    return tuple(x if x is not None else y for x, y in zip(a, b))


# -- gradients -------------------------------------------------------------------------------


def _known(shape: Shape | None) -> bool:
    return shape is not None and None not in shape


def _shape_operands(buffer) -> tuple[tuple, dict]:
    """A buffer's shape for a gradient op: ``(inputs, attrs)``, a tensor input only when the
    static shape is not fully known."""
    static, dynamic = shape_for_gradient(buffer)
    return (() if dynamic is None else (dynamic,)), {"shape": static}


def _buffer_shape(shape, rest: tuple) -> tuple[tuple, tuple]:
    """The buffer's shape (the attribute, or the last input) and the other inputs."""
    if _known(shape):
        return tuple(shape), rest
    return tuple(int(d) for d in rest[-1]), rest[:-1]


def _buffer_infer(dy, *inputs, shape, **_attrs):
    if shape is None:
        length = inputs[-1].shape[0] if inputs[-1].shape else None
        return dy.dtype, None if length is None else (None,) * length
    return dy.dtype, shape


def _reader_grad_kernel(dy, size, filled, *rest, reader, shape):
    shape, rest = _buffer_shape(shape, rest)
    result = np.zeros(shape, dy.dtype)
    if not shape:  # never allocated: the array has no elements, the stand-in no gradient
        return result
    filled = int(filled)
    if reader in ("read", "gather"):
        indices = np.asarray(rest[0])
        kept = indices < filled  # unwritten elements read as zeros: constants
        np.add.at(result, indices[kept], dy[kept])
    else:
        if reader == "concat":
            dy = dy.reshape((int(size),) + shape[1:])
        result[:filled] = dy[:filled]
    return result


def _reader_grad_gradient(node, dd):
    """Reading is linear in the buffer and this op is its adjoint: the adjoint of this op
    is the reader again."""
    reader = node.attrs["reader"]
    count = 4 if reader in ("read", "gather") else 3
    grad = apply_op(_READERS[reader], (dd,) + tuple(node.inputs[1:count]))
    return (grad,) + (None,) * (len(node.inputs) - 1)


# Inputs: the reader's dy, size, filled, [index or indices], [the buffer's shape]; the
# attribute ``reader`` names the reader ("read", "gather", "stack" or "concat").
READER_GRAD = register(OpDef("tensor_array_grad", _reader_grad_kernel, _buffer_infer,
                             gradient=_reader_grad_gradient))


_READERS = {"read": READ, "gather": GATHER, "stack": STACK, "concat": CONCAT}


def _reader_grad(reader: str, dy, buffer, size, filled, *indices):
    """The gradient of ``buffer`` for the reader op named ``reader``, given its ``dy``."""
    shape_inputs, attrs = _shape_operands(buffer)
    return apply_op(READER_GRAD, (dy, size, filled) + indices + shape_inputs,
                    {"reader": reader, **attrs})


def _write_grad_kernel(d_buffer, filled, index, *rest, shape):
    shape, _ = _buffer_shape(shape, rest)
    result = np.zeros(shape, d_buffer.dtype)
    filled, index = int(filled), int(index)
    if shape and filled:
        result[:filled] = d_buffer[:filled]
        if index < filled:
            result[index] = 0
    return result


def _write_grad_gradient(node, dd):
    """The op keeps rows ``[0, filled)`` but ``index`` and reshapes to the buffer written to,
    so its adjoint is the same op back to the shape of the gradient it was given."""
    d_buffer, filled, index = node.inputs[:3]
    return (_write_grad(dd, d_buffer, filled, index),) + (None,) * (len(node.inputs) - 1)


# Inputs: the new buffer's gradient, filled and index of the write, [the old buffer's shape].
WRITE_GRAD = register(OpDef("tensor_array_write_grad", _write_grad_kernel, _buffer_infer,
                            gradient=_write_grad_gradient))


def _write_grad(d_buffer, buffer, filled, index):
    """The gradient of the buffer a write wrote to, given that of the buffer it made."""
    shape_inputs, attrs = _shape_operands(buffer)
    return apply_op(WRITE_GRAD, (d_buffer, filled, index) + shape_inputs, attrs)
