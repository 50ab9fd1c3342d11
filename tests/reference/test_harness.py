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


# ---- eager leg, dtypes, state, refusals, warnings (issue 9 extensions) ----------------------


def _real_like_api(convert=lambda f: f, function=lambda f: f) -> harness.Api:
    """A fake API that is not a stub (so required refusals are checked)."""
    return harness.Api(convert, function, lambda f: "<code>", harness._stub_to_tensor, stub=False)


def test_graph_result_must_have_the_eager_dtype(monkeypatch):
    def narrowing(fn):
        return lambda *args: np.int32(fn(*args))

    monkeypatch.setattr(harness, "load_api", lambda: _fake_api(function=narrowing))
    with pytest.raises(AssertionError, match=r"\[function vs eager\] result: eager gives 8 \(int64\)"):
        harness.assert_matches_python(lambda x: x + 1, (7,), dtype="int64")


def test_eager_leg_is_compared_with_python(monkeypatch):
    calls = []

    def wrong_on_tensors(fn):
        def converted(*args):
            calls.append(args)
            return fn(*args) + (1 if isinstance(args[0], np.generic) else 0)
        return converted

    monkeypatch.setattr(harness, "load_api", lambda: _fake_api(convert=wrong_on_tensors))
    with pytest.raises(AssertionError, match=r"\[eager\] result: expected 6 \(Python int\), got 7"):
        harness.assert_matches_python(lambda x: x * 2, (3,))
    assert any(isinstance(a[0], np.int32) for a in calls)


def test_int64_inputs_reach_the_graph_and_need_64_bit_precision(monkeypatch):
    seen = []

    def recording(fn):
        def run(*args):
            seen.append(args)
            return np.float32(fn(*args))  # a float32 detour
        return run

    monkeypatch.setattr(harness, "load_api", lambda: _fake_api(function=recording))
    with pytest.raises(AssertionError, match=r"\[function\] result: expected 1099511627777\.5"):
        harness.assert_matches_python(lambda x: x + 0.5, (2**40 + 1,), dtype="int64")
    assert seen[0][0].dtype == np.int64


def test_numpy_inputs_make_python_dtypes_the_reference():
    assert harness.numeric_differences(np.int64(3), np.int32(3), strict_dtypes=True)
    assert harness.numeric_differences(np.int64(3), np.int32(3)) == []
    assert harness.numeric_differences(0.1, np.float64(0.1 + 1e-9))
    assert harness.numeric_differences(0.1, np.float32(0.1)) == []
    assert harness.numeric_differences(1e-300, np.float64(0.0))


def test_state_is_compared_after_the_first_and_the_second_call(monkeypatch):
    box = {"n": 0}

    def bump(x):
        box["n"] += x
        return x

    def replays_first_state(fn):
        def run(*args):
            result = fn(*args)
            box["n"] = int(args[0])  # as if the graph wrote the first trace's value back
            return result
        return run

    state = harness.State(reset=lambda: box.update(n=0), read=lambda: box["n"])
    monkeypatch.setattr(harness, "load_api", lambda: _fake_api())
    harness.assert_matches_python(bump, (3,), state=state)
    monkeypatch.setattr(harness, "load_api", lambda: _fake_api(function=replays_first_state))
    with pytest.raises(AssertionError, match=r"\[function, second call\] state after the call: "
                                             r"expected 6 \(Python int\), got 3"):
        harness.assert_matches_python(bump, (3,), state=state)


def test_calls_are_compared_where_python_control_flow_runs(monkeypatch):
    calls = []

    def twice(fn):
        def run(*args):
            fn(*args)
            return fn(*args)
        return run

    def f(x):
        calls.append(1)
        return x

    state = harness.State(reset=calls.clear, read=lambda: 0, read_calls=lambda: len(calls))
    monkeypatch.setattr(harness, "load_api", lambda: _fake_api(function=twice))
    harness.assert_matches_python(f, (1,), state=state)  # a graph's helpers run per trace
    monkeypatch.setattr(harness, "load_api", lambda: _fake_api(convert=twice))
    with pytest.raises(AssertionError, match=r"\[convert\] calls made: expected 1, got 2"):
        harness.assert_matches_python(f, (1,), state=state)


def test_refusals(monkeypatch):
    def refusing(fn):
        def run(*args):
            raise TypeError("'y' is an int in one branch and a float in the other")
        return run

    def f(x):
        return 1 if x > 0 else 2.5

    monkeypatch.setattr(harness, "load_api", lambda: _real_like_api(function=refusing))
    harness.assert_matches_python(f, (3,), refusal=harness.Refusal(TypeError, r"\by\b.*float"))
    harness.assert_matches_python(
        f, (3,), refusal=harness.Refusal(TypeError, r"\by\b.*float", required=True))
    with pytest.raises(AssertionError, match=r"unexpected TypeError"):
        harness.assert_matches_python(f, (3,), refusal=harness.Refusal(TypeError, "other name"))
    monkeypatch.setattr(harness, "load_api", lambda: _real_like_api())
    with pytest.raises(AssertionError, match=r"\[function\] the graph must raise TypeError "
                                             r"matching 'y'; got the result 1"):
        harness.assert_matches_python(f, (3,), refusal=harness.Refusal(TypeError, "y", True))


def test_problem_kinds_separate_wrong_answers_from_errors(monkeypatch):
    def off_by_one(fn):
        return lambda *args: fn(*args) + 1

    def failing(fn):
        def run(*args):
            raise ValueError("cannot")
        return run

    monkeypatch.setattr(harness, "load_api", lambda: _fake_api(function=off_by_one))
    assert harness.compare_with_python(lambda x: x, (1,)).kinds() == {"wrong"}
    monkeypatch.setattr(harness, "load_api", lambda: _fake_api(function=failing))
    assert harness.compare_with_python(lambda x: x, (1,)).kinds() == {"error"}
    monkeypatch.setattr(harness, "load_api", lambda: _fake_api())
    assert harness.compare_with_python(lambda x: x, (1,)).problems == []


def test_runtime_warnings_of_a_leg_are_problems_unless_allowed(monkeypatch):
    import warnings

    def noisy(fn):
        def run(*args):
            warnings.warn("overflow encountered in multiply", RuntimeWarning)
            return fn(*args)
        return run

    monkeypatch.setattr(harness, "load_api", lambda: _fake_api(function=noisy))
    with pytest.raises(AssertionError, match=r"\[function\] RuntimeWarning 'overflow"):
        harness.assert_matches_python(lambda x: x, (1,))
    harness.assert_matches_python(lambda x: x, (1,), allowed_warnings="^overflow")


def test_other_warnings_are_shown_not_swallowed():
    import warnings

    def warns():
        warnings.warn("look at me", UserWarning)
        return 1

    with pytest.warns(UserWarning, match="look at me"):
        assert harness.run_captured(warns).result == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert harness.run_captured(warns, ignore=(UserWarning,)).result == 1


def test_a_second_trace_for_the_same_input_is_reported(monkeypatch):
    class Retracing:
        tracing_count = 2

        def __init__(self, fn):
            self.fn = fn

        def __call__(self, *args):
            return self.fn(*args)

    monkeypatch.setattr(harness, "load_api", lambda: _fake_api(function=Retracing))
    with pytest.raises(AssertionError, match=r"traced 2 times for one input"):
        harness.assert_matches_python(lambda x: x, (1,))
