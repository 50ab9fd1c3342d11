"""Functions over the leading axis and over branches, as TensorFlow has them: ``map_fn``,
``scan``, ``switch_case`` and ``case``.

Each is built from ``while_loop`` (reading the elements from a ``TensorArray`` and writing the
results into one, as TensorFlow does) or from ``cond``, so it runs eagerly, traces into one
loop or conditional of a graph whatever the number of elements, and has the gradients of
those. ``fn`` sees one element at a time, with the structure of ``elems`` (a tensor, or tuples,
lists and dicts of tensors).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from runtime import nest
from runtime.conversion import converted
from runtime.control_flow import cond, while_loop
from runtime.errors import GraphStructureError, ShapeError
from runtime.ops.array_ops import constant, shape
from runtime.ops.dispatch import constant_value, convert_to_tensor
from runtime.ops.io_ops import assert_
from runtime.ops.math_ops import equal, less, subtract
from runtime.tensor import Tensor, TensorSpec, format_shape
from runtime.tensor_array import TensorArray


def _elements(op_name: str, elems) -> tuple[list[Tensor], Any]:
    """The tensors of ``elems`` (flattened) and their common leading size (an int when known
    while tracing, else a scalar tensor)."""
    flat = [convert_to_tensor(value) for value in nest.flatten(elems)]
    if not flat:
        raise ValueError(f"{op_name}: elems must hold at least one tensor.")
    sizes = set()
    for value in flat:
        if value.shape == ():
            raise ShapeError(f"{op_name}: the tensors of elems need a leading axis to go over, "
                             f"got a scalar.")
        if value.shape is not None and value.shape[0] is not None:
            sizes.add(value.shape[0])
    if len(sizes) > 1:
        raise ShapeError(f"{op_name}: the tensors of elems must have one leading size, got "
                         f"{', '.join(format_shape(v.shape) for v in flat)}.")
    return flat, sizes.pop() if sizes else shape(flat[0])[0]


def _readers(flat: list[Tensor], size) -> list[TensorArray]:
    return [TensorArray(value.dtype, size=size, element_shape=None if value.shape is None
                        else value.shape[1:]).unstack(value) for value in flat]


def _specs(signature, elems, flat: list[Tensor]) -> tuple[Any, list[TensorSpec]]:
    """The structure of ``fn``'s results and a spec (dtype, shape or None) per leaf: the given
    signature (dtypes or TensorSpecs), or by default the structure and dtypes of ``elems``."""
    if signature is None:  # the dtypes only: the first result decides each shape
        return elems, [TensorSpec(None, value.dtype) for value in flat]
    leaves = nest.flatten(signature)
    return signature, [leaf if isinstance(leaf, TensorSpec) else TensorSpec(None, leaf)
                       for leaf in leaves]


def _results(op_name: str, result, structure, specs: list[TensorSpec]) -> list[Tensor]:
    """``fn``'s result flattened, checked against the structure and dtypes it must have."""
    leaves = nest.flatten(result)
    if len(leaves) != len(specs) or (nest.is_nested(structure) != nest.is_nested(result)):
        raise GraphStructureError(
            f"{op_name}: fn returned {nest.describe_structure(result)}, but the results must "
            f"have the structure {nest.describe_structure(structure)}. Pass "
            f"fn_output_signature (or dtype) when fn's results differ from elems in structure or "
            f"dtype.")
    values = []
    for leaf, spec in zip(leaves, specs):
        value = leaf if isinstance(leaf, Tensor) else constant(leaf, spec.dtype)
        if value.dtype != spec.dtype:
            raise TypeError(f"{op_name}: fn returned a {value.dtype.name} tensor where "
                            f"{spec.dtype.name} was expected; pass fn_output_signature (or "
                            f"dtype) to say what fn returns, or cast the result.")
        values.append(value)
    return values


def map_fn(fn: Callable, elems, dtype=None, parallel_iterations=None, back_prop: bool = True,
           swap_memory: bool = False, infer_shape: bool = True, name=None,
           fn_output_signature=None):
    """``stack([fn(elems[0]), fn(elems[1]), ...])``: ``fn`` applied to each element along the
    leading axis (of every tensor of ``elems`` at once), its results stacked.

    Args:
        fn: takes one element (with the structure of ``elems``), returns tensors.
        elems: a tensor, or a nested structure of tensors with one leading size.
        fn_output_signature: the dtype, ``TensorSpec`` or structure of them of ``fn``'s
            results; by default those of ``elems``. ``dtype`` is its older name.
        parallel_iterations, back_prop, swap_memory, infer_shape, name: accepted for
            TensorFlow's sake; they change nothing here.

    Returns:
        The stacked results, in the structure of the signature.
    """
    fn = converted(fn)  # as TensorFlow applies AutoGraph to map_fn's function
    flat, size = _elements("map_fn", elems)
    structure, specs = _specs(fn_output_signature if fn_output_signature is not None else dtype,
                              elems, flat)
    readers = _readers(flat, size)
    writers = [TensorArray(spec.dtype, size=size, element_shape=spec.shape) for spec in specs]

    def body(i, writers):
        element = nest.pack_like(elems, [reader.read(i) for reader in readers])
        values = _results("map_fn", fn(element), structure, specs)
        return i + 1, [writer.write(i, value) for writer, value in zip(writers, values)]

    _, writers = while_loop(lambda i, _: less(i, size), body, (constant(np.int32(0)), writers))
    return nest.pack_like(structure, [writer.stack() for writer in writers])


def scan(fn: Callable, elems, initializer=None, parallel_iterations=10, back_prop: bool = True,
         swap_memory: bool = False, infer_shape: bool = True, reverse: bool = False, name=None):
    """The running accumulation ``a = fn(a, x)`` over the elements ``x`` of ``elems`` along the
    leading axis, every value of ``a`` stacked.

    Args:
        fn: takes the accumulator (structure of ``initializer``) and one element (structure of
            ``elems``), returns the next accumulator.
        elems: a tensor, or a nested structure of tensors with one leading size.
        initializer: the first accumulator; without it, the first element is (and is also the
            first result).
        reverse: go from the last element to the first (results stay in elems' order).
        parallel_iterations, back_prop, swap_memory, infer_shape, name: accepted for
            TensorFlow's sake; they change nothing here.
    """
    fn = converted(fn)  # as TensorFlow applies AutoGraph to scan's function
    flat, size = _elements("scan", elems)
    readers = _readers(flat, size)
    last = size - 1 if isinstance(size, int) else subtract(size, 1)
    if initializer is None:
        first = last if reverse else 0
        accumulator = [reader.read(first) for reader in readers]
        structure, start = elems, 1
    else:
        structure, start = initializer, 0
        accumulator = [convert_to_tensor(value) for value in nest.flatten(initializer)]
    specs = [TensorSpec(value.shape, value.dtype) for value in accumulator]
    writers = [TensorArray(spec.dtype, size=size, element_shape=spec.shape) for spec in specs]
    if initializer is None:
        writers = [writer.write(first, value) for writer, value in zip(writers, accumulator)]

    def body(k, accumulator, writers):
        i = subtract(last, k) if reverse else k
        element = nest.pack_like(elems, [reader.read(i) for reader in readers])
        result = fn(nest.pack_like(structure, accumulator), element)
        values = _results("scan", result, structure, specs)
        return k + 1, values, [writer.write(i, value) for writer, value in zip(writers, values)]

    _, _, writers = while_loop(lambda k, *_: less(k, size), body,
                               (constant(np.int32(start)), accumulator, writers))
    return nest.pack_like(structure, [writer.stack() for writer in writers])


def _branches(branch_fns, default) -> list[Callable]:
    """The branches in index order, ``default`` last when given (TensorFlow's rules)."""
    if not isinstance(branch_fns, (list, tuple, dict)) or not branch_fns:
        raise TypeError("switch_case: branch_fns must be a non-empty list, tuple or dict of "
                        "callables (or of (int, callable) pairs).")
    pairs = list(branch_fns.items()) if isinstance(branch_fns, dict) else list(branch_fns)
    if all(callable(fn) for fn in pairs):
        pairs = list(enumerate(pairs))
    for pair in pairs:
        if not isinstance(pair, tuple) or len(pair) != 2 or type(pair[0]) is not int \
                or not callable(pair[1]):
            raise TypeError(f"switch_case: each entry of branch_fns must be a callable or an "
                            f"(int, callable) pair, got {pair!r}.")
    keys = sorted(key for key, _ in pairs)
    if keys != list(range(len(keys))):
        raise ValueError(f"switch_case: the branch indices must be 0 to {len(keys) - 1}, each "
                         f"once, got {keys}.")
    return [fn for _, fn in sorted(pairs, key=lambda pair: pair[0])]


def switch_case(branch_index, branch_fns, default: Callable | None = None, name=None):
    """``branch_fns[branch_index]()``; an index out of range runs ``default`` (the last branch
    when there is none). ``branch_fns`` is a list of callables, a list of ``(int, callable)``
    pairs or a dict ``{int: callable}`` with the indices 0 to n-1. In a graph only the chosen
    branch runs, and every branch must return the same structure and dtypes."""
    branches = _branches(branch_fns, default)
    index = convert_to_tensor(branch_index)
    if index.dtype.kind not in "iu" or index.shape not in ((), None):
        raise TypeError(f"switch_case: branch_index must be an integer scalar, got a "
                        f"{index.dtype.name} tensor of shape {format_shape(index.shape)}.")
    fallback = default if default is not None else branches[-1]
    known = constant_value(index)
    if known is not None:  # eagerly (or a constant): only that branch is called
        position = int(known)
        return branches[position]() if 0 <= position < len(branches) else fallback()
    chosen = branches if default is not None else branches[:-1]

    def pick(position: int):
        if position == len(chosen):
            return fallback()
        return cond(equal(index, position), chosen[position], lambda: pick(position + 1))

    return pick(0)


def case(pred_fn_pairs, default: Callable | None = None, exclusive: bool = False,
         strict: bool = False, name=None):
    """The ``fn`` of the first ``(pred, fn)`` pair whose ``pred`` is true, else ``default``
    (without one, no true ``pred`` is an ``InvalidArgumentError``). ``exclusive=True`` also
    checks that at most one ``pred`` is true, when all are known while tracing."""
    pairs = list(pred_fn_pairs.items()) if isinstance(pred_fn_pairs, dict) else list(pred_fn_pairs)
    if not pairs or any(not isinstance(p, tuple) or len(p) != 2 or not callable(p[1])
                        for p in pairs):
        raise TypeError("case: pred_fn_pairs must be a non-empty list of (predicate, callable) "
                        "pairs.")
    if default is None:  # the last fn, which needs its predicate true (as in TensorFlow)
        *pairs, (last_pred, last_fn) = pairs

        def default():
            assert_(last_pred, "case: none of the predicates is true, and no default was given")
            return last_fn()
    if exclusive:
        known = [constant_value(convert_to_tensor(pred)) for pred, _ in pairs]
        if None not in known and sum(bool(value) for value in known) > 1:
            raise ValueError("case: exclusive=True but more than one predicate is true.")

    def pick(position: int):
        if position == len(pairs):
            return default()
        pred, fn = pairs[position]
        return cond(pred, fn, lambda: pick(position + 1))

    return pick(0)
