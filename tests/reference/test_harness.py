"""The comparison machinery itself: a harness that cannot fail proves nothing."""

from __future__ import annotations

import numpy as np
import pytest

from . import harness


def _fake_api(convert=lambda f: f, function=lambda f: f) -> harness.Api:
    return harness.Api(convert, function, lambda f: "<code>", harness._stub_to_tensor, stub=True)


def test_run_captured_records_result_stdout_and_exception():
    def noisy(v):
        print("v is", v)
        return v + 1

    assert harness.run_captured(noisy, 2) == harness.Outcome(3, "v is 2\n", None, "")
    failed = harness.run_captured(lambda: 1 // 0)
    assert failed.exception_type is ZeroDivisionError and "ZeroDivisionError" in failed.exception_message


@pytest.mark.parametrize("expected, actual", [
    (1, True), (1, 1.0), ((1, 2), [1, 2]), ({"a": 1}, {"a": 2}), ([1], [1, 2]), (None, 0),
])
def test_identical_differences_catch_type_and_value_changes(expected, actual):
    assert harness.identical_differences(expected, actual)


def test_identical_differences_accept_equal_nested_values():
    value = ({"a": [1, (2.5, None)]}, np.int32(3))
    assert harness.identical_differences(value, ({"a": [1, (2.5, None)]}, np.int32(3))) == []


@pytest.mark.parametrize("expected, actual", [
    (3, np.int32(3)), (True, np.bool_(True)), (1.5, np.float32(1.5)), (None, None),
    ((1, [2, {"k": 3}]), (np.int32(1), [np.int32(2), {"k": np.int32(3)}])),
    ([1, 2], [np.int32(1), np.int32(2)]),
])
def test_numeric_differences_accept_tensor_like_leaves(expected, actual):
    assert harness.numeric_differences(expected, actual) == []


@pytest.mark.parametrize("expected, actual", [
    (3, np.int32(4)), (3, np.float32(3.0)), (True, np.int32(1)), (None, np.int32(0)),
    (1, None), ((1, 2), [1, 2]), ((1, 2), (1,)), ([1, 2], np.array([1, 2], dtype=np.int32)), (1.0, np.float32(1.1)), ({"a": 1}, {"b": 1}),
])
def test_numeric_differences_catch_mismatches(expected, actual):
    assert harness.numeric_differences(expected, actual)


def test_assert_matches_python_passes_for_faithful_api(monkeypatch):
    monkeypatch.setattr(harness, "load_api", lambda: _fake_api())

    def f(x):
        print("x", x)
        return x * 2, x > 0

    harness.assert_matches_python(f, (3,))


def test_assert_matches_python_reports_wrong_conversion(monkeypatch):
    def off_by_one(fn):
        return lambda *args: fn(*args) + 1

    monkeypatch.setattr(harness, "load_api", lambda: _fake_api(convert=off_by_one))
    with pytest.raises(AssertionError, match=r"\[convert\] result: expected 6, got 7"):
        harness.assert_matches_python(lambda x: x * 2, (3,))


def test_assert_matches_python_reports_graph_stdout_and_exceptions(monkeypatch):
    def silent(fn):
        return lambda *args: None

    monkeypatch.setattr(harness, "load_api", lambda: _fake_api(function=silent))

    def shout(x):
        print("hello")
        return None

    with pytest.raises(AssertionError, match=r"\[function\] stdout differs"):
        harness.assert_matches_python(shout, (1,))

    def raises(x):
        raise ValueError("no")

    with pytest.raises(AssertionError, match=r"\[function\] expected ValueError, got no exception"):
        harness.assert_matches_python(raises, (1,))
    harness.assert_matches_python(raises, (1,), graph_exceptions=False)


def test_input_id_is_compact():
    assert harness.input_id((3, -2)) == "3,-2"
    assert harness.input_id(([1, 2], True)) == "[1,2],True"


def test_run_captured_turns_a_hang_into_a_failure(monkeypatch):
    monkeypatch.setattr(harness, "TIMEOUT_SECONDS", 0.2)

    def forever():
        while True:
            pass

    assert harness.run_captured(forever).exception_type is harness.RunTimeout
