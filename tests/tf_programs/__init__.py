"""TensorFlow 2 programs written as TensorFlow users write them, run with real TensorFlow
and with ``import transpiler.tf as tf``.

Each program is a function ``def name(tf)`` of one module here (one module per kind); the
TensorFlow module is given to it, so the same source runs with ``tensorflow`` and with
``transpiler.tf``. It returns numbers, arrays, tensors or nests of them, and may print
(``print`` and ``tf.print``; the printed text is compared too).

``expected.json`` holds what TensorFlow gave (``python -m tests.tf_programs.regenerate`` in a
Python with TensorFlow rebuilds it); ``tests/transpiler/test_tf_programs.py`` compares.
"""

from __future__ import annotations

import contextlib
import io
import json
import pathlib
from typing import Callable

import numpy as np

KINDS = ("basics", "variables", "gradients", "data_pipelines", "autograph_data", "ops",
         "modules", "seeds", "api_additions", "more_api", "user_programs", "special_math",
         "names", "nn_additions", "random_draws")

EXPECTED = pathlib.Path(__file__).with_name("expected.json")


def programs() -> dict[str, Callable]:
    """Every program, as ``{"kind.name": function}``."""
    import importlib
    found = {}
    for kind in KINDS:
        module = importlib.import_module(f"{__name__}.{kind}")
        for name, value in vars(module).items():
            if callable(value) and getattr(value, "__module__", None) == module.__name__ \
                    and not name.startswith("_"):
                found[f"{kind}.{name}"] = value
    return found


def plain(value):
    """A JSON-able record of a program's result: arrays keep their dtype and shape."""
    if hasattr(value, "numpy") and not isinstance(value, np.ndarray):
        value = value.numpy()
    if isinstance(value, dict):
        return {"dict": {str(k): plain(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}}
    if isinstance(value, (list, tuple)):
        return {"list": [plain(v) for v in value]}
    if isinstance(value, (bool, int, float, str)) or value is None:
        return {"python": value, "type": type(value).__name__}
    if isinstance(value, (bytes, np.bytes_)):
        return {"python": value.decode(), "type": "bytes"}
    array = np.asarray(value)
    if array.dtype.kind in "SUO":
        return {"strings": np.vectorize(lambda s: s.decode() if isinstance(s, bytes) else str(s),
                                        otypes=[object])(array).tolist(), "shape": list(array.shape)}
    return {"array": array.astype(np.float64).tolist() if array.dtype.kind == "f"
            else array.tolist(), "dtype": array.dtype.name, "shape": list(array.shape)}


def error_name(fn) -> str:
    """The error class a program's users would catch when ``fn()`` raises (TensorFlow's and
    ours share these names), or "no error"."""
    try:
        fn()
    except Exception as error:
        for kind in ("InvalidArgumentError", "ValueError", "TypeError"):
            if any(base.__name__ == kind for base in type(error).__mro__):
                return kind
        return type(error).__name__
    return "no error"


@contextlib.contextmanager
def _python_streams():
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        yield out.getvalue


@contextlib.contextmanager
def printed_as(tf):
    """Tensors print as ``tf``'s do: TensorFlow's style for ``transpiler.tf`` (which its
    import selects, and the test fixtures set back after each test)."""
    if getattr(tf, "__name__", "") != "transpiler.tf":
        yield
        return
    from runtime import display
    previous = display.style()
    display.set_style(display.TENSORFLOW)
    try:
        yield
    finally:
        display.set_style(previous)


def run(fn: Callable, tf, capture=_python_streams) -> dict:
    """Runs one program with the module ``tf``: ``{"value": ..., "output": printed text}``,
    or ``{"error": exception class name, ...}`` when it raises. ``capture`` is a context
    manager giving a function that returns what was printed (standard output and error)."""
    with printed_as(tf), capture() as printed:
        try:
            value = fn(tf)
        except Exception as error:  # recorded, and compared with TensorFlow's class name
            value, failure = None, error
        else:
            failure = None
    if failure is not None:
        return {"error": type(failure).__name__, "message": str(failure)[:300],
                "output": printed()}
    return {"value": plain(value), "output": printed()}


def load_expected() -> dict:
    return json.loads(EXPECTED.read_text())


def compare(expected, actual, rtol: float = 1e-5, atol: float = 1e-6, where: str = "") -> list[str]:
    """The differences between two ``plain`` records (empty when they agree)."""
    if expected.keys() != actual.keys():
        return [f"{where or 'result'}: expected {_short(expected)}, got {_short(actual)}"]
    if "dict" in expected:
        if expected["dict"].keys() != actual["dict"].keys():
            return [f"{where}: keys {sorted(expected['dict'])} != {sorted(actual['dict'])}"]
        return [d for k in expected["dict"]
                for d in compare(expected["dict"][k], actual["dict"][k], rtol, atol, f"{where}[{k!r}]")]
    if "list" in expected:
        if len(expected["list"]) != len(actual["list"]):
            return [f"{where}: length {len(expected['list'])} != {len(actual['list'])}"]
        return [d for i, (e, a) in enumerate(zip(expected["list"], actual["list"]))
                for d in compare(e, a, rtol, atol, f"{where}[{i}]")]
    if "python" in expected:
        e, a = expected["python"], actual["python"]
        if expected["type"] != actual["type"]:
            return [f"{where}: Python {expected['type']} {e!r}, got {actual['type']} {a!r}"]
        if isinstance(e, float) and isinstance(a, float):
            return [] if np.isclose(e, a, rtol=rtol, atol=atol, equal_nan=True) else \
                [f"{where}: {e!r} != {a!r}"]
        return [] if e == a else [f"{where}: {e!r} != {a!r}"]
    if "strings" in expected:
        return [] if expected == actual else [f"{where}: {expected} != {actual}"]
    problems = []
    if expected["dtype"] != actual["dtype"]:
        problems.append(f"{where}: dtype {expected['dtype']} != {actual['dtype']}")
    if expected["shape"] != actual["shape"]:
        return problems + [f"{where}: shape {expected['shape']} != {actual['shape']}"]
    e, a = np.asarray(expected["array"], dtype=object), np.asarray(actual["array"], dtype=object)
    try:
        close = np.allclose(e.astype(np.float64), a.astype(np.float64), rtol=rtol, atol=atol,
                            equal_nan=True)
    except (TypeError, ValueError):
        close = expected["array"] == actual["array"]
    if not close:
        problems.append(f"{where}: values {_short(expected['array'])} != {_short(actual['array'])}")
    return problems


def _short(value) -> str:
    text = repr(value)
    return text if len(text) < 300 else text[:300] + "..."
