"""``rt.einsum`` and ``rt.tensordot``: one op for Einstein summation (NumPy's kernel), and
``tensordot`` written as an einsum so it shares the op's gradient.

The equation is stored in explicit form (``"ij,jk->ik"``): the gradient with respect to one
operand is another einsum, from the output's and the other operands' subscripts to that
operand's, with the subscripts only it had (summed away) broadcast back.
"""

from __future__ import annotations

import string
import numpy as np

from runtime.errors import GradientError, ShapeError
from runtime.ops.array_ops import EYE, expand_dims, ones_like
from runtime.ops.dispatch import apply_op, convert_to_tensor
from runtime.ops.math_ops import multiply
from runtime.ops.registry import OpDef, register
from runtime.ops.shapes import broadcast, same_dtype
from runtime.tensor import format_shape

_LETTERS = set(string.ascii_letters)


def _parse(equation: str, count: int) -> tuple[list[str], str]:
    """The operands' subscripts and the output's, the output made explicit as NumPy's
    implicit mode would (ellipsis first, then the letters used once, sorted)."""
    text = equation.replace(" ", "")
    inputs_text, arrow, output = text.partition("->")
    inputs = inputs_text.split(",")
    if len(inputs) != count:
        raise ValueError(f"einsum: the equation {equation!r} names {len(inputs)} operands, "
                         f"got {count}.")
    for subs in inputs + [output]:
        if set(subs.replace("...", "")) - _LETTERS or subs.count("...") > 1:
            raise ValueError(f"einsum: invalid subscripts {subs!r} in {equation!r}; use "
                             f"letters and at most one '...' per operand.")
    if not arrow:
        letters = "".join(inputs).replace("...", "")
        once = sorted(c for c in set(letters) if letters.count(c) == 1)
        output = ("..." if "..." in inputs_text else "") + "".join(once)
    named = output.replace("...", "")
    unknown = sorted(set(named) - set(inputs_text))
    if unknown or len(set(named)) != len(named):
        raise ValueError(f"einsum: the output subscripts {output!r} of {equation!r} must each "
                         f"appear once, and in an operand"
                         f"{' (' + ', '.join(unknown) + ' do not)' if unknown else ''}.")
    return inputs, output


def _labels(subs: str, rank: int) -> list[str]:
    """One label per dimension: letters, and ``"."`` + position for the ellipsis's."""
    if "..." not in subs:
        if len(subs) != rank:
            raise ShapeError(f"einsum: the subscripts {subs!r} name {len(subs)} dimensions of "
                             f"an operand of rank {rank}.")
        return list(subs)
    head, tail = subs.split("...")
    extra = rank - len(head) - len(tail)
    if extra < 0:
        raise ShapeError(f"einsum: the subscripts {subs!r} name more dimensions than an "
                         f"operand of rank {rank} has.")
    return list(head) + ["..."] * extra + list(tail)


def _einsum_infer(*operands, equation):
    dtype = same_dtype("einsum", operands)
    if any(x.shape is None for x in operands):
        return dtype, None
    inputs, output = _parse(equation, len(operands))
    sizes: dict[str, int | None] = {}
    ellipsis: tuple = ()
    for subs, x in zip(inputs, operands):
        labels = _labels(subs, len(x.shape))
        ellipsis = broadcast("einsum", ellipsis,
                             tuple(d for d, l in zip(x.shape, labels) if l == "..."))
        for label, dim in zip(labels, x.shape):
            if label == "...":
                continue
            known = sizes.get(label)
            if known not in (None, 1) and dim not in (None, 1) and known != dim:
                shapes = ", ".join(format_shape(o.shape) for o in operands)
                raise ShapeError(f"einsum: the subscript {label!r} of {equation!r} has sizes "
                                 f"{known} and {dim} in operands of shapes {shapes}.")
            if known in (None, 1):
                sizes[label] = dim if known is None or dim != 1 else known
    head, _, tail = output.partition("...")
    middle = list(ellipsis) if "..." in output else []
    return dtype, tuple([sizes[c] for c in head] + middle + [sizes[c] for c in tail])


def _unrepeated(subs: str, x, equation: str) -> tuple[str, list[str], list]:
    """``subs`` with each repeat of a letter renamed to a fresh letter, and the identity
    matrices that tie each fresh letter to its original: ``x[i, i]`` is
    ``sum over k of x[i, k] * eye[i, k]``, so the operand's gradient is that of one whose
    letters are all distinct, with the identities as more operands (a diagonal's gradient
    lands on the diagonal)."""
    unused = iter(c for c in string.ascii_letters if c not in equation)
    renamed, ties, identities, seen = "", [], [], set()
    body = subs.replace("...", "")
    positions = _labels(subs, x.ndim)
    letter_dims = [d for d, label in zip(x.shape, positions) if label != "..."]
    for c, dim in zip(body, letter_dims):
        if c not in seen:
            seen.add(c)
            renamed += c
            continue
        if dim is None:
            raise GradientError(f"einsum: the gradient of {equation!r} through the repeated "
                                f"subscript {c!r} needs that dimension's size while tracing.")
        fresh = next(unused)
        renamed += fresh
        ties.append(c + fresh)
        identities.append(apply_op(EYE, (), {"n": dim, "m": dim, "dtype": x.dtype}))
    if "..." in subs:  # the ellipsis back where it was
        head = len(subs.split("...")[0])
        renamed = renamed[:head] + "..." + renamed[head:]
    return renamed, ties, identities


def _einsum_grad(node, dy):
    equation = node.attrs["equation"]
    inputs, output = _parse(equation, len(node.inputs))
    grads = []
    for i, x in enumerate(node.inputs):
        subs, ties, identities = _unrepeated(inputs[i], x, equation)
        others = [s for j, s in enumerate(inputs) if j != i] + ties
        available = set(output + "".join(others))
        target = "".join(c for c in subs if c == "." or c in available)
        if "..." in output and "..." not in subs:
            # The output's broadcast dimensions, which x lacks, stay in the gradient einsum
            # (NumPy cannot sum them away); the backward pass sums them when fitting it to x.
            target = "..." + target
        grad = einsum(",".join([output] + others) + "->" + target,
                      dy, *[v for j, v in enumerate(node.inputs) if j != i], *identities)
        labels = _labels(subs, x.ndim)
        missing = [p for p, label in enumerate(labels) if label != "..." and label not in available]
        if missing:  # letters summed away: broadcast back over them
            # Placed from the right, last first, past any broadcast dimensions in front.
            for position in reversed(missing):
                grad = expand_dims(grad, position - len(labels))
            grad = multiply(grad, ones_like(x))
        grads.append(grad)
    return grads


EINSUM = register(OpDef("einsum", lambda *operands, equation: np.einsum(equation, *operands),
                        _einsum_infer, gradient=_einsum_grad))


def einsum(equation: str, *inputs, **kwargs):
    """Einstein summation over ``inputs`` as NumPy and TensorFlow read ``equation`` (letters,
    ``...`` for broadcast dimensions, an implicit output when there is no ``->``). All
    inputs must have one dtype."""
    kwargs.pop("name", None)
    if kwargs or not isinstance(equation, str):
        raise TypeError(f"einsum takes an equation string and the operands, got "
                        f"{equation!r} and keyword arguments {sorted(kwargs)}.")
    operands = [convert_to_tensor(x) for x in inputs]
    same_dtype("einsum", operands)
    subscripts, output = _parse(equation, len(operands))
    explicit = ",".join(subscripts) + "->" + output
    return apply_op(EINSUM, operands, {"equation": explicit})


def _tensordot_axes(axes, rank_a: int, rank_b: int) -> tuple[list[int], list[int]]:
    if isinstance(axes, (int, np.integer)):
        if not 0 <= axes <= min(rank_a, rank_b):
            raise ValueError(f"tensordot: axes={axes} must be between 0 and the smaller rank "
                             f"({min(rank_a, rank_b)}).")
        return list(range(rank_a - axes, rank_a)), list(range(int(axes)))
    try:
        a_axes, b_axes = axes
    except (TypeError, ValueError):
        raise ValueError(f"tensordot: axes must be an int or a pair of axis lists, got "
                         f"{axes!r}.") from None
    a_axes = [a_axes] if isinstance(a_axes, (int, np.integer)) else list(a_axes)
    b_axes = [b_axes] if isinstance(b_axes, (int, np.integer)) else list(b_axes)
    if len(a_axes) != len(b_axes):
        raise ValueError(f"tensordot: the axis lists {a_axes} and {b_axes} differ in length.")
    return [a % rank_a for a in a_axes], [b % rank_b for b in b_axes]


def tensordot(a, b, axes):
    """The sum of products of ``a`` and ``b`` over the pairs of ``axes`` (an int ``n``: the
    last n of ``a`` with the first n of ``b``); the free axes of ``a`` then of ``b`` remain."""
    a, b = convert_to_tensor(a), convert_to_tensor(b)
    if a.ndim is None or b.ndim is None:
        raise ShapeError("tensordot needs operands of known rank while tracing.")
    a_axes, b_axes = _tensordot_axes(axes, a.ndim, b.ndim)
    if a.shape is not None and b.shape is not None:
        for i, j in zip(a_axes, b_axes):
            if None not in (a.shape[i], b.shape[j]) and a.shape[i] != b.shape[j]:
                raise ShapeError(f"tensordot: axis {i} of a (shape {format_shape(a.shape)}) and "
                                 f"axis {j} of b (shape {format_shape(b.shape)}) differ in size.")
    letters = iter(string.ascii_letters)
    a_subs = [next(letters) for _ in range(a.ndim)]
    b_subs = [next(letters) for _ in range(b.ndim)]
    for i, j in zip(a_axes, b_axes):
        b_subs[j] = a_subs[i]
    out = [c for k, c in enumerate(a_subs) if k not in a_axes] + \
          [c for k, c in enumerate(b_subs) if k not in b_axes]
    return einsum(f"{''.join(a_subs)},{''.join(b_subs)}->{''.join(out)}", a, b)

