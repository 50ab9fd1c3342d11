"""``tensor[key]``: NumPy indexing with ints, slices, ``...``, ``None`` and tensor indices.

The key is split into a static description (an attribute) and the tensors it contains (inputs):
``x[1:n, None, i]`` with tensors ``n`` and ``i`` becomes ``getitem(x, n, i)`` with the spec
``(slice(1, $0, None), None, $1)``. The kernel rebuilds the NumPy key from both.

The gradient of ``x[key]`` is its ``dy`` added into zeros of ``x``'s shape at the same key:
the op ``getitem_grad`` (duplicated integer indices accumulate, as ``np.add.at`` does). Its
own gradient is ``getitem`` again, so the pair serves derivatives of any order. (The rule of
``getitem`` itself is set in ``runtime.ops.array_ops``, which can ask for a shape at run time.)
"""

from __future__ import annotations

import numpy as np

from runtime.errors import ShapeError
from runtime.ops.dispatch import apply_op, constant_value, convert_to_tensor
from runtime.ops.registry import OpDef, register
from runtime.tensor import Tensor, format_shape


class _Input:
    """Marks the position of a tensor input inside a getitem spec."""

    __slots__ = ("index",)

    def __init__(self, index: int):
        self.index = index

    def __eq__(self, other):
        return isinstance(other, _Input) and other.index == self.index

    def __hash__(self):
        return hash(("input", self.index))

    def __repr__(self):
        return f"${self.index}"


def _rebuild(spec, arrays):
    def resolve(part):
        return arrays[part.index] if isinstance(part, _Input) else part
    key = []
    for item in spec:
        if isinstance(item, slice):
            key.append(slice(resolve(item.start), resolve(item.stop), resolve(item.step)))
        else:
            key.append(resolve(item))
    return tuple(key)


def _kernel(x, *index_arrays, spec):
    return x[_rebuild(spec, index_arrays)]


def _bind(attrs, _input_types):
    spec = attrs["spec"]
    if not any(isinstance(item, _Input) or (isinstance(item, slice) and any(
            isinstance(p, _Input) for p in (item.start, item.stop, item.step))) for item in spec):
        static_key = spec if len(spec) != 1 else spec[0]
        return lambda x: x[static_key]
    return lambda x, *index_arrays: x[_rebuild(spec, index_arrays)]


def _infer(x, *index_tensors, spec):
    if x.shape is None:
        return x.dtype, None
    shape = list(x.shape)
    consumed = sum(_dims_consumed(item, index_tensors) for item in spec)
    if consumed is None or consumed > len(shape):
        raise ShapeError(f"getitem: too many indices ({consumed}) for a tensor of shape "
                         f"{format_shape(x.shape)}.")
    advanced = [item for item in spec if isinstance(item, _Input)]
    if len(advanced) > 1:
        return x.dtype, None  # NumPy's rules for several array indices: rank known only at run time
    out, dim, index_at, index_dims = [], 0, 0, []
    for item in spec:
        if item is Ellipsis:
            take = len(shape) - consumed
            out.extend(shape[dim:dim + take])
            dim += take
        elif item is None:
            out.append(1)
        elif isinstance(item, slice):
            out.append(_slice_length(item, shape[dim]))
            dim += 1
        elif isinstance(item, _Input):
            index = index_tensors[item.index]
            if index.dtype == np.bool_:
                if index.shape is None:
                    return x.dtype, None
                index_at, index_dims = len(out), [None]
                dim += len(index.shape)
            else:
                if index.shape is None:
                    return x.dtype, None
                index_at, index_dims = len(out), list(index.shape)
                dim += 1
            out.extend(index_dims)
        else:
            dim += 1  # an int index removes the axis
    out.extend(shape[dim:])
    if advanced and not _adjacent_advanced(spec):
        # NumPy: a tensor index and ints apart from it put the index dimensions first.
        out = index_dims + out[:index_at] + out[index_at + len(index_dims):]
    return x.dtype, tuple(out)


def _adjacent_advanced(spec) -> bool:
    """True if the tensor index and the int indices (advanced, next to a tensor) are adjacent."""
    positions = [i for i, item in enumerate(spec) if isinstance(item, (_Input, int))]
    return positions[-1] - positions[0] + 1 == len(positions)


def _dims_consumed(item, index_tensors) -> int:
    if item is Ellipsis or item is None:
        return 0
    if isinstance(item, _Input):
        index = index_tensors[item.index]
        if index.dtype == np.bool_ and index.shape is not None:
            return len(index.shape)
    return 1


def _slice_length(item: slice, dim: int | None) -> int | None:
    parts = (item.start, item.stop, item.step)
    if dim is None or any(isinstance(p, _Input) for p in parts):
        return None
    return len(range(*item.indices(dim)))


GETITEM = register(OpDef("getitem", _kernel, _infer, bind=_bind))


def getitem(x, key):
    """``x[key]`` with NumPy semantics; out-of-range indices fail when the op runs."""
    spec, inputs = split_key(key)
    return apply_op(GETITEM, [x] + inputs, {"spec": spec})


def split_key(key) -> tuple[tuple, list]:
    """A NumPy key as ``(spec, tensors)``: the static description (an attribute, with
    ``_Input`` marks) and the tensors it holds (op inputs), in order."""
    if not isinstance(key, tuple):
        key = (key,)
    inputs: list = []

    def as_part(part):
        if part is None or isinstance(part, (int, np.integer)) and not isinstance(part, bool):
            return None if part is None else int(part)
        if isinstance(part, Tensor) or hasattr(part, "_read_value_for_op"):
            inputs.append(part)
            return _Input(len(inputs) - 1)
        raise TypeError(f"slice bounds must be ints, None or integer tensors, got {part!r}.")

    spec = []
    for item in key:
        if item is Ellipsis or item is None:
            spec.append(item)
        elif isinstance(item, slice):
            spec.append(slice(as_part(item.start), as_part(item.stop), as_part(item.step)))
        elif isinstance(item, bool):
            raise TypeError("indexing with a Python bool is not supported; use a bool tensor mask.")
        elif isinstance(item, (int, np.integer)):
            spec.append(int(item))
        elif isinstance(item, (Tensor, list, np.ndarray)) or hasattr(item, "_read_value_for_op"):
            tensor = convert_to_tensor(item)
            if tensor.dtype.kind not in "iub":
                raise TypeError(f"tensor indices must be integers or bools, got {tensor.dtype.name}.")
            inputs.append(tensor)
            spec.append(_Input(len(inputs) - 1))
        else:
            raise TypeError(f"unsupported index {item!r}: use ints, slices, ..., None or tensors.")
    if sum(1 for item in spec if item is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...').")
    return tuple(spec), inputs


# -- the gradient: dy added into zeros at the key --------------------------------------------


def _known(shape) -> bool:
    return shape is not None and None not in shape


def _getitem_grad_kernel(dy, *arrays, spec, shape):
    if not _known(shape):  # the shape is the last input
        shape, arrays = tuple(int(d) for d in arrays[-1]), arrays[:-1]
    key = _rebuild(spec, arrays)
    result = np.zeros(shape, dy.dtype)
    if len(key) == 1 and isinstance(key[0], np.ndarray) and key[0].dtype.kind in "iu" \
            and result.size:
        _add_rows(result, key[0], dy)
    elif any(isinstance(k, np.ndarray) and k.dtype.kind in "iu" for k in key):
        np.add.at(result, key, dy)  # an integer index may repeat: its gradients add up
    else:
        result[key] = dy  # ints, slices, masks: each element of x is picked at most once
    return result


def _add_rows(result: np.ndarray, rows: np.ndarray, dy) -> None:
    """``np.add.at(result, rows, dy)`` for rows of the first axis (a gather's gradient), as
    one ``np.add.at`` over the flat elements: the same additions in the same order, several
    times faster than NumPy's indexing of whole rows."""
    values = np.broadcast_to(dy, rows.shape + result.shape[1:]).reshape(-1)
    rows = rows.reshape(-1).astype(np.intp)
    rows = np.where(rows < 0, rows + result.shape[0], rows)
    width = result.size // result.shape[0]
    np.add.at(result.reshape(-1), (rows[:, None] * width + np.arange(width)).reshape(-1), values)


def _getitem_grad_infer(dy, *inputs, spec, shape):
    if shape is None:
        length = inputs[-1].shape[0] if inputs[-1].shape else None
        return dy.dtype, None if length is None else (None,) * length
    return dy.dtype, shape


def _getitem_grad_gradient(node, ddx):
    """``getitem_grad`` is linear in ``dy`` and its adjoint is ``getitem`` at the same key."""
    spec = node.attrs["spec"]
    count = len(node.inputs) - (1 if _known(node.attrs["shape"]) else 2)
    indices = list(node.inputs[1:1 + count])
    grad = apply_op(GETITEM, [ddx] + indices, {"spec": spec})
    return (grad,) + (None,) * (len(node.inputs) - 1)


GETITEM_GRAD = register(OpDef("getitem_grad", _getitem_grad_kernel, _getitem_grad_infer,
                              gradient=_getitem_grad_gradient))


def getitem_grad(dy, key_or_spec, shape, shape_tensor=None, inputs=None):
    """Zeros of ``shape`` with ``dy`` added at the key: the gradient of ``x[key]``.

    Args:
        dy: the gradient of ``x[key]``.
        key_or_spec: a NumPy key, or a getitem spec whose tensors are ``inputs``.
        shape: ``x``'s static shape (``None`` dims allowed, or ``None`` for unknown rank).
        shape_tensor: ``x``'s shape as an integer tensor, needed unless ``shape`` is known.
        inputs: the tensors of a spec (``node.inputs[1:]`` of a getitem node).
    """
    if inputs is None:
        spec, inputs = split_key(key_or_spec)
    else:
        spec, inputs = key_or_spec, list(inputs)
    if _known(shape):
        return apply_op(GETITEM_GRAD, [dy] + inputs, {"spec": spec, "shape": tuple(shape)})
    if shape_tensor is None:
        raise ValueError("getitem_grad: the shape is not fully known; pass shape_tensor.")
    attrs = {"spec": spec, "shape": None if shape is None else tuple(shape)}
    return apply_op(GETITEM_GRAD, [dy] + inputs + [shape_tensor], attrs)


# -- strided_slice: TensorFlow's masks as a NumPy key ----------------------------------------


def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0,
                  ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=0, var=None, name=None):
    """``input_[key]`` for the key TensorFlow's arguments describe: entry ``i`` is
    ``begin[i]:end[i]:strides[i]``, with bit ``i`` of ``begin_mask``/``end_mask`` leaving
    that bound out, of ``ellipsis_mask`` making it ``...``, of ``new_axis_mask`` a new axis
    and of ``shrink_axis_mask`` the single index ``begin[i]``."""
    begin, end = _bounds(begin), _bounds(end)
    strides = [1] * len(begin) if strides is None else _bounds(strides)
    if not len(begin) == len(end) == len(strides):
        raise ValueError(f"strided_slice: begin, end and strides must have one entry per "
                         f"dimension sliced, got {len(begin)}, {len(end)} and {len(strides)}.")
    key = []
    for i, (start, stop, step) in enumerate(zip(begin, end, strides)):
        bit = 1 << i
        if ellipsis_mask & bit:
            key.append(Ellipsis)
        elif new_axis_mask & bit:
            key.append(None)
        elif shrink_axis_mask & bit:
            key.append(start)
        else:
            key.append(slice(None if begin_mask & bit else start,
                             None if end_mask & bit else stop, step))
    return getitem(input_, tuple(key))


def _bounds(values) -> list:
    """A 1-D list of bounds as Python ints where known, else as scalar tensors."""
    tensor = convert_to_tensor(values)
    if tensor.dtype.kind not in "iu" or (tensor.shape is not None and len(tensor.shape) != 1):
        raise TypeError(f"strided_slice: begin, end and strides must be 1-D integer lists or "
                        f"tensors, got {values!r}.")
    known = constant_value(tensor)
    if known is not None:
        return [int(v) for v in np.ravel(known)]
    if tensor.shape is None or tensor.shape[0] is None:
        raise ValueError("strided_slice: begin, end and strides need a length known while "
                         "tracing (one entry per dimension sliced).")
    return [tensor[i] for i in range(tensor.shape[0])]
