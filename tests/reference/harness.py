"""Comparison machinery of the reference tests: plain Python vs. ``convert`` vs. ``function``.

A sample passes when
  (b) ``convert(fn)(*args)`` on the same Python values is indistinguishable from ``fn(*args)``:
      same result (``==`` and same Python type, recursively), same stdout, same exception type;
  (c) ``function(fn)(*tensor_args)`` (a traced graph) gives numerically the same result in the
      same nested structure, prints the same stdout and raises the same exception type.

Stub mode (env ``E2G_REFERENCE_STUB=1``) validates the samples themselves while the transpiler
does not exist: ``convert`` and ``function`` are the identity, and the "tensor" inputs of (c) are
NumPy scalars/arrays (int32, float32, bool) evaluated under ``np.errstate(all='raise')``, so a
sample that would overflow int32 or divide by zero in a graph is caught already.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import inspect
import io
import os
import signal
import threading
import traceback
from typing import Any, Callable, Sequence

import numpy as np

STUB = os.environ.get("E2G_REFERENCE_STUB") == "1"
# A run that takes longer is reported as a failure (RunTimeout) instead of hanging the suite.
TIMEOUT_SECONDS = float(os.environ.get("E2G_REFERENCE_TIMEOUT", "30"))

# Stub runs of the NumPy leg raise on int32 overflow / division by zero instead of wrapping.
_STUB_ERRSTATE = dict(over="raise", divide="raise", invalid="raise")
_FLOAT_RTOL = 1e-5


# --------------------------------------------------------------------------------------------
# The API under test (real transpiler, or the identity stub)


@dataclasses.dataclass(frozen=True)
class Api:
    """The three entry points the reference tests exercise, plus the input conversion."""

    convert: Callable[[Callable], Callable]
    function: Callable[[Callable], Callable]
    to_code: Callable[[Callable], str]
    to_tensor: Callable[[Any], Any]
    stub: bool


class ApiUnavailable(RuntimeError):
    """``import transpiler`` failed in real mode."""


def _identity(fn: Callable) -> Callable:
    return fn


def _stub_to_tensor(value: Any) -> Any:
    """The stand-in for ``rt.constant``: NumPy values with the runtime's default dtypes."""
    if isinstance(value, bool):
        return np.bool_(value)
    if isinstance(value, int):
        return np.int32(value)
    if isinstance(value, float):
        return np.float32(value)
    array = np.asarray(value)
    if array.dtype.kind == "i":
        return array.astype(np.int32)
    if array.dtype.kind == "f":
        return array.astype(np.float32)
    return array


def _source_of(fn: Callable) -> str:
    try:
        return inspect.getsource(fn)
    except (OSError, TypeError) as error:
        return f"<source unavailable: {error}>"


@functools.lru_cache(maxsize=None)
def load_api() -> Api:
    """The stub when ``E2G_REFERENCE_STUB=1``, else the real transpiler (or ApiUnavailable)."""
    if STUB:
        return Api(_identity, _identity, _source_of, _stub_to_tensor, stub=True)
    try:
        import runtime as rt
        from transpiler import convert, function, to_code
    except Exception as error:  # ImportError, or a half-written package failing at import
        raise ApiUnavailable(
            f"cannot import the transpiler ({type(error).__name__}: {error}). "
            "Set E2G_REFERENCE_STUB=1 to check the samples against plain Python only.") from error
    return Api(convert, function, to_code, rt.constant, stub=False)


def api_error() -> str | None:
    """Why the API cannot be loaded, or None if it can."""
    try:
        load_api()
    except ApiUnavailable as error:
        return str(error)
    return None


# --------------------------------------------------------------------------------------------
# Running one function


@dataclasses.dataclass
class Outcome:
    """What one run produced: its result or exception, and everything it printed."""

    result: Any
    stdout: str
    exception_type: type[BaseException] | None
    exception_message: str = ""

    def describe(self) -> str:
        lines = [f"  result:    {self.result!r}", f"  stdout:    {self.stdout!r}"]
        if self.exception_type is None:
            lines.append("  exception: None")
        else:
            lines.append(f"  exception: {self.exception_type.__name__}")
            lines.append("  " + self.exception_message.rstrip().replace("\n", "\n  "))
        return "\n".join(lines)


class RunTimeout(Exception):
    """A run exceeded TIMEOUT_SECONDS (e.g. a graph loop that never ends)."""


@contextlib.contextmanager
def _time_limit(seconds: float):
    """Raises RunTimeout in the block after ``seconds`` (main thread on Unix only)."""
    usable = (seconds > 0 and hasattr(signal, "setitimer")
              and threading.current_thread() is threading.main_thread())
    if not usable:
        yield
        return

    def on_alarm(signum, frame):
        raise RunTimeout(f"the run took longer than {seconds:g} s (E2G_REFERENCE_TIMEOUT)")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def run_captured(fn: Callable, *args: Any) -> Outcome:
    """Runs ``fn(*args)`` capturing stdout and any exception (never raises, except Ctrl-C)."""
    buffer = io.StringIO()
    result, exception_type, message = None, None, ""
    with contextlib.redirect_stdout(buffer):
        try:
            with _time_limit(TIMEOUT_SECONDS):
                result = fn(*args)
        except Exception as error:
            exception_type = type(error)
            message = "".join(traceback.format_exception(error)[-12:])
    return Outcome(result, buffer.getvalue(), exception_type, message)


def to_tensor_inputs(args: Sequence[Any], tensor_params: Sequence[int] | None) -> tuple:
    """Converts the chosen positional args (all when ``tensor_params`` is None) to tensors."""
    to_tensor = load_api().to_tensor
    chosen = range(len(args)) if tensor_params is None else tensor_params
    return tuple(to_tensor(arg) if i in chosen else arg for i, arg in enumerate(args))


# --------------------------------------------------------------------------------------------
# Comparing results


def _is_array_like(value: Any) -> bool:
    """Tensors (anything with ``.numpy()`` and a dtype) and NumPy values."""
    if isinstance(value, (np.ndarray, np.generic)):
        return True
    return hasattr(value, "numpy") and hasattr(value, "dtype") and hasattr(value, "shape")


def _as_array(value: Any) -> np.ndarray:
    return np.asarray(value.numpy() if hasattr(value, "numpy") else value)


def identical_differences(expected: Any, actual: Any, path: str = "result") -> list[str]:
    """Differences between two Python results that must be identical (type and value)."""
    if _is_array_like(expected) or _is_array_like(actual):
        if not (_is_array_like(expected) and _is_array_like(actual)):
            return [f"{path}: expected {expected!r}, got {actual!r}"]
        a, b = _as_array(expected), _as_array(actual)
        if a.dtype != b.dtype or a.shape != b.shape or not np.array_equal(a, b, equal_nan=True):
            return [f"{path}: expected {a!r}, got {b!r}"]
        return []
    if type(expected) is not type(actual):
        return [f"{path}: expected type {type(expected).__name__} ({expected!r}), "
                f"got {type(actual).__name__} ({actual!r})"]
    if isinstance(expected, (list, tuple)):
        if len(expected) != len(actual):
            return [f"{path}: expected length {len(expected)}, got {len(actual)}"]
        return [d for i, (e, a) in enumerate(zip(expected, actual))
                for d in identical_differences(e, a, f"{path}[{i}]")]
    if isinstance(expected, dict):
        if list(expected) != list(actual):
            return [f"{path}: expected keys {list(expected)}, got {list(actual)}"]
        return [d for k in expected for d in identical_differences(expected[k], actual[k], f"{path}[{k!r}]")]
    if expected != actual:
        return [f"{path}: expected {expected!r}, got {actual!r}"]
    return []


_KIND_NAMES = {"b": "bool", "i": "integer", "u": "integer", "f": "float", "c": "complex"}


def numeric_differences(expected: Any, actual: Any, path: str = "result") -> list[str]:
    """Differences between a Python result and a graph result (tensor leaves)."""
    if expected is None or actual is None:
        return [] if expected is actual else [f"{path}: expected {expected!r}, got {actual!r}"]
    if isinstance(expected, (list, tuple, dict)):
        if not isinstance(actual, type(expected)) and not isinstance(expected, type(actual)):
            return [f"{path}: expected a {type(expected).__name__}, got {type(actual).__name__} "
                    f"({actual!r})"]
        if isinstance(expected, dict):
            if sorted(map(repr, expected)) != sorted(map(repr, actual)):
                return [f"{path}: expected keys {list(expected)}, got {list(actual)}"]
            return [d for k in expected
                    for d in numeric_differences(expected[k], actual[k], f"{path}[{k!r}]")]
        if len(expected) != len(actual):
            return [f"{path}: expected length {len(expected)}, got {len(actual)}"]
        return [d for i, (e, a) in enumerate(zip(expected, actual))
                for d in numeric_differences(e, a, f"{path}[{i}]")]
    if isinstance(expected, str):
        return [] if expected == actual else [f"{path}: expected {expected!r}, got {actual!r}"]
    try:
        want, got = _as_array(expected), _as_array(actual)
    except Exception as error:  # e.g. a symbolic tensor escaped the graph
        return [f"{path}: cannot read {actual!r} as an array ({type(error).__name__}: {error})"]
    want_kind = "i" if want.dtype.kind == "u" else want.dtype.kind
    got_kind = "i" if got.dtype.kind == "u" else got.dtype.kind
    if want_kind != got_kind:
        return [f"{path}: expected a {_KIND_NAMES.get(want_kind, want.dtype)} value {want!r}, "
                f"got {got.dtype} {got!r}"]
    if want.shape != got.shape:
        return [f"{path}: expected shape {want.shape}, got {got.shape} ({_show(got)})"]
    if want_kind == "f":
        equal = np.allclose(want, got, rtol=_FLOAT_RTOL, equal_nan=True)
    else:
        equal = np.array_equal(want, got)
    return [] if equal else [f"{path}: expected {_show(want)}, got {_show(got)}"]


def _show(array: np.ndarray) -> str:
    """``7 (int32)``: value and dtype, shorter than an array repr."""
    return f"{array.tolist()!r} ({array.dtype})"


# --------------------------------------------------------------------------------------------
# The assertion


def _compare(name: str, expected: Outcome, actual: Outcome, numeric: bool,
             check_exceptions: bool = True) -> list[str]:
    """Every way ``actual`` differs from ``expected``, each prefixed by the leg's name."""
    problems: list[str] = []
    if expected.exception_type is not None:
        if check_exceptions and actual.exception_type is not expected.exception_type:
            got = actual.exception_type.__name__ if actual.exception_type else "no exception"
            problems.append(f"expected {expected.exception_type.__name__}, got {got}")
    elif actual.exception_type is not None:
        problems.append(f"unexpected {actual.exception_type.__name__}")
    else:
        compare = numeric_differences if numeric else identical_differences
        problems.extend(compare(expected.result, actual.result))
    if expected.stdout != actual.stdout and (expected.exception_type is None or check_exceptions):
        problems.append(f"stdout differs: expected {expected.stdout!r}, got {actual.stdout!r}")
    return [f"[{name}] {p}" for p in problems]


def _report(fn: Callable, args: Sequence[Any], tensor_params: Sequence[int] | None,
            problems: list[str], outcomes: dict[str, Outcome]) -> str:
    api = load_api()
    try:
        code = api.to_code(fn)
    except Exception as error:
        code = f"<to_code failed: {type(error).__name__}: {error}>\n{_source_of(fn)}"
    parts = [f"{fn.__module__}.{fn.__qualname__}{tuple(args)!r} "
             f"tensor_params={tensor_params if tensor_params is not None else 'all'}"
             f"{' (STUB MODE)' if api.stub else ''}"]
    parts += problems
    for name, outcome in outcomes.items():
        parts.append(f"--- {name} ---\n{outcome.describe()}")
    parts.append("--- to_code(fn) ---\n" + code.rstrip())
    return "\n".join(parts)


def assert_matches_python(fn: Callable, args: Sequence[Any],
                          tensor_params: Sequence[int] | None = None, *,
                          graph: bool = True, graph_exceptions: bool = True) -> None:
    """Checks (b) convert and (c) function against plain Python; see the module docstring.

    ``tensor_params``: indices of the args passed as tensors to the graph (None = all).
    ``graph=False`` skips (c); ``graph_exceptions=False`` means a Python exception need not be
    reproduced by the graph (e.g. integer division by zero, which NumPy does not raise).
    """
    api = load_api()
    args = tuple(args)
    plain = run_captured(fn, *args)
    converted = run_captured(lambda *a: api.convert(fn)(*a), *args)
    outcomes = {"plain Python": plain, "convert(fn)": converted}
    problems = _compare("convert", plain, converted, numeric=False)

    if graph:
        tensor_args = to_tensor_inputs(args, tensor_params)
        graph_fn: list[Callable] = []

        def first_call(*a: Any) -> Any:
            graph_fn.append(api.function(fn))
            return graph_fn[0](*a)

        errstate = np.errstate(**_STUB_ERRSTATE) if api.stub else contextlib.nullcontext()
        with errstate:
            traced = run_captured(first_call, *tensor_args)
            outcomes["function(fn), first call"] = traced
            problems += _compare("function", plain, traced, numeric=True,
                                 check_exceptions=graph_exceptions)
            if graph_fn and traced.exception_type is None and plain.exception_type is None:
                # The cached graph must give the same answer again. Its stdout is not compared:
                # trace-time prints legitimately do not repeat.
                cached = run_captured(graph_fn[0], *tensor_args)
                if cached.exception_type is not None:
                    second = [f"unexpected {cached.exception_type.__name__}"]
                else:
                    second = numeric_differences(plain.result, cached.result)
                if second:
                    outcomes["function(fn), second call"] = cached
                    problems += [f"[function, second call] {p}" for p in second]

    if problems:
        raise AssertionError(_report(fn, args, tensor_params, problems, outcomes))


# --------------------------------------------------------------------------------------------
# Declaring cases next to the samples


@dataclasses.dataclass(frozen=True)
class Case:
    """One sample function and the inputs it is checked on."""

    fn: Callable
    inputs: tuple[tuple, ...]
    tensor_params: tuple[int, ...] | None = None
    graph: bool = True
    graph_exceptions: bool = True
    label: str = ""

    @property
    def name(self) -> str:
        module = self.fn.__module__.rsplit(".", 1)[-1]
        suffix = f"/{self.label}" if self.label else ""
        return f"{module}.{self.fn.__name__}{suffix}"


def case(fn: Callable, inputs: Sequence[Sequence[Any]], tensor_params: Sequence[int] | None = None,
         *, graph: bool = True, graph_exceptions: bool = True, label: str = "") -> Case:
    """Declares ``fn`` checked on every tuple of ``inputs``; see ``assert_matches_python``."""
    params = None if tensor_params is None else tuple(tensor_params)
    return Case(fn, tuple(tuple(i) for i in inputs), params, graph, graph_exceptions, label)


def input_id(args: Sequence[Any]) -> str:
    """``(3, -2)`` -> ``3,-2``; readable in test ids."""
    return ",".join(repr(a).replace(" ", "") for a in args)
