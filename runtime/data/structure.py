"""The structure of a dataset element, with tf.data's rules rather than ``runtime.nest``'s.

tf.data treats tuples, namedtuples and dicts as structure and everything else, Python lists
included, as one tensor: ``from_tensor_slices([[1, 2], [3, 4]])`` slices one matrix, it does
not zip two lists. Functions given to ``map``/``filter``/``flat_map`` receive a plain tuple
unpacked into positional arguments (as TensorFlow does), anything else as one argument.
"""

from __future__ import annotations

from typing import Any, Callable

from runtime import nest
from runtime.ops.dispatch import convert_to_tensor
from runtime.tensor import Tensor, TensorSpec


def is_structure(value) -> bool:
    return isinstance(value, (tuple, dict))


def flatten(structure) -> list:
    """Leaves in a fixed order: tuple order, dicts by sorted key."""
    if isinstance(structure, dict):
        return [leaf for key in nest.sorted_keys(structure) for leaf in flatten(structure[key])]
    if isinstance(structure, tuple):
        return [leaf for item in structure for leaf in flatten(item)]
    return [structure]


def pack_like(structure, leaves) -> Any:
    """``structure`` rebuilt around ``leaves`` (in ``flatten`` order)."""
    iterator = iter(leaves)
    return _pack(structure, iterator)


def _pack(structure, iterator):
    if isinstance(structure, dict):
        packed = {key: _pack(structure[key], iterator) for key in nest.sorted_keys(structure)}
        return type(structure)((key, packed[key]) for key in structure)
    if nest.is_namedtuple(structure):
        return type(structure)(*[_pack(item, iterator) for item in structure])
    if isinstance(structure, tuple):
        return tuple(_pack(item, iterator) for item in structure)
    return next(iterator)


def map_leaves(fn: Callable, structure) -> Any:
    return pack_like(structure, [fn(leaf) for leaf in flatten(structure)])


def same_structure(a, b) -> bool:
    return describe(a) == describe(b)


def describe(structure) -> str:
    """The nesting as text, leaves as ``*``: for messages and structure comparisons."""
    if isinstance(structure, dict):
        return "{" + ", ".join(f"{key!r}: {describe(structure[key])}"
                               for key in nest.sorted_keys(structure)) + "}"
    if isinstance(structure, tuple):
        inner = ", ".join(describe(item) for item in structure)
        name = type(structure).__name__ if nest.is_namedtuple(structure) else ""
        return f"{name}({inner}{',' if len(structure) == 1 and not name else ''})"
    return "*"


def to_tensors(structure) -> Any:
    """Every leaf as a tensor (Python int -> int32, float -> float32, arrays keep their dtype);
    a list returned at the top level is a tuple, as in TensorFlow (it is far more often a few
    results than one tensor to stack)."""
    if type(structure) is list:
        structure = tuple(structure)
    return map_leaves(_to_tensor, structure)


def _to_tensor(leaf) -> Tensor:
    if leaf is None:
        raise TypeError("a dataset element cannot be None; every component must be a tensor "
                        "(or a value convertible to one).")
    return convert_to_tensor(leaf)


def spec_of(element) -> Any:
    return map_leaves(lambda t: TensorSpec(t.shape, t.dtype), element)


def call_with_element(fn: Callable, element, *leading) -> Any:
    """``fn(*leading, *element)`` for a plain tuple, else ``fn(*leading, element)``."""
    if type(element) is tuple:
        return fn(*leading, *element)
    return fn(*leading, element)


def checked_state(method: str, fn_name: str, old, new) -> Any:
    """A state ``fn_name`` returned (``reduce``, ``scan``), as tensors of the old state's
    structure and dtypes: a loop carries it, so it cannot change them."""
    new = map_leaves(convert_to_tensor, new)
    if not same_structure(old, new):
        raise TypeError(f"Dataset.{method}: {fn_name} returned a state of structure "
                        f"{describe(new)}, but the initial state is {describe(old)}; it must "
                        f"keep the structure.")
    for a, b in zip(flatten(old), flatten(new)):
        if a.dtype != b.dtype:
            raise TypeError(f"Dataset.{method}: {fn_name} changed a state component from "
                            f"{a.dtype.name} to {b.dtype.name}; the state must keep its "
                            f"dtypes (give the initial state the right dtype, e.g. "
                            f"np.int64(0)).")
    return new
