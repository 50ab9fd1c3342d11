"""Warnings name the user's file and line and show the user's source, never generated code
(issue 22, item 7): NumPy's floating-point warnings from eager ops and from running plans, and
the runtime's own warnings."""

import inspect
import linecache
import warnings

import numpy as np
import pytest

import runtime as rt
from runtime.errors import InvalidArgumentError, RetracingWarning

NEGATIVE = np.array([-1.0, 0.0], np.float32)


def line_of(fn, text: str) -> int:
    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, line in enumerate(lines) if text in line)


def caught(call, *args):
    with warnings.catch_warnings(record=True) as records:
        warnings.simplefilter("always")
        call(*args)
    return [(str(r.message), r.category, r.filename, r.lineno,
             linecache.getline(r.filename, r.lineno).strip()) for r in records]


def log_times_two(x):
    return rt.log(x) * 2.0  # the op that warns


def test_numpy_warnings_of_a_graph_name_the_line_that_wrote_the_op():
    f = rt.function(log_times_two)
    line = line_of(log_times_two, "the op that warns")
    expected = [("divide by zero encountered in log", RuntimeWarning, __file__, line,
                 "return rt.log(x) * 2.0  # the op that warns"),
                ("invalid value encountered in log", RuntimeWarning, __file__, line,
                 "return rt.log(x) * 2.0  # the op that warns")]
    assert caught(f, NEGATIVE) == expected
    assert caught(f, NEGATIVE) == expected  # the fast path of the next calls too


def test_numpy_warnings_of_eager_ops_name_the_users_line():
    x = rt.constant(NEGATIVE)
    line = inspect.currentframe().f_lineno + 1
    records = caught(lambda: rt.log(x) / 0.0)  # eager ops
    assert {r[0] for r in records} == {"divide by zero encountered in log",
                                       "invalid value encountered in log"}
    assert all(r[2:4] == (__file__, line) for r in records), records


def test_a_warning_in_a_branch_and_a_loop_names_its_line():
    def f(x, n):
        y = rt.cond(rt.reduce_sum(x) < 0, lambda: rt.sqrt(x), lambda: x)  # sqrt in a branch
        return rt.while_loop(lambda i, v: i < n,
                             lambda i, v: (i + 1, v / 0.0),  # divide in a loop
                             (0, y))[1]
    records = caught(rt.function(f), rt.constant(NEGATIVE), rt.constant(2))
    assert ("invalid value encountered in sqrt", line_of(f, "sqrt in a branch")) in \
        [(r[0], r[3]) for r in records]
    assert ("invalid value encountered in divide", line_of(f, "divide in a loop")) in \
        [(r[0], r[3]) for r in records]  # 0 / 0
    assert all(r[2] == __file__ for r in records)


def test_the_users_numpy_settings_and_warning_filters_still_apply():
    f = rt.function(log_times_two)
    x = rt.constant(NEGATIVE)
    with warnings.catch_warnings(record=True) as records:
        warnings.simplefilter("always")
        with np.errstate(all="ignore"):
            f(x)
            rt.log(x)
    assert records == []
    with warnings.catch_warnings(record=True) as records:
        warnings.simplefilter("ignore")
        f(x)
        rt.log(x)
    assert records == []
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # -W error: the warning is an error, as before
        with pytest.raises(InvalidArgumentError, match="divide by zero encountered in log"):
            f(x)
        with pytest.raises(InvalidArgumentError, match="divide by zero encountered in log"):
            rt.log(x)
    with np.errstate(invalid="raise", divide="ignore"):
        with pytest.raises(InvalidArgumentError, match="invalid value encountered in log"):
            f(x)
    # A category left on "warn" next to one set to "raise" still warns at the user's line.
    with np.errstate(invalid="ignore"):
        records = caught(f, x)
    assert [(r[0], r[2], r[3]) for r in records] == [
        ("divide by zero encountered in log", __file__, line_of(log_times_two, "warns"))]
    assert np.geterr()["divide"] == "warn"  # the caller's state is back after the call


def test_the_default_action_warns_once_per_line_like_numpy():
    f = rt.function(log_times_two)
    with warnings.catch_warnings(record=True) as records:
        warnings.simplefilter("default")
        for _ in range(3):
            f(NEGATIVE)
    assert len(records) == 2  # divide by zero and invalid value, once each


def test_a_loaded_graph_warns_at_the_line_that_called_it(tmp_path):
    path = str(tmp_path / "g.e2g")
    rt.save(rt.function(log_times_two).get_concrete_function(rt.TensorSpec([2])), path)
    loaded = rt.load(path)
    with warnings.catch_warnings(record=True) as records:
        warnings.simplefilter("always")
        line = inspect.currentframe().f_lineno + 1
        loaded(NEGATIVE)  # its ops' locations are data from the file: never read
    assert records and all((r.filename, r.lineno) == (__file__, line) for r in records)


def test_the_retracing_warning_names_the_calling_line():
    f = rt.function(lambda x, i: x + i)
    with warnings.catch_warnings(record=True) as records:
        warnings.simplefilter("always")
        for i in range(6):
            f(rt.constant(1.0), i)  # retraces
    (record,) = [r for r in records if r.category is RetracingWarning]
    assert (record.filename, linecache.getline(record.filename, record.lineno).strip()) == \
        (__file__, "f(rt.constant(1.0), i)  # retraces")


def test_code_of_a_cell_warns_at_the_cells_line():
    """A notebook cell: a pseudo file name no module was loaded from, globals without
    ``__name__``."""
    source = "def cell(x):\n    y = x * 2.0\n    return rt.log(y)\n"
    filename = "<cell-warnings>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    try:
        namespace = {"rt": rt}
        exec(compile(source, filename, "exec"), namespace)
        for call in (namespace["cell"], rt.function(namespace["cell"])):  # eager, graph
            records = caught(call, rt.constant(-1.0))
            assert [r[0] for r in records] == ["invalid value encountered in log"]
            assert records[0][2:] == (filename, 3, "return rt.log(y)")
    finally:
        del linecache.cache[filename]
