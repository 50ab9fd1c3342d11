"""Each variable update is atomic across threads, eagerly and in graphs: concurrent adds
never lose an update, and an assign never lands between the read and the write of an add."""

import sys
import threading

import pytest

import runtime as rt

THREADS, ADDS = 8, 500


@pytest.fixture(autouse=True)
def frequent_thread_switches():
    """Switch threads as often as the interpreter allows, so a race shows up at once."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(interval)


def run_in_threads(work) -> None:
    threads = [threading.Thread(target=work) for _ in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def test_eager_assign_add_loses_no_update():
    counter = rt.Variable(0)

    def work():
        for _ in range(ADDS):
            counter.assign_add(1)
    run_in_threads(work)
    assert int(counter.numpy()) == THREADS * ADDS


def test_eager_assign_sub_loses_no_update():
    counter = rt.Variable([0.0, 0.0])

    def work():
        for _ in range(ADDS):
            counter.assign_sub([1.0, 2.0])
    run_in_threads(work)
    assert counter.numpy().tolist() == [-THREADS * ADDS, -2 * THREADS * ADDS]


@pytest.mark.parametrize("make", [rt.function, __import__("transpiler").function])
def test_assign_add_in_a_graph_loses_no_update(make):
    counter = rt.Variable(0)

    # The NumPy plan: the compiled tier's guarantee is its own (see the README).
    @make(jit_compile=False)
    def step(delta):
        counter.assign_add(delta)

    step(rt.constant(0))

    def work():
        for _ in range(ADDS):
            step(rt.constant(1))
    run_in_threads(work)
    assert int(counter.numpy()) == THREADS * ADDS


def test_an_assign_is_never_lost_inside_a_concurrent_add():
    counter = rt.Variable(0)
    stop = threading.Event()

    def adder():
        while not stop.is_set():
            counter.assign_add(0)  # rewrites the value it read

    thread = threading.Thread(target=adder)
    thread.start()
    try:
        for value in range(1, 300):
            counter.assign(value)
            assert int(counter.numpy()) == value
    finally:
        stop.set()
        thread.join()
