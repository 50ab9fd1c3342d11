"""The symbols of a block's symbolic numbers, made inputs of its subgraph.

A staged block may compute with a symbolic int of the enclosing trace (``mid = (lo + hi) // 2``
before the ``if``, with ``hi`` a dynamic size; ``lo = mid + 1`` in a branch). That arithmetic
is Python's, so ``torch_lifting`` cannot substitute an input for ``mid`` as it does for tensors:
the subgraph's tracer meets ``mid`` unknown, and can only rebuild it from the symbols it is made
of (``s0``) when those are inputs of the subgraph. ``cond`` and ``while_loop`` trace their blocks
in subgraphs of their own (again for their schema and their gradient), so each symbol that a
number the block reads or gives is made of becomes an input of the block, as a symbolic int
standing for the symbol alone.
"""

from __future__ import annotations

from typing import Iterable

import torch
from torch.fx.experimental.symbolic_shapes import free_symbols

_NUMBERS = (torch.SymInt, torch.SymFloat, torch.SymBool)


def symbol_inputs(numbers: Iterable, inputs: Iterable) -> list[torch.SymInt]:
    """One symbolic int per integer symbol that the symbolic ``numbers`` are made of and that
    no symbolic int of ``inputs`` stands for alone, in the order first seen."""
    found: dict = {value.node.expr: None for value in inputs if isinstance(value, torch.SymInt)}
    for number in numbers:
        if not isinstance(number, _NUMBERS):
            continue
        shape_env = number.node.shape_env
        for symbol in free_symbols(number):
            if symbol.is_integer and symbol not in found:
                hint = shape_env.backed_var_to_val.get(symbol)
                found[symbol] = shape_env.create_symintnode(
                    symbol, hint=None if hint is None else int(hint))
    return [value for value in found.values() if value is not None]
