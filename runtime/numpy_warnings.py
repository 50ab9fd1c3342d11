"""NumPy's floating-point warnings ("divide by zero encountered in log"), shown at the user's line.

NumPy warns from inside a kernel, so Python attributes the warning to the innermost Python
frame: a line of a plan (``<eager2graph plan 2: g>:3: v4 = k4(a0)``) or of the runtime's eager
dispatch. While a plan or an eager kernel runs, the error state NumPy reads (a context
variable) is the caller's with each ``"warn"`` turned into ``"call"`` of ``_report``, which
issues the same warning at the user's file and line: for a plan, where the op that failed was
written (its node's location); for an eager op, the innermost frame of user code, a line of
converted code mapped back to the user's source.

Only ``"warn"`` changes: what the user set with ``np.errstate`` or ``np.seterr`` ("ignore",
"raise", a callback of their own) applies as it is, and the warnings filters apply to the
re-issued warning (``-W error`` makes it an error, as it would have been). The state is
switched per call only when it has something to report; the last state seen is cached, so a
call pays a context-variable set and reset.
"""

from __future__ import annotations

import sys
import warnings

import numpy as np

from runtime import source_location
from runtime.errors import IntegerDivisionByZeroError

try:  # NumPy 2: the error state is a context variable of ufunc settings
    from numpy._core._ufunc_config import _extobj_contextvar, _get_extobj_dict, _make_extobj
except ImportError:  # pragma: no cover - another layout: NumPy's own warnings, unchanged
    _extobj_contextvar = None

# The name under which a plan's globals hold its line -> node map.
PLAN_LINES = "__eager2graph_lines__"
_CATEGORIES = ("divide", "over", "under", "invalid")


def _report(kind: str, flag: int) -> None:
    """NumPy's ``"call"`` handler: the warning NumPy would have given, at the user's line; an
    integer division by zero raises instead (Python and TensorFlow raise, NumPy gives 0)."""
    frame, op = sys._getframe(1), None
    while frame is not None:
        lines = frame.f_globals.get(PLAN_LINES)
        if lines is not None:
            node = lines.get(frame.f_lineno)
            if node is not None:
                op = op or _kernel_name(node.op.name, node.op.kernel)
                if kind == "divide by zero" and _integer(node.outputs[0].dtype):
                    raise IntegerDivisionByZeroError.in_op(op)
                location = node.location
                if location is not None and location.readable and location.lineno > 0:
                    source_location.warn_at(location, f"{kind} encountered in {op}",
                                            RuntimeWarning)
                    return
        elif frame.f_code is _KERNEL_CODE:
            local = frame.f_locals
            op = op or _kernel_name(local["name"], local["kernel"])
            if kind == "divide by zero" and _integer_result(local["kernel"], local["arrays"]):
                raise IntegerDivisionByZeroError.in_op(op)
        elif source_location.is_user_frame(frame):
            break
        frame = frame.f_back
    message = f"{kind} encountered in {op or 'an op'}"
    if frame is None:
        warnings.warn(message, RuntimeWarning, stacklevel=2)
    else:
        source_location.warn_in_frame(frame, message, RuntimeWarning)


def _integer(dtype) -> bool:
    return dtype.kind in "iu"


def _integer_result(kernel, arrays) -> bool:
    """Whether an eager kernel computes integers from these inputs (a ufunc's loop says; the
    other kernels divide in floats or ignore the flag themselves)."""
    if not isinstance(kernel, np.ufunc) or kernel.nout != 1:
        return False
    try:
        *_, result = kernel.resolve_dtypes(tuple(np.asarray(a).dtype for a in arrays) + (None,))
    except (TypeError, ValueError):
        return False
    return _integer(result)


def _kernel_name(op_name: str, kernel) -> str:
    """What NumPy's message names: the ufunc ("power" for the op pow), else the op."""
    return kernel.__name__ if isinstance(kernel, np.ufunc) else op_name


def _reporting_state(current):
    """The error state to run kernels under when ``current`` is the caller's (None: as it is,
    nothing would warn, or the user's own callback is in use)."""
    settings = _get_extobj_dict()
    modes = [settings[category] for category in _CATEGORIES]
    if "warn" not in modes or "call" in modes or "log" in modes:
        return None
    return _make_extobj(call=_report, **{category: "call" if mode == "warn" else mode
                                         for category, mode in zip(_CATEGORIES, modes)})


# (the state seen last, the state to run under for it): read and replaced as one tuple.
_last: tuple = (None, None)


def _state():
    global _last
    current = _extobj_contextvar.get()
    seen, replacement = _last
    if current is not seen:
        replacement = _reporting_state(current)
        _last = (current, replacement)
    return replacement


def reporting(run):
    """``run`` (a plan's function) with NumPy's warnings issued at the user's lines."""
    if _extobj_contextvar is None:  # pragma: no cover
        return run
    get, set_state, reset = _extobj_contextvar.get, _extobj_contextvar.set, _extobj_contextvar.reset

    def run_reporting(*arrays):
        global _last
        current = get()
        seen, replacement = _last
        if current is not seen:
            replacement = _reporting_state(current)
            _last = (current, replacement)
        if replacement is None:
            return run(*arrays)
        token = set_state(replacement)
        try:
            return run(*arrays)
        finally:
            reset(token)

    run_reporting.__wrapped__ = run
    return run_reporting


def run_kernel(name: str, kernel, arrays, attrs: dict):
    """``kernel(*arrays, **attrs)`` for the eager op ``name``, its NumPy warnings at the
    user's line."""
    if _extobj_contextvar is None:  # pragma: no cover
        return kernel(*arrays, **attrs)
    replacement = _state()
    if replacement is None:
        return kernel(*arrays, **attrs)
    token = _extobj_contextvar.set(replacement)
    try:
        return kernel(*arrays, **attrs)
    finally:
        _extobj_contextvar.reset(token)


_KERNEL_CODE = run_kernel.__code__
