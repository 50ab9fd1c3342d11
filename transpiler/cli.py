"""The command line: show what a function of a file becomes.

    python -m transpiler path/to/file.py:function                 the generated code
    python -m transpiler file.py:function --graph --args "f32[None,3], i32[]"
    python -m transpiler file.py:function --args "f32[2]" --table   one row per node
    python -m transpiler file.py:function --graph --args "float32[50], f32[50], 3"
    python -m transpiler file.py:function --args "f32[2]" --dot f.dot --svg f.svg
    python -m transpiler file.py:function --args "f32[None, 3]" --onnx f.onnx
    python -m transpiler file.py:function --args "f32[3]" --onnx f.onnx --drop-effects
    python -m transpiler file.py:function --args "f32[50], 3" --explain   what each line became

The file is imported as a module (its top-level code runs, as with `import`), with its
directory on sys.path so that its own imports work.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import uuid

import runtime as rt
from runtime.backends.jit import available as jit_available
from transpiler import api
from transpiler.cli_args import ArgumentsError, parse_arguments
from transpiler.explaining import explain



class CommandError(Exception):
    """A mistake in the command or the user's file, reported in one line."""


_JIT_MISSING = ('--jit compiles the graph with the compiled tier, which needs a C compiler with '
                "Python's headers or Numba, and this machine has neither. Install Numba with pip "
                'install "eager2graph[jit]", or leave out --jit (--graph shows the graph the '
                'NumPy plan runs).')


def parse_specs(text: str) -> list:
    """``"f32[None,3], i32[], 3"`` -> TensorSpecs and Python values (see ``cli_args``)."""
    try:
        return parse_arguments(text)
    except ArgumentsError as error:
        raise CommandError(str(error)) from None


def load_function(target: str):
    """The function named by ``path/to/file.py:name`` (or ``:Class.method``)."""
    path, _, name = target.rpartition(":")
    if not path or not name:
        raise CommandError(f"{target!r} does not name a function: write path/to/file.py:function.")
    if not os.path.isfile(path):
        raise CommandError(f"there is no file {path!r}.")
    directory = os.path.dirname(os.path.abspath(path))
    sys.path.insert(0, directory)
    module_name = f"e2g_cli_{uuid.uuid4().hex}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as error:
        raise CommandError(f"{path}:{error.lineno}: syntax error: {error.msg}.") from None
    obj = module
    for part in name.split("."):
        if not hasattr(obj, part):
            raise CommandError(f"{path} has no function {name!r}.")
        if isinstance(obj, type):
            obj = _instance(obj, path)  # a method is shown bound to an instance
        obj = getattr(obj, part)
    if isinstance(obj, type):
        raise CommandError(f"{name!r} in {path} is a class; name one of its methods "
                           f"({name}.method), or a function.")
    if not callable(obj):
        raise CommandError(f"{name!r} in {path} is not a function.")
    return obj


def _instance(cls: type, path: str):
    try:
        return cls()
    except Exception as error:  # noqa: BLE001 - any constructor failure is reported
        raise CommandError(f"cannot create a {cls.__name__} of {path} without arguments to show "
                           f"its method ({type(error).__name__}: {error}); name a function "
                           f"instead.") from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m transpiler", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("target", help="path/to/file.py:function (or :Class.method)")
    parser.add_argument("--args", metavar="SPECS",
                        help='the arguments to trace with: tensor specs and Python values, '
                             'e.g. "f32[None,3], float32[], 3"')
    parser.add_argument("--graph", action="store_true", help="print the optimized graph")
    parser.add_argument("--unoptimized", action="store_true",
                        help="print the graph as traced, before the passes")
    parser.add_argument("--table", action="store_true", help="print the graph as a table")
    parser.add_argument("--dot", metavar="FILE", help="write the graph as Graphviz DOT")
    parser.add_argument("--svg", metavar="FILE", help="write the graph as SVG (needs Graphviz)")
    parser.add_argument("--png", metavar="FILE", help="write the graph as PNG (needs Graphviz)")
    parser.add_argument("--onnx", metavar="FILE",
                        help="write the graph as an ONNX model (needs eager2graph[onnx])")
    parser.add_argument("--drop-effects", action="store_true",
                        help="with --onnx: leave prints, variable assignments and assertions "
                             "inside branches or loops out of the model instead of refusing "
                             "them (rt.export.onnx's drop_effects=True)")
    parser.add_argument("--explain", action="store_true",
                        help="trace with --args and list the function's source, saying what "
                             "each line became (graph ops, graph control flow, Python that ran "
                             "only while tracing, unrolled loops, folded and pruned ops)")
    parser.add_argument("--jit", action="store_true",
                        help="compile with the compiled tier (needs eager2graph[jit]) and print "
                             "what runs compiled, what stays on NumPy and why, and the kernels")
    options = parser.parse_args(argv)
    try:
        run(options)
    except CommandError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except rt.visualize.GraphvizNotFoundError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


def run(options) -> None:
    if options.drop_effects and not options.onnx:
        raise CommandError("--drop-effects changes what --onnx writes: give --onnx FILE too.")
    if options.jit and not jit_available():
        raise CommandError(_JIT_MISSING)
    fn = load_function(options.target)
    if options.explain:
        specs = parse_specs(options.args) if options.args else []
        print(_traced(lambda: explain(fn, *specs), specs))
    wants_graph = options.graph or options.unoptimized or options.table or options.dot \
        or options.svg or options.png or options.jit or options.onnx
    if not wants_graph:
        if not options.explain:
            print(api.to_code(fn), end="")
        return
    specs = parse_specs(options.args) if options.args else []
    concrete = _concrete(fn, specs, jit_compile=True if options.jit else None)
    if options.jit:
        print(concrete.jit_report)
        print()
        print(concrete.plan_source, end="")
    if options.graph:
        print(concrete.graph)
    if options.unoptimized:
        print(concrete.unoptimized_graph)
    if options.table:
        print(rt.visualize.format_table(concrete.graph))
    if options.dot:
        with open(options.dot, "w", encoding="utf-8") as handle:
            handle.write(rt.visualize.to_dot(concrete))
    for path in (options.svg, options.png):
        if path:
            rt.visualize.render(concrete, path)
    if options.onnx:
        _write_onnx(concrete, options.onnx, options.drop_effects)


def _write_onnx(concrete, path: str, drop_effects: bool) -> None:
    try:
        model = rt.export.onnx(concrete, path, drop_effects=drop_effects)
    except (ImportError, rt.errors.ExportError) as error:
        # The exporter's advice names its Python keyword; here the switch is the option.
        raise CommandError(str(error).replace("drop_effects=True", "--drop-effects")) from None
    inputs = ", ".join(i.name for i in model.graph.input) or "none"
    print(f"wrote {path} (ONNX opset {model.opset_import[0].version}; inputs: {inputs}; "
          f"{len(model.graph.output)} outputs)")


def _concrete(fn, specs: list, jit_compile: bool | None):
    function = api.function(fn, jit_compile=jit_compile)
    return _traced(lambda: function.get_concrete_function(*specs), specs)


def _traced(trace, specs: list):
    """``trace()``, with the mistakes of a command (missing specs, a missing extra) reported
    in one line."""
    try:
        return trace()
    except ImportError as error:
        raise CommandError(str(error)) from None
    except TypeError as error:
        if "missing" in str(error) and not specs:
            raise CommandError(f"{str(error).rstrip('.')}. Give the argument specs with --args, e.g. "
                               f"--args \"f32[None], i32[]\".") from None
        raise CommandError(str(error)) from None
