"""The saved signature: the argument key and the output structure, in the tagged encoding.

The key decides which arguments a loaded function accepts (tensors by dtype and shape, Python
values by value); the structure rebuilds its result. Tensor leaves of the structure are filled
with the graph's outputs in ``nest.flatten`` order, the order the graph's outputs follow, while
containers keep their own order and kind (named tuples included).
"""

from __future__ import annotations

import functools
import keyword
import operator
from typing import Any

from runtime import nest
from runtime.serialize.values import Reader, as_list, decode_literal, decode_shape, encode_literal
from runtime.tensor import SymbolicTensor
from runtime.trace_keys import IdentityKey, is_container_key, is_tensor_key, literal_key, literal_value

_CONTAINERS = {"tuple": tuple, "list": list, "dict": dict}


# -- the argument key --------------------------------------------------------------------------


def encode_key(part: Any, name: str) -> dict:
    """One parameter's part of a trace key: tensors by dtype and shape, Python values by value."""
    if is_tensor_key(part):
        return {"tensor": [part[0].str, None if part[1] is None else list(part[1])]}
    if isinstance(part, IdentityKey):
        raise TypeError(f"cannot save this function: argument '{name}' was traced as a Python "
                        f"object compared by identity ({part.description}). Trace it with "
                        f"tensors, numbers, strings and containers of them.")
    if is_container_key(part):
        kind = next(base for base in (dict, list, tuple) if issubclass(part[0], base))
        items = ([[encode_literal(key), encode_key(sub, name)] for key, sub in part[1]]
                 if kind is dict else [encode_key(sub, name) for sub in part[1]])
        return {"container": [kind.__name__, items]}
    value = literal_value(part)
    try:
        return {"literal": encode_literal(value)}
    except TypeError as error:
        raise TypeError(f"cannot save this function: argument '{name}' was traced with the Python "
                        f"value {value!r}, and {error}.") from None


def decode_key(data: dict, reader: Reader) -> Any:
    (tag, content), = data.items()
    if tag == "tensor":
        dtype, shape = content
        return reader.dtype(dtype), decode_shape(shape)
    if tag == "literal":
        return literal_key(decode_literal(content, reader))
    if tag != "container":
        raise reader.error(f"has an argument of the unknown kind {tag!r}; the file may come from a "
                           f"newer eager2graph, so upgrade eager2graph to load it.")
    kind, items = content
    kind = _CONTAINERS[kind]
    if kind is dict:
        return dict, tuple((decode_literal(key, reader), decode_key(sub, reader)) for key, sub in items)
    return kind, tuple(decode_key(sub, reader) for sub in as_list(items))


def tensor_types(key: tuple) -> list[tuple]:
    """The (dtype, shape) of the key's tensors, in the order a call passes them to the graph."""
    types: list[tuple] = []
    for part in key:
        if is_tensor_key(part):
            types.append(part)
        elif is_container_key(part):
            items = part[1] if not issubclass(part[0], dict) else tuple(sub for _, sub in part[1])
            types += tensor_types(items)
    return types


NO_VALUE = object()


def key_value(part: Any) -> Any:
    """The Python value a key part made of literals stands for (an argument that may then be
    left out), or ``NO_VALUE`` if the part holds tensors."""
    if is_tensor_key(part):
        return NO_VALUE
    kind, content = part
    if kind not in _CONTAINERS.values():
        return literal_value(part)
    values = [key_value(sub if kind is not dict else sub[1]) for sub in content]
    if any(value is NO_VALUE for value in values):
        return NO_VALUE
    if kind is dict:
        return {key: value for (key, _), value in zip(content, values)}
    return kind(values)


# -- the output structure ----------------------------------------------------------------------


def encode_structure(value: Any) -> dict:
    """The function's result: tensors become ``{"output": null}`` (filled in ``flatten`` order
    when loading), containers keep their kind and order, other leaves their Python value."""
    if isinstance(value, SymbolicTensor):
        return {"output": None}
    if nest.is_namedtuple(value):
        return {"namedtuple": [type(value).__name__, list(type(value)._fields),
                               [encode_structure(item) for item in value]]}
    if isinstance(value, dict):
        return {"dict": [[encode_literal(key), encode_structure(item)] for key, item in value.items()]}
    if isinstance(value, (tuple, list)):
        kind = "list" if isinstance(value, list) else "tuple"
        return {kind: [encode_structure(item) for item in value]}
    try:
        return {"value": encode_literal(value)}
    except TypeError as error:
        raise TypeError(f"cannot save a function that returns {value!r}: {error}. Return tensors, "
                        f"numbers, strings, None and tuples, lists or dicts of them.") from None


def decode_structure(data: dict, reader: Reader, outputs: list[SymbolicTensor]) -> Any:
    """The output structure with the graph's outputs at its tensor leaves."""
    marker = object()
    structure = _structure(data, reader, marker)
    if sum(leaf is marker for leaf in nest.flatten(structure)) != len(outputs):
        raise reader.error("returns a different number of tensors than its graph computes; the "
                           "file is damaged. Save the function again.")
    values = iter(outputs)
    return nest.map_structure(lambda leaf: next(values) if leaf is marker else leaf, structure)


def _structure(data, reader: Reader, marker):
    (tag, content), = data.items()
    if tag == "output":
        return marker
    if tag == "value":
        return decode_literal(content, reader)
    if tag in ("tuple", "list"):
        return _CONTAINERS[tag](_structure(item, reader, marker) for item in as_list(content))
    if tag == "dict":
        return {decode_literal(key, reader): _structure(item, reader, marker) for key, item in content}
    if tag == "namedtuple":
        name, fields, items = content
        kind = named_tuple_class(name, tuple(as_list(fields)))
        return kind(*[_structure(item, reader, marker) for item in as_list(items)])
    raise reader.error(f"has an output structure of the unknown kind {tag!r}; the file may come "
                       f"from a newer eager2graph, so upgrade eager2graph to load it.")


@functools.lru_cache(maxsize=None)
def named_tuple_class(name: str, fields: tuple) -> type:
    """A tuple subclass with named fields, made without ``collections.namedtuple`` (which
    evaluates generated source); one class per name and fields, as in the saving program."""
    if not all(type(n) is str and n.isidentifier() and not keyword.iskeyword(n)
               for n in (name,) + fields) \
            or any(field.startswith("_") for field in fields) or len(set(fields)) != len(fields):
        raise ValueError(f"invalid named tuple {name!r} with fields {fields!r}")

    def new(cls, *values):
        return tuple.__new__(cls, values)

    def describe(self) -> str:
        return f"{name}(" + ", ".join(f"{f}={v!r}" for f, v in zip(fields, self)) + ")"

    namespace = {"__slots__": (), "_fields": fields, "__new__": new, "__repr__": describe,
                 "_asdict": lambda self: dict(zip(fields, self))}
    namespace.update({field: property(operator.itemgetter(i)) for i, field in enumerate(fields)})
    return type(name, (tuple,), namespace)
