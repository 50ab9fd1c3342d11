"""Shared helpers for the runtime tests: one function run both eagerly and through
``rt.function`` (the clean global state around every test is in tests/conftest.py)."""

import sys
from pathlib import Path

import numpy as np
import pytest

_ROOT = str(Path(__file__).resolve().parents[2])
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

import runtime as rt  # noqa: E402


def _as_arrays(result):
    return [np.asarray(leaf.numpy()) if isinstance(leaf, rt.Tensor) else leaf
            for leaf in rt.nest.flatten(result)]


def assert_same_values(a, b):
    """Same structure, same dtypes, same shapes, same values (NaN equal to NaN)."""
    left, right = _as_arrays(a), _as_arrays(b)
    assert len(left) == len(right)
    for x, y in zip(left, right):
        if isinstance(x, np.ndarray):
            assert isinstance(y, np.ndarray), (x, y)
            assert x.dtype == y.dtype, (x.dtype, y.dtype)
            assert x.shape == y.shape, (x.shape, y.shape)
            np.testing.assert_array_equal(x, y)
        else:
            assert x == y


@pytest.fixture
def eager_and_graph():
    """``run(fn, *args)`` -> (eager result, result through rt.function), after checking that
    both agree in structure, dtype, shape and value."""
    def run(fn, *args):
        eager = fn(*args)
        graph = rt.function(fn)(*args)
        assert_same_values(eager, graph)
        return eager, graph
    return run
