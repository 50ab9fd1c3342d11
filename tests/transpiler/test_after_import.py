"""Functions converted with PyTorch imported are kept out of Dynamo's tracing only once Dynamo
is imported (its import takes a second), right after that import (``transpiler.after_import``)."""

import importlib
import os
import subprocess
import sys
import textwrap

import pytest

from transpiler import after_import

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_a_callback_runs_once_right_after_the_module_is_imported(tmp_path, monkeypatch):
    (tmp_path / "e2g_waited_for.py").write_text("VALUE = 42\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    seen = []

    def callback():
        seen.append(sys.modules["e2g_waited_for"].VALUE)  # the module's code has run
    after_import.when_imported("e2g_waited_for", callback)
    after_import.when_imported("e2g_waited_for", callback)
    assert seen == [] and "e2g_waited_for" not in sys.modules
    try:
        importlib.import_module("e2g_waited_for")
        assert seen == [42]
        assert after_import._FINDER not in sys.meta_path  # nothing else waited for
        after_import.when_imported("e2g_waited_for", callback)  # imported: runs now
        assert seen == [42, 42]
    finally:
        sys.modules.pop("e2g_waited_for", None)


def test_a_failing_callback_does_not_fail_the_import(tmp_path, monkeypatch):
    (tmp_path / "e2g_waited_for_too.py").write_text("VALUE = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))

    def failing():
        raise ValueError("broken")
    after_import.when_imported("e2g_waited_for_too", failing)
    try:
        with pytest.warns(RuntimeWarning, match="e2g_waited_for_too failed .ValueError: broken"):
            assert importlib.import_module("e2g_waited_for_too").VALUE == 1
    finally:
        sys.modules.pop("e2g_waited_for_too", None)


def test_converting_with_pytorch_imported_leaves_dynamo_unimported_until_compiled(tmp_path):
    pytest.importorskip("torch")
    program = textwrap.dedent("""
        import sys
        import torch
        import transpiler

        @transpiler.convert
        def f(x, n):
            total = torch.zeros_like(x)
            i = 0
            while i < n:
                if total.sum() > 10:
                    total = total - x
                else:
                    total = total + x * i
                i += 1
            return total

        x = torch.arange(4.0)
        print(f(x, 5).tolist(), "torch._dynamo" in sys.modules)
        print(torch.compile(f, backend="eager", fullgraph=True)(x, torch.tensor(5)).tolist())
        print(torch.compile(f, backend="aot_eager", fullgraph=True)(x, torch.tensor(6)).tolist())
        """)
    script = tmp_path / "program.py"  # converted code needs a source file
    script.write_text(program)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=300, cwd=ROOT, env={**os.environ, "PYTHONPATH": ROOT})
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines() == ["[0.0, 1.0, 2.0, 3.0] False", "[0.0, 1.0, 2.0, 3.0]",
                                        "[0.0, 6.0, 12.0, 18.0]"], done.stdout
