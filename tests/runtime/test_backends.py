"""A concrete function runs its graph through a backend: the NumPy plan by default, or any
object with ``compile(graph, name)`` returning an executable (``run``, ``translate_error``,
``source``)."""

import numpy as np
import pytest

import runtime as rt
from runtime.backends import NUMPY
from runtime.concrete_function import ConcreteFunction
from runtime.errors import InvalidArgumentError
from runtime.executor import Plan


class CountingExecutable:
    """Runs the NumPy plan and counts the calls and the errors it translated."""

    def __init__(self, graph, name):
        self.plan = Plan(graph, name)
        self.source = "counting: " + self.plan.source
        self.calls = self.translated = 0

    def run(self, *arrays):
        self.calls += 1
        return self.plan.run(*arrays)

    def translate_error(self, error):
        self.translated += 1
        return self.plan.translate_error(error)


class CountingBackend:
    name = "counting"

    def __init__(self):
        self.compiled = []

    def compile(self, graph, name):
        self.compiled.append(name)
        return CountingExecutable(graph, name)


def on_backend(concrete, backend):
    """The same trace as ``concrete``, compiled by ``backend``."""
    return ConcreteFunction(concrete.name, concrete.graph, concrete.key, concrete.param_names,
                            concrete.structured_outputs, concrete._bind, concrete.pass_records,
                            backend=backend)


def scaled(x, k):
    return rt.reduce_sum(x * k), x - 1


def test_the_default_backend_is_the_numpy_plan():
    concrete = rt.function(scaled).get_concrete_function(rt.TensorSpec([3], rt.float32), 2.0)
    assert concrete.backend is NUMPY
    assert isinstance(concrete.executable, Plan)
    assert concrete.plan_source == concrete.executable.source
    assert concrete.plan_source.startswith("def plan_scaled(")


def test_calls_go_through_the_backend_and_give_the_same_results():
    concrete = rt.function(scaled).get_concrete_function(rt.TensorSpec([3], rt.float32), 2.0)
    backend = CountingBackend()
    other = on_backend(concrete, backend)
    x = np.array([1.0, 2.0, 3.0], np.float32)
    for got, expected in zip(other(x, 2.0), concrete(x, 2.0)):
        np.testing.assert_array_equal(got.numpy(), expected.numpy())
    assert backend.compiled == [concrete.name] and other.executable.calls == 1
    assert other.plan_source.startswith("counting: def plan_scaled(")
    assert other.fast_entry((x, 2.0))[1].numpy().tolist() == [0.0, 1.0, 2.0]
    assert other.executable.calls == 2


def test_run_time_errors_are_translated_by_the_backend():
    concrete = rt.function(lambda x, i: rt.gather(x, i)).get_concrete_function(
        rt.TensorSpec([3], rt.float32), rt.TensorSpec([], rt.int32))
    other = on_backend(concrete, CountingBackend())
    with pytest.raises(InvalidArgumentError, match=r"^gather \(node %\d+\) failed"):
        other(np.zeros(3, np.float32), np.int32(7))
    assert other.executable.translated == 1
