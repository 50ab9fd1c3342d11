"""``lax.cond`` for converted conditionals (``if``, ternaries, ``and``/``or``) on JAX tracers.

``lax.cond`` needs one dtype and one shape per output. Branches are traced once; only when the
branch traced first needs a conversion (a Python number next to an array, or a zero for an
unset return value) are they traced again, knowing the types of both.
"""

from __future__ import annotations

from typing import Callable, Sequence

import jax
from jax import lax

import runtime as rt
from runtime import nest
from runtime.control_flow import Unset
from transpiler.operators import control_flow as cf
from transpiler.operators.staging.jax_values import (condition, converted, equal, is_array,
                                                     joined, needs_conversion, spec_of,
                                                     staged, zeros)


class _Retry(Exception):
    """The branch traced first must be traced again, knowing the types of both."""

    def __init__(self, targets: list):
        super().__init__("retrace the branches of a conditional")
        self.targets = targets


def _apply(values: tuple, targets: list | None) -> tuple:
    """``values`` with unset values filled with zeros and numbers converted, per ``targets``."""
    if targets is None:
        return values
    result = []
    for value, target in zip(values, targets):
        if target is None:
            result.append(value)
        elif isinstance(value, Unset):
            result.append(nest.map_structure(
                lambda leaf: zeros(leaf) if isinstance(leaf, jax.ShapeDtypeStruct) else leaf,
                target))
        else:
            leaves = [converted(leaf, spec) if is_array(leaf) and
                      isinstance(spec, jax.ShapeDtypeStruct) else leaf
                      for leaf, spec in zip(nest.flatten(value), nest.flatten(target))]
            result.append(nest.pack_like(value, leaves))
    return tuple(result)


def _targets(then_values: tuple, else_values: tuple, names: Sequence[str], construct: str,
             location: str) -> list:
    """Per value, the types both branches give it (a structure of ``ShapeDtypeStruct``s and
    static leaves), or None when neither branch sets it."""
    targets = []
    for name, a, b in zip(names, then_values, else_values):
        if isinstance(a, Unset) and isinstance(b, Unset):
            targets.append(None)
            continue
        if isinstance(a, Unset) or isinstance(b, Unset):
            known = b if isinstance(a, Unset) else a
            targets.append(nest.map_structure(lambda x: spec_of(x) if is_array(x) else x, known))
            continue
        shown = cf._shown(name) if name != "the value" else name
        if nest.structure_of(a) != nest.structure_of(b):
            raise rt.errors.GraphStructureError(
                f"the two branches of the {construct} on a JAX tracer give '{shown}' different "
                f"structures: {nest.describe_structure(a)} and {nest.describe_structure(b)}"
                f"{location}. Give it the same nested structure in both branches.")
        paths = nest.leaf_paths(a)
        leaves = []
        for path, x, y in zip(paths, nest.flatten(a), nest.flatten(b)):
            leaf_name = f"{shown}{path}"
            if not (is_array(x) and is_array(y)):
                if (x is None) != (y is None):
                    branch = "true" if x is None else "false"
                    raise rt.errors.GraphValueError(
                        f"'{leaf_name}' is None in the {branch} branch of the {construct} on a "
                        f"JAX tracer but a value in the other{location}. Give it a value in both "
                        f"branches.")
                if is_array(x) != is_array(y) or not (x is y or equal(x, y)):
                    raise rt.errors.GraphTypeError(
                        f"'{leaf_name}' is {x!r} in the true branch and {y!r} in the false "
                        f"branch of the {construct} on a JAX tracer{location}; a traced "
                        f"conditional can only choose between arrays and numbers, so make both "
                        f"branches give arrays of the same dtype.")
                leaves.append(x)
                continue
            leaves.append(joined(leaf_name, spec_of(x), spec_of(y), construct, location))
        targets.append(nest.pack_like(a, leaves))
    return targets


def _needs_change(values: tuple, targets: list) -> bool:
    """Whether ``_apply(values, targets)`` changes anything (a fill or a conversion)."""
    for value, target in zip(values, targets):
        if target is None:
            continue
        if isinstance(value, Unset):
            return True
        for leaf, spec in zip(nest.flatten(value), nest.flatten(target)):
            if is_array(leaf) and isinstance(spec, jax.ShapeDtypeStruct) \
                    and needs_conversion(leaf, spec):
                return True
    return False


def staged_cond(pred, true_fn: Callable[[], tuple], false_fn: Callable[[], tuple], *, construct: str,
          location: str, names: Sequence[str], check_pair: Callable | None = None,
          prepare: Callable = lambda values: values) -> tuple:
    """``true_fn() if pred else false_fn()`` for functions returning tuples of values, as a
    ``lax.cond``. ``check_pair(then_values, else_values)`` runs the shared checks on what the
    branches gave; ``prepare`` turns a branch's values into what the conditional outputs."""
    pred = condition(pred, f"the {construct}")
    targets = None
    for _ in range(3):
        seen: dict[str, tuple] = {}
        try:
            flat = lax.cond(pred, _branch(true_fn, "true", seen, targets, check_pair, prepare,
                                          names, construct, location),
                            _branch(false_fn, "false", seen, targets, check_pair, prepare,
                                    names, construct, location))
            break
        except _Retry as retry:
            targets = retry.targets
    else:  # pragma: no cover - types settle after one retry
        raise AssertionError("the branches' types did not settle")
    outputs = iter(flat)
    template = seen["true"]
    return nest.pack_like(template, [next(outputs) if is_array(leaf) else leaf
                                     for leaf in nest.flatten(template)])


def _branch(fn: Callable, label: str, seen: dict, targets, check_pair, prepare, names,
            construct: str, location: str) -> Callable:
    other = "false" if label == "true" else "true"

    @staged
    def traced():
        raw = tuple(fn())
        seen[f"raw {label}"] = raw
        values = _apply(prepare(raw), targets)
        if other in seen and targets is None:
            then_raw, else_raw = (seen["raw true"], seen["raw false"])
            if check_pair is not None:
                check_pair(then_raw, else_raw)
            then_values, else_values = (values, seen[other]) if label == "true" \
                else (seen[other], values)
            found = _targets(then_values, else_values, names, construct, location)
            if _needs_change(seen[other], found):
                raise _Retry(found)
            values = _apply(values, found)
        seen[label] = values
        return [leaf for leaf in nest.flatten(values) if is_array(leaf)]
    return traced
