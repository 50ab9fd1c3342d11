"""Calls from converted code: user functions are converted too, everything else is not.

Generated code writes ``ag__.converted(f)(x)`` where the user wrote ``f(x)`` and ``f`` could
not be recognised while converting (a parameter, a method, a function from another module).
The decision is made here, at call time, and cached per function.
"""

from __future__ import annotations

import functools
import inspect
import sys
import types
import weakref

from transpiler.generated_sources import is_generated
from transpiler.operators import builtins as builtin_overloads, math_calls, staging
from transpiler.operators.builtins import traced_method

_SKIPPED_PACKAGES = frozenset({"runtime", "transpiler", "numpy", "pytest", "_pytest", "hypothesis",
                               "jax", "jaxlib", "torch", "functorch"})
# fn -> its converted function, or None when it runs as it is (a value that is ``fn`` itself
# would keep the weak key alive forever).
_decisions: "weakref.WeakKeyDictionary[object, object]" = weakref.WeakKeyDictionary()


# Builtins and math functions -> what converted code calls instead, for one look-up per call.
_REPLACEMENTS = {**builtin_overloads.replacements(), **math_calls.replacements()}


def do_not_convert(fn):
    """Marks ``fn`` to run as plain Python even when called from converted code."""
    try:
        fn.__e2g_do_not_convert__ = True
    except AttributeError:
        pass
    return fn


def is_library_code(fn) -> bool:
    """Functions of the standard library, NumPy, the runtime and this package are left alone."""
    module = getattr(fn, "__module__", None) or ""
    top = module.partition(".")[0]
    return top in _SKIPPED_PACKAGES or top in sys.stdlib_module_names or top == "builtins"


def converted(fn):
    """``fn`` converted if it is user Python code, otherwise ``fn`` itself."""
    try:
        replacement = _REPLACEMENTS.get(fn)
    except TypeError:  # unhashable callables are neither builtins nor math functions
        replacement = None
    if replacement is None:
        replacement = traced_method(fn) or staging.library_replacement(fn)
    if replacement is not None:
        return replacement
    if isinstance(fn, types.MethodType):
        function = converted(fn.__func__)
        return fn if function is fn.__func__ else types.MethodType(function, fn.__self__)
    if not isinstance(fn, types.FunctionType):
        return _converted_callable_object(fn)
    try:
        decision = _decisions[fn]
    except KeyError:
        decision = _decide(fn)
        _decisions[fn] = None if decision is fn else decision
        return decision
    return fn if decision is None else decision


def _decide(fn):
    if getattr(fn, "__e2g_do_not_convert__", False) or getattr(fn, "__e2g_converted__", False):
        return fn
    if is_library_code(fn) or inspect.isgeneratorfunction(fn) or inspect.iscoroutinefunction(fn):
        return fn
    if is_generated(fn.__code__):
        return fn  # defined inside converted code: converted with it
    from transpiler.api import convert_or_warn
    return convert_or_warn(fn)


def _module_forward(obj):
    """A PyTorch module's ``forward`` to call for ``obj(...)`` (see ``staging.torch_modules``),
    or None: PyTorch is not imported, or the module must be called itself."""
    if "torch" not in sys.modules:
        return None
    from transpiler.operators.staging.torch_modules import forward_to_convert
    return forward_to_convert(obj)


def _converted_callable_object(obj):
    """Instances with a Python ``__call__`` (layers, models) have that method converted."""
    if isinstance(obj, (type, functools.partial)) or not callable(obj):
        return obj
    forward = _module_forward(obj)
    if forward is not None:
        converted_forward = converted(forward)
        return obj if converted_forward is forward else converted_forward
    call = getattr(type(obj), "__call__", None)
    if not isinstance(call, types.FunctionType) or is_library_code(call):
        return obj
    return types.MethodType(converted(call), obj)
