"""The text arguments of ``print`` that format values: f-strings, ``str.format`` and ``%``.

Python formats them before ``print`` sees them, so a symbolic tensor inside would print as a
symbol, once, while tracing. Inside ``print(...)`` they become ``ag__`` calls that keep the
pieces apart: with Python values they build the very same string; with symbolic tensors
``print`` fills the tensors' values in at run time (``operators.formatting``).

    print(f"x = {x}")            ->  print(ag__.formatted(("x = ", ag__.field(x, "", ""))))
    print("x = {}".format(x))    ->  print(ag__.str_format("x = {}", x))
    print("x = %s" % x)          ->  print(ag__.percent_format("x = %s", x))
"""

from __future__ import annotations

import gast

from transpiler.converters.base import name

_CONVERSIONS = {-1: "", 115: "s", 114: "r", 97: "a"}  # FormattedValue.conversion codes


def rewrite_argument(node: gast.expr) -> gast.expr:
    """``node`` as its ``ag__`` formatting call when it formats values, else unchanged."""
    if isinstance(node, gast.JoinedStr):
        return _joined(node)
    if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
            and node.func.attr == "format" and _is_text(node.func.value):
        return _call("str_format", [node.func.value] + node.args, node.keywords)
    if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Mod) and _is_text(node.left):
        return _call("percent_format", [node.left, node.right], [])
    return node


def _joined(node: gast.JoinedStr) -> gast.expr:
    parts = []
    for value in node.values:
        if isinstance(value, gast.Constant):
            parts.append(value)
            continue
        spec = _literal_spec(value.format_spec)
        if spec is None:
            return node  # a spec with fields of its own ({x:{width}}): left to Python
        conversion = _CONVERSIONS.get(value.conversion, "")
        parts.append(_call("field", [value.value, gast.Constant(conversion, None),
                                     gast.Constant(spec, None)], []))
    return _call("formatted", [gast.Tuple(parts, gast.Load())], [])


def _literal_spec(spec) -> str | None:
    if spec is None:
        return ""
    if isinstance(spec, gast.JoinedStr) and all(isinstance(v, gast.Constant) for v in spec.values):
        return "".join(v.value for v in spec.values)
    return None


def _is_text(node) -> bool:
    return isinstance(node, gast.Constant) and isinstance(node.value, str)


def _call(function: str, args: list, keywords: list) -> gast.Call:
    return gast.Call(gast.Attribute(name("ag__"), function, gast.Load()), args, keywords)
