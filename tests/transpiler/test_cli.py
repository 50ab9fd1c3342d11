"""`python -m transpiler`: generated code, graphs, pictures, and one-line errors (exit 2)."""

import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from runtime.backends.jit.c_build import builds_with_c

SAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cli_samples")
SHAPES = os.path.join(SAMPLES, "shapes.py")


def cli(*args):
    completed = subprocess.run([sys.executable, "-m", "transpiler", *args], capture_output=True,
                               text=True, timeout=120)
    return completed.returncode, completed.stdout, completed.stderr


def cli_without(modules, *args, path: str | None = None):
    """The command in a Python that cannot import ``modules``, as where they are not installed
    (a ``None`` in ``sys.modules`` stops their import), so this runs with the extras installed;
    ``path``: its PATH (an empty directory: no C compiler)."""
    wrapper = (f"import runpy, sys; sys.modules.update(dict.fromkeys({list(modules)!r})); "
               f"runpy.run_module('transpiler', run_name='__main__', alter_sys=True)")
    environment = {**os.environ, "CC": ""} if path is not None else None
    if environment is not None:
        environment["PATH"] = path
    completed = subprocess.run([sys.executable, "-c", wrapper, *args], capture_output=True,
                               text=True, timeout=120, env=environment)
    return completed.returncode, completed.stdout, completed.stderr


def assert_one_line_error(code, err, *texts):
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    for text in texts:
        assert text in err, err


def test_prints_the_generated_code():
    code, out, _ = cli(f"{SHAPES}:no_arguments")
    assert code == 0
    assert out == "def no_arguments():\n    return rt.constant(1.0) + 2.0\n"


def test_prints_the_optimized_graph_for_argument_specs():
    code, out, _ = cli(f"{SHAPES}:scale_until", "--graph", "--args", "f32[None], i32[]")
    assert code == 0
    stable = re.sub(r"%\d+", "%N", out)
    assert stable.splitlines()[0] == "graph scale_until(%x: f32[?], %n: i32[]) -> (f32[?])"
    assert textwrap.dedent("""\
        body(%x: f32[?], %i: i32[], %capture0: i32[]):
          %N: f32[?] = multiply(%x, 2.0)                             # shapes.py:9
          %N: i32[] = add(%i, 1)                                     # shapes.py:10
          return (%N, %N)""") in textwrap.dedent("\n".join(
        line[4:] for line in stable.splitlines() if line.startswith("    ")))
    assert "print(%capture0, template=($0,))" in stable


def test_methods_tables_and_dot_files(tmp_path):
    dot = tmp_path / "g.dot"
    code, out, _ = cli(f"{SHAPES}:Model.call", "--table", "--args", "f32[2]", "--dot", str(dot))
    assert code == 0
    assert out.splitlines()[0].split() == ["value", "op", "inputs", "type", "created", "at"]
    assert "add" in out and dot.read_text().startswith('digraph "call" {')


def test_help_explains_every_option():
    code, out, _ = cli("--help")
    assert code == 0
    for option in ("--args", "--graph", "--table", "--dot", "--svg", "--png", "--onnx",
                   "--drop-effects", "--jit", "--explain", "f32[None,3]"):
        assert option in out


def test_python_values_and_full_dtype_names_in_args():
    code, out, err = cli(f"{SHAPES}:scale_until", "--graph", "--args", "float32[None], 3")
    assert code == 0, err
    assert out.splitlines()[0] == "graph scale_until(%x: f32[?]) -> (f32[?])"
    assert out.count("multiply(") == 3  # n=3 is a Python int: the loop ran 3 times in Python


def test_errors_are_one_line_with_exit_code_2():
    cases = [
        (["missing.py:f"], "error: there is no file 'missing.py'."),
        ([f"{SHAPES}:nope"], f"error: {SHAPES} has no function 'nope'."),
        ([f"{SAMPLES}/broken_syntax.py:broken"], f"error: {SAMPLES}/broken_syntax.py:2: syntax error"),
        ([f"{SHAPES}:scale_until", "--graph"], "Give the argument specs with --args"),
        ([f"{SHAPES}:scale_until", "--graph", "--args", "f33[2]"], "unknown dtype 'f33' in 'f33[2]'"),
        ([f"{SHAPES}:scale_until", "--graph", "--args", "f32[2] f32"], "cannot read the arguments"),
        ([f"{SHAPES}:scale_until", "--graph", "--args", "f32[x]"], "must list integers or None"),
        ([f"{SHAPES}", "--graph"], "does not name a function"),
    ]
    for args, message in cases:
        code, out, err = cli(*args)
        assert code == 2, args
        assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_writes_an_onnx_model_with_symbolic_dimensions(tmp_path):
    onnx = pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")
    source = tmp_path / "model.py"
    source.write_text("import runtime as rt\n\n\ndef fn(x):\n"
                      "    if rt.reduce_sum(x) > 0:\n        return x * 2.0\n    return -x\n")
    out = tmp_path / "out.onnx"
    code, stdout, err = cli(f"{source}:fn", "--args", "f32[None, 3]", "--onnx", str(out))
    assert code == 0, err
    assert stdout == f"wrote {out} (ONNX opset 18; inputs: x; 1 outputs)\n"
    model = onnx.load(str(out))
    assert model.graph.input[0].type.tensor_type.shape.dim[0].dim_param
    session = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    x = np.array([[1.0, -2.0, 3.0]], np.float32)
    np.testing.assert_array_equal(session.run(None, {"x": x})[0], x * 2)


def test_onnx_refusals_are_one_line_errors(tmp_path):
    pytest.importorskip("onnx")
    code, _, err = cli(f"{SHAPES}:scale_until", "--args", "f32[None], i32[]", "--onnx",
                       str(tmp_path / "never.onnx"))
    assert_one_line_error(code, err, "print (", "shapes.py:12", "--drop-effects")
    assert "drop_effects=True" not in err  # the command's switch, not the Python keyword


def test_drop_effects_leaves_prints_out_of_the_onnx_model(tmp_path):
    onnx = pytest.importorskip("onnx")
    out = tmp_path / "no_print.onnx"
    code, stdout, err = cli(f"{SHAPES}:scale_until", "--args", "f32[None], i32[]", "--onnx",
                            str(out), "--drop-effects")
    assert code == 0, err
    assert stdout == f"wrote {out} (ONNX opset 18; inputs: x, n; 1 outputs)\n"
    model = onnx.load(str(out))
    assert "Loop" in {node.op_type for node in model.graph.node}


def test_drop_effects_without_onnx_is_a_mistake():
    code, _, err = cli(f"{SHAPES}:scale_until", "--graph", "--args", "f32[2], 3", "--drop-effects")
    assert_one_line_error(code, err, "--drop-effects changes what --onnx writes")


def test_jit_without_numba_or_a_c_compiler_names_the_extra(tmp_path):
    code, out, err = cli_without(["numba"], f"{SHAPES}:scale_until", "--jit", "--args",
                                 "f32[2], 3", path=str(tmp_path))
    assert_one_line_error(code, err, "--jit", "C compiler", "Numba",
                          'pip install "eager2graph[jit]"')
    assert out == ""


@pytest.mark.skipif(not builds_with_c(), reason="no C compiler with Python's headers")
def test_jit_without_numba_builds_with_the_c_compiler():
    code, out, err = cli_without(["numba"], f"{SHAPES}:scale_until", "--jit", "--args",
                                 "f32[2], 3")
    assert code == 0, err
    assert "built by C" in out


def test_onnx_without_the_exporter_names_the_extra(tmp_path):
    code, _, err = cli_without(["onnx"], f"{SHAPES}:scale_until", "--args", "f32[2], 3",
                               "--onnx", str(tmp_path / "never.onnx"))
    assert_one_line_error(code, err, 'pip install "eager2graph[onnx]"')
    assert not (tmp_path / "never.onnx").exists()
