"""Ops a plan runs without calling their kernel: what the kernel does, written into the plan.

A kernel call costs a Python frame or two (the kernel, the lambda that binds its attributes,
NumPy's function wrappers) on top of the work, and on the small arrays of a training step the
frames are most of the time. For the ops below, the plan writes the NumPy call the kernel
would make, with the attributes and the dtypes known when the plan is compiled:

    read_variable       var._value              (what the bound reader returns; [()] if 0-d)
    transpose           x.T, x.transpose(perm)  (np.transpose's own method call)
    reshape             x.reshape(shape)        (np.reshape's own method call)
    cast                x.astype(dtype)         (the bound cast, for real inputs)
    reduce_mean         add.reduce(x, axis, dtype, None, keepdims) / count
                                                (the kernel's float path; count from the shape)
    relu                maximum(x, 0)           (a ufunc call: the plan may give it ``out=``)
    where(c, x, 0)      x's bits and those of c as a mask   (4- or 8-byte elements, at least
    where(c, 0, x)                                           MASKED_SELECT_SIZE of them)
    gather_lanes        concatenate((a, b, ...), None)   (runtime.plan_groups)
    read_lanes          group.read()

Two nodes may also run as one call (``paired``): a training step's loss
``softmax_cross_entropy_with_logits(labels, logits)`` and its gradient's ``softmax(logits)``
compute the same shifted exponentials and their sums, which one kernel computes once for both
results (runtime.plan_softmax); a sum with ``keepdims`` only reshaped to drop the kept axes (a
bias gradient) is the sum without them.

Each rule gives the bits of the kernel it stands for (tests/runtime/test_executor_lowering.py
compares them on every dtype the op takes). A rule applies only when the static types say the
kernel would take the path written here; otherwise the kernel runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from runtime.graph import Node
from runtime.ops.array_ops import RESHAPE, TRANSPOSE, WHERE
from runtime.ops.conversion_ops import CAST
from runtime.ops.nn_ops import RELU, SOFTMAX, SOFTMAX_XENT
from runtime.ops.reduce_ops import REDUCE_MAX, REDUCE_MEAN, REDUCE_MIN, REDUCE_PROD, REDUCE_SUM
from runtime.ops.registry import CONST
from runtime.plan_groups import GATHER_LANES, READ_LANES
from runtime.plan_softmax import pair_kernel
from runtime.variables import READ


@dataclass(frozen=True)
class Expression:
    """``text`` formatted with the input names ({0}, {1}, ...) and the globals it reads (named
    with ``{n}``, the node's number in the plan). ``fresh``: it makes a new array no one else
    holds."""

    text: str
    globals: dict = field(default_factory=dict)
    fresh: bool = False


@dataclass(frozen=True)
class UfuncCall:
    """``ufunc(*inputs, *constants)``: the plan runs it as it runs any ufunc node."""

    ufunc: np.ufunc
    constants: tuple


def lower(node: Node) -> Expression | UfuncCall | None:
    """How the plan runs ``node`` instead of calling its kernel, or None."""
    rule = _RULES.get(node.op)
    return rule(node) if rule is not None else None


def _read(node: Node) -> Expression:
    if node.outputs[0]._shape == ():  # a NumPy scalar, as the plan holds 0-d values
        return Expression("var{n}._value[()]", {"var{n}": node.attrs["variable"]})
    return Expression("var{n}._value", {"var{n}": node.attrs["variable"]})


def _is_array(value) -> bool:
    """A known shape of rank 1 or more: the plan holds an ndarray (0-d values are NumPy
    scalars, which have these methods too, but are left to the kernels)."""
    return value.shape is not None and len(value.shape) > 0


def _transpose(node: Node) -> Expression | None:
    value, perm = node.inputs[0], node.attrs["perm"]
    if not _is_array(value):
        return None
    if perm is None or tuple(perm) == tuple(reversed(range(len(value.shape)))):
        return Expression("{0}.T")
    return Expression(f"{{0}}.transpose({tuple(int(p) for p in perm)!r})")


def _reshape(node: Node) -> Expression | None:
    if not _is_array(node.inputs[0]):
        return None
    return Expression(f"{{0}}.reshape({tuple(int(d) for d in node.attrs['shape'])!r})")


def _cast(node: Node) -> Expression | None:
    if node.inputs[0].dtype.kind == "c":
        return None
    return Expression("{0}.astype(dtype{n})", {"dtype{n}": node.attrs["dtype"]})


def _mean(node: Node) -> Expression | None:
    value = node.inputs[0]
    if value.dtype.kind != "f" or value.shape is None or None in value.shape:
        return None
    axis, keepdims = node.attrs.get("axis"), node.attrs.get("keepdims", False)
    reduced = range(len(value.shape)) if axis is None else axis
    count = int(np.prod([value.shape[a] for a in reduced], dtype=np.int64))
    if count == 0:
        return None
    single = axis if axis is None or len(axis) != 1 else axis[0]  # as the kernel passes it
    return Expression(f"sum{{n}}({{0}}, axis{{n}}, dtype{{n}}, None, {bool(keepdims)}) / {count}",
                      {"sum{n}": np.add.reduce, "axis{n}": single, "dtype{n}": value.dtype},
                      fresh=True)


def _relu(node: Node) -> UfuncCall:
    return UfuncCall(np.maximum, (np.zeros((), node.inputs[0].dtype),))


# From this many elements a select with a zero branch runs as bit masks: np.where branches
# per element, and on a mask without pattern (a ReLU's gradient) mispredicts half the time
# (1024 x 512 float32: 1.9 ms, the masks 0.3 ms; even at about 1,000 elements).
MASKED_SELECT_SIZE = 4096


def _where(node: Node) -> Expression | None:
    """``where(c, x, 0)`` as ``x & mask`` on the elements' bits (``mask`` all ones where ``c``
    holds, else zeros: +0, the constant's bits) and ``where(c, 0, x)`` with the mask of
    ``not c``: the same bits for every value, NaNs and signed zeros included."""
    condition, *branches = node.inputs
    result = node.outputs[0]
    if condition.dtype != np.bool_ or result.shape is None or None in result.shape \
            or int(np.prod(result.shape)) < MASKED_SELECT_SIZE \
            or result.dtype.itemsize not in (4, 8) or result.dtype.kind not in "fiu" \
            or tuple(condition.shape or ()) != tuple(result.shape):
        return None
    zero = [_is_zero_bits(branch) for branch in branches]
    if zero == [False, True]:
        value, mask = "{1}", "negative{n}({0}, dtype=bits{n})"  # true: -1, all ones
    elif zero == [True, False]:
        value, mask = "{2}", "subtract{n}({0}, 1, dtype=bits{n})"  # true: 0, false: -1
    else:
        return None
    if branches[zero.index(False)].dtype != result.dtype \
            or tuple(branches[zero.index(False)].shape or ()) != tuple(result.shape):
        return None
    bits = np.dtype(f"i{result.dtype.itemsize}")
    return Expression(f"and{{n}}({value}.view(bits{{n}}), {mask}).view(dtype{{n}})",
                      {"and{n}": np.bitwise_and, "negative{n}": np.negative,
                       "subtract{n}": np.subtract, "bits{n}": bits, "dtype{n}": result.dtype},
                      fresh=True)


def _is_zero_bits(value) -> bool:
    """A constant whose every element is all zero bits (+0, not -0.0)."""
    node = getattr(value, "node", None)
    if node is None or node.op is not CONST:
        return False
    constant = np.asarray(node.attrs["value"])
    return constant.dtype.itemsize in (4, 8) and not constant.view(
        f"i{constant.dtype.itemsize}").any()


def _gather_lanes(node: Node) -> Expression:
    places = "".join(f"{{{i}}}, " for i in range(len(node.inputs)))
    return Expression(f"concatenate{{n}}(({places}), None)", {"concatenate{n}": np.concatenate},
                      fresh=True)


def _read_lanes(node: Node) -> Expression:
    return Expression("group{n}.read()", {"group{n}": node.attrs["group"]})


_RULES = {READ: _read, TRANSPOSE: _transpose, RESHAPE: _reshape, CAST: _cast, REDUCE_MEAN: _mean,
          RELU: _relu, WHERE: _where, GATHER_LANES: _gather_lanes, READ_LANES: _read_lanes}




@dataclass(frozen=True)
class Pair:
    """``second`` computed with the node it is paired to, at that node's place, by
    ``kernel(*that node's inputs, *arguments)``: it returns both nodes' results, or only
    ``second``'s when ``only_second`` (the first node's result has no other use)."""

    second: Node
    kernel: object
    arguments: tuple = ()
    only_second: bool = False


def paired(nodes, keep) -> dict[int, Pair]:
    """id(node) -> the Pair that computes it with a later node of ``nodes`` (a block of the
    plan; ``keep``: the block's results)."""
    if not any(node.op in _PAIRED for node in nodes):
        return {}
    uses: dict[int, int] = {id(v): 1 for v in keep}
    for node in nodes:
        for value in node.inputs:
            uses[id(value)] = uses.get(id(value), 0) + 1
    pairs, losses = {}, {}
    for node in nodes:
        if node.op is SOFTMAX_XENT:
            losses.setdefault((id(node.inputs[1]), node.attrs["axis"]), node)
        elif node.op is SOFTMAX:
            loss = losses.pop((id(node.inputs[0]), node.attrs["axis"]), None)
            if loss is not None:
                kernel = pair_kernel(*loss.inputs, loss.attrs["axis"])
                pairs[id(loss)] = Pair(node, kernel, (loss.attrs["axis"],))
        elif node.op is RESHAPE and uses[id(node.inputs[0])] == 1:
            kernel = _reduction_without_kept_axes(node.inputs[0].node, node.outputs[0].shape)
            if kernel is not None:
                pairs[id(node.inputs[0].node)] = Pair(node, kernel, only_second=True)
    return pairs


def _reduction_without_kept_axes(node: Node, shape):
    """For a reduction with ``keepdims`` whose result is only reshaped to ``shape``, the
    result without the kept axes, when it has that shape (a bias gradient's sum): the same
    sums, one call less."""
    if node.op not in _REDUCTIONS or not node.attrs.get("keepdims"):
        return None
    value = node.inputs[0]
    axis = node.attrs.get("axis")
    if value.shape is None or None in value.shape or shape is None:
        return None
    axes = range(len(value.shape)) if axis is None else axis
    if tuple(shape) != tuple(d for i, d in enumerate(value.shape) if i not in axes):
        return None
    return node.op.bound_kernel({**node.attrs, "keepdims": False}, [(value.dtype, value.shape)])


_REDUCTIONS = {REDUCE_SUM, REDUCE_PROD, REDUCE_MAX, REDUCE_MIN}
_PAIRED = {SOFTMAX, RESHAPE}  # the second nodes of the pairs above
