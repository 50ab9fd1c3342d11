"""Nested structures (tuples, lists, dicts, namedtuples) flattened to leaves and rebuilt.

Control flow and functions accept and return nested Python structures; graphs only know flat
lists of tensors. ``flatten`` and ``pack_like`` convert between the two, and ``structure_of``
gives a comparable, printable description used in error messages. A ``Composite`` (such as
``rt.TensorArray``) is a node of the structure whose children are its component tensors.
"""

from __future__ import annotations

from typing import Any, Callable, Hashable, Sequence


class Composite:
    """A value made of tensors plus static information, such as ``rt.TensorArray``.

    Graphs only carry tensors, so control flow and functions see a composite as its
    ``components()`` (leaves, in ``component_names`` order) and rebuild it around new ones with
    ``with_components``: that is what lets it be a loop variable, a branch output or a result.
    ``static_key()`` is the part that is not a tensor; it must agree wherever structures must
    (the two branches of a ``cond``, a loop variable before and after an iteration).
    """

    __slots__ = ()
    component_names: tuple[str, ...] = ()

    def components(self) -> tuple:
        raise NotImplementedError

    def with_components(self, components: Sequence) -> "Composite":
        raise NotImplementedError

    def static_key(self) -> Hashable:
        raise NotImplementedError

    def loop_invariants(self) -> tuple:
        """Per component, the ``TensorSpec`` its values keep as a loop variable, or None to
        keep the shape it enters the loop with."""
        return (None,) * len(self.component_names)

    def describe_static(self) -> str:
        """The static part for messages, e.g. ``float32, dynamic_size=True``."""
        raise NotImplementedError


def is_namedtuple(value) -> bool:
    return isinstance(value, tuple) and hasattr(type(value), "_fields")


def is_nested(value) -> bool:
    return isinstance(value, (list, tuple, dict))


def flatten(structure) -> list:
    """The leaves of ``structure`` in a deterministic order (dicts by sorted key)."""
    leaves: list = []
    _flatten_into(structure, leaves)
    return leaves


def _flatten_into(structure, leaves: list) -> None:
    if isinstance(structure, dict):
        for key in sorted_keys(structure):
            _flatten_into(structure[key], leaves)
    elif isinstance(structure, (list, tuple)):
        for item in structure:
            _flatten_into(item, leaves)
    elif isinstance(structure, Composite):
        for component in structure.components():
            _flatten_into(component, leaves)
    else:
        leaves.append(structure)


def sorted_keys(mapping: dict) -> list:
    try:
        return sorted(mapping)
    except TypeError:
        return sorted(mapping, key=repr)


def pack_like(structure, leaves) -> Any:
    """Rebuilds ``structure`` with its leaves replaced, in ``flatten`` order."""
    iterator = iter(leaves)
    result = _pack(structure, iterator)
    return result


def _pack(structure, iterator):
    if isinstance(structure, dict):
        packed = {key: _pack(structure[key], iterator) for key in sorted_keys(structure)}
        items = [(key, packed[key]) for key in structure]
        return dict(items) if type(structure) is dict else type(structure)(items)
    if is_namedtuple(structure):
        return type(structure)(*[_pack(item, iterator) for item in structure])
    if isinstance(structure, (list, tuple)):
        return type(structure)(_pack(item, iterator) for item in structure)
    if isinstance(structure, Composite):
        return structure.with_components([_pack(c, iterator) for c in structure.components()])
    return next(iterator)


def map_structure(fn: Callable, structure, *more) -> Any:
    """``structure`` with each leaf replaced by ``fn(leaf)``; with more structures (of the same
    nesting), by ``fn`` of the leaves at the same place in each."""
    if not more:
        return pack_like(structure, [fn(leaf) for leaf in flatten(structure)])
    for other in more:
        if structure_of(other) != structure_of(structure):
            raise ValueError(f"map_structure: the structures differ: "
                             f"{describe_structure(structure)} and {describe_structure(other)}.")
    columns = [flatten(s) for s in (structure,) + more]
    return pack_like(structure, [fn(*leaves) for leaves in zip(*columns)])


def structure_of(structure) -> Any:
    """A hashable description of the nesting alone (leaves become ``'*'``)."""
    if isinstance(structure, dict):
        return ("dict", tuple((key, structure_of(structure[key])) for key in sorted_keys(structure)))
    if is_namedtuple(structure):
        return (type(structure).__name__, tuple(structure_of(item) for item in structure))
    if isinstance(structure, (list, tuple)):
        return (type(structure).__name__, tuple(structure_of(item) for item in structure))
    if isinstance(structure, Composite):
        return (type(structure).__name__, structure.static_key(),
                tuple(structure_of(c) for c in structure.components()))
    return "*"


def assert_same_structure(first, second, check_types: bool = True) -> None:
    """Raises unless both nest alike: a ``ValueError`` when their nesting or lengths differ,
    a ``TypeError`` when only the kinds of sequences do (a list against a tuple), unless
    ``check_types`` is False (TensorFlow's rules)."""
    if structure_of(first) == structure_of(second):
        return
    if _kinds_erased(structure_of(first)) == _kinds_erased(structure_of(second)):
        if not check_types:
            return
        raise TypeError(f"The two structures nest alike but their sequences are of different "
                        f"types: {describe_structure(first)} and {describe_structure(second)}. "
                        f"Convert one, or pass check_types=False.")
    raise ValueError(f"The two structures do not nest alike: {describe_structure(first)} and "
                     f"{describe_structure(second)}.")


def _kinds_erased(description):
    """``structure_of``'s description with lists and tuples alike."""
    if isinstance(description, tuple) and description and description[0] in ("list", "tuple"):
        return ("sequence", tuple(_kinds_erased(item) for item in description[1]))
    if isinstance(description, tuple) and description and description[0] == "dict":
        return ("dict", tuple((key, _kinds_erased(item)) for key, item in description[1]))
    return description


def describe_structure(structure) -> str:
    """Readable nesting, e.g. ``(*, [*, *])`` or ``{'a': *}``; leaves in ``flatten`` order."""
    if isinstance(structure, dict):
        return "{" + ", ".join(f"{key!r}: {describe_structure(structure[key])}"
                               for key in sorted_keys(structure)) + "}"
    if is_namedtuple(structure):
        return type(structure).__name__ + "(" + ", ".join(
            f"{name}={describe_structure(value)}"
            for name, value in zip(type(structure)._fields, structure)) + ")"
    if isinstance(structure, list):
        return "[" + ", ".join(describe_structure(item) for item in structure) + "]"
    if isinstance(structure, tuple):
        inner = ", ".join(describe_structure(item) for item in structure)
        return "(" + inner + ("," if len(structure) == 1 else "") + ")"
    if isinstance(structure, Composite):
        return f"{type(structure).__name__}[{structure.describe_static()}](" + ", ".join(
            describe_structure(c) for c in structure.components()) + ")"
    return "*"


def leaf_paths(structure, prefix: str = "") -> list[str]:
    """Path of every leaf in ``flatten`` order, e.g. ``[0]``, ``['a'][1]``; used in messages."""
    if isinstance(structure, dict):
        paths = []
        for key in sorted_keys(structure):
            paths.extend(leaf_paths(structure[key], f"{prefix}[{key!r}]"))
        return paths
    if isinstance(structure, (list, tuple)):
        paths = []
        for index, item in enumerate(structure):
            paths.extend(leaf_paths(item, f"{prefix}[{index}]"))
        return paths
    if isinstance(structure, Composite):
        paths = []
        for name, component in zip(structure.component_names, structure.components()):
            paths.extend(leaf_paths(component, f"{prefix}.{name}"))
        return paths
    return [prefix]
