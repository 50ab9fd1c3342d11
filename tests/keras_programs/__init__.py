"""TensorFlow 2 Keras programs, written as Keras users write them, run with real TensorFlow
(Keras 3) and with ``import transpiler.tf as tf``.

Each program is a function ``def name(tf)`` of one module here (one module per subject), as in
``tests/tf_programs``. Initial weights are set in the program (``set_weights`` from a seeded
NumPy generator, or constant initializers) and batches keep their order (``shuffle=False``),
so both sides train the same model on the same batches and must end with the same numbers to
float32 rounding.

``expected.json`` holds what TensorFlow gave (``python -m tests.keras_programs.regenerate`` in
a Python with TensorFlow rebuilds it); ``tests/runtime/test_keras_programs.py`` compares. The
progress lines of ``verbose=1`` are compared loosely in structure (times and bars are left
out) and tightly in their numbers (see ``progress_differences``).
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import pathlib
import re
from typing import Callable

import numpy as np

from tests.tf_programs import compare, plain, printed_as  # noqa: F401  (the same records, printing and comparison)

KINDS = ("models", "training", "optimizers", "losses", "callbacks", "weights", "datasets",
         "recurrent", "layers", "attention", "custom_loops", "masking", "user_models",
         "keras_ops", "augmentation")

EXPECTED = pathlib.Path(__file__).with_name("expected.json")


def programs() -> dict[str, Callable]:
    """Every program, as ``{"kind.name": function}``."""
    found = {}
    for kind in KINDS:
        module = importlib.import_module(f"{__name__}.{kind}")
        for name, value in vars(module).items():
            if callable(value) and getattr(value, "__module__", None) == module.__name__ \
                    and not name.startswith("_"):
                found[f"{kind}.{name}"] = value
    return found


def deterministic_weights(model, seed: int = 0, scale: float = 0.5) -> None:
    """Gives every weight of ``model`` values drawn uniformly from ``[-scale, scale]`` by a
    seeded NumPy generator, in ``get_weights`` order: the same model on both sides starts
    from the same numbers (and the order of ``get_weights`` is checked on the way)."""
    rng = np.random.default_rng(seed)
    model.set_weights([rng.uniform(-scale, scale, np.shape(w)).astype(np.asarray(w).dtype)
                       for w in model.get_weights()])


def data(n: int, features, outputs: int = 1, seed: int = 0):
    """``n`` samples of ``features`` (an int or a shape) and a smooth float32 target."""
    rng = np.random.default_rng(seed)
    shape = (n,) + ((features,) if isinstance(features, int) else tuple(features))
    x = rng.normal(size=shape).astype("float32")
    flat = x.reshape(n, -1)
    w = np.linspace(-1.0, 1.0, flat.shape[1] * outputs).reshape(flat.shape[1], outputs)
    y = (np.tanh(flat @ w) + 0.1).astype("float32")
    return x, y


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def clean_output(text: str) -> str:
    """The text a terminal would show at the end: colours removed, and of each line redrawn
    in place (``\\r``, backspaces) only its last state."""
    text = _ANSI.sub("", text).replace("\x08", "")
    return "\n".join(line.split("\r")[-1].rstrip() for line in text.split("\n"))


def run(fn: Callable, tf) -> dict:
    """Runs one program with the module ``tf``: ``{"value": ..., "output": what it printed}``
    (standard output only, cleaned), or ``{"error": exception class name, ...}``."""
    out = io.StringIO()
    with printed_as(tf), contextlib.redirect_stdout(out):
        try:
            value = fn(tf)
        except Exception as error:  # recorded, and compared with TensorFlow's class name
            return {"error": type(error).__name__, "message": str(error)[:300],
                    "output": clean_output(out.getvalue())}
    return {"value": plain(value), "output": clean_output(out.getvalue())}


# A progress line: "3/4 ━━━━━━━━━━━━━━━━━━━━ 0s 12ms/step - loss: 0.1234 - mae: 2.0000e-04".
_TIMES = re.compile(r"\b\d+(?:\.\d+)?(?:s|ms|us)(?:/step)?\b")
_BAR = re.compile(r"[━─]+")
_NUMBER = re.compile(r"-?\d+\.\d+(?:e[-+]\d+)?|-?\d+")


def _skeleton(line: str) -> tuple[str, list[str]]:
    line = _BAR.sub("[bar]", _TIMES.sub("[time]", line))
    return _NUMBER.sub("#", line), _NUMBER.findall(line)


def _close(expected: str, actual: str) -> bool:
    if expected == actual:
        return True
    if "." not in expected:
        return False
    e, a = float(expected), float(actual)
    mantissa = expected.split("e")[0]
    unit = 10.0 ** -len(mantissa.split(".")[1])
    if "e" in expected:
        unit *= 10.0 ** int(expected.split("e")[1])
    return abs(e - a) <= 1.5 * unit + 1e-5 * abs(e)  # last printed digit, rounded either way


def progress_differences(expected: str, actual: str) -> list[str]:
    """How two programs' printed text differ: line by line, with times and bars ignored and
    printed numbers equal up to the rounding of their last digit."""
    e_lines, a_lines = expected.split("\n"), actual.split("\n")
    if len(e_lines) != len(a_lines):
        return [f"{len(e_lines)} lines printed by TensorFlow, {len(a_lines)} here"]
    problems = []
    for number, (e_line, a_line) in enumerate(zip(e_lines, a_lines), start=1):
        (e_shape, e_numbers), (a_shape, a_numbers) = _skeleton(e_line), _skeleton(a_line)
        if e_shape != a_shape or len(e_numbers) != len(a_numbers):
            problems.append(f"line {number}: TensorFlow {e_line!r}, here {a_line!r}")
        elif not all(_close(e, a) for e, a in zip(e_numbers, a_numbers)):
            problems.append(f"line {number}: numbers of {e_line!r} differ in {a_line!r}")
    return problems


def load_expected() -> dict:
    return json.loads(EXPECTED.read_text())
