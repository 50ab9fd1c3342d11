"""Keeping the conversion machinery out of what Dynamo traces (``torch.compile``).

Dynamo runs a compiled function's bytecode symbolically. Run that way, converted code fails
where plain Python does not: the lock the transpiler takes to convert a called function,
the weak references of its caches, the closures that carry a block's state ("weak object has
gone away", "Reconstruction failure ... CellVariable"). So a converted function is an opaque
call for Dynamo (``torch._dynamo.nonstrict_trace``): Dynamo records the call without entering
it, and AOTAutograd then runs it as Python on traced tensors, where the PyTorch backend stages
its control flow (``torch_backend``). With ``backend="eager"`` the function simply runs on the
real tensors, as Python. Imported only when PyTorch is.
"""

from __future__ import annotations

import inspect
import types
from typing import Callable

import torch
from torch._higher_order_ops.flat_apply import is_graphable_type
from torch.fx.experimental.symbolic_shapes import free_unbacked_symbols
from torch.utils import _pytree as pytree

import runtime as rt
from runtime.source_location import translate, user_traceback
from transpiler.operators.staging import torch_indexing

# What an opaque call takes and returns must be tensors, numbers and containers of them; a
# static value (None, a string) stands in for itself as a one-key dict whose key holds it. Dict
# keys are part of the structure Dynamo records, so Dynamo knows the value, and the wrappers put
# it back.
_STATIC_KEY = "__eager2graph_static__"
_STATIC_TYPES = (type(None), str, bytes, type(Ellipsis))
# An argument Dynamo cannot pass to an opaque call (an object of the user's class) stands in,
# under fullgraph=True, for the sentence that says so, raised by the call (see ``_unpassable``).
_UNPASSABLE_KEY = "__eager2graph_unpassable__"


def outside_dynamo(converted: Callable) -> Callable:
    """``converted`` as a call Dynamo does not trace into: under ``torch.compile`` it calls
    the marked function, passing the static values of its arguments and its result (None for
    an optional bias or mask, a string) through the call; run as Python (eagerly), it calls
    ``converted`` directly."""
    marked = torch._dynamo.nonstrict_trace(
        lambda _read, *args, **kwargs: _boxed(_run_traced(
            converted, *_unboxed(args), **_unboxed(kwargs))))
    global_names = _global_names_read(converted)
    signature = _signature_for_messages(converted)

    def call(*args, **kwargs):
        if not torch.compiler.is_compiling():
            return converted(*args, **kwargs)
        read = _python_state(args, converted.__globals__, global_names)
        if _graph_breaks_refused():
            args = tuple(_unpassable(arg, signature, index) for index, arg in enumerate(args))
            kwargs = {key: _unpassable(arg, signature, key) for key, arg in kwargs.items()}
        return _unboxed(marked(read, *_boxed(args), **_boxed(kwargs)))

    return call


def _signature_for_messages(converted: Callable) -> tuple:
    """The names of the positional parameters of ``converted``, its name and where it is
    defined: what a message about one of its arguments says."""
    positional = tuple(name for name, parameter in inspect.signature(converted).parameters.items()
                       if parameter.kind in (parameter.POSITIONAL_ONLY,
                                             parameter.POSITIONAL_OR_KEYWORD))
    code = getattr(converted, "__code__", None)
    where = f" (at {translate(code.co_filename, code.co_firstlineno)})" if code else ""
    return positional, getattr(converted, "__name__", type(converted).__name__), where


@torch._dynamo.assume_constant_result
def _graph_breaks_refused() -> bool:
    """``_graph_breaks_are_errors`` asked while Dynamo traces, as a constant of its trace."""
    return _graph_breaks_are_errors()


def _unpassable(arg, signature: tuple, key):
    """``arg`` (the argument at position or keyword ``key``), or, when it holds a value Dynamo
    cannot pass to an opaque call (an object of the user's class: only tensors, numbers,
    strings, None, modules and containers of them pass), the sentence saying so, boxed; the
    call raises it (``_refuse_unpassable``). Raised here, in the code Dynamo traces, it would
    reach the user as Dynamo's "Observed exception"; raised by the call, as itself."""
    for leaf in pytree.tree_leaves(arg):
        refusal = _refusal(type(leaf), signature, key)
        if refusal is not None:
            return {_UNPASSABLE_KEY: {refusal: ()}}
    return arg


@torch._dynamo.assume_constant_result
def _refusal(kind: type, signature: tuple, key) -> str | None:
    """None when Dynamo passes a value of type ``kind`` to an opaque call, else the message
    saying that the argument ``key`` of the function of ``signature`` holds one; asked while
    Dynamo traces, as a constant of its trace."""
    if issubclass(kind, (torch.nn.Module, *_STATIC_TYPES)) or is_graphable_type(kind):
        return None  # static values pass boxed (``_boxed``)
    positional, function_name, where = signature
    name = positional[key] if isinstance(key, int) and key < len(positional) else key
    shown = f"'{name}'" if isinstance(name, str) else f"number {name + 1}"
    return (f"Argument {shown} of {function_name}{where} is (or holds) a {kind.__qualname__} "
            f"object, which torch.compile with fullgraph=True cannot pass to converted code: "
            f"only tensors, Python numbers, strings, None, modules, and lists, tuples and dicts "
            f"of them pass. Pass the tensors and numbers it holds as arguments, register its "
            f"class with torch.utils._pytree.register_dataclass (or register_pytree_node), or "
            f"compile without fullgraph=True.")


def _refuse_unpassable(args: tuple, kwargs: dict) -> None:
    for arg in (*args, *kwargs.values()):
        if type(arg) is dict and len(arg) == 1 and _UNPASSABLE_KEY in arg:
            (message,) = arg[_UNPASSABLE_KEY]
            raise TypeError(message)


_SCALARS = (bool, int, float, str)


def _python_state(args: tuple, namespace: dict, global_names: tuple) -> tuple:
    """The Python values converted code may decide on that Dynamo would otherwise not see,
    read here, in the code Dynamo traces, so that it guards on them and compiles again when
    one changes (the converted function runs outside Dynamo, on the values of its first
    trace): the ``training`` flag and Python-number attributes of the modules passed in (and
    their submodules), and the Python-number globals its code names."""
    values = []
    for arg in args:
        if isinstance(arg, torch.nn.Module):
            for module in arg.modules():
                values.append(module.training)
                values += [value for value in module.__dict__.values()
                           if type(value) in _SCALARS]
    values += [namespace[name] for name in global_names
               if name in namespace and type(namespace[name]) in _SCALARS]
    # An int as a dict key, which Dynamo keeps a constant: passed as itself, it would become
    # symbolic once it changed (automatic dynamic shapes), and the code, reading the int
    # itself, would keep the value of its first trace.
    return tuple({_STATIC_KEY: {value: ()}} if type(value) is int else value
                 for value in values)


def _global_names_read(fn) -> tuple:
    """The names the code of ``fn`` (and of the functions nested in it) reads, a global
    among them."""
    code = getattr(getattr(fn, "__wrapped__", fn), "__code__", None)
    names, stack = set(), [code] if code is not None else []
    while stack:
        code = stack.pop()
        names.update(code.co_names)
        stack += [const for const in code.co_consts if isinstance(const, types.CodeType)]
    return tuple(sorted(names))


def _run_traced(fn: Callable, *args, **kwargs):
    """``fn(*args, **kwargs)`` as PyTorch traces it: indexing by 0-d integer tensors reads
    them as symbolic integers (``torch_indexing``), and of the new symbols of values known only
    when the program runs (``x.item()``), only those its result holds (a size of ``x[x > 0]``)
    stay pending: Dynamo requires each such symbol made in an opaque call to appear in what the
    call returns, and a staged ``if x.item() > 0.5`` makes one that only its condition uses."""
    shape_env = getattr(torch._guards.detect_fake_mode(), "shape_env", None)
    if shape_env is None:
        return _called_showing_errors(fn, *args, **kwargs)
    first_new = len(shape_env.pending_fresh_unbacked_symbols)
    result = _called_showing_errors(fn, *args, **kwargs)
    held = set().union(*(free_unbacked_symbols(leaf) for leaf in pytree.tree_leaves(result)
                         if isinstance(leaf, (torch.Tensor, torch.SymInt, torch.SymFloat,
                                              torch.SymBool))))
    pending = shape_env.pending_fresh_unbacked_symbols
    pending[first_new:] = [symbol for symbol in pending[first_new:] if symbol in held]
    return result


def _called_showing_errors(fn: Callable, *args, **kwargs):
    """``fn(*args, **kwargs)`` with integer tensors indexing as symbolic integers, where an error
    that Dynamo would hide reaches the user as itself (see ``_past_dynamo``)."""
    try:
        _refuse_unpassable(args, kwargs)
        with torch_indexing.IndexingByIntegerTensors():
            return fn(*args, **kwargs)
    except Exception as error:  # noqa: BLE001 - re-raised, as itself or as its carrier
        carried = _past_dynamo(error)
        if carried is None:
            raise
    raise carried


def _past_dynamo(error: Exception) -> Exception | None:
    """``error`` as an exception Dynamo lets through, when Dynamo would otherwise hide it and
    cannot fall back to running the call as Python; None to leave it to Dynamo.

    Dynamo runs an opaque call on fake tensors to learn what it returns, and reports any error
    of that run as its own ("Unsupported output type for nonstrict_trace-ed function"), with
    the real one, which names the user's variable, construct and line, suppressed in its
    context. Only an ``IndexError`` passes through as itself (PyTorch 2.13 re-raises it so that
    a bad dimension reaches the user). So the error is raised again as an instance of a class
    deriving from both its own class and ``IndexError``: ``except GraphTypeError`` (or
    ``TypeError``) still catches it, and its message, cause and traceback (the user's frames)
    are its own. Where graph breaks are allowed (``fullgraph=False``), Dynamo's graph break
    runs the call as Python on real tensors, which gives Python's result: that stays. PyTorch's
    own errors (a data-dependent guard, an operator without a fake kernel) stay Dynamo's, which
    come with hints."""
    if isinstance(error, IndexError) or type(error).__module__.split(".")[0] == "torch" \
            or not _graph_breaks_are_errors():
        return None
    carrier = _carrier_class(type(error))
    if carrier is None:
        return None
    carried = carrier.__new__(carrier, *error.args)
    carried.__dict__.update(getattr(error, "__dict__", {}))
    carried.__cause__, carried.__context__ = error.__cause__, error.__context__
    carried.__suppress_context__ = error.__suppress_context__
    filtered = user_traceback(error) if rt.config.traceback_filtering() else error.__traceback__
    return carried.with_traceback(filtered)


_carriers: dict[type, type | None] = {}


def _carrier_class(kind: type) -> type | None:
    """``kind`` and ``IndexError`` in one class, shown under ``kind``'s name; None where the two
    cannot be combined (an ``OSError``, whose instances are laid out differently)."""
    if kind not in _carriers:
        try:
            _carriers[kind] = type(kind.__name__, (kind, IndexError), {
                "__module__": kind.__module__, "__qualname__": kind.__qualname__,
                "__doc__": f"{kind.__name__}, raised so that torch.compile reports it as itself."})
        except TypeError:
            _carriers[kind] = None
    return _carriers[kind]


def _graph_breaks_are_errors() -> bool:
    """Whether Dynamo is tracing with graph breaks refused (``fullgraph=True``, or
    ``error_on_graph_break``): then it cannot run the call as Python instead."""
    try:
        from torch._dynamo.symbolic_convert import InstructionTranslator
        tracer = InstructionTranslator.current_tx()
    except (ImportError, AttributeError):  # another PyTorch version, or Dynamo is not tracing
        return False
    return tracer is not None and bool(getattr(tracer, "one_graph", False)
                                       or getattr(tracer, "error_on_graph_break", False))


def _boxed(value):
    if isinstance(value, _STATIC_TYPES):
        return {_STATIC_KEY: {value: ()}}
    if type(value) in (tuple, list):
        return type(value)(_boxed(item) for item in value)
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(_boxed(item) for item in value))
    if type(value) is dict:
        if _STATIC_KEY in value:
            raise ValueError(f"A converted function returned a dict with the key "
                             f"{_STATIC_KEY!r}, which eager2graph reserves to pass static "
                             f"values through torch.compile. Rename the key.")
        return {key: _boxed(item) for key, item in value.items()}
    return value


def _unboxed(value):
    if type(value) in (tuple, list):
        return type(value)(_unboxed(item) for item in value)
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(_unboxed(item) for item in value))
    if type(value) is dict:
        if len(value) == 1 and _STATIC_KEY in value:
            (static,) = value[_STATIC_KEY]
            return static
        return {key: _unboxed(item) for key, item in value.items()}
    return value
