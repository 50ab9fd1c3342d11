"""Builtins that work on symbolic tensors inside converted code, and stay Python otherwise.

Generated code calls ``ag__.range(n)`` where the user wrote ``range(n)``: on Python values
each function here is exactly the builtin; on symbolic tensors it is the graph equivalent.
"""

from __future__ import annotations

import builtins
import functools
import sys

import runtime as rt
from runtime import dtypes, tracing
from runtime.control_flow import is_symbolic
from runtime.source_location import user_location
from runtime.staged_list import StagedList
from runtime.ops.array_ops import checked_cast
from runtime.ops.io_ops import FormattedValue
from transpiler import trace_events
from transpiler.operators import staging
from transpiler.operators.tensor_sequences import TensorEnumerate, TensorZip, is_sequence
from transpiler.operators.formatting import StagedText, flatten_print_values


def _any_symbolic(values) -> bool:
    return any(is_symbolic(v) for v in values)


def _engine(*values):
    """The builtins of the engine that stages one of ``values`` when it has its own (JAX's, in
    ``staging.jax_builtins``; the runtime's are the functions here), else None."""
    return getattr(staging.backend_for_any(values), "builtins", None)


def _print_engine(values):
    """The builtins of the engine that prints ``values`` when the function runs: one of them, or
    of an f-string's values, is its value, or the print sits in a block it stages."""
    pieces = flatten_print_values(values, "")
    engine = _engine(*(p.value if isinstance(p, FormattedValue) else p for p in pieces))
    if engine is not None:
        return engine
    for backend in tuple(staging._loaded.values()):
        engine = getattr(backend, "builtins", None)
        if engine is not None and engine.in_staged_block():
            return engine
    return None


def range_(*args):
    """``range``; with a tensor bound, a range tensor that a ``for`` loop iterates in the graph."""
    backend = staging.backend_for_bounds(args)
    if backend is not None:
        return backend.range(*args)
    return builtins.range(*args)


def len_(value):
    if is_symbolic(value):
        if value.shape == ():
            location = user_location()
            where = f" at {location}" if location else ""
            raise TypeError(
                f"len() of a scalar tensor is not defined ({value.name}{where}): a scalar has no "
                f"length. Use rt.size(x) for the number of elements, or reshape it to a vector.")
        if value.shape is not None and value.shape[0] is not None:
            return value.shape[0]
        return rt.shape(value)[0]
    if isinstance(value, StagedList):
        return value.size()
    engine = _engine(value)
    if engine is not None:
        return engine.len_(value)
    return builtins.len(value)


def print_(*values, sep=" ", end="\n", file=None, flush=False):
    """``print``: prints each time the graph runs when a value is a symbolic tensor or when it
    sits in a graph branch or loop body (which may run any number of times, even zero); a
    print of Python values at the top of a traced function prints while tracing, as in Python
    code that a graph function runs once per trace."""
    graph = tracing.current_graph()
    in_graph_control_flow = graph is not None and graph.parent is not None
    sep = " " if sep is None else sep
    if graph is None and (file is None or file is sys.stdout):
        engine = _print_engine(values)
        if engine is not None:  # a JAX tracer: printed by a callback when the function runs
            engine.print_(values, sep, "\n" if end is None else end)
            return None
    if any(isinstance(value, StagedText) for value in values):
        # An f-string, str.format or % with a symbolic tensor: printed whole at run time.
        rt.print(*flatten_print_values(values, sep), sep="", end="\n" if end is None else end)
        return None
    if (in_graph_control_flow or _any_symbolic(values)) and (file is None or file is sys.stdout):
        rt.print(*values, sep=sep, end="\n" if end is None else end)
        return None
    if graph is not None and trace_events.active():
        trace_events.record_print(sep.join(str(value) for value in values))
    return builtins.print(*values, sep=sep, end=end, file=file, flush=flush)


def abs_(value):
    if is_symbolic(value):
        return rt.abs(value)
    engine = _engine(value)
    return builtins.abs(value) if engine is None else engine.abs_(value)


def int_(value=0, *args):
    """``int``; on a tensor, an integer tensor of the tensor's width and at least 32 bits
    (int32 and int64 stay, float32 becomes int32, float64 int64, bool and narrower ints
    int32), truncating floats toward zero as Python does. The result stands for a Python int
    (it is weak), and a value no such integer holds (NaN, infinity, out of range) raises
    when the graph runs, where Python raises too."""
    if is_symbolic(value) and not args:
        _refuse_complex("int", value)
        if value.dtype.kind == "f":
            return _python_number(checked_cast(value, dtypes.int_of_width(value.dtype)))
        if value.dtype.itemsize < 4 or value.dtype.kind == "b":
            return _python_number(rt.cast(value, rt.int32))
        return _python_number(value)
    engine = None if args else _engine(value)
    if engine is not None:
        return engine.int_(value)
    return builtins.int(value, *args)


def float_(value=0.0):
    """``float``; on a tensor, a float tensor of the tensor's width and at least 32 bits
    (float32 and float64 stay, int64 becomes float64, int32, narrower ints and bool
    float32). The result stands for a Python float (it is weak). As with ``x * 1.0``, int32
    values beyond 2**24 round to the nearest float32."""
    if is_symbolic(value):
        _refuse_complex("float", value)
        if value.dtype.kind == "f" and value.dtype.itemsize >= 4:
            return _python_number(value)
        return _python_number(rt.cast(value, dtypes.float_of_width(value.dtype)))
    engine = _engine(value)
    if engine is not None:
        return engine.float_(value)
    return builtins.float(value)


# Values no engine traces, told apart by their type alone (the common case, kept fast).
_PLAIN = frozenset((bool, int, float, str, type(None), list, tuple, dict))


def bool_(value=False):
    """``bool``; on a traced JAX or PyTorch value of one element, its truth as a bool scalar
    that the function computes when it runs (``x != 0``), as ``int`` and ``float`` give
    numbers. A symbolic eager2graph tensor keeps Python's meaning: ``bool(x)`` raises, saying
    to decide with a graph conditional instead."""
    engine = None if type(value) in _PLAIN or is_symbolic(value) else _engine(value)
    if engine is not None:
        return engine.bool_(value)
    return builtins.bool(value)


def any_(iterable):
    """``any``; the truth of traced JAX or PyTorch values among the items is computed when the
    function runs, and combined with ``or`` (so the result is a bool scalar of the engine). A
    true Python value still ends the iteration, as in Python."""
    return _truth_of_all(iterable, stop_at=True)


def all_(iterable):
    """``all``; as ``any``, combined with ``and``; a false Python value ends the iteration."""
    return _truth_of_all(iterable, stop_at=False)


def _truth_of_all(iterable, stop_at: bool):
    if "torch" not in sys.modules and "jax" not in sys.modules:  # no engine value can exist
        return (builtins.any if stop_at else builtins.all)(iterable)
    staged = None
    for item in iterable:
        engine = None if type(item) in _PLAIN or is_symbolic(item) else _engine(item)
        if engine is None:
            if builtins.bool(item) is stop_at:
                return stop_at
            continue
        truth = engine.bool_(item)
        staged = truth if staged is None else (staged | truth if stop_at else staged & truth)
    return not stop_at if staged is None else staged


def round_(number, ndigits=None):
    """``round``; on a tensor without ``ndigits``, an int like ``int(x)`` of the value rounded
    half to even, as Python's ``round`` of a NumPy number gives."""
    if is_symbolic(number):
        if ndigits is not None:
            raise TypeError(
                f"round() with ndigits is not supported on tensors in converted code "
                f"({number.name}). Scale explicitly: rt.round(x * 10**n) / 10**n.")
        return int_(rt.round(number) if number.dtype.kind == "f" else number)
    engine = _engine(number)
    if engine is not None:
        return engine.round_(number, ndigits)
    return builtins.round(number, ndigits)


def _refuse_complex(name: str, value) -> None:
    if value.dtype.kind == "c":
        raise TypeError(
            f"{name}() of a complex tensor ({value.name}: {value.dtype.name}) is not defined, as "
            f"for Python complex numbers. Keep the real part explicitly with "
            f"rt.cast(x, rt.float32) (or rt.float64) first.")


def _python_number(value):
    """``value`` marked as standing for a Python number: next to tensors it adapts to their
    dtype (see runtime.dtypes). A new value, so the caller's tensor keeps its own typing."""
    result = rt.identity(value)
    result.weak = True
    return result


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
    engine = _extreme_engine(args)
    if engine is not None:
        return engine.min_(*args, **kwargs)
    return _extreme(rt.minimum, rt.reduce_min, builtins.min, args, kwargs)


def max_(*args, **kwargs):
    engine = _extreme_engine(args)
    if engine is not None:
        return engine.max_(*args, **kwargs)
    return _extreme(rt.maximum, rt.reduce_max, builtins.max, args, kwargs)


def _extreme_engine(args):
    """The engine builtins for ``min``/``max`` of tracers (or of one list or tuple of them)."""
    if len(args) == 1 and type(args[0]) in (list, tuple):
        args = args[0]
    return None if _any_symbolic(args) else _engine(*args)


def enumerate_(iterable, start=0):
    if _staged_sequence(iterable):
        return TensorEnumerate(iterable, start)
    return builtins.enumerate(iterable, start)


def zip_(*iterables, **kwargs):
    if not kwargs and iterables and all(map(_staged_sequence, iterables)):
        return TensorZip(iterables)
    return builtins.zip(*iterables, **kwargs)


def _staged_sequence(iterable) -> bool:
    """Whether a loop over ``iterable`` (and so over an enumerate or zip of it) is staged: a
    tensor an engine stages, or an enumerate or zip of such tensors (``enumerate(zip(x, y))``)."""
    return is_sequence(iterable) or staging.backend_for(iterable) is not None


# The builtins generated code replaces, by name.
OVERLOADS = {
    "range": "range_", "len": "len_", "print": "print_", "abs": "abs_", "int": "int_",
    "float": "float_", "min": "min_", "max": "max_", "enumerate": "enumerate_", "zip": "zip_",
    "round": "round_", "bool": "bool_", "any": "any_", "all": "all_",
}


def traced_method(fn):
    """A method of a value an engine traces that the engine gives a version of (its
    ``METHODS``: ``x.item()`` as a scalar of the trace, which a Python number cannot hold), or
    None for any other callable. Only the class's attribute is looked at: an instance's
    properties are never read."""
    owner = getattr(fn, "__self__", None)
    if owner is None or not _may_be_traced(type(owner)) or staging.backend_for(owner) is None:
        return None
    methods = getattr(_engine(owner), "METHODS", {})
    for name, method in methods.items():
        defined = getattr(type(owner), name, None)
        if defined is not None and (getattr(fn, "__func__", None) is defined or (
                getattr(fn, "__name__", None) == name and not hasattr(fn, "__func__"))):
            return functools.partial(method, owner)
    return None


_TRACEABLE_TYPES: dict[type, bool] = {}


def _may_be_traced(kind: type) -> bool:
    """Whether values of type ``kind`` may be traced by an engine (PyTorch tensors, JAX
    tracers): the first check on every method call of converted code, so its answer is kept
    per type (once an engine is imported; before, no type can be)."""
    known = _TRACEABLE_TYPES.get(kind)
    if known is None:
        torch, jax = sys.modules.get("torch"), sys.modules.get("jax")
        if torch is None and jax is None:
            return False
        bases = tuple(base for base in (getattr(torch, "Tensor", None),
                                        getattr(getattr(jax, "core", None), "Tracer", None))
                      if base is not None)
        known = _TRACEABLE_TYPES[kind] = issubclass(kind, bases)
    return known


def replacements() -> dict:
    """Each builtin of ``OVERLOADS`` -> the function above that stands for it (``range``
    passed around as a value and called later)."""
    return {getattr(builtins, name): globals()[overload] for name, overload in OVERLOADS.items()}
