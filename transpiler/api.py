"""The public entry points: ``convert``, ``to_code``, ``function`` and ``do_not_convert``."""

from __future__ import annotations

import functools
import os
import sys
import threading
import types
import weakref
from typing import Callable, Sequence

import numpy as np

import runtime as rt
import transpiler.operators as ag
from transpiler import after_import, codegen, conversion_cache, parsing, pipeline, syntax_tree
from transpiler.converters.base import Context, stamp_origin
from transpiler.errors import ConversionWarning, SourceUnavailableError
from runtime.source_location import register_unconverted, user_traceback, warn_at_user_code
from transpiler.naming import Namer
from transpiler.operators.calls import do_not_convert, is_library_code

# Nothing here keeps a user's function alive, so a function the user drops takes its
# conversion with it (a long-lived process converting thousands of lambdas or notebook cells
# must not grow). A converted function is kept on the user function itself: it shares that
# function's globals, which usually hold the function, so a weak-keyed table would hold its
# own key through the value; as an attribute it is one collectable cycle.
_lock = threading.RLock()
# user code object -> GeneratedModule: one conversion per source
_by_code: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_CONVERTED = "__e2g_converted_function__"  # fn.__dict__ entry: (generation, converted fn)
_generation = 0  # bumped by clear_conversion_cache, which makes the entries above stale
_warned: "weakref.WeakSet" = weakref.WeakSet()  # code objects already warned about


def _generate(fn: types.FunctionType) -> codegen.GeneratedModule:
    code = fn.__code__
    generated = _by_code.get(code)
    if generated is None:
        with _lock:
            generated = _by_code.get(code)
            if generated is None:
                key = conversion_cache.key(fn)
                generated = conversion_cache.load(key, fn) if key is not None else None
                if generated is None:
                    generated, name, ctx = _converted_module(fn)
                    if key is not None:
                        conversion_cache.keep(key, generated, name, ctx.resolved)
                _by_code[code] = generated
    return generated


def _converted_module(fn: types.FunctionType) -> tuple[codegen.GeneratedModule, str, Context]:
    """Converts ``fn`` now: its module, the converted function's name, and the context the
    converters consulted."""
    node, _ = parsing.parse_function(fn)
    if isinstance(node, parsing.gast.Lambda):
        node = _lambda_as_def(node, fn)
    code = fn.__code__
    free_vars = list(code.co_freevars)
    used, bound = _names(node)
    ctx = Context(Namer(used), fn.__globals__, frozenset(free_vars), frozenset(bound))
    pipeline.convert_tree(node, ctx)
    return codegen.generate(node, free_vars, code.co_filename), node.name, ctx


def clear_conversion_cache() -> None:
    """Forgets every conversion this process made, so the next call converts again (for
    measuring first calls). Conversions kept on disk by ``runtime.code_cache`` stay: turn it
    off with ``rt.config.set_code_cache_directory(False)`` to measure converting itself."""
    global _generation
    with _lock:
        _by_code.clear()
        _generation += 1


def _lambda_as_def(node, fn):
    """A lambda converts as a one-line function (its name is only for the generated code)."""
    gast = parsing.gast
    return stamp_origin([gast.FunctionDef("lambda_", node.args, [gast.Return(node.body)], [], None,
                                          None)], node)[0]


def _names(node) -> tuple[set[str], set[str]]:
    """The identifiers the function uses (names, defs, classes) and the names it binds, in one
    walk."""
    gast = parsing.gast
    used, bound = set(), set()
    for n in syntax_tree.walk(node):
        if isinstance(n, gast.Name):
            used.add(n.id)
            if isinstance(n.ctx, (gast.Store, gast.Param, gast.Del)):
                bound.add(n.id)
        elif isinstance(n, (gast.FunctionDef, gast.ClassDef)):
            used.add(n.name)
    return used, bound


def _instantiate(fn: types.FunctionType, generated: codegen.GeneratedModule) -> types.FunctionType:
    """The converted function, sharing ``fn``'s globals, defaults and closure cells."""
    free = fn.__code__.co_freevars
    template = generated.factory(ag, *[None] * len(free))
    cells = []
    for variable in template.__code__.co_freevars:
        if variable == "ag__":
            cells.append(types.CellType(ag))
        elif variable in free:
            cells.append(fn.__closure__[free.index(variable)])
        else:
            # The function names itself (recursion): in the factory its own name is a local,
            # so the cell gets what that name means in ``fn``'s globals now.
            cells.append(types.CellType(fn.__globals__.get(variable, fn)))
    converted = types.FunctionType(template.__code__, fn.__globals__, fn.__name__,
                                   fn.__defaults__, tuple(cells))
    converted.__kwdefaults__ = fn.__kwdefaults__
    converted.__dict__.update(fn.__dict__)
    converted.__dict__.pop(_CONVERTED, None)
    converted.__qualname__ = fn.__qualname__
    converted.__module__ = fn.__module__
    converted.__doc__ = fn.__doc__
    converted.__e2g_converted__ = True
    converted.__e2g_original__ = fn
    return converted


def _convert_function(fn):
    if isinstance(fn, types.MethodType):
        return types.MethodType(_convert_function(fn.__func__), fn.__self__)
    if getattr(fn, "__e2g_converted__", False):
        return fn
    if not isinstance(fn, types.FunctionType):
        raise SourceUnavailableError(
            f"Cannot convert {fn!r}: it is a {type(fn).__name__}, not a Python function. Pass a "
            f"function or method defined with def or lambda.")
    cached = fn.__dict__.get(_CONVERTED)
    # The entry must be this function's own: functools.wraps copies __dict__ to wrappers.
    if cached is not None and cached[0] == _generation and cached[1].__e2g_original__ is fn:
        return cached[1]
    converted = _instantiate(fn, _generate(fn))
    fn.__dict__[_CONVERTED] = (_generation, converted)
    return converted


def convert_or_warn(fn):
    """``convert(fn)``, or ``fn`` itself with one warning when its source cannot be read."""
    try:
        return _convert_function(fn)
    except SourceUnavailableError as error:
        key = getattr(fn, "__code__", None)
        if key is not None:
            register_unconverted(key, str(error))
        if key is None or key not in _warned:
            if key is not None:
                _warned.add(key)
            warn_at_user_code(f"{error} It runs as plain Python, without conversion.",
                              ConversionWarning)
        return fn


def convert(fn: Callable | None = None):
    """Converts a function so that ``if``/``while``/``for`` on tensors build graph control flow.

    Use as ``@convert`` or ``convert(fn)``. The result behaves exactly like ``fn`` on Python
    values and eager tensors; inside a traced function it builds ``rt.cond`` and
    ``rt.while_loop``. A function whose source cannot be read runs unconverted (one warning).
    """
    if fn is None:
        return convert
    converted = convert_or_warn(fn)
    return converted if converted is fn else _showing_user_frames(converted)


_PUBLIC = "__e2g_public_function__"  # converted.__dict__ entry: its _showing_user_frames


def _showing_user_frames(converted):
    """What ``convert`` hands out: ``converted`` behind one frame that rewrites an escaping
    exception's traceback to the user's own frames and lines, as ``Function.__call__`` does
    (generated code mapped back, eager2graph's frames hidden). Made once per conversion."""
    if isinstance(converted, types.MethodType):
        return types.MethodType(_showing_user_frames(converted.__func__), converted.__self__)
    public = converted.__dict__.get(_PUBLIC)
    if public is not None:
        return public

    runner = [converted]  # what it calls: ``_keep_out_of_dynamo`` changes it

    @functools.wraps(converted)
    def converted_call(*args, **kwargs):
        try:
            return runner[0](*args, **kwargs)
        except Exception as error:
            explained = _explained(error)
            if explained is not error:
                raise explained.with_traceback(user_traceback(error)) from error
            if not rt.config.traceback_filtering():
                raise
            raise error.with_traceback(user_traceback(error))

    if "torch" in sys.modules:
        # Dynamo keeps what it compiled per code object: with one code for every converted
        # function, a compiled one could run another's graph, and all would share Dynamo's
        # limit of 8 recompilations. It remembers which sizes changed (automatic dynamic
        # shapes) per file, line and name of the code: the name says whose call it is, so
        # that one function's sizes do not make another's dynamic.
        original = converted.__e2g_original__.__code__
        converted_call.__code__ = converted_call.__code__.replace(
            co_name=f"converted_call of {converted.__qualname__} at "
                    f"{os.path.basename(original.co_filename)}:{original.co_firstlineno}")
        converted_call.__e2g_runner__ = runner
        if "torch._dynamo" in sys.modules:
            _keep_out_of_dynamo(converted_call)
        else:  # Dynamo's import takes a second: paid only when something imports it
            _before_dynamo.add(converted_call)
            after_import.when_imported("torch._dynamo", _keep_all_out_of_dynamo)
    converted.__dict__[_PUBLIC] = converted_call
    return converted_call


def _explained(error: Exception) -> Exception:
    """``error``, or an error that says what it means in converted code: under ``jax.jit``,
    JAX's refusal of a traced integer where Python needs an int (``[a, b][i]``, ``x[:n]``)
    names the user's line and the fix, as it does inside a staged block."""
    if "jax" in sys.modules and isinstance(error, (TypeError, IndexError)):
        from transpiler.operators.staging.jax_values import python_int_refusal
        return python_int_refusal(error) or error
    return error


# Functions converted with PyTorch imported, before Dynamo was: kept out of it once it is.
_before_dynamo: "weakref.WeakSet" = weakref.WeakSet()


def _keep_out_of_dynamo(public) -> None:
    """Makes ``public`` (converted with PyTorch imported) call its converted function as a
    call that ``torch.compile`` does not trace into (see ``staging.torch_dynamo``). A function
    converted before PyTorch was imported is traced by Dynamo as it is."""
    from transpiler.operators.staging.torch_dynamo import outside_dynamo
    runner = public.__e2g_runner__
    runner[0] = outside_dynamo(runner[0])


def _keep_all_out_of_dynamo() -> None:
    for public in list(_before_dynamo):
        _keep_out_of_dynamo(public)
    _before_dynamo.clear()


def to_code(fn: Callable) -> str:
    """The Python source generated for ``fn``."""
    target = getattr(fn, "python_function", fn)  # accepts transpiler.function results too
    target = getattr(target, "__func__", target)
    target = getattr(target, "__e2g_original__", target)
    if not isinstance(target, types.FunctionType):
        raise SourceUnavailableError(f"Cannot show generated code for {fn!r}: it is not a Python "
                                     f"function.")
    return _generate(target).function_source


def function(func: Callable | None = None, *, input_signature: Sequence | None = None,
             reduce_retracing: bool = False, jit_compile: bool | None = None):
    """Like ``rt.function``, but converts the source first: what users decorate with.

    Functions, methods, ``functools.partial`` objects and instances with a Python
    ``__call__`` are converted; other built-ins run unconverted (one warning), and NumPy
    ufuncs, which cannot run on symbolic tensors, are refused."""
    def wrap(fn: Callable) -> rt.Function:
        wrapped = rt.Function(fn, input_signature=input_signature,
                              reduce_retracing=reduce_retracing,
                              trace_function=_convert_decorated(fn), jit_compile=jit_compile)
        functools.update_wrapper(wrapped, fn, updated=())
        return wrapped
    return wrap if func is None else wrap(func)


def _convert_decorated(fn):
    """What ``transpiler.function`` traces for ``fn``: its converted form."""
    if isinstance(fn, functools.partial):
        return functools.partial(_convert_decorated(fn.func), *fn.args, **fn.keywords)
    if isinstance(fn, (types.FunctionType, types.MethodType)):
        return convert(fn)
    call = getattr(type(fn), "__call__", None)
    if callable(fn) and not isinstance(fn, type) and isinstance(call, types.FunctionType):
        if is_library_code(call):  # an rt.Function or another wrapper of ours: as it is
            return fn
        return types.MethodType(convert(call), fn)  # a layer or model object
    if isinstance(fn, np.ufunc):
        # Its signature lists out=, dtype=, signature=...: traced, they would all be passed.
        raise TypeError(
            f"transpiler.function cannot wrap the NumPy function {fn!r}: it is not a Python "
            f"function, so it has no source to convert, and NumPy functions do not run on "
            f"symbolic tensors. Decorate a Python function that calls the matching rt op "
            f"instead (for np.sin: `lambda x: rt.sin(x)`).")
    return convert(fn)  # other built-ins run as they are, after one ConversionWarning


__all__ = ["convert", "to_code", "function", "do_not_convert"]


def set_loop_options(shape_invariants=None, maximum_iterations=None, parallel_iterations=None,
                     swap_memory=None) -> None:
    """Options for the loop whose body starts with this call, in converted code.

    ``shape_invariants=[(v, [None])]`` lets loop variable ``v`` change shape in the listed
    dimensions (``None``); ``maximum_iterations`` bounds a graph loop. Conversion moves the
    call into the loop; run as plain Python it does nothing."""
    return None
