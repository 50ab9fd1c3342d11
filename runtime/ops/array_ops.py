"""Creating, reshaping, combining and converting tensors, and their gradient rules.

Each rule sits just above the op it differentiates and builds its gradients from ops (so it
runs eagerly or adds to the graph being traced). A rule needs an input's shape: the static
one when it is known while tracing, else the ``shape`` op at run time (``_shape_of``). The
rules of ops declared below this module (``cast``, ``stack``, ``getitem``) are set at the end.
"""

from __future__ import annotations

import builtins
import math

import numpy as np

from runtime import dtypes
from runtime.errors import ShapeError
from runtime.ops.conversion_ops import CAST, CHECKED_CAST, STACK
from runtime.ops.dispatch import apply_op, constant, constant_value, convert_to_tensor, scalars_like
from runtime.ops.indexed_slices import IndexedSlices
from runtime.ops.indexing import GETITEM, getitem, getitem_grad
from runtime.ops.registry import NOT_DIFFERENTIABLE, OpDef, Promotion, register
from runtime.ops.shapes import (broadcast, index_range_error, normalize_axis, num_elements,
                                same_dtype, static_shape_arg)
from runtime.tensor import SymbolicTensor, Tensor, format_shape


# -- shapes as gradient rules need them ----------------------------------------------------


def _static_shape(x):
    """The shape known while tracing (``None`` dims, or ``None`` for an unknown rank); ``x``
    is what an op was given, a tensor or (eagerly) an array or a Python number."""
    return x.shape if isinstance(x, Tensor) else np.shape(x)


def shape_for_gradient(x):
    """``x``'s shape as ``(static shape, int64 shape tensor or None)``: the tensor is there
    only when the static shape is not fully known."""
    static = _static_shape(x)
    if static is not None and None not in static:
        return tuple(static), None
    return static, shape(x, dtypes.int64)


def _shape_of(x):
    """``x``'s shape as a reshape target: a tuple if known while tracing, else a tensor."""
    static, dynamic = shape_for_gradient(x)
    return static if dynamic is None else dynamic


def _along(axis: int, item) -> tuple:
    """A key that applies ``item`` to ``axis`` (negative axes count from the end, so the key
    works for tensors of unknown rank)."""
    if axis >= 0:
        return (slice(None),) * axis + (item,)
    return (Ellipsis, item) + (slice(None),) * (-axis - 1)


def _scatter(dy, key, like):
    """Zeros of ``like``'s shape with ``dy`` added at ``key``: the gradient of ``like[key]``."""
    static, dynamic = shape_for_gradient(like)
    return getitem_grad(dy, key, static, dynamic)


def _normalized_axis(op_name: str, axis: int, like) -> int:
    static = _static_shape(like)
    return axis if static is None else normalize_axis(op_name, axis, len(static))


# -- shape-changing ops --------------------------------------------------------------------


def _reshape_infer(x, shape):
    total = num_elements(x.shape)
    if shape.count(-1) > 1:
        raise ShapeError(f"reshape: at most one dimension can be -1, got {format_shape(shape)}.")
    known = int(np.prod([d for d in shape if d != -1], dtype=np.int64))
    if -1 in shape:
        if total is None:
            return x.dtype, tuple(None if d == -1 else d for d in shape)
        if known == 0 or total % known:
            raise ShapeError(f"reshape: cannot reshape a tensor of shape {format_shape(x.shape)} "
                             f"({total} elements) into {format_shape(shape)}.")
        return x.dtype, tuple(total // known if d == -1 else d for d in shape)
    if total is not None and total != known:
        raise ShapeError(f"reshape: cannot reshape a tensor of shape {format_shape(x.shape)} "
                         f"({total} elements) into {format_shape(shape)} ({known} elements).")
    return x.dtype, shape


def known_dims(shape_tensor) -> list | None:
    """What is known while tracing of a 1-D shape tensor, entry by entry (an int, or None),
    as TensorFlow's shape inference reads it: constants, a tensor's ``shape`` (its static
    dimensions), and casts, stacks, concatenations and static slices of those
    (``rt.concat([rt.shape(x)[:-1], [n]], 0)``). None when not even the length is known."""
    value = constant_value(shape_tensor)
    if value is not None:
        return [int(d) for d in np.ravel(value)] if np.ndim(value) == 1 else None
    if not isinstance(shape_tensor, SymbolicTensor):
        return None
    node = shape_tensor.node
    if node.op is SHAPE:
        static = node.inputs[0].shape
        return None if static is None else list(static)
    if node.op is CAST:
        return known_dims(node.inputs[0])
    if node.op is STACK and node.attrs["axis"] == 0:
        return [_known_dim(d) for d in node.inputs]
    if node.op is CONCAT and node.attrs["axis"] in (0, -1):
        parts = [known_dims(part) for part in node.inputs]
        return None if any(p is None for p in parts) else [d for p in parts for d in p]
    if node.op is GETITEM and len(node.inputs) == 1 and len(node.attrs["spec"]) == 1 \
            and isinstance(node.attrs["spec"][0], slice):
        dims = known_dims(node.inputs[0])
        return None if dims is None else dims[node.attrs["spec"][0]]
    length = shape_tensor.shape[0] if shape_tensor.shape else None
    return None if length is None else [None] * length


def _known_dim(scalar) -> int | None:
    """A scalar of a shape list known while tracing: a constant, or an entry of a shape
    tensor whose entry is known (``rt.shape(x)[0]`` of an ``x`` with a static batch size)."""
    value = constant_value(scalar)
    if value is not None:
        return None if np.ndim(value) else int(value)
    node = getattr(scalar, "node", None)
    if node is not None and node.op is CAST:
        return _known_dim(node.inputs[0])
    if node is not None and node.op is GETITEM and len(node.inputs) == 1 \
            and len(node.attrs["spec"]) == 1 and isinstance(node.attrs["spec"][0], int):
        dims = known_dims(node.inputs[0])
        index = node.attrs["spec"][0]
        if dims is not None and -len(dims) <= index < len(dims):
            return dims[index]
    return None


def _dynamic_reshape_infer(x, shape):
    dims = known_dims(shape)
    if dims is None:
        return x.dtype, None
    if None not in dims:
        try:
            return _reshape_infer(x, tuple(dims))
        except ShapeError:  # a shape tensor that does not fit: the kernel says so as it runs
            return x.dtype, (None,) * len(dims)
    return x.dtype, tuple(None if d is None or d < 0 else d for d in dims)


def _reshape_back(node, dy):
    """reshape, dynamic_reshape, squeeze, expand_dims: ``dy`` in the input's shape."""
    return (reshape(dy, _shape_of(node.inputs[0])),) + (None,) * (len(node.inputs) - 1)


RESHAPE = register(OpDef("reshape", lambda x, shape: np.reshape(x, shape), _reshape_infer,
                         gradient=_reshape_back))
DYNAMIC_RESHAPE = register(OpDef("dynamic_reshape", lambda x, shape: np.reshape(x, tuple(shape)),
                                 _dynamic_reshape_infer, gradient=_reshape_back))


def reshape(x, shape):
    """``x`` with a new shape of the same number of elements (one dim may be -1). The shape
    may be a tensor, or a list mixing ints and scalar tensors (``[rt.shape(x)[0], -1]``)."""
    if isinstance(shape, Tensor):
        return apply_op(DYNAMIC_RESHAPE, (x, cast(shape, dtypes.int64)))
    if isinstance(shape, (list, tuple)) and any(isinstance(d, Tensor) for d in shape):
        inputs, attrs = shape_operand("reshape", shape)
        if inputs:
            return apply_op(DYNAMIC_RESHAPE, (x,) + inputs)
        shape = attrs["shape"]
    return apply_op(RESHAPE, (x,), {"shape": static_shape_arg("reshape", shape, dynamic_ok=True)})


def _transpose_infer(x, perm):
    if x.shape is None:
        return x.dtype, None
    if perm is None:
        return x.dtype, tuple(reversed(x.shape))
    if sorted(perm) != list(builtins.range(len(x.shape))):  # ``range`` is the op below
        raise ShapeError(f"transpose: perm {list(perm)} is not a permutation of the "
                         f"{len(x.shape)} axes of a tensor of shape {format_shape(x.shape)}.")
    return x.dtype, tuple(x.shape[p] for p in perm)


def _transpose_grad(node, dy):
    perm = node.attrs["perm"]
    return (transpose(dy, None if perm is None else np.argsort(perm)),)  # inverse permutation


TRANSPOSE = register(OpDef("transpose", lambda x, perm=None: np.transpose(x, perm),
                           _transpose_infer, gradient=_transpose_grad))


def transpose(x, perm=None):
    """Permutes the axes (reverses them when ``perm`` is None)."""
    return apply_op(TRANSPOSE, (x,), {"perm": None if perm is None else tuple(int(p) for p in perm)})


def _concat_infer(*values, axis):
    dtype = same_dtype("concat", values)
    shapes = [v.shape for v in values]
    if any(s is None for s in shapes):
        return dtype, None
    rank = len(shapes[0])
    if rank == 0 or any(len(s) != rank for s in shapes):
        raise ShapeError("concat: all inputs must have the same rank >= 1, got shapes "
                         + ", ".join(format_shape(s) for s in shapes) + ".")
    axis = normalize_axis("concat", axis, rank)
    out = []
    for i in builtins.range(rank):  # ``range`` is the op below
        dims = [s[i] for s in shapes]
        if i == axis:
            out.append(None if None in dims else sum(dims))
            continue
        known = {d for d in dims if d is not None}
        if len(known) > 1:
            raise ShapeError("concat: shapes " + ", ".join(format_shape(s) for s in shapes)
                             + f" differ outside axis {axis}.")
        out.append(known.pop() if known else None)
    return dtype, tuple(out)


def _concat_grad(node, dy):
    """Each input gets its slice of ``dy`` along the axis; sizes known while tracing are
    ints, the others come from the inputs' shapes at run time."""
    values = node.inputs
    ranks = [len(s) for s in map(_static_shape, values) if s is not None]
    axis = node.attrs["axis"]
    if ranks:
        axis = normalize_axis("concat", axis, ranks[0])
    grads, start = [], 0
    for value in values:
        static = _static_shape(value)
        size = static[axis] if static is not None and static[axis] is not None \
            else getitem(shape(value), axis)
        grads.append(getitem(dy, _along(axis, slice(start, start + size))))
        start = start + size
    return grads


CONCAT = register(OpDef("concat", lambda *values, axis: np.concatenate(values, axis=axis),
                        _concat_infer, gradient=_concat_grad))


def concat(values, axis):
    """Joins tensors along an existing axis."""
    if hasattr(values, "concatenated"):  # a list grown in a graph loop (runtime.staged_list)
        return values.concatenated(int(axis))
    return apply_op(CONCAT, scalars_like(list(values)), {"axis": int(axis)})


def stack(values, axis=0):
    """Joins tensors of equal shape along a new axis."""
    if hasattr(values, "stacked"):  # a list grown in a graph loop (runtime.staged_list)
        return values.stacked(int(axis))
    values = list(values)
    if not values:
        raise ValueError("stack: needs at least one tensor.")
    return apply_op(STACK, scalars_like(values), {"axis": int(axis)})


def _unstack_kernel(x, axis, num, index):
    if x.ndim == 0 or not -x.ndim <= axis < x.ndim:
        raise ValueError(f"axis {axis} is out of range for a tensor of shape "
                         f"{format_shape(x.shape)}")
    if x.shape[axis] != num:
        raise ValueError(f"the tensor has shape {format_shape(x.shape)}, whose axis {axis} has "
                         f"{x.shape[axis]} entries, not num={num}")
    return x[(slice(None),) * (axis % x.ndim) + (index,)]


def _unstack_infer(x, axis, num, index):
    if x.shape is None:
        return x.dtype, None
    if x.shape[axis] not in (None, num):
        raise ShapeError(f"unstack: num={num} does not match axis {axis} of shape "
                         f"{format_shape(x.shape)}, which has {x.shape[axis]} entries.")
    return x.dtype, x.shape[:axis] + x.shape[axis + 1:]


def _unstack_grad(node, dy):
    """The piece's gradient at its index along the axis, zeros elsewhere (added into zeros,
    not multiplied by a mask, so an inf or NaN in ``dy`` stays in its own place)."""
    return (_scatter(dy, _along(node.attrs["axis"], node.attrs["index"]), node.inputs[0]),)


# One node per piece (ops have a fixed number of outputs); each is a view of the input.
UNSTACK = register(OpDef("unstack", _unstack_kernel, _unstack_infer, gradient=_unstack_grad))


def unstack(value, num: int | None = None, axis: int = 0) -> list[Tensor]:
    """The tensors along ``axis`` of ``value``, as a list (the inverse of ``stack``).

    ``num`` is needed only when the size of ``axis`` is unknown while tracing.
    """
    value = convert_to_tensor(value)
    rank = value.ndim
    if rank == 0:
        raise ShapeError("unstack: cannot unstack a scalar (shape ()); it needs a tensor of rank "
                         "1 or more.")
    axis = normalize_axis("unstack", int(axis), rank) if rank is not None else int(axis)
    known = None if rank is None or axis < 0 else value.shape[axis]
    if num is None:
        if known is None:
            raise ValueError(
                f"unstack: cannot infer num from shape {format_shape(value.shape)}: axis {axis} "
                f"has an unknown size while tracing. Pass num=, the number of tensors to unstack "
                f"into, or give the input a static shape (e.g. with input_signature).")
        num = known
    num = int(num)
    return [apply_op(UNSTACK, (value,), {"axis": axis, "num": num, "index": i})
            for i in builtins.range(num)]  # ``range`` is an op in this module


def _squeeze_kernel(x, axis=None):
    return np.squeeze(x, axis=axis)


def _squeeze_infer(x, axis=None):
    if x.shape is None:
        return x.dtype, None
    if axis is None:
        if None in x.shape:
            return x.dtype, None
        return x.dtype, tuple(d for d in x.shape if d != 1)
    axes = {normalize_axis("squeeze", a, len(x.shape)) for a in axis}
    for a in axes:
        if x.shape[a] not in (1, None):
            raise ShapeError(f"squeeze: axis {a} of shape {format_shape(x.shape)} has size "
                             f"{x.shape[a]}, not 1.")
    return x.dtype, tuple(d for i, d in enumerate(x.shape) if i not in axes)


SQUEEZE = register(OpDef("squeeze", _squeeze_kernel, _squeeze_infer, gradient=_reshape_back))


def squeeze(x, axis=None):
    """``x`` without its size-1 dimensions (only those in ``axis`` when given)."""
    axis = None if axis is None else ((axis,) if isinstance(axis, int) else tuple(axis))
    return apply_op(SQUEEZE, (x,), {"axis": axis})


def _expand_dims_infer(x, axis):
    if x.shape is None:
        return x.dtype, None
    shape = list(x.shape)
    shape.insert(normalize_axis("expand_dims", axis, len(shape) + 1), 1)
    return x.dtype, tuple(shape)


EXPAND_DIMS = register(OpDef("expand_dims", lambda x, axis: np.expand_dims(x, axis),
                             _expand_dims_infer, gradient=_reshape_back))


def expand_dims(x, axis):
    """``x`` with a new size-1 dimension inserted at ``axis``."""
    return apply_op(EXPAND_DIMS, (x,), {"axis": int(axis)})


# -- indexing ------------------------------------------------------------------------------


def _gather_kernel(params, indices, axis=0):
    if indices.dtype.kind not in "iu":
        raise TypeError(f"gather indices must be integers, got {indices.dtype.name}")
    axis = normalize_axis("gather", axis, params.ndim)
    problem = index_range_error(indices, params.shape[axis], params.shape, axis)
    if problem is not None:
        raise IndexError(problem)
    return np.take(params, indices, axis=axis)


def _gather_infer(params, indices, axis=0):
    if params.shape is None or indices.shape is None:
        return params.dtype, None
    axis = normalize_axis("gather", axis, len(params.shape))
    return params.dtype, params.shape[:axis] + indices.shape + params.shape[axis + 1:]


def _gather_grad(node, dy):
    """``dy`` added into zeros of the params' shape at the indices (repeats accumulate). Along
    axis 0 (given as 0, as in TensorFlow) the rows are kept apart, one per index: an
    ``IndexedSlices``, which optimizers apply row by row."""
    params, indices = node.inputs
    static, dynamic = shape_for_gradient(params)
    if node.attrs["axis"] == 0 and static is not None and None not in static[1:]:
        rows = reshape(dy, (-1,) + tuple(static[1:]))
        return IndexedSlices(rows, reshape(indices, (-1,)), static, dynamic), None
    axis = _normalized_axis("gather", node.attrs["axis"], params)
    return _scatter(dy, _along(axis, indices), params), None


GATHER = register(OpDef("gather", _gather_kernel, _gather_infer, gradient=_gather_grad))


def gather(params, indices, axis=0):
    """Picks slices of ``params`` along ``axis`` at ``indices``, each in ``[0, size)``: one out
    of range is an error, a negative one too (it does not count from the end, as in TensorFlow)."""
    return apply_op(GATHER, (params, indices), {"axis": int(axis)})


# -- dtype ---------------------------------------------------------------------------------


def cast(x, dtype):
    """``x`` converted to ``dtype`` (floats to ints truncate toward zero). The result is an
    ordinary tensor even when ``x`` stood for a Python number (a loop counter)."""
    dtype = dtypes.as_dtype(dtype)
    if isinstance(x, Tensor) and x.dtype == dtype and not getattr(x, "weak", False):
        return x
    return apply_op(CAST, (convert_to_tensor(x),), {"dtype": dtype})


def checked_cast(x, dtype):
    """``x`` converted to the integer ``dtype``, raising when the graph runs if a value does
    not fit (NaN, infinity, out of range) instead of wrapping: how a tensor that stands for
    a Python int converts, since a Python int never wraps. Floats truncate toward zero."""
    dtype = dtypes.as_dtype(dtype)
    if isinstance(x, Tensor) and x.dtype == dtype:
        return x
    return apply_op(CHECKED_CAST, (convert_to_tensor(x),), {"dtype": dtype})


# -- creation ------------------------------------------------------------------------------


def shape_operand(op_name: str, shape):
    """A shape argument: static (an attribute) or a tensor (an input), as ``(inputs, attrs)``.
    A list may mix ints and scalar integer tensors (``[1, n, 2]``)."""
    if isinstance(shape, Tensor):
        value = constant_value(shape)
        if value is None:
            return (cast(shape, dtypes.int64),), {}
        shape = value.tolist()
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    if isinstance(shape, (list, tuple)) and None in shape:
        static_shape_arg(op_name, shape, dynamic_ok=True)  # raises, naming the unknown dimension
    if isinstance(shape, (list, tuple)) and any(
            isinstance(d, Tensor) and constant_value(d) is None for d in shape):
        return (stack([_dimension(op_name, i, d) for i, d in enumerate(shape)]),), {}
    return (), {"shape": static_shape_arg(op_name, shape, dynamic_ok=True)}


def _dimension(op_name: str, position: int, dim) -> Tensor:
    """One entry of a shape list as an int64 scalar tensor."""
    if isinstance(dim, Tensor):
        if dim.shape != () or dim.dtype.kind not in "iu":
            raise TypeError(
                f"{op_name}: dimension {position} of the shape is a tensor of dtype "
                f"{dim.dtype.name} and shape {format_shape(dim.shape)}; each dimension must be "
                f"an int or a scalar integer tensor.")
        return cast(dim, dtypes.int64)
    if not isinstance(dim, (int, np.integer)) or isinstance(dim, bool):
        raise TypeError(f"{op_name}: dimension {position} of the shape is {dim!r}; each "
                        f"dimension must be an int or a scalar integer tensor.")
    return constant(np.int64(dim))


def shape_from_operand(shape_input=None, shape=None):
    """The static shape: the attribute, or what is known of the shape tensor while tracing
    (``known_dims``; None for the entries it cannot tell)."""
    if shape is not None:
        return shape
    dims = known_dims(shape_input)
    return None if dims is None else tuple(None if d is None or d < 0 else d for d in dims)


def _fill_kernel(value, shape_input=None, shape=None):
    return np.full(shape if shape is not None else tuple(shape_input), value)


def _fill_infer(value, shape_input=None, shape=None):
    return value.dtype, shape_from_operand(shape_input, shape)


# Its gradient rule is set in runtime.ops.broadcast_ops: sum_to_shape is its adjoint.
FILL = register(OpDef("fill", _fill_kernel, _fill_infer))


def _filled(op_name: str, dims, value) -> Tensor:
    inputs, attrs = shape_operand(op_name, dims)  # errors name the op the user called
    return apply_op(FILL, (convert_to_tensor(value),) + inputs, attrs)


def fill(dims, value):
    """A tensor of shape ``dims`` filled with ``value`` (which sets the dtype)."""
    return _filled("fill", dims, value)


def zeros(shape, dtype=dtypes.float32):
    """A tensor of ``shape`` filled with zeros of ``dtype``."""
    return _filled("zeros", shape, constant(0, dtypes.as_dtype(dtype)))


def ones(shape, dtype=dtypes.float32):
    """A tensor of ``shape`` filled with ones of ``dtype``."""
    return _filled("ones", shape, constant(1, dtypes.as_dtype(dtype)))


def _like(x, value, dtype):
    x = convert_to_tensor(x)
    dtype = x.dtype if dtype is None else dtypes.as_dtype(dtype)
    if x.shape is not None and None not in x.shape:
        return fill(x.shape, constant(value, dtype))
    return fill(shape(x, dtypes.int64), constant(value, dtype))


def zeros_like(x, dtype=None):
    """Zeros with ``x``'s shape and its dtype (or ``dtype``)."""
    return _like(x, 0, dtype)


def ones_like(x, dtype=None):
    """Ones with ``x``'s shape and its dtype (or ``dtype``)."""
    return _like(x, 1, dtype)


EYE = register(OpDef("eye", lambda n, m, dtype: np.eye(n, m, dtype=dtype),
                     lambda n, m, dtype: (dtype, (n, m)), gradient=NOT_DIFFERENTIABLE))


def _range_infer(start, limit, delta, dtype):
    values = [constant_value(v) for v in (start, limit, delta)]
    if any(v is None for v in values):
        return dtype, (None,)
    start_v, limit_v, delta_v = (v.item() for v in values)
    if delta_v == 0:
        return dtype, (None,)  # raises when run
    return dtype, (_range_length(start_v, limit_v, delta_v),)


def _range_length(start, limit, delta) -> int:
    """``len(np.arange(start, limit, delta))`` without making the range (a graph may ask for
    one too large to allocate; it fails when it runs, not while its type is worked out)."""
    if all(isinstance(v, int) for v in (start, limit, delta)):
        return len(builtins.range(start, limit, delta))
    return max(0, math.ceil((limit - start) / delta))  # NumPy's own formula for floats


def _range_kernel(start, limit, delta, dtype):
    if delta == 0:
        raise ValueError("range: delta must not be zero")
    # As Python numbers: NumPy would compute the length in the bounds' dtype (5 - 0 in uint8
    # counting down wraps around and gives an empty range).
    return np.arange(start.item(), limit.item(), delta.item(), dtype=dtype)


RANGE = register(OpDef("range", _range_kernel, _range_infer, gradient=NOT_DIFFERENTIABLE))


def range(start, limit=None, delta=1, dtype=None):  # noqa: A001
    """``[start, start + delta, ...)`` up to ``limit``, like Python's ``range``."""
    if limit is None:
        start, limit = 0, start
    dtype = dtypes.result_type(start, limit, delta) if dtype is None else dtypes.as_dtype(dtype)
    bounds = (_range_bound(start, dtype), _range_bound(limit, dtype), _range_step(delta, dtype))
    return apply_op(RANGE, bounds, {"dtype": dtype})


def _range_bound(value, dtype):
    """A bound in the range's dtype; a Python number that does not fit raises instead of
    wrapping around (a limit of -1 next to a uint8 start must not become 255)."""
    if not isinstance(value, dtypes.PYTHON_SCALARS):
        return cast(value, dtype)
    try:
        return constant(value, dtype)
    except OverflowError:
        raise OverflowError(f"range: {value!r} does not fit in {dtype.name}, the dtype of the "
                            f"range; cast the tensor bounds to a wider signed dtype first (e.g. "
                            f"rt.cast(n, rt.int32)).") from None


def _range_step(delta, dtype):
    """The step; counting an unsigned range down keeps a negative Python step as int64 (only
    the values need the range's dtype)."""
    if isinstance(delta, int) and dtype.kind == "u" and delta < 0:
        return constant(np.int64(delta))
    return _range_bound(delta, dtype)


# -- selection -----------------------------------------------------------------------------


def _where_infer(condition, x, y):
    return same_dtype("where", (x, y)), broadcast("where", condition.shape, x.shape, y.shape)


def _where_grad(node, dy):
    condition = node.inputs[0]
    return None, where(condition, dy, 0), where(condition, 0, dy)


WHERE = register(OpDef("where", np.where, _where_infer, promotion=Promotion.COMMON, unpromoted=1,
                       gradient=_where_grad))
ARGWHERE = register(OpDef("argwhere", np.argwhere, lambda c: (dtypes.int64, (None, c.ndim)),
                          gradient=NOT_DIFFERENTIABLE))


def where(condition, x=None, y=None):
    """Picks ``x`` where ``condition`` holds and ``y`` elsewhere; alone, the true indices."""
    if x is None and y is None:
        return apply_op(ARGWHERE, (condition,))
    if x is None or y is None:
        raise ValueError("where: give both x and y, or neither.")
    return apply_op(WHERE, (condition, x, y))


def _operand(value):
    """An input as the rules compare it: Python numbers stay weak (they take the tensor's
    dtype, as they did in the op), anything else becomes a tensor."""
    if isinstance(value, (Tensor, dtypes.PYTHON_SCALARS)):
        return value
    return convert_to_tensor(value)


def _clip_grad(node, dy):
    """TensorFlow's rule: ``t`` gets ``dy`` where ``lo <= t <= hi``, ``lo`` where ``t < lo``
    and ``hi`` where ``t > hi`` (Tensor operators: math_ops sits above this module)."""
    t, lo, hi = (_operand(v) for v in node.inputs)
    return (where((t >= lo) & (t <= hi), dy, 0), where(t < lo, dy, 0), where(t > hi, dy, 0))


CLIP = register(OpDef("clip_by_value", np.clip, lambda t, lo, hi: (
    same_dtype("clip_by_value", (t, lo, hi)),
    broadcast("clip_by_value", t.shape, lo.shape, hi.shape)), promotion=Promotion.COMMON,
    gradient=_clip_grad))


def clip_by_value(t, clip_value_min, clip_value_max):
    """``t`` with each element limited to ``[clip_value_min, clip_value_max]``; rows
    (``IndexedSlices``) stay rows, each limited, as in TensorFlow."""
    if isinstance(t, IndexedSlices):
        return t.with_rows(clip_by_value(t.values, clip_value_min, clip_value_max), t.indices)
    return apply_op(CLIP, (t, clip_value_min, clip_value_max))


IDENTITY = register(OpDef("identity", lambda x: x, lambda x: (x.dtype, x.shape),
                          gradient=lambda node, dy: (dy,)))


def identity(x):
    """The same value (a separate node in graphs)."""
    return apply_op(IDENTITY, (x,))


# -- shape queries (known while tracing when the shape is static) --------------------------

def _shape_infer(x, out_type):
    return out_type, None if x.shape is None else (len(x.shape),)


SHAPE = register(OpDef("shape", lambda x, out_type: np.array(x.shape, dtype=out_type), _shape_infer,
                       gradient=NOT_DIFFERENTIABLE))
SIZE = register(OpDef("size", lambda x, out_type: np.array(x.size, dtype=out_type),
                      lambda x, out_type: (out_type, ()), gradient=NOT_DIFFERENTIABLE))
RANK = register(OpDef("rank", lambda x: np.array(x.ndim, dtype=np.int32),
                      lambda x: (dtypes.int32, ()), gradient=NOT_DIFFERENTIABLE))


def shape(x, out_type=dtypes.int32):
    """The shape as a 1-D int tensor (a constant when the shape is known while tracing)."""
    x = convert_to_tensor(x)
    out_type = dtypes.as_dtype(out_type)
    if x.shape is not None and None not in x.shape:
        return constant(np.array(x.shape, dtype=out_type))
    return apply_op(SHAPE, (x,), {"out_type": out_type})


def size(x, out_type=dtypes.int32):
    """The number of elements of ``x``, as a scalar tensor of ``out_type``."""
    x = convert_to_tensor(x)
    out_type = dtypes.as_dtype(out_type)
    count = num_elements(x.shape)
    if count is not None:
        return constant(np.array(count, dtype=out_type))
    return apply_op(SIZE, (x,), {"out_type": out_type})


def rank(x):
    """The number of dimensions of ``x``, as a scalar int32 tensor."""
    x = convert_to_tensor(x)
    if x.shape is not None:
        return constant(np.array(len(x.shape), dtype=np.int32))
    return apply_op(RANK, (x,))


# -- gradient rules of the ops declared below this module ----------------------------------


def _cast_grad(node, dy):
    """Between floating-point and complex dtypes ``dy`` is cast back (complex to real keeps
    the real part); an integer or bool on either side carries no gradient, as in TensorFlow."""
    source, target = np.dtype(node.inputs[0].dtype), node.attrs["dtype"]
    if source.kind in "fc" and target.kind in "fc":
        return (cast(dy, source),)
    return (None,)


def _stack_grad(node, dy):
    return unstack(dy, num=len(node.inputs), axis=node.attrs["axis"])


def _getitem_gradient(node, dy):
    """``dy`` added into zeros of ``x``'s shape at the key; tensors in the key (indices,
    slice bounds) get none."""
    x, *indices = node.inputs
    static, dynamic = shape_for_gradient(x)
    grad = getitem_grad(dy, node.attrs["spec"], static, dynamic, inputs=indices)
    return (grad,) + (None,) * len(indices)


CAST.define_gradient(_cast_grad)
STACK.define_gradient(_stack_grad)
GETITEM.define_gradient(_getitem_gradient)


__all__ = [
    "constant", "convert_to_tensor", "reshape", "transpose", "concat", "stack", "unstack",
    "squeeze", "expand_dims", "gather", "getitem", "cast", "fill", "zeros", "ones", "zeros_like",
    "ones_like", "range", "where", "clip_by_value", "identity", "shape", "size", "rank",
]
