"""A long-lived process: once the user drops a function or an object, its conversions, graphs
and records are collectable, and re-running the same cell keeps the caches bounded."""

import gc
import linecache
import weakref

import numpy as np
import pytest

import runtime as rt
import transpiler
from runtime import retracing
from transpiler import api

# Creating functions in a loop is what these tests do on purpose.
pytestmark = pytest.mark.filterwarnings("ignore::runtime.errors.RetracingWarning")


@pytest.fixture(autouse=True)
def frozen_heap():
    """Objects from before the test are frozen (``gc.freeze``), so that ``collect`` walks
    only what the test created: late in a full run a collection of the whole heap takes about
    a second. Frozen objects are never freed, so this can only keep more alive: what must be
    collectable is created by the test itself."""
    gc.freeze()
    yield
    gc.unfreeze()


def collect() -> None:
    """Two rounds: a dead converted module is freed in the round after the one freeing its
    functions."""
    gc.collect()
    gc.collect()


class Big:
    def __init__(self):
        self.data = np.ones(1000)


def decorated_lambda(big):
    return transpiler.function(lambda x: x + big.data[0])


def test_a_dropped_lambda_frees_what_it_captured():
    refs = []
    for _ in range(50):
        big = Big()
        refs.append(weakref.ref(big))
        fn = decorated_lambda(big)
        assert fn(rt.constant(1.0)).numpy() == 2.0
        del fn, big
    collect()
    assert sum(ref() is not None for ref in refs) == 0


class Model:
    def __init__(self):
        self.scale = rt.Variable(2.0)

    @transpiler.function
    def step(self, x):
        if x > 0:
            x = x * self.scale
        return x


def test_instances_that_called_a_method_are_collectable():
    refs = []
    for _ in range(20):
        model = Model()
        refs.append(weakref.ref(model))
        assert model.step(rt.constant(3.0)).numpy() == 6.0
        del model
    collect()
    assert sum(ref() is not None for ref in refs) == 0
    assert Model.step._methods == {}


def test_a_bound_method_keeps_its_instance_like_python_does():
    step = Model().step
    collect()
    assert step(rt.constant(1.0)).numpy() == 2.0
    assert step.tracing_count == 1


def test_each_instance_has_its_own_traces():
    first, second = Model(), Model()
    second.scale.assign(5.0)
    assert first.step(rt.constant(1.0)).numpy() == 2.0
    assert second.step(rt.constant(1.0)).numpy() == 5.0
    assert first.step is not second.step and first.step.__self__ is first


def run_cell(number: int, body: str):
    """What a notebook does: compile the cell under a pseudo file name and run it."""
    source = f"def cell(x):\n    if x > 0:\n        x = x - {body}\n    return x\n"
    filename = f"<cell-{number}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"__name__": "notebook"}
    exec(compile(source, filename, "exec"), namespace)
    fn = transpiler.function(namespace["cell"])
    assert fn(rt.constant(5.0)).numpy() == 5.0 - float(body)
    del linecache.cache[filename]


def converted_entries() -> int:
    return sum(name.startswith("<eager2graph converted") for name in linecache.cache)


def plan_entries() -> int:
    return sum(name.startswith("<eager2graph plan") for name in linecache.cache)


def test_running_a_cell_again_and_again_stays_bounded():
    collect()
    before = (converted_entries(), plan_entries(), len(api._by_code), len(retracing._detectors))
    for number in range(200):
        run_cell(number, str(number % 7))
    collect()
    after = (converted_entries(), plan_entries(), len(api._by_code), len(retracing._detectors))
    assert all(a - b <= 2 for a, b in zip(after, before)), (before, after)


def test_a_converted_function_of_a_wrapper_is_its_own():
    import functools

    def inner(x):
        return x + 1

    @functools.wraps(inner)
    def outer(x):
        return inner(x) * 10

    transpiler.convert(inner)
    assert transpiler.convert(outer)(1) == 20
