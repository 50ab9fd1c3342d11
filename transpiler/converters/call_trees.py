"""Calls: builtins that have a tensor version become ``ag__.<name>``, functions of ``math``
``ag__.math.<name>``; calls that may reach user code become ``ag__.converted(f)(...)`` so
those functions are converted too.

Calls whose target is known while converting to be library code (an attribute of a module,
such as ``rt.matmul`` or ``np.sum``, a builtin without a tensor version, a class, a function
written in C) stay as written.
"""

from __future__ import annotations

import builtins
import types

import gast

from transpiler.converters.base import ScopeTransformer, name
from transpiler.converters.formatted_prints import rewrite_argument
from transpiler.operators.builtins import OVERLOADS
from transpiler.operators import staging
from transpiler.operators.staging import math_functions

_LEFT_ALONE = {"super", "globals", "locals", "vars", "eval", "exec", "breakpoint", "isinstance",
               "type", "getattr", "setattr", "hasattr", "id"}


class _Calls(ScopeTransformer):
    def visit_Lambda(self, node):
        return self.generic_visit(node)

    def _resolve(self, node):
        """The object a callee expression names while converting, or None if unknown."""
        if isinstance(node, gast.Name):
            if node.id in self.ctx.local_names or node.id in self.ctx.free_vars:
                return None
            return self.ctx.global_value(node.id)
        if isinstance(node, gast.Attribute):
            owner = self._resolve(node.value)
            if isinstance(owner, types.ModuleType):
                return self.ctx.module_attribute(owner, node.attr)
        return None

    def visit_Call(self, node):
        if isinstance(node.func, gast.Name) and node.func.id == "print" \
                and self._resolve(node.func) is builtins.print:
            node.args = [rewrite_argument(arg) for arg in node.args]
        self.generic_visit(node)
        func = node.func
        if isinstance(func, gast.Name) and func.id in OVERLOADS and \
                self._resolve(func) is getattr(builtins, func.id):
            node.func = gast.Attribute(name("ag__"), func.id, gast.Load())
            return node
        if isinstance(func, gast.Name) and func.id == "super" and not node.args:
            return node  # zero-argument super() is handled when the function is loaded
        target = self._resolve(func)
        if math_functions.traced_version(target):  # math.exp(m): ag__.math.exp(m)
            node.func = gast.Attribute(gast.Attribute(name("ag__"), "math", gast.Load()),
                                       target.__name__, gast.Load())
            return node
        if _is_library(func, target) and staging.library_replacement(target) is None:
            return node
        if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) \
                and func.value.id == "ag__":
            return node
        node.func = gast.Call(gast.Attribute(name("ag__"), "converted", gast.Load()), [func], [])
        return node


def _is_library(func, target) -> bool:
    """Calls that ``ag__.converted`` would return unchanged: classes (constructors), functions
    written in C, and Python functions of libraries; left as written, they read as written."""
    if isinstance(func, gast.Name) and func.id in _LEFT_ALONE:
        return True
    if isinstance(target, (type, types.BuiltinFunctionType)):
        return True
    if isinstance(target, types.FunctionType):
        from transpiler.operators.calls import is_library_code
        return is_library_code(target)
    # Other attributes of modules (ufuncs, callable objects of libraries) are library code too.
    return isinstance(func, gast.Attribute) and target is not None


def transform(fn_node: gast.FunctionDef, ctx) -> None:
    fn_node.body = _Calls(ctx).visit_block(fn_node.body)
