"""Builtins that work on symbolic tensors inside converted code, and stay Python otherwise.

Generated code calls ``ag__.range(n)`` where the user wrote ``range(n)``: on Python values
each function here is exactly the builtin; on symbolic tensors it is the graph equivalent.
"""

from __future__ import annotations

import builtins
import sys

import runtime as rt
from runtime import tracing
from runtime.control_flow import is_symbolic
from runtime.staged_list import StagedList
from transpiler.operators.control_flow import TensorEnumerate, TensorZip


def _any_symbolic(values) -> bool:
    return any(is_symbolic(v) for v in values)


def range_(*args):
    """``range``; with a tensor bound, a range tensor that a ``for`` loop iterates in the graph."""
    if _any_symbolic(args):
        for value in args:
            if is_symbolic(value) and value.dtype.kind not in "iu":
                raise TypeError(
                    f"range() takes integers, but got a tensor of dtype {value.dtype.name} "
                    f"({value.name}). Cast it with rt.cast(x, rt.int32) if a whole number is meant.")
        return rt.range(*args)
    return builtins.range(*args)


def len_(value):
    if is_symbolic(value):
        if value.shape == ():
            raise TypeError("len() of a scalar tensor is not defined.")
        if value.shape is not None and value.shape[0] is not None:
            return value.shape[0]
        return rt.shape(value)[0]
    if isinstance(value, StagedList):
        return value.size()
    return builtins.len(value)


def print_(*values, sep=" ", end="\n", file=None, flush=False):
    """``print``: prints each time the graph runs when a value is a symbolic tensor or when it
    sits in a graph branch or loop body (which may run any number of times, even zero); a
    print of Python values at the top of a traced function prints while tracing, as in Python
    code that a graph function runs once per trace."""
    graph = tracing.current_graph()
    in_graph_control_flow = graph is not None and graph.parent is not None
    if (in_graph_control_flow or _any_symbolic(values)) and (file is None or file is sys.stdout):
        rt.print(*values, sep=" " if sep is None else sep, end="\n" if end is None else end)
        return None
    return builtins.print(*values, sep=sep, end=end, file=file, flush=flush)


def abs_(value):
    return rt.abs(value) if is_symbolic(value) else builtins.abs(value)


def int_(value=0, *args):
    if is_symbolic(value) and not args:
        return rt.cast(value, rt.int32)
    return builtins.int(value, *args)


def float_(value=0.0):
    return rt.cast(value, rt.float32) if is_symbolic(value) else builtins.float(value)


def _extreme(pairwise, reduce, python_fn, args, kwargs):
    if not kwargs and _any_symbolic(args):
        if len(args) == 1:
            return reduce(args[0])
        result = args[0]
        for value in args[1:]:
            result = pairwise(result, value)
        return result
    return python_fn(*args, **kwargs)


def min_(*args, **kwargs):
    return _extreme(rt.minimum, rt.reduce_min, builtins.min, args, kwargs)


def max_(*args, **kwargs):
    return _extreme(rt.maximum, rt.reduce_max, builtins.max, args, kwargs)


def enumerate_(iterable, start=0):
    if is_symbolic(iterable):
        return TensorEnumerate(iterable, start)
    return builtins.enumerate(iterable, start)


def zip_(*iterables, **kwargs):
    if not kwargs and iterables and all(is_symbolic(i) for i in iterables):
        return TensorZip(iterables)
    return builtins.zip(*iterables, **kwargs)


# The builtins generated code replaces, by name.
OVERLOADS = {
    "range": "range_", "len": "len_", "print": "print_", "abs": "abs_", "int": "int_",
    "float": "float_", "min": "min_", "max": "max_", "enumerate": "enumerate_", "zip": "zip_",
}


def replacement_for(fn):
    """The function above that stands for the builtin ``fn`` (``range`` passed around as a
    value and called later), or ``None``."""
    try:
        name = _BUILTINS_BY_OBJECT.get(fn)
    except TypeError:  # unhashable callables are never builtins
        return None
    return None if name is None else globals()[OVERLOADS[name]]


_BUILTINS_BY_OBJECT = {getattr(builtins, name): name for name in OVERLOADS}
