"""Comparison machinery of the reference tests: plain Python vs. ``convert`` vs. ``function``.

A sample passes when
  (b) ``convert(fn)(*args)`` on the same Python values is indistinguishable from ``fn(*args)``:
      same result (``==`` and same Python type, recursively; same dtype where the result is a
      NumPy value or a tensor), same stdout, same exception type;
  (e) ``convert(fn)(*tensor_args)`` on *eager* tensors gives numerically the same result
      (integers exactly, floats ``rtol=1e-5``) and raises the same exception type;
  (c) ``function(fn)(*tensor_args)`` (a traced graph) gives numerically the same result as
      Python in the same nested structure, prints the same stdout and raises the same exception
      type; and exactly the eager result of (e) (where both are tensors: same dtype, same bits).
      The cached graph is called a second time: same answer, and no second trace.

Tensor inputs are ``rt.constant(value, dtype)``; ``dtype`` (per case) picks int64/float64 inputs.
A case with ``state`` runs every leg twice from ``state.reset()`` and compares what
``state.read()`` returns after each call (globals, attributes, nonlocals the function changes).
A ``Refusal`` names the clear error a graph may (or must) raise where it cannot give Python's
answer; any other difference is a failure. A ``RuntimeWarning`` from a converted, eager or graph
leg that plain Python did not emit is a failure unless the case allows it (``allowed_warnings``).

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
import re
import signal
import threading
import traceback
import warnings
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


def _stub_to_tensor(value: Any, dtype: str | None = None) -> Any:
    """The stand-in for ``rt.constant``: NumPy values with the runtime's default dtypes."""
    if dtype is not None:
        return np.asarray(value, dtype=dtype)[()]
    if isinstance(value, np.generic):
        return value  # rt.constant keeps a NumPy value's dtype
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
    def to_tensor(value: Any, dtype: str | None = None) -> Any:
        return rt.constant(value, None if dtype is None else getattr(rt, dtype))

    return Api(convert, function, to_code, to_tensor, stub=False)


def _retracing_warning() -> type[Warning] | None:
    """The runtime's RetracingWarning (None in stub mode)."""
    if STUB:
        return None
    import runtime as rt

    return rt.errors.RetracingWarning


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
    exception_message: str = ""  # the tail of the traceback
    error_text: str = ""         # str(exception): what a user reads
    runtime_warnings: tuple[str, ...] = ()  # RuntimeWarning messages emitted by the run
    state: Any = None            # ``State.read()`` after the run, for cases with state
    calls: Any = None            # ``State.read_calls()`` after the run

    def describe(self) -> str:
        lines = [f"  result:    {self.result!r}", f"  stdout:    {self.stdout!r}"]
        if self.exception_type is None:
            lines.append("  exception: None")
        else:
            lines.append(f"  exception: {self.exception_type.__name__}")
            lines.append("  " + self.exception_message.rstrip().replace("\n", "\n  "))
        if self.runtime_warnings:
            lines.append(f"  RuntimeWarnings: {list(self.runtime_warnings)!r}")
        if self.state is not None:
            lines.append(f"  state after: {self.state!r}")
        if self.calls is not None:
            lines.append(f"  calls made: {self.calls!r}")
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


def run_captured(fn: Callable, *args: Any, ignore: Sequence[type[Warning]] = ()) -> Outcome:
    """Runs ``fn(*args)`` capturing stdout and any exception (never raises, except Ctrl-C).

    RuntimeWarnings (NumPy's overflow, divide by zero, ...) are recorded in the outcome, to be
    compared with what plain Python emitted; warnings of the ``ignore`` categories are dropped;
    any other warning is emitted again after the run, so that it is not hidden.
    """
    buffer = io.StringIO()
    result, exception_type, message, text = None, None, "", ""
    with contextlib.redirect_stdout(buffer), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with _time_limit(TIMEOUT_SECONDS):
                result = fn(*args)
        except Exception as error:
            exception_type = type(error)
            message = "".join(traceback.format_exception(error)[-12:])
            text = str(error)
    runtime_warnings = []
    for w in caught:
        if issubclass(w.category, RuntimeWarning):
            runtime_warnings.append(str(w.message))
        elif not issubclass(w.category, tuple(ignore)):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, source=w.source)
    return Outcome(result, buffer.getvalue(), exception_type, message, text,
                   tuple(runtime_warnings))


def _dtype_of(dtype: str | Sequence[str | None] | None, index: int) -> str | None:
    if dtype is None or isinstance(dtype, str):
        return dtype
    return dtype[index]


def to_tensor_inputs(args: Sequence[Any], tensor_params: Sequence[int] | None,
                     dtype: str | Sequence[str | None] | None = None) -> tuple:
    """Converts the chosen positional args (all when ``tensor_params`` is None) to tensors.

    ``dtype``: None (the runtime's defaults: int32, float32, bool), a dtype name for every
    tensor argument (``"int64"``), or one name (or None) per argument.
    """
    to_tensor = load_api().to_tensor
    chosen = range(len(args)) if tensor_params is None else tensor_params
    return tuple(
        (to_tensor(arg) if _dtype_of(dtype, i) is None else to_tensor(arg, _dtype_of(dtype, i)))
        if i in chosen else arg
        for i, arg in enumerate(args))


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


def numeric_differences(expected: Any, actual: Any, path: str = "result", *,
                        rtol: float | None = None, strict_dtypes: bool = False) -> list[str]:
    """Differences between a Python result and a graph result (tensor leaves).

    Leaves must agree in kind (bool, integer, float) and value: integers exactly, floats to
    ``rtol`` (default: 1e-12 for a float64 result, ``_FLOAT_RTOL`` for narrower ones).
    ``strict_dtypes``: where ``expected`` is a NumPy value or a tensor, the dtype must be equal.
    """
    def recurse(e: Any, a: Any, p: str) -> list[str]:
        return numeric_differences(e, a, p, rtol=rtol, strict_dtypes=strict_dtypes)

    if expected is None or actual is None:
        return [] if expected is actual else [f"{path}: expected {expected!r}, got {actual!r}"]
    if isinstance(expected, (list, tuple, dict)):
        if not isinstance(actual, type(expected)) and not isinstance(expected, type(actual)):
            return [f"{path}: expected a {type(expected).__name__}, got {type(actual).__name__} "
                    f"({actual!r})"]
        if isinstance(expected, dict):
            if sorted(map(repr, expected)) != sorted(map(repr, actual)):
                return [f"{path}: expected keys {list(expected)}, got {list(actual)}"]
            return [d for k in expected for d in recurse(expected[k], actual[k], f"{path}[{k!r}]")]
        if len(expected) != len(actual):
            return [f"{path}: expected length {len(expected)}, got {len(actual)}"]
        return [d for i, (e, a) in enumerate(zip(expected, actual))
                for d in recurse(e, a, f"{path}[{i}]")]
    if isinstance(expected, str):
        return [] if expected == actual else [f"{path}: expected {expected!r}, got {actual!r}"]
    try:
        want, got = _as_array(expected), _as_array(actual)
    except Exception as error:  # e.g. a symbolic tensor escaped the graph
        return [f"{path}: cannot read {actual!r} as an array ({type(error).__name__}: {error})"]
    want_kind = "i" if want.dtype.kind == "u" else want.dtype.kind
    got_kind = "i" if got.dtype.kind == "u" else got.dtype.kind
    shown = _show(want) if _is_array_like(expected) else f"{expected!r} (Python {type(expected).__name__})"
    if want_kind != got_kind:
        return [f"{path}: expected a {_KIND_NAMES.get(want_kind, want.dtype)} value {shown}, "
                f"got {_show(got)}"]
    if strict_dtypes and _is_array_like(expected) and want.dtype != got.dtype:
        return [f"{path}: expected {shown}, got {_show(got)}"]
    if want.shape != got.shape:
        return [f"{path}: expected shape {want.shape}, got {got.shape} ({_show(got)})"]
    if want_kind == "f":
        tolerance = rtol if rtol is not None else (1e-12 if got.dtype == np.float64 else _FLOAT_RTOL)
        atol = 0.0 if tolerance < _FLOAT_RTOL else 1e-8  # 1e-300 is not 0 in float64
        equal = np.allclose(want, got, rtol=tolerance, atol=atol, equal_nan=True)
    else:
        equal = np.array_equal(want, got)
    return [] if equal else [f"{path}: expected {shown}, got {_show(got)}"]


def _show(array: np.ndarray) -> str:
    """``7 (int32)``: value and dtype, shorter than an array repr."""
    return f"{array.tolist()!r} ({array.dtype})"


def consistent_differences(eager: Any, graph: Any, path: str = "result", *,
                           rtol: float | None = None) -> list[str]:
    """Differences between an eager result and a graph result of the same converted function.

    Where both are tensors they must be the same: dtype, shape and values (floats bit for bit:
    graph optimizations never change floating-point results). Where the eager run gives a
    Python value, the graph's tensor is compared with it as with Python's result.
    """
    if _is_array_like(eager) and _is_array_like(graph):
        try:
            a, b = _as_array(eager), _as_array(graph)
        except Exception as error:
            return [f"{path}: cannot read {graph!r} as an array ({type(error).__name__}: {error})"]
        if a.dtype != b.dtype or a.shape != b.shape:
            return [f"{path}: eager gives {_show(a)} shape {a.shape}, "
                    f"graph gives {_show(b)} shape {b.shape}"]
        if not np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"):
            return [f"{path}: eager gives {_show(a)}, graph gives {_show(b)}"]
        return []
    if isinstance(eager, (list, tuple, dict)) and isinstance(graph, (list, tuple, dict)) \
            and len(eager) == len(graph):
        if isinstance(eager, dict):
            if not isinstance(graph, dict) or sorted(map(repr, eager)) != sorted(map(repr, graph)):
                return [f"{path}: eager gives keys {list(eager)}, graph gives {graph!r}"]
            return [d for k in eager
                    for d in consistent_differences(eager[k], graph[k], f"{path}[{k!r}]",
                                                    rtol=rtol)]
        return [d for i, (e, g) in enumerate(zip(eager, graph))
                for d in consistent_differences(e, g, f"{path}[{i}]", rtol=rtol)]
    return numeric_differences(eager, graph, path, rtol=rtol)


# --------------------------------------------------------------------------------------------
# What a case may declare besides its inputs


@dataclasses.dataclass(frozen=True)
class State:
    """State outside the function (a global, an attribute, a nonlocal) that it changes.

    ``reset()`` puts it back before each leg; ``read()`` returns a snapshot (a number or a
    tuple of numbers) compared after the first and after the second call; ``read_calls()``
    (optional) what helpers recorded.
    """

    reset: Callable[[], None]
    read: Callable[[], Any]
    # Calls made to helpers (e.g. a counter list's length): compared where Python control
    # flow runs (plain, convert, eager), not for a graph, whose helpers run once per trace.
    read_calls: Callable[[], Any] | None = None


@dataclasses.dataclass(frozen=True)
class Refusal:
    """A clear error the graph may raise where it cannot give Python's answer (issue 9 lists
    where that is allowed), e.g. a global changed under a tensor ``if`` that is refused with an
    error naming it. ``pattern`` is searched in ``str(error)``; ``required``: the graph must
    raise it (Python's answer cannot be represented, e.g. an int or a float depending on a
    tensor). Stub mode cannot raise it and skips a required refusal."""

    exception: type[BaseException] | tuple[type[BaseException], ...]
    pattern: str = ""
    required: bool = False

    def accepts(self, outcome: Outcome) -> bool:
        return (outcome.exception_type is not None
                and issubclass(outcome.exception_type, self.exception)
                and re.search(self.pattern, outcome.error_text, re.S) is not None)

    def describe(self) -> str:
        names = self.exception if isinstance(self.exception, tuple) else (self.exception,)
        kind = "must" if self.required else "may"
        return (f"the graph {kind} raise {' or '.join(n.__name__ for n in names)} "
                f"matching {self.pattern!r}")


# --------------------------------------------------------------------------------------------
# The assertion


class Problem(str):
    """One difference, as the text ``[leg] what``. ``kind``: "wrong" (the leg gave another
    answer, printed something else or changed state differently, without any error: what this
    project promises never to do), "error" (it raised where Python gave a value, or raised
    another exception type) or "warning" (a RuntimeWarning Python did not emit)."""

    leg: str
    kind: str

    def __new__(cls, leg: str, kind: str, text: str) -> "Problem":
        self = super().__new__(cls, f"[{leg}] {text}")
        self.leg, self.kind = leg, kind
        return self


def _compare(name: str, expected: Outcome, actual: Outcome, numeric: bool,
             check_exceptions: bool = True, check_stdout: bool = True,
             allowed_warnings: str | None = None, rtol: float | None = None,
             strict_dtypes: bool = False, check_calls: bool = True) -> list[Problem]:
    """Every way ``actual`` differs from ``expected``, each prefixed by the leg's name."""
    problems: list[Problem] = []

    def add(kind: str, texts: Sequence[str]) -> None:
        problems.extend(Problem(name, kind, text) for text in texts)

    def compare(e: Any, a: Any, path: str = "result") -> list[str]:
        if not numeric:
            return identical_differences(e, a, path)
        return numeric_differences(e, a, path, rtol=rtol, strict_dtypes=strict_dtypes)

    if expected.exception_type is not None:
        # Converted code raises Python's exception type; a graph or an eager op may raise a
        # subclass (rt.errors.InvalidArgumentError is a ValueError), which `except` catches.
        same = actual.exception_type is expected.exception_type or (
            numeric and actual.exception_type is not None
            and issubclass(actual.exception_type, expected.exception_type))
        if check_exceptions and not same:
            got = actual.exception_type.__name__ if actual.exception_type else "no exception"
            add("error" if actual.exception_type else "wrong",
                [f"expected {expected.exception_type.__name__}, got {got}"])
    elif actual.exception_type is not None:
        add("error", [f"unexpected {actual.exception_type.__name__}: "
                      f"{actual.error_text.splitlines()[0] if actual.error_text else ''}"])
    else:
        add("wrong", compare(expected.result, actual.result))
    if check_stdout and expected.stdout != actual.stdout \
            and (expected.exception_type is None or check_exceptions) \
            and (actual.exception_type is None or expected.exception_type is not None):
        add("wrong", [f"stdout differs: expected {expected.stdout!r}, got {actual.stdout!r}"])
    if expected.state is not None and actual.exception_type is None:
        add("wrong", compare(expected.state, actual.state, "state after the call"))
    if check_calls and expected.calls is not None and actual.exception_type is None:
        add("wrong", identical_differences(expected.calls, actual.calls, "calls made"))
    python_warned = {_warning_kind(m) for m in expected.runtime_warnings}
    for message in actual.runtime_warnings:
        if _warning_kind(message) in python_warned:
            continue
        if allowed_warnings and re.search(allowed_warnings, message):
            continue
        add("warning", [f"RuntimeWarning {message!r} where plain Python emitted none"])
    return problems


def _warning_kind(message: str) -> str:
    """NumPy says 'overflow encountered in scalar multiply' for scalars, '... in multiply' for
    arrays: the same warning for plain Python on NumPy scalars and for a tensor program."""
    return message.replace("scalar ", "")


def _needs_64_bits(value: Any) -> bool:
    """A Python number that int32/float32 cannot hold (beyond their range)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return not -2**31 <= value < 2**31
    if isinstance(value, float):
        return value != 0 and not 1.2e-38 < abs(value) < 3.4e38
    return False


def _report(fn: Callable, args: Sequence[Any], tensor_args: Sequence[Any] | None,
            problems: list[Problem], outcomes: dict[str, Outcome]) -> str:
    api = load_api()
    try:
        code = api.to_code(fn)
    except Exception as error:
        code = f"<to_code failed: {type(error).__name__}: {error}>\n{_source_of(fn)}"
    parts = [f"{fn.__module__}.{fn.__qualname__}{tuple(args)!r}"
             f"{' (STUB MODE)' if api.stub else ''}"]
    if tensor_args is not None:
        parts.append(f"graph/eager inputs: {tuple(tensor_args)!r}")
    parts += problems
    for name, outcome in outcomes.items():
        parts.append(f"--- {name} ---\n{outcome.describe()}")
    parts.append("--- to_code(fn) ---\n" + code.rstrip())
    return "\n".join(parts)


def _run_leg(call: Callable, args: Sequence[Any], state: State | None, calls: int,
             ignore: Sequence[type[Warning]] = ()) -> list[Outcome]:
    """``calls`` runs of ``call(*args)``; with ``state``, reset first and read after each run.

    ``call`` receives the run's index as its first argument."""
    if state is not None:
        state.reset()
    outcomes = []
    for index in range(calls):
        outcome = run_captured(call, index, *args, ignore=ignore)
        if state is not None:
            outcome.state = state.read()
            if state.read_calls is not None:
                outcome.calls = state.read_calls()
        outcomes.append(outcome)
        if outcome.exception_type is not None:
            break
    return outcomes


@dataclasses.dataclass
class Comparison:
    """Every leg's outcome and every problem found (empty: the function matches Python)."""

    problems: list[Problem]
    outcomes: dict[str, Outcome]
    report: Callable[[], str]  # the full text of an assertion failure

    def kinds(self) -> set[str]:
        return {p.kind for p in self.problems}


def assert_matches_python(fn: Callable, args: Sequence[Any],
                          tensor_params: Sequence[int] | None = None, **options: Any) -> None:
    """Checks (b) convert, (e) eager and (c) function against plain Python; see the module
    docstring and ``compare_with_python`` for the options."""
    comparison = compare_with_python(fn, args, tensor_params, **options)
    if comparison.problems:
        raise AssertionError(comparison.report())


def compare_with_python(fn: Callable, args: Sequence[Any],
                        tensor_params: Sequence[int] | None = None, *,
                        graph: bool = True, graph_exceptions: bool = True,
                        dtype: str | Sequence[str | None] | None = None,
                        eager: bool = True, state: State | None = None,
                        refusal: Refusal | None = None,
                        allowed_warnings: str | None = None) -> Comparison:
    """Runs the legs of ``assert_matches_python`` and collects their differences.

    ``tensor_params``: indices of the args passed as tensors to the graph (None = all);
    ``dtype``: their dtypes (see ``to_tensor_inputs``). ``graph=False`` skips (e) and (c);
    ``eager=False`` skips (e). ``graph_exceptions=False`` means a Python exception need not be
    reproduced by the eager run or the graph (e.g. integer division by zero, which NumPy does
    not raise). ``state``: compare the state the function changes, over two calls.
    ``refusal``: the clear error the graph may (or must) raise instead. ``allowed_warnings``: a
    regex of RuntimeWarnings the eager run and the graph may emit (where Python raised).
    """
    api = load_api()
    args = tuple(args)
    calls = 2 if state is not None else 1
    plain = _run_leg(lambda _, *a: fn(*a), args, state, calls)
    converted = _run_leg(lambda _, *a: api.convert(fn)(*a), args, state, calls)
    outcomes = {"plain Python": plain[0], "convert(fn)": converted[0]}
    problems = []
    for index, (p, c) in enumerate(zip(plain, converted)):
        label = "convert" if index == 0 else "convert, second call"
        problems += _compare(label, p, c, numeric=False)
        if index:
            outcomes["plain Python, second call"] = p
            outcomes["convert(fn), second call"] = c
    if len(converted) < len(plain):
        problems.append(Problem("convert", "error", "the second call did not run (the first "
                                                    "one raised)"))

    tensor_args = None
    if graph:
        tensor_args = to_tensor_inputs(args, tensor_params, dtype)
        numpy_inputs = any(isinstance(a, (np.generic, np.ndarray)) for a in args)
        wide = numpy_inputs or "64" in repr(dtype) or any(map(_needs_64_bits, args))
        options = dict(check_exceptions=graph_exceptions, allowed_warnings=allowed_warnings,
                       # Python floats are float64: 64-bit inputs leave no room for float32.
                       rtol=1e-12 if wide else None,
                       # Plain Python computed with NumPy scalars of the graph's dtypes.
                       strict_dtypes=numpy_inputs)
        # Stub runs raise on overflow to catch int32 wrap-around; float64 samples overflow to
        # inf on purpose (as Python floats do).
        float64 = wide and any(isinstance(a, float) for a in args)
        errstate = (np.errstate(**dict(_STUB_ERRSTATE, over="ignore" if float64 else "raise"))
                    if api.stub else contextlib.nullcontext())
        with errstate:
            eager_runs: list[Outcome] = []
            if eager:
                eager_runs = _run_leg(lambda _, *a: api.convert(fn)(*a), tensor_args, state, calls)
                outcomes["convert(fn) on eager tensors"] = eager_runs[0]
                for index, (p, e) in enumerate(zip(plain, eager_runs)):
                    label = "eager" if index == 0 else "eager, second call"
                    # Not stdout: eager tensors print as Tensor(...) where Python prints numbers.
                    problems += _compare(label, p, e, numeric=True, check_stdout=False, **options)
            problems += _check_graph(fn, api, tensor_args, plain, eager_runs, state, refusal,
                                     outcomes, options)

    return Comparison(problems, outcomes,
                      lambda: _report(fn, args, tensor_args, problems, outcomes))


def _check_graph(fn: Callable, api: Api, tensor_args: tuple, plain: list[Outcome],
                 eager_runs: list[Outcome], state: State | None, refusal: Refusal | None,
                 outcomes: dict[str, Outcome], options: dict) -> list[Problem]:
    """The graph leg: a fresh ``function(fn)``, called twice (the second call reuses the graph)."""
    if refusal is not None and refusal.required and api.stub:
        return []  # the identity stand-in cannot raise what only a graph raises
    graph_fn: list[Callable] = []

    def call(index: int, *a: Any) -> Any:
        if index == 0:
            graph_fn.append(api.function(fn))
        return graph_fn[0](*a)

    # The harness makes a new function(fn) for every input on purpose (each input gets its own
    # trace), which the runtime rightly reports as a RetracingWarning; a retrace of *one*
    # function is checked below with tracing_count instead.
    retracing = _retracing_warning()
    runs = _run_leg(call, tensor_args, state, 2, ignore=(retracing,) if retracing else ())
    outcomes["function(fn), first call"] = runs[0]
    if len(runs) > 1:
        outcomes["function(fn), second call"] = runs[1]

    if refusal is not None and refusal.accepts(runs[0]):
        return []
    if refusal is not None and refusal.required:
        got = (f"{runs[0].exception_type.__name__}: {runs[0].error_text}"
               if runs[0].exception_type else f"the result {runs[0].result!r}")
        return [Problem("function", "error" if runs[0].exception_type else "wrong",
                        f"{refusal.describe()}; got {got}")]

    options = dict(options, check_calls=False)
    problems = _compare("function", plain[0], runs[0], numeric=True, **options)
    if eager_runs and not problems and eager_runs[0].exception_type is None \
            and runs[0].exception_type is None:
        problems += [Problem("function vs eager", "wrong", d) for d in consistent_differences(
            eager_runs[0].result, runs[0].result, rtol=options["rtol"])]
    if runs[0].exception_type is not None or plain[0].exception_type is not None \
            or len(runs) < 2:
        return problems
    # The cached graph must give the same answer again (the second Python call's answer, when
    # the function changes state). Its stdout is not compared: trace-time prints do not repeat.
    expected = plain[1] if len(plain) > 1 else plain[0]
    second = _compare("function, second call", expected, runs[1], numeric=True,
                      check_stdout=False, **options)
    tracing_count = getattr(graph_fn[0], "tracing_count", 1)
    if tracing_count != 1:
        second.append(Problem("function, second call", "error",
                              f"traced {tracing_count} times for one input"))
    return problems + second


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
    dtype: str | tuple[str | None, ...] | None = None
    eager: bool = True
    state: State | None = None
    refusal: Refusal | None = None
    allowed_warnings: str | None = None

    @property
    def name(self) -> str:
        module = self.fn.__module__.rsplit(".", 1)[-1]
        suffix = f"/{self.label}" if self.label else ""
        if self.dtype is not None:
            dtypes = (self.dtype,) if isinstance(self.dtype, str) else self.dtype
            suffix += "@" + ",".join(d or "default" for d in dtypes)
        return f"{module}.{self.fn.__name__}{suffix}"

    def check(self, args: Sequence[Any]) -> None:
        assert_matches_python(self.fn, args, self.tensor_params, graph=self.graph,
                              graph_exceptions=self.graph_exceptions, dtype=self.dtype,
                              eager=self.eager, state=self.state, refusal=self.refusal,
                              allowed_warnings=self.allowed_warnings)


def case(fn: Callable, inputs: Sequence[Sequence[Any]], tensor_params: Sequence[int] | None = None,
         *, graph: bool = True, graph_exceptions: bool = True, label: str = "",
         dtype: str | Sequence[str | None] | None = None, eager: bool = True,
         state: State | None = None, refusal: Refusal | None = None,
         allowed_warnings: str | None = None) -> Case:
    """Declares ``fn`` checked on every tuple of ``inputs``; see ``assert_matches_python``."""
    params = None if tensor_params is None else tuple(tensor_params)
    dtype = dtype if dtype is None or isinstance(dtype, str) else tuple(dtype)
    return Case(fn, tuple(tuple(i) for i in inputs), params, graph, graph_exceptions, label,
                dtype, eager, state, refusal, allowed_warnings)


def input_id(args: Sequence[Any]) -> str:
    """``(3, -2)`` -> ``3,-2``; readable in test ids."""
    return ",".join(repr(a).replace(" ", "") for a in args)
