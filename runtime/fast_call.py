"""The fast path of repeated calls: a generated entry function per traced signature.

A call through ``Function`` normally binds the arguments, encodes a cache key, looks it up and
unpacks the tensors. When a signature is made of tensors with fully known shapes and Python
literals, its ConcreteFunction also gets an ``entry(args)`` written for exactly that key:

    def entry(args):
        if len(args) != 2:
            return MISS
        x0 = args[0]
        if type(x0) is EagerTensor:
            x0 = x0._value
        elif type(x0) is not ndarray:
            return MISS
        if x0.dtype is not dtype0 or x0.shape != (10, 10):
            return MISS
        if type(args[1]) is not int or args[1] != 100:
            return MISS
        return pack(run(x0))

Tuples, lists, dicts and namedtuples of such values are checked element by element. It either
runs the plan or says MISS, and the caller then takes the general path, which
decides everything (tracing included) as before. The tests are those of the key, so an
entry never accepts arguments the key would not match.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from runtime.tensor import EagerTensor
from runtime.trace_keys import is_container_key, is_tensor_key, literal_key

MISS = object()
_LITERAL_TYPES = (int, float, bool, str, bytes, type(None))


def make_entry(key: tuple, run: Callable, pack: Callable, translate: Callable) -> Callable | None:
    """The entry for ``key``, or None when the key has parts an entry does not check
    (objects compared by identity, unknown dimensions, NaN, -0.0)."""
    writer = _EntryWriter({"MISS": MISS, "EagerTensor": EagerTensor, "ndarray": np.ndarray,
                           "run": run, "pack": pack, "translate": translate,
                           "literal_key": literal_key})
    writer.lines += [f"    if len(args) != {len(key)}:", "        return MISS"]
    for index, part in enumerate(key):
        if not writer.check(f"args[{index}]", part):
            return None
    writer.lines += ["    try:",
                     f"        return pack(run({', '.join(writer.arrays)}))",
                     "    except Exception as error:",
                     "        raise translate(error) from error"]
    source = "def entry(args):\n" + "\n".join(writer.lines) + "\n"
    exec(compile(source, "<eager2graph fast entry>", "exec"), writer.namespace)
    return writer.namespace["entry"]


class _EntryWriter:
    """Writes the checks of one key, in the order ``encode`` collects tensor leaves."""

    def __init__(self, namespace: dict):
        self.namespace = namespace
        self.lines: list[str] = []
        self.arrays: list[str] = []
        self.containers = 0

    def name(self, prefix: str, value) -> str:
        """A global of the entry holding ``value``."""
        name = f"{prefix}{len(self.namespace)}"
        self.namespace[name] = value
        return name

    def check(self, expression: str, part) -> bool:
        """Appends the checks that the value of ``expression`` has key ``part``."""
        if is_tensor_key(part):
            return self.tensor(expression, *part)
        if _is_literal(part):
            kind = self.name("type", part[0])
            if _has_a_zero(part[1]):  # == does not tell 0.0 from -0.0; their keys do
                differs = f"literal_key({expression}) != {self.name('key', part)}"
            else:
                differs = f"{expression} != {self.name('value', part[1])}"
            self.lines += [f"    if type({expression}) is not {kind} or {differs}:",
                           "        return MISS"]
            return True
        if is_container_key(part):
            return self.container(expression, *part)
        return False

    def tensor(self, expression: str, dtype, shape) -> bool:
        if shape is None or None in shape:
            return False
        array, dtype_name = f"x{len(self.arrays)}", self.name("dtype", dtype)
        self.arrays.append(array)
        self.lines += [f"    {array} = {expression}",
                       f"    if type({array}) is EagerTensor:",
                       f"        {array} = {array}._value",
                       f"    elif type({array}) is not ndarray:",
                       "        return MISS",
                       f"    if {array}.dtype is not {dtype_name} "
                       f"or {array}.shape != {tuple(shape)!r}:",
                       "        return MISS"]
        return True

    def container(self, expression: str, kind: type, items: tuple) -> bool:
        holder, kind_name = f"y{self.containers}", self.name("type", kind)
        self.containers += 1
        self.lines += [f"    {holder} = {expression}",
                       f"    if type({holder}) is not {kind_name} or len({holder}) != {len(items)}:",
                       "        return MISS"]
        if issubclass(kind, dict):
            for dict_key, part in items:
                key_name = self.name("key", dict_key)
                self.lines += [f"    if {key_name} not in {holder}:", "        return MISS"]
                if not self.check(f"{holder}[{key_name}]", part):
                    return False
            return True
        return all(self.check(f"{holder}[{position}]", part) for position, part in enumerate(items))


def _is_literal(part) -> bool:
    if not (type(part) is tuple and len(part) == 2 and part[0] in _LITERAL_TYPES):
        return False
    return type(part[1]) is part[0]  # NaN and -0.0 are keyed by their repr: no entry


def _has_a_zero(value) -> bool:
    """True for a float or complex number with a zero part (which could be -0.0 instead)."""
    if type(value) is complex:
        return value.real == 0 or value.imag == 0
    return type(value) is float and value == 0
