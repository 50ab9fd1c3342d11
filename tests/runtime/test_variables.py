"""``rt.Variable``: mutable state created outside functions, read and written by reference."""

import re

import numpy as np
import pytest

import runtime as rt


def test_variable_basics():
    variable = rt.Variable([1.0, 2.0], name="weights")
    assert variable.dtype == rt.float32 and variable.shape == (2,) and variable.name == "weights"
    np.testing.assert_array_equal(variable.numpy(), [1.0, 2.0])
    assert isinstance(variable.value(), rt.Tensor)
    np.testing.assert_array_equal(np.asarray(variable), [1.0, 2.0])
    assert repr(variable) == "<rt.Variable 'weights' shape=(2,) dtype=float32, numpy=[1. 2.]>"
    assert rt.Variable(1, dtype=rt.int64).dtype == rt.int64


def test_eager_assign_add_and_sub():
    variable = rt.Variable([1, 2])
    assert variable.assign([5, 6]) is variable
    variable.assign_add([1, 1])
    variable.assign_sub(rt.constant([2, 0]))
    np.testing.assert_array_equal(variable.numpy(), [4, 7])
    assert variable.dtype == rt.int32


def test_value_is_a_snapshot():
    variable = rt.Variable(1.0)
    before = variable.value()
    variable.assign(2.0)
    assert before.numpy() == 1.0 and variable.numpy() == 2.0


def test_python_scalars_take_the_variable_dtype():
    variable = rt.Variable(1.0)
    variable.assign(3)
    variable.assign_add(1)
    assert variable.dtype == rt.float32 and variable.numpy() == 4.0
    counter = rt.Variable(0, dtype=rt.int64)
    counter.assign_add(1)
    assert counter.numpy().dtype == np.int64


def test_assign_checks_dtype_and_shape():
    variable = rt.Variable([1, 2], name="counts")
    with pytest.raises(TypeError, match=re.escape(
            "cannot assign a float32 value to variable 'counts' of dtype int32; use rt.cast.")):
        variable.assign(rt.constant([1.5, 2.0]))
    with pytest.raises(TypeError, match=re.escape(
            "cannot convert [1.5, 2.0] to a tensor of dtype int32: Python floats do not become")):
        variable.assign([1.5, 2.0])
    with pytest.raises(TypeError, match="cannot assign a float64 array to variable 'counts' of "
                                        "dtype int32: it would truncate"):
        variable.assign(np.array([1.5, 2.0]))
    with pytest.raises(ValueError, match=re.escape(
            "cannot assign a value of shape (3,) to variable 'counts' of shape (2,).")):
        variable.assign([1, 2, 3])
    np.testing.assert_array_equal(variable.numpy(), [1, 2])


def test_assign_checks_apply_while_tracing():
    variable = rt.Variable([1, 2], name="counts")
    with pytest.raises(TypeError, match="cannot assign a float32 value"):
        rt.function(lambda x: variable.assign(x)).get_concrete_function(rt.TensorSpec([2]))
    with pytest.raises(ValueError, match=re.escape("cannot assign a value of shape (3,)")):
        rt.function(lambda x: variable.assign(x)).get_concrete_function(rt.TensorSpec([3], rt.int32))


def test_variable_created_on_every_trace_is_rejected():
    # TensorFlow's rule: the first trace may create variables; the function is then traced
    # again at once, and a variable created there too is not a singleton.
    @rt.function
    def f(x):
        return rt.Variable(1.0) + x
    with pytest.raises(ValueError, match=re.escape(
            "tf.function only supports singleton tf.Variables created on the first call")):
        f(rt.constant(1.0))


def test_variable_created_on_the_first_trace_is_lifted_out_of_the_graph():
    class Counter(rt.Module):
        def __init__(self):
            self.count = None
            self.traces = 0

        @rt.function
        def __call__(self, step):
            self.traces += 1
            if self.count is None:
                self.count = rt.Variable(rt.zeros([]) + 10.0)   # known now: computed at once
            return self.count.assign_add(step).value()

    counter = Counter()
    assert counter(rt.constant(1.0)).numpy() == 11.0
    assert counter(rt.constant(2.0)).numpy() == 13.0
    assert counter.traces == 2 and counter.__call__.experimental_get_tracing_count() == 1
    assert counter.count.numpy() == 13.0
    counter(rt.constant(3.0))  # same signature: no trace
    assert counter.traces == 2


def test_initial_value_from_the_arguments_is_set_by_the_first_graph():
    class Lazy(rt.Module):
        def __init__(self):
            self.v = None

        @rt.function
        def __call__(self, x):
            if self.v is None:
                self.v = rt.Variable(x * 2.0)          # known only when the graph runs
            return self.v * x

    lazy = Lazy()
    assert lazy(rt.constant(3.0)).numpy() == 18.0
    assert lazy.v.numpy() == 6.0
    assert lazy(rt.constant(4.0)).numpy() == 24.0    # the kept graph does not reassign
    np.testing.assert_array_equal(lazy(rt.constant([1.0, 2.0])).numpy(), [6.0, 12.0])


def test_variable_created_on_a_later_trace_is_rejected():
    made = []

    @rt.function
    def f(x):
        if x.shape == (2,):
            made.append(rt.Variable(1.0))
        return x + 1.0

    f(rt.constant(1.0))
    with pytest.raises(ValueError, match="Creating variables on a non-first call"):
        f(rt.constant([1.0, 2.0]))


def test_variable_inside_a_graph_built_outside_functions_is_rejected():
    from runtime import tracing
    from runtime.graph import Graph
    with pytest.raises(ValueError, match="created inside a graph being built outside rt.function"):
        with tracing.building(Graph("g")):
            rt.Variable(1.0)


def test_reads_see_assignments_made_between_calls_without_retracing():
    scale = rt.Variable(2.0)

    @rt.function
    def f(x):
        return x * scale

    assert f(rt.constant(3.0)).numpy() == 6.0
    scale.assign(10.0)
    assert f(rt.constant(3.0)).numpy() == 30.0
    assert f.tracing_count == 1


def test_writes_inside_a_graph_persist_across_calls():
    total = rt.Variable(0.0)

    @rt.function
    def accumulate(x):
        total.assign_add(x)
        return total.value()

    assert accumulate(rt.constant(1.5)).numpy() == 1.5
    assert accumulate(rt.constant(2.0)).numpy() == 3.5
    assert total.numpy() == 3.5
    assert accumulate.tracing_count == 1


def test_reads_before_and_after_a_write_in_one_graph():
    variable = rt.Variable(1)

    @rt.function
    def f():
        before = variable.value()
        variable.assign(before + 10)
        return before, variable.value()

    before, after = f()
    assert (int(before), int(after)) == (1, 11)
    before, after = f()
    assert (int(before), int(after)) == (11, 21)


def test_operators_and_ops_accept_variables(eager_and_graph):
    variable = rt.Variable([1.0, 2.0])
    eager, _ = eager_and_graph(lambda: (variable + 1, 2 * variable, variable[1], -variable,
                                        rt.add(variable, variable), rt.reduce_sum(variable),
                                        variable @ variable, variable > 1.5))
    np.testing.assert_array_equal(eager[0].numpy(), [2.0, 3.0])
    assert eager[2].numpy() == 2.0 and eager[5].numpy() == 3.0 and eager[6].numpy() == 5.0


def test_variable_as_a_loop_counter():
    steps = rt.Variable(0)

    @rt.function
    def f(n):
        def body(i):
            steps.assign_add(1)
            return (i + 1,)
        return rt.while_loop(lambda i: i < n, body, (0,))
    f(rt.constant(4))
    f(rt.constant(2))
    assert steps.numpy() == 6


def test_assigning_a_callers_array_in_a_graph_copies_it():
    variable = rt.Variable([0.0, 0.0])

    @rt.function
    def f(x):
        variable.assign(x)
        return variable.value()

    source = np.array([1.0, 2.0], np.float32)
    f(source)
    source[0] = 99.0
    np.testing.assert_array_equal(variable.numpy(), [1.0, 2.0])


def test_same_variable_in_two_functions():
    shared = rt.Variable(0)

    @rt.function
    def increment():
        shared.assign_add(1)

    @rt.function
    def read():
        return shared.value()

    increment()
    increment()
    assert int(read()) == 2
