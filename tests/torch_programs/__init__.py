"""PyTorch programs written the way PyTorch users write them: plain Python functions (and
``nn.Module`` classes) using ``torch`` ops, with ``if``/``while``/``for`` on tensor values.

Each module here holds functions and, after each one, ``CASES[fn] = [args, ...]``: the
argument tuples it is run on, chosen to take every branch and several trip counts. A class in
``CASES`` is an ``nn.Module`` built with no arguments (under ``torch.manual_seed(0)``).

``run_program`` runs one program the three ways the issue (26) cares about and compares each
with the unconverted program run eagerly on the same (cloned) arguments:

* ``convert(f)`` on real tensors (it must behave as Python),
* ``torch.export.export`` of a module calling ``convert(f)`` (non-strict), ``.module()`` run on
  every input; exported once per signature (shapes, dtypes, Python values),
* ``torch.compile(convert(f), fullgraph=True, backend="aot_eager")``, compiled once.

``tests/transpiler/test_torch_programs.py`` holds the expected failures; ``measure.py`` prints
the figures for the whole corpus.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import math
import re
import signal
import warnings
from typing import Callable

import torch

from transpiler import convert

KINDS = ("conditionals", "while_loops", "for_loops", "numbers", "modules", "algorithms",
         "numerics")

PATHS = ("converted", "export", "compile")

# A single call that runs longer than this is an error (a converted loop that never ends).
CALL_TIMEOUT_SECONDS = 45


def t(value, dtype=None) -> torch.Tensor:
    """``torch.tensor`` for the argument lists."""
    return torch.tensor(value, dtype=dtype)


@dataclasses.dataclass
class Program:
    name: str  # "kind.function"
    target: Callable  # a function, or an nn.Module class
    inputs: list


def programs() -> dict[str, Program]:
    """Every program, as ``{"kind.name": Program}``, in source order."""
    found = {}
    for kind in KINDS:
        module = importlib.import_module(f"{__name__}.{kind}")
        for target, inputs in module.CASES.items():
            name = f"{kind}.{target.__name__}"
            assert name not in found, name
            found[name] = Program(name, target, list(inputs))
    return found


# ---------------------------------------------------------------------------------------------
# Comparing results


def _clone(value):
    if isinstance(value, torch.Tensor):
        return value.clone()
    if isinstance(value, (list, tuple)):
        return type(value)(_clone(v) for v in value)
    if isinstance(value, dict):
        return {k: _clone(v) for k, v in value.items()}
    return value


def _signature(value):
    if isinstance(value, torch.Tensor):
        return ("tensor", tuple(value.shape), value.dtype)
    if isinstance(value, (list, tuple)):
        return (type(value).__name__,) + tuple(_signature(v) for v in value)
    if isinstance(value, dict):
        return ("dict",) + tuple((k, _signature(v)) for k, v in value.items())
    return ("python", type(value).__name__, repr(value))


def _number_kind(value) -> str | None:
    """'bool', 'int' or 'float' for a Python number or a 0-d tensor; None otherwise."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, torch.Tensor):
        if value.dtype == torch.bool:
            return "bool"
        if value.dtype.is_floating_point:
            return "float"
        if value.dtype.is_complex:
            return "complex"
        return "int"
    return None


def _values_differ(expected: torch.Tensor, actual: torch.Tensor) -> bool:
    if expected.shape != actual.shape:
        return True
    if expected.dtype.is_floating_point or actual.dtype.is_floating_point:
        return not torch.allclose(actual.double(), expected.double(), rtol=1e-5, atol=1e-6,
                                  equal_nan=True)
    return not torch.equal(actual.long(), expected.long())


def compare(expected, actual, where: str = "result") -> str | None:
    """None when ``actual`` is ``expected``; otherwise what differs. Structures must match;
    ints and bools exactly, floats to rtol 1e-5 / atol 1e-6; tensor dtypes and shapes must be
    the same; a Python number and a 0-d tensor of the same kind and value are equal."""
    if isinstance(expected, (tuple, list)):
        if type(actual) is not type(expected) or len(actual) != len(expected):
            return f"{where}: expected {type(expected).__name__} of {len(expected)}, got " \
                   f"{_describe(actual)}"
        for i, (e, a) in enumerate(zip(expected, actual)):
            found = compare(e, a, f"{where}[{i}]")
            if found:
                return found
        return None
    if isinstance(expected, dict):
        if not isinstance(actual, dict) or list(actual) != list(expected):
            return f"{where}: expected dict with keys {list(expected)}, got {_describe(actual)}"
        for key in expected:
            found = compare(expected[key], actual[key], f"{where}[{key!r}]")
            if found:
                return found
        return None
    if expected is None or isinstance(expected, str):
        return None if actual == expected and type(actual) is type(expected) else \
            f"{where}: expected {expected!r}, got {_describe(actual)}"
    if isinstance(expected, torch.Tensor) and expected.dim() > 0:
        if not isinstance(actual, torch.Tensor):
            return f"{where}: expected a tensor {_describe(expected)}, got {_describe(actual)}"
        if actual.dtype != expected.dtype or actual.shape != expected.shape:
            return f"{where}: expected {_describe(expected)}, got {_describe(actual)}"
        return f"{where}: expected {_describe(expected)}, got {_describe(actual)}" \
            if _values_differ(expected, actual) else None
    # A Python number or a 0-d tensor.
    kind = _number_kind(expected)
    if kind is None:
        return None if actual == expected else \
            f"{where}: expected {expected!r}, got {_describe(actual)}"
    if _number_kind(actual) != kind or (isinstance(actual, torch.Tensor) and actual.dim() > 0):
        number = isinstance(actual, (int, float)) or (
            isinstance(actual, torch.Tensor) and actual.dim() == 0
            and _number_kind(actual) != "complex")
        same = number and float(actual) == float(expected)
        return f"{where}: expected {_describe(expected)}, got {_describe(actual)}" + \
            (" (the same number, of another kind)" if same else "")
    if isinstance(expected, torch.Tensor) and isinstance(actual, torch.Tensor) and \
            actual.dtype != expected.dtype:
        return f"{where}: expected {_describe(expected)}, got {_describe(actual)}"
    e = torch.as_tensor(expected, dtype=torch.float64 if kind == "float" else None)
    a = torch.as_tensor(actual)
    if kind == "float":
        a = a.double()
    return f"{where}: expected {_describe(expected)}, got {_describe(actual)}" \
        if _values_differ(e, a) else None


def _describe(value) -> str:
    if isinstance(value, torch.Tensor):
        text = repr(value.detach()).replace("\n", " ")
        text = " ".join(text.split())
        if len(text) > 120:
            text = text[:117] + "..."
        return f"{text} ({str(value.dtype).replace('torch.', '')}, shape {tuple(value.shape)})"
    if isinstance(value, (tuple, list)):
        return f"{type(value).__name__}({', '.join(_describe(v) for v in value)})"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_describe(v)}" for k, v in value.items()) + "}"
    return f"{value!r} ({type(value).__name__})"


# ---------------------------------------------------------------------------------------------
# Running a program


@dataclasses.dataclass
class Outcome:
    status: str  # "pass", "wrong" (a different value, or a value where Python raised), "error"
    detail: str = ""  # for "wrong": what differs; for "error": "Type: first line"


class Calls(torch.nn.Module):
    """A module whose forward calls ``fn``: what ``torch.export`` takes."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.fn(*args)


class _Timeout(BaseException):
    """A BaseException, so that the code it interrupts does not take it for its own error."""


@contextlib.contextmanager
def _time_limit(seconds):
    def stop(signum, frame):
        raise _Timeout(f"the call ran longer than {seconds} s")
    try:
        previous = signal.signal(signal.SIGALRM, stop)
    except ValueError:  # not the main thread: no limit
        yield
        return
    signal.setitimer(signal.ITIMER_REAL, seconds, 1.0)  # again every second until out
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def error_line(error: BaseException) -> str:
    """``Type: first line`` of the root cause (Dynamo and export wrap what the call raised;
    the root is the innermost exception of the chain that is not a cache miss), prefixed with
    the outermost type when it differs."""
    chain, seen = [], set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        chain.append(error)
        error = error.__cause__ or error.__context__
    roots = [e for e in chain if not isinstance(e, KeyError)] or chain
    root = roots[-1]
    lines = [line.strip() for line in str(root).strip().splitlines() if line.strip()]
    if lines and lines[0].startswith("backend=") and len(lines) > 1:  # BackendCompilerFailed
        lines = lines[1:]
    first = lines[0] if lines else ""
    first = re.sub(r"<eager2graph converted \d+:", "<eager2graph converted N:", first)
    first = re.sub(r" at 0x[0-9a-f]+", "", first)
    first = re.sub(r"\d{9,}", "N", first)  # object ids
    first = re.sub(r"\{(u\d+(?:, u\d+)*)\}",
                   lambda m: "{" + ", ".join(sorted(m.group(1).split(", "))) + "}", first)
    if len(first) > 300:
        first = first[:297] + "..."
    outer = "" if chain[0] is root else f"[{type(chain[0]).__name__}] "
    return f"{outer}{type(root).__name__}: {first}"


def _call(fn, args):
    with _time_limit(CALL_TIMEOUT_SECONDS):
        try:
            return "value", fn(*_clone(args))
        except _Timeout as error:
            return "raise", error
        except Exception as error:  # noqa: BLE001 (what the program raises is a result)
            return "raise", error


def _outcome(expected, got) -> Outcome:
    e_kind, e_value = expected
    kind, value = got
    if e_kind == "raise":
        if kind == "raise":
            return Outcome("pass")
        return Outcome("wrong", f"Python raised {error_line(e_value)}; got {_describe(value)}")
    if kind == "raise":
        return Outcome("error", error_line(value))
    difference = compare(e_value, value)
    return Outcome("wrong", difference) if difference else Outcome("pass")


def _callables(program: Program):
    """(plain, converted): the eager reference and what is exported and compiled."""
    target = program.target
    if isinstance(target, type) and issubclass(target, torch.nn.Module):
        torch.manual_seed(0)
        plain = target().eval()
        torch.manual_seed(0)
        converted = target().eval()
        converted.forward = convert(converted.forward)
        return plain, converted
    return target, convert(target)


def run_program(program: Program, paths=PATHS) -> dict[str, list[Outcome]]:
    """Every input of ``program`` through each path, against the plain program run eagerly."""
    results = {path: [] for path in paths}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain, converted = _callables(program)
        expected = [_call(plain, args) for args in program.inputs]
        if "converted" in paths:
            for args, exp in zip(program.inputs, expected):
                results["converted"].append(_outcome(exp, _call(converted, args)))
        if "export" in paths:
            exported = {}
            for args, exp in zip(program.inputs, expected):
                sig = _signature(args)
                if sig not in exported:
                    module = converted if isinstance(converted, torch.nn.Module) \
                        else Calls(converted)
                    try:
                        with _time_limit(CALL_TIMEOUT_SECONDS * 2):
                            exported[sig] = ("value", torch.export.export(
                                module, _clone(args)).module())
                    except (Exception, _Timeout) as error:  # noqa: BLE001
                        exported[sig] = ("raise", error)
                kind, module = exported[sig]
                got = (kind, module) if kind == "raise" else _call(module, args)
                results["export"].append(_outcome(exp, got))
        if "compile" in paths:
            compiled = torch.compile(converted, fullgraph=True, backend="aot_eager")
            timed_out = None
            for args, exp in zip(program.inputs, expected):
                # After a timeout (compiling, mostly) the next calls would compile again.
                got = ("raise", timed_out) if timed_out else _call(compiled, args)
                if got[0] == "raise" and isinstance(got[1], _Timeout):
                    timed_out = got[1]
                results["compile"].append(_outcome(exp, got))
    return results


__all__ = ["KINDS", "PATHS", "Program", "programs", "run_program", "compare", "t", "math"]
