"""The runtime's modules import each other in one direction only.

An import hidden inside a function to dodge a cycle works until someone imports the modules
in another order; these tests keep the cycles broken: module-level imports between runtime
modules form no cycle, no function imports a runtime module (save one allowed view), and
every module can be imported first, alone, in a fresh interpreter.
"""

import ast
import json
import os
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
                ("runtime/export/__init__.py", "runtime.export.jax_export"),
                # Keras' functional models import the layers, which import the backend.
                ("runtime/keras/backend.py", "runtime.keras.functional")}


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


# ``import runtime.X`` first, in a fresh interpreter, runs ``runtime/__init__.py`` to the end
# before it looks at X: for the modules that import pulls in, the fresh interpreter's import is
# exactly ``import runtime``. So one fresh interpreter imports ``runtime``, and each module it
# did not pull in is imported in a child forked right after (the state of any fresh interpreter
# at that point), instead of one fresh interpreter per module (133 of them, 95 s on 2 cores).
_IMPORT_EACH = r"""
import importlib, json, os, sys, traceback
names = json.loads(sys.argv[1])
try:
    import runtime
except BaseException:
    line = traceback.format_exc().strip().splitlines()[-1]
    print(json.dumps({name: line for name in names}))
    raise SystemExit
failed, running = {}, {}

def reap():
    pid, status = os.wait()
    name, read = running.pop(pid)
    with os.fdopen(read) as pipe:
        message = pipe.read().strip()
    if status:
        failed[name] = message or f"exit status {status}"

for name in names:
    if name in sys.modules:
        continue
    while len(running) >= (os.cpu_count() or 2):
        reap()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        code = 0
        try:
            importlib.import_module(name)
        except BaseException:
            os.write(write, traceback.format_exc().strip().splitlines()[-1].encode())
            code = 1
        os._exit(code)
    os.close(write)
    running[pid] = (name, read)
while running:
    reap()
print(json.dumps(failed))
"""


def _import_each_alone(names: list[str]) -> dict[str, str]:
    """Module -> last line of its import error, for every module of ``names`` that does not
    import as the first import of a fresh interpreter."""
    if not hasattr(os, "fork"):  # no fork: one fresh interpreter per module
        running = {name: subprocess.Popen([sys.executable, "-c", f"import {name}"], cwd=ROOT,
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                          text=True)
                   for name in names}
        failed = {}
        for name, process in running.items():
            _, stderr = process.communicate(timeout=120)
            if process.returncode != 0:
                failed[name] = stderr.strip().splitlines()[-1]
        return failed
    done = subprocess.run([sys.executable, "-c", _IMPORT_EACH, json.dumps(names)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_every_module_imports_alone():
    assert _import_each_alone(list(_modules())) == {}


def test_a_module_that_cannot_import_alone_is_reported():
    """The check itself: a module that fails on import is named with its error, whether
    ``import runtime`` pulls it in or not."""
    assert _import_each_alone(["runtime.graph", "runtime.no_such_module",
                               "runtime.export.no_such_module"]) == {
        "runtime.no_such_module": "ModuleNotFoundError: No module named 'runtime.no_such_module'",
        "runtime.export.no_such_module":
            "ModuleNotFoundError: No module named 'runtime.export.no_such_module'"}
