"""Functions without ``if``, ``while``, ``for`` or ``del`` skip the data-flow analyses (most
of the time converting a long formula went there) and still behave exactly like Python."""

import numpy as np
import pytest

import runtime as rt
import transpiler
from transpiler.analysis import cfg
from transpiler.api import clear_conversion_cache


@pytest.fixture
def fresh_conversions():
    """Conversions made anew: none read back from this process or from the code cache."""
    previous = rt.config.code_cache_directory()
    rt.config.set_code_cache_directory(False)
    clear_conversion_cache()
    yield
    rt.config.set_code_cache_directory(previous)
    clear_conversion_cache()


def formula(x, y):
    z = rt.sqrt(x * x + y * y)
    w = (z - 1.0) / (z + 1.0)
    return rt.abs(w) * 2.0 - helper(z)


def helper(z):
    total = z
    while total > 10.0:
        total = total / 2.0
    return total


def deleted_then_read(x):
    y = x + 1
    del y
    return y


def read_before_assigned(x):
    z = y + x
    y = 1
    return z


def bound_only_in_try(x):
    try:
        y = 10 // x
    except ZeroDivisionError:
        pass
    return y


def test_straight_line_code_builds_no_control_flow_graph(fresh_conversions, monkeypatch):
    built = []
    original = cfg.build
    monkeypatch.setattr(cfg, "build", lambda node: built.append(node.name) or original(node))
    converted = transpiler.convert(formula)
    x, y = np.float64(3.0), np.float64(40.0)
    assert converted(x, y) == formula(x, y)
    assert built == ["helper"]  # the callee has a loop: it is analysed when converted


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_straight_line_graph_calls_converted_callees(fresh_conversions, dtype):
    graph = transpiler.function(formula)
    for x, y in [(3.0, 4.0), (30.0, 40.0), (-7.0, 0.5)]:
        expected = formula(dtype(x), dtype(y))
        got = graph(rt.constant(x, dtype), rt.constant(y, dtype))
        assert got.dtype == dtype
        np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-6)


@pytest.mark.parametrize("fn", [deleted_then_read, read_before_assigned])
def test_unbound_reads_raise_as_in_python(fresh_conversions, fn):
    with pytest.raises(UnboundLocalError):
        fn(np.int64(2))
    with pytest.raises(UnboundLocalError):
        transpiler.convert(fn)(np.int64(2))


def test_variable_bound_only_in_a_try_block(fresh_conversions):
    converted = transpiler.convert(bound_only_in_try)
    assert converted(np.int64(3)) == bound_only_in_try(np.int64(3)) == 3
    with pytest.raises(UnboundLocalError):
        bound_only_in_try(0)
    with pytest.raises(UnboundLocalError):
        converted(0)
