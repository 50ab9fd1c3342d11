"""The cyclic collector is off while a function is converted and traced, and only then."""

import gc
import threading

import runtime as rt
import transpiler
from runtime.paused_collection import paused_collection


def test_the_collector_is_off_during_a_trace_and_back_on_after():
    seen = []

    def step(x):
        seen.append(gc.isenabled())  # runs while the function is traced
        return x * 2

    traced = transpiler.function(step)
    assert gc.isenabled()
    assert float(traced(rt.constant(2.0))) == 4.0
    assert seen == [False] and gc.isenabled()
    traced(rt.constant(3.0))  # a call of the traced graph: Python does not run
    assert seen == [False] and gc.isenabled()


def test_a_collector_the_program_disabled_stays_disabled():
    gc.disable()
    try:
        with paused_collection():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_failing_trace_turns_the_collector_back_on():
    def broken(x):
        raise KeyError("broken on purpose")

    traced = rt.function(broken)
    try:
        traced(rt.constant(1.0))
    except KeyError:
        pass
    assert gc.isenabled()


def test_overlapping_pauses_end_with_the_last_one():
    first_in, release = threading.Event(), threading.Event()

    def hold():
        with paused_collection():
            first_in.set()
            release.wait(5)

    thread = threading.Thread(target=hold)
    thread.start()
    first_in.wait(5)
    with paused_collection():
        assert not gc.isenabled()
    assert not gc.isenabled()  # the other thread still holds its pause
    release.set()
    thread.join()
    assert gc.isenabled()
