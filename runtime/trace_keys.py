"""Cache keys for polymorphic functions: what about the arguments selects a trace.

``encode`` turns the arguments into a hashable key and, in the same walk, collects the tensor
leaves that become graph inputs. Tensors are keyed by dtype and shape (their values are inputs);
Python scalars and strings by type *and* value (``1``, ``1.0`` and ``True`` are three traces,
``0.0`` and ``-0.0`` two, NaN equals NaN); containers recursively; any other object by
identity, without keeping it alive.
"""

from __future__ import annotations

import math
import weakref
from typing import Any

import numpy as np

from runtime import nest
from runtime.tensor import EagerTensor, TensorSpec, join_shapes, shape_is_subtype

_LITERALS = (int, float, bool, complex, str, bytes, type(None))


class IdentityKey:
    """Matches only the very same object; holds it weakly where possible."""

    __slots__ = ("_ref", "_strong", "_id", "description")

    def __init__(self, obj):
        self._id = id(obj)
        self.description = _describe_object(obj)
        try:
            self._ref = weakref.ref(obj)
            self._strong = None
        except TypeError:
            self._ref = None
            self._strong = obj  # not weak-referenceable: keep it so its id cannot be reused

    def alive_object(self):
        return self._strong if self._ref is None else self._ref()

    def __hash__(self):
        return self._id

    def __eq__(self, other):
        if not isinstance(other, IdentityKey) or other._id != self._id:
            return False
        mine, theirs = self.alive_object(), other.alive_object()
        return mine is not None and mine is theirs

    def __repr__(self):
        return self.description


def _describe_object(obj) -> str:
    name = getattr(obj, "__name__", None) or getattr(obj, "name", None)
    return f"{type(obj).__name__} {name}" if isinstance(name, str) else f"a {type(obj).__name__} object"


def is_tensor_key(part) -> bool:
    return type(part) is tuple and len(part) == 2 and isinstance(part[0], np.dtype)


def encode(value, leaves: list) -> Any:
    """The key of ``value``; tensor leaves are appended to ``leaves`` in flatten order."""
    kind = type(value)
    if kind is EagerTensor:
        array = value._value
        leaves.append(array)
        return (array.dtype, array.shape)
    if kind is np.ndarray:
        leaves.append(value)
        return (value.dtype, value.shape)
    if kind in _LITERALS:
        return literal_key(value)
    if kind is TensorSpec:
        return (value.dtype, value.shape)  # get_concrete_function with specs: no value yet
    if isinstance(value, np.generic):
        array = np.asarray(value)
        leaves.append(array)
        return (array.dtype, ())
    if kind is dict or isinstance(value, dict):
        return (kind, tuple((key, encode(value[key], leaves)) for key in nest.sorted_keys(value)))
    if kind is tuple or kind is list or isinstance(value, (tuple, list)):
        return (kind, tuple(encode(item, leaves) for item in value))
    return IdentityKey(value)


def literal_key(value: Any) -> tuple:
    """The key of a Python literal: its type and value. A float or complex number holding a NaN
    or a -0.0 is keyed by its repr instead, since ``==`` would mix it up: NaN is unequal even to
    itself (every call would trace again) and -0.0 equals 0.0 though ``atan2``, ``copysign`` and
    ``1 / x`` tell them apart."""
    kind = type(value)
    if kind is float or kind is complex:
        parts = (value.real, value.imag) if kind is complex else (value,)
        if any(part != part or (part == 0 and math.copysign(1.0, part) < 0) for part in parts):
            return (kind, repr(value))
    return (kind, value)


def literal_value(part: tuple) -> Any:
    """The Python value of a literal's key (the inverse of ``literal_key``)."""
    kind, body = part
    return kind(body) if (kind is float or kind is complex) and type(body) is str else body


def is_literal_key(part) -> bool:
    """Whether ``part`` is the key of a Python literal (``3``, ``"relu"``, ``None``)."""
    return type(part) is tuple and len(part) == 2 and part[0] in _LITERALS


def is_container_key(part) -> bool:
    return (type(part) is tuple and len(part) == 2 and isinstance(part[0], type)
            and issubclass(part[0], (tuple, list, dict)) and type(part[1]) is tuple)


def generalize(a, b):
    """The most specific key matching both (tensor shapes joined), or None if none exists."""
    if is_tensor_key(a) and is_tensor_key(b):
        return (a[0], join_shapes(a[1], b[1])) if a[0] == b[0] else None
    if is_container_key(a) and is_container_key(b) and a[0] is b[0] and len(a[1]) == len(b[1]):
        parts = []
        for x, y in zip(a[1], b[1]):
            if issubclass(a[0], dict):
                merged = generalize(x[1], y[1]) if x[0] == y[0] else None
                merged = None if merged is None else (x[0], merged)
            else:
                merged = generalize(x, y)
            if merged is None:
                return None
            parts.append(merged)
        return (a[0], tuple(parts))
    return a if a == b else None


def matches(key, pattern) -> bool:
    """True if a call with ``key`` can use a trace made for ``pattern`` (shapes as subtypes)."""
    if is_tensor_key(key) and is_tensor_key(pattern):
        return key[0] == pattern[0] and shape_is_subtype(key[1], pattern[1])
    if is_container_key(key) and is_container_key(pattern) and key[0] is pattern[0] \
            and len(key[1]) == len(pattern[1]):
        if issubclass(key[0], dict):
            return all(x[0] == y[0] and matches(x[1], y[1]) for x, y in zip(key[1], pattern[1]))
        return all(matches(x, y) for x, y in zip(key[1], pattern[1]))
    return key == pattern


def _python_value(part):
    """The Python value a key of literals stands for (None if it holds tensors or objects)."""
    kind, body = part
    if kind in _LITERALS:
        return literal_value(part)
    if kind in (list, tuple):
        items = []
        for sub in body:
            if not (type(sub) is tuple and len(sub) == 2 and isinstance(sub[0], type)):
                return None
            value = _python_value(sub)
            if value is None and sub[0] is not type(None):
                return None
            items.append(value)
        return kind(items)
    return None


def unsupported_dtype(part) -> np.dtype | None:
    """The first array dtype in key ``part`` that no op accepts (strings, objects, dates)."""
    if is_tensor_key(part):
        return None if part[0].kind in "biufc" else part[0]
    if is_container_key(part):
        items = (sub for _, sub in part[1]) if issubclass(part[0], dict) else part[1]
        return next((bad for bad in map(unsupported_dtype, items) if bad is not None), None)
    return None


def spec_of(part) -> TensorSpec:
    return TensorSpec(part[1], part[0])


def describe(part) -> str:
    """Readable form of one argument's key, for the retracing warning."""
    if is_tensor_key(part):
        return f"a tensor of dtype {part[0].name} and shape {spec_of(part).shape}"
    if isinstance(part, IdentityKey):
        return part.description
    if type(part) is tuple and len(part) == 2 and isinstance(part[0], type):
        if part[0] in _LITERALS:
            return f"the Python {part[0].__name__} {literal_value(part)!r}"
        literal = _python_value(part)
        if literal is not None:
            return f"the Python {part[0].__name__} {literal!r}"
        return f"a {part[0].__name__} of {len(part[1])} items"
    return repr(part)
