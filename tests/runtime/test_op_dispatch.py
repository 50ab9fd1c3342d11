"""Code dispatches on op objects (``node.op is WHILE_LOOP``) or their properties, never on
op names: a name test fails silently when an op is renamed, and makes every new op a string
to add in several places. Only the registry and serialization map names to ops.

The check parses the sources (a grep would miss ``op.name in {...}``, lookups keyed by the
name, and would flag error messages that merely print it).
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted([*(ROOT / "runtime").rglob("*.py"), *(ROOT / "transpiler").rglob("*.py")])
# The registry keeps the name -> op table; reading a saved graph looks ops up by name.
ALLOWED = {ROOT / "runtime" / "ops" / "registry.py",
           *(ROOT / "runtime" / "serialize").rglob("*.py")}


def _is_op_name(expr: ast.expr) -> bool:
    """``op.name``, ``node.op.name``, ``some_op.name``: the name of an op."""
    if not (isinstance(expr, ast.Attribute) and expr.attr == "name"):
        return False
    owner = expr.value
    return (isinstance(owner, ast.Name) and owner.id.lower().endswith("op")) or \
        (isinstance(owner, ast.Attribute) and owner.attr.lower().endswith("op"))


def op_name_dispatch(source: str) -> list[int]:
    """Lines where an op's name is compared, tested for membership or used as a lookup key."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            operands = [node.slice]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == "get":
            operands = node.args[:1]
        else:
            continue
        if any(_is_op_name(operand) for operand in operands):
            lines.append(node.lineno)
    return sorted(set(lines))


def test_the_scan_sees_the_sources():
    assert len(SOURCES) > 40
    assert all(path.exists() for path in ALLOWED) and len(ALLOWED) > 2


@pytest.mark.parametrize("path", [p for p in SOURCES if p not in ALLOWED],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_no_dispatch_on_op_names(path):
    lines = op_name_dispatch(path.read_text())
    assert lines == [], (f"{path.relative_to(ROOT)} tests op names at lines {lines}: compare "
                         f"with the OpDef (node.op is WHILE_LOOP) or use a property of OpDef")


def test_checker_catches_every_form():
    sample = (
        'if node.op.name == "while_loop": pass\n'
        'if op.name in ("cond", "while_loop"): pass\n'
        'if tests[0].op.name != "less": pass\n'
        'rule = RULES.get(node.op.name)\n'
        'rule = RULES[node.op.name]\n'
        'if "range" == value.node.op.name: pass\n'
        'if node.op is WHILE_LOOP: pass\n'
        'raise ValueError(f"{node.op.name} failed")\n'
        'if node.name == "x": pass\n'
        'row = {"op": node.op.name}\n')
    assert op_name_dispatch(sample) == [1, 2, 3, 4, 5, 6]
