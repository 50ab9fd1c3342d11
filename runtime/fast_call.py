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

It either runs the plan or says MISS, and the caller then takes the general path, which
decides everything (tracing included) as before. The tests are those of the key, so an
entry never accepts arguments the key would not match.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from runtime.tensor import EagerTensor
from runtime.trace_keys import is_tensor_key

MISS = object()
_LITERAL_TYPES = (int, float, bool, str, bytes, type(None))


def make_entry(key: tuple, run: Callable, pack: Callable, translate: Callable) -> Callable | None:
    """The entry for ``key``, or None when the key has parts an entry does not check
    (containers, objects compared by identity, unknown dimensions, NaN)."""
    lines = ["def entry(args):", f"    if len(args) != {len(key)}:", "        return MISS"]
    namespace = {"MISS": MISS, "EagerTensor": EagerTensor, "ndarray": np.ndarray,
                 "run": run, "pack": pack, "translate": translate}
    arrays = []
    for index, part in enumerate(key):
        if is_tensor_key(part):
            dtype, shape = part
            if shape is None or None in shape:
                return None
            namespace[f"dtype{index}"] = dtype
            arrays.append(f"x{index}")
            lines += [f"    x{index} = args[{index}]",
                      f"    if type(x{index}) is EagerTensor:",
                      f"        x{index} = x{index}._value",
                      f"    elif type(x{index}) is not ndarray:",
                      "        return MISS",
                      f"    if x{index}.dtype is not dtype{index} or x{index}.shape != {shape!r}:",
                      "        return MISS"]
        elif _is_literal(part):
            kind, value = part
            namespace[f"type{index}"], namespace[f"value{index}"] = kind, value
            lines += [f"    if type(args[{index}]) is not type{index} or args[{index}] != value{index}:",
                      "        return MISS"]
        else:
            return None
    lines += ["    try:",
              f"        return pack(run({', '.join(arrays)}))",
              "    except Exception as error:",
              "        raise translate(error) from error"]
    exec(compile("\n".join(lines) + "\n", "<eager2graph fast entry>", "exec"), namespace)
    return namespace["entry"]


def _is_literal(part) -> bool:
    if not (type(part) is tuple and len(part) == 2 and part[0] in _LITERAL_TYPES):
        return False
    return type(part[1]) is part[0]  # a NaN is keyed as (float, "nan"): no entry
