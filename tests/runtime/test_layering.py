"""Layering: ``runtime`` never imports ``transpiler`` (the dependency goes one way only).

The check parses every source file of the package (a grep would miss ``from .. import`` and
dynamic imports, and would flag comments and docstrings that merely mention the transpiler).
"""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

RUNTIME_DIR = Path(__file__).resolve().parents[2] / "runtime"
FORBIDDEN = "transpiler"
SOURCES = sorted(RUNTIME_DIR.rglob("*.py"))


def _module_name(path: Path) -> str:
    parts = path.relative_to(RUNTIME_DIR.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _package_of(path: Path) -> str:
    name = _module_name(path)
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module name) for every import in the file, static or dynamic."""
    tree = ast.parse(path.read_text(), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = _package_of(path).split(".")
                base = base[:len(base) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            found.append((node.lineno, module))
            found.extend((node.lineno, f"{module}.{alias.name}" if module else alias.name)
                         for alias in node.names)
        elif isinstance(node, ast.Call) and _is_dynamic_import(node.func) and node.args \
                and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            found.append((node.lineno, node.args[0].value))
    return found


def _is_dynamic_import(func: ast.expr) -> bool:
    if isinstance(func, ast.Name):
        return func.id in ("__import__", "import_module")
    return isinstance(func, ast.Attribute) and func.attr == "import_module"


def _is_forbidden(module: str) -> bool:
    return module == FORBIDDEN or module.startswith(FORBIDDEN + ".")


def test_the_runtime_package_has_sources():
    assert len(SOURCES) > 10
    assert RUNTIME_DIR / "__init__.py" in SOURCES


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(RUNTIME_DIR)))
def test_runtime_module_does_not_import_transpiler(path):
    offending = [(line, module) for line, module in imported_modules(path) if _is_forbidden(module)]
    assert offending == [], f"{path} imports the transpiler at {offending}"


def test_checker_catches_every_import_form(tmp_path):
    package = tmp_path / "runtime"
    (package / "ops").mkdir(parents=True)
    nested = package / "ops" / "nested.py"
    nested.write_text("from ... import transpiler\nfrom ...transpiler import api\n"
                      "from .. import graph\nfrom . import registry\n")
    sample = package / "sample.py"
    sample.write_text(
        "from ..transpiler import api\n"
        "import os, transpiler.api as api\n"
        "from transpiler import function\n"
        "from transpiler.operators import control_flow\n"
        "import importlib\n"
        "importlib.import_module('transpiler.api')\n"
        "__import__('transpiler')\n"
        "def later():\n"
        "    from transpiler import convert\n"
        "'''transpiler is mentioned in a docstring only'''\n"
        "# import transpiler  (a comment)\n")
    global RUNTIME_DIR
    saved, RUNTIME_DIR = RUNTIME_DIR, package
    try:
        lines = sorted({line for line, module in imported_modules(sample) if _is_forbidden(module)})
        nested_modules = [module for _, module in imported_modules(nested)]
    finally:
        RUNTIME_DIR = saved
    assert lines == [1, 2, 3, 4, 6, 7, 9]
    assert [m for m in nested_modules if _is_forbidden(m)] == ["transpiler", "transpiler",
                                                                "transpiler.api"]
    assert "runtime.graph" in nested_modules and "runtime.ops.registry" in nested_modules


def test_importing_runtime_does_not_load_transpiler():
    code = ("import sys, runtime\n"
            "loaded = sorted(m for m in sys.modules if m == 'transpiler' or m.startswith('transpiler.'))\n"
            "print(loaded)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            cwd=RUNTIME_DIR.parent, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
