"""The runtime's modules import each other in one direction only.

An import hidden inside a function to dodge a cycle works until someone imports the modules
in another order; these tests keep the cycles broken: module-level imports between runtime
modules form no cycle, no function imports a runtime module (save one allowed view), and
every module can be imported first, alone, in a fresh interpreter.
"""

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUNTIME_DIR = ROOT / "runtime"
# ``str(graph)`` delegates to the printer, which formats graphs: a view of the IR, imported
# when a graph is printed.
ALLOWED_LATE = {("runtime/graph.py", "runtime.printing"),
                # Imports Numba (an optional extra, slow to import): only when compiling.
                ("runtime/backends/jit/kernels.py", "runtime.backends.jit.helpers"),
                # Each exporter imports its engine (an optional extra): only when exporting.
                ("runtime/export/__init__.py", "runtime.export.onnx_export"),
                ("runtime/export/__init__.py", "runtime.export.jax_export")}


def _modules() -> dict[str, Path]:
    """Dotted name -> path of every runtime module (packages' __init__ files left out: a
    submodule import runs them first anyway)."""
    return {".".join(path.relative_to(ROOT).with_suffix("").parts): path
            for path in sorted(RUNTIME_DIR.rglob("*.py")) if path.name != "__init__.py"}


def _imported(statement: ast.stmt) -> list[str]:
    """The absolute module names an import statement may load."""
    if isinstance(statement, ast.Import):
        return [alias.name for alias in statement.names]
    if isinstance(statement, ast.ImportFrom) and statement.module and not statement.level:
        return [statement.module] + [f"{statement.module}.{alias.name}"
                                     for alias in statement.names]
    return []


def late_imports(source: str) -> list[tuple[int, str]]:
    """(line, module) of every runtime import inside a function or class body."""
    found = []
    for scope in ast.walk(ast.parse(source)):
        if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for node in ast.walk(scope):
                names = _imported(node)[:1] if isinstance(node, ast.ImportFrom) else _imported(node)
                found += [(node.lineno, name) for name in names
                          if name == "runtime" or name.startswith("runtime.")]
    return sorted(set(found))


def test_module_level_imports_form_no_cycle():
    modules = _modules()
    edges = {name: sorted({imported for statement in ast.parse(path.read_text()).body
                           for imported in _imported(statement)
                           if imported in modules and imported != name})
             for name, path in modules.items()}
    state: dict[str, str] = {}

    def visit(name: str, path: list[str]) -> None:
        state[name] = "open"
        for imported in edges[name]:
            assert state.get(imported) != "open", \
                "import cycle: " + " -> ".join(path[path.index(imported):] + [imported])
            if imported not in state:
                visit(imported, path + [imported])
        state[name] = "done"

    for name in modules:
        if name not in state:
            visit(name, [name])


def test_no_runtime_imports_inside_functions():
    late = [(str(path.relative_to(ROOT)), line, module)
            for path in sorted([*RUNTIME_DIR.rglob("*.py"), *(ROOT / "transpiler").rglob("*.py")])
            for line, module in late_imports(path.read_text())
            if (str(path.relative_to(ROOT)), module) not in ALLOWED_LATE
            and (path.is_relative_to(RUNTIME_DIR) or module.startswith("runtime.ops"))]
    assert late == [], f"move these imports to the top of their modules: {late}"


def test_the_checker_sees_nested_imports():
    sample = ("from runtime.ops.registry import CONST\n"
              "def f():\n"
              "    from runtime.ops.array_ops import cast\n"
              "class C:\n"
              "    def g(self):\n"
              "        import runtime.tracing\n"
              "        import numpy\n")
    assert late_imports(sample) == [(3, "runtime.ops.array_ops"), (6, "runtime.tracing")]


def test_every_module_imports_alone():
    running = {name: subprocess.Popen([sys.executable, "-c", f"import {name}"], cwd=ROOT,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for name in _modules()}
    failed = {}
    for name, process in running.items():
        _, stderr = process.communicate(timeout=120)
        if process.returncode != 0:
            failed[name] = stderr.strip().splitlines()[-1]
    assert failed == {}
