"""rt.load(..., max_loop_iterations=..., loop_time_limit=...): a loaded graph whose loop never
ends is stopped with LoopLimitError, in the main thread or a worker, and stays stoppable when
the compiled tier would otherwise take it over."""

import threading
import time

import numpy as np
import pytest

import runtime as rt
from runtime.backends.jit import available as jit_available

LoopLimitError = rt.errors.LoopLimitError


def forever(x):
    """Never ends: float32 stops growing at 2**24, and the condition holds for every value."""
    return rt.while_loop(lambda v: v >= 0.0, lambda v: v + 1.0, [x])


def counting(n):
    return rt.while_loop(lambda i: i < n, lambda i: i + 1, [0])


def nested(n):
    def outer(i, total):
        inner = rt.while_loop(lambda j, t: j < n, lambda j, t: [j + 1, t + 1], [0, total])
        return [i + 1, inner[1]]
    return rt.while_loop(lambda i, total: i < n, outer, [0, 0])[1]


def saved(tmp_path, fn, dtype) -> str:
    path = str(tmp_path / "model.e2g")
    rt.save(rt.function(fn).get_concrete_function(rt.TensorSpec([], dtype)), path)
    return path


def test_a_loop_that_never_ends_stops_after_the_iteration_limit(tmp_path):
    loaded = rt.load(saved(tmp_path, forever, rt.float32), max_loop_iterations=1000)
    with pytest.raises(LoopLimitError, match=r"the while_loop %\d+ was stopped: this call ran 1000 "
                                             r"loop iterations.*max_loop_iterations=1000 of "
                                             r"rt.load.*load it with a larger "
                                             r"max_loop_iterations\.\n  The loop was created at "
                                             r'File ".*test_saved_graph_hostile_loops.py"'):
        loaded(np.float32(0.0))


def test_a_loop_within_the_limits_runs_to_its_end(tmp_path):
    loaded = rt.load(saved(tmp_path, counting, rt.int32), max_loop_iterations=100,
                     loop_time_limit=60.0)
    assert loaded(np.int32(100))[0].numpy() == 100
    with pytest.raises(LoopLimitError):
        loaded(np.int32(101))
    assert loaded(np.int32(7))[0].numpy() == 7  # each call has its own budget


def test_the_budget_counts_the_iterations_of_all_loops_of_a_call(tmp_path):
    loaded = rt.load(saved(tmp_path, nested, rt.int32), max_loop_iterations=110)
    assert loaded(np.int32(10)).numpy() == 100  # 10 outer + 100 inner iterations
    with pytest.raises(LoopLimitError, match="ran 110 loop iterations"):
        loaded(np.int32(11))


def test_a_worker_thread_running_a_loop_that_never_ends_is_stopped_by_the_time_limit(tmp_path):
    loaded = rt.load(saved(tmp_path, forever, rt.float32), loop_time_limit=0.2)
    outcome = []

    def work():
        try:
            loaded(np.float32(0.0))
        except LoopLimitError as error:
            outcome.append(error)
    worker = threading.Thread(target=work, daemon=True)
    start = time.monotonic()
    worker.start()
    worker.join(timeout=30)
    assert not worker.is_alive() and len(outcome) == 1
    assert time.monotonic() - start < 10
    assert "ran for 0.2 seconds, the limit it was loaded with (loop_time_limit=0.2" \
        in str(outcome[0])


def test_without_limits_no_check_is_compiled(tmp_path):
    path = saved(tmp_path, counting, rt.int32)
    assert "budget" not in rt.load(path).plan_source
    assert "budget -= 1" in rt.load(path, max_loop_iterations=5).plan_source


@pytest.mark.skipif(not jit_available(), reason="the compiled tier is not installed")
def test_a_function_with_a_limit_stays_on_the_plan_that_checks_it(tmp_path):
    rt.config.set_jit_auto_compile(2)  # the conftest restores the setting
    loaded = rt.load(saved(tmp_path, counting, rt.int32), max_loop_iterations=1000)
    for _ in range(5):
        with pytest.raises(LoopLimitError):
            loaded(np.int32(100_000))
    assert loaded.wait_for_jit(timeout=60)
    with pytest.raises(LoopLimitError):
        loaded(np.int32(100_000))
    assert "NumPy plan" in loaded.jit_report


@pytest.mark.parametrize("options, message", [
    ({"max_loop_iterations": -1}, "max_loop_iterations must be a non-negative int or None"),
    ({"max_loop_iterations": 1.5}, "max_loop_iterations must be a non-negative int or None"),
    ({"loop_time_limit": 0}, "loop_time_limit must be a positive number of seconds or None"),
    ({"loop_time_limit": float("inf")}, "loop_time_limit must be a positive number of seconds"),
])
def test_limits_are_checked(tmp_path, options, message):
    with pytest.raises(ValueError, match=message):
        rt.load(saved(tmp_path, counting, rt.int32), **options)
