"""py_function and numpy_function (Python called when the op runs, eagerly, in graphs and in
tf.data maps), the ordering names (control_dependencies, group, no_op, init_scope) and
tf.config's devices and thread settings. Values are checked against TensorFlow 2.21 by the
programs of tests/tf_programs/api_additions.py; these tests check what those cannot: effects,
errors, gradients and what the runtime does with the ops."""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt
from runtime.backends.jit.regions import partition
from runtime.errors import AssertionFailedError, GradientError, InvalidArgumentError
from runtime.ops.program_order import control_dependencies, group, init_scope, no_op
from runtime.ops.python_function_ops import numpy_function, py_function


# -- py_function and numpy_function -------------------------------------------------------------


def test_the_function_runs_on_every_call_of_a_graph_even_when_its_result_is_unused():
    calls = []

    @rt.function
    def step(x):
        py_function(lambda v: calls.append(float(v)), [x], [])
        unused = numpy_function(lambda v: calls.append(-v) or v, [x], rt.float32)  # noqa: F841
        return x + 1.0

    for value in (1.0, 2.0):
        step(rt.constant(value))
    assert calls == [1.0, -1.0, 2.0, -2.0]  # in program order, on each call, never pruned


def test_the_function_is_called_eagerly_with_tensors_or_with_writable_copies():
    seen = []
    x = rt.constant([1.0, 2.0])

    def change_in_place(array):
        seen.append(type(array))
        array[0] = 100.0  # a copy: the caller's tensor keeps its value
        return array

    assert numpy_function(change_in_place, [x], rt.float32).numpy().tolist() == [100.0, 2.0]
    assert x.numpy().tolist() == [1.0, 2.0]
    py_function(lambda t: seen.append(rt.executing_eagerly()) or t, [x], rt.float32)
    traced = rt.function(lambda v: py_function(lambda t: seen.append(rt.executing_eagerly()) or t,
                                               [v], rt.float32))
    traced(x)
    assert seen == [np.ndarray, True, True]


def test_outputs_have_the_dtypes_tout_names_and_an_unknown_shape_in_graphs():
    @rt.function(input_signature=[rt.TensorSpec([None])])
    def f(x):
        a, b = py_function(lambda v: (v, np.float64(2.5)), [x], [rt.float32, rt.float64])
        assert a.shape is None and b.dtype == np.float64
        return a, b

    a, b = f(rt.constant([1.0]))
    assert a.numpy().tolist() == [1.0] and b.numpy() == 2.5
    # py_function casts NumPy arrays (as TensorFlow converts them); numpy_function does not
    assert py_function(lambda: np.arange(2), [], rt.float32).dtype == np.float32
    with pytest.raises(InvalidArgumentError, match="has dtype int64, but Tout says float32"):
        numpy_function(lambda: np.arange(2, dtype=np.int64), [], rt.float32)


def test_errors_name_the_function_and_keep_its_exception():
    def broken(x):
        raise KeyError("missing")

    with pytest.raises(InvalidArgumentError, match="py_function: .*broken raised KeyError") as info:
        py_function(broken, [1.0], rt.float32)
    assert isinstance(info.value.__cause__, KeyError)
    traced = rt.function(lambda x: numpy_function(broken, [x], rt.float32))
    with pytest.raises(InvalidArgumentError, match="numpy_function .*failed while running the "
                                                   "graph: .*broken raised KeyError"):
        traced(rt.constant(1.0))
    with pytest.raises(InvalidArgumentError, match="returned 1 value.*Tout names 2"):
        py_function(lambda x: x, [1.0], [rt.float32, rt.float32])
    with pytest.raises(TypeError, match="inp must be a list"):
        py_function(lambda x: x, rt.constant(1.0), rt.float32)
    with pytest.raises(TypeError, match="Tout must be a dtype"):
        py_function(lambda x: x, [1.0], None)


def test_py_function_has_no_gradient_and_numpy_functions_is_none_as_in_tensorflow():
    x = rt.constant(2.0)
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        through_py = py_function(lambda v: v * v, [x], rt.float32)
        through_numpy = numpy_function(lambda v: v * v, [x], rt.float32)
    with pytest.raises(GradientError, match="cannot flow back through the py_function op"):
        tape.gradient(through_py, x)
    with pytest.warns(rt.errors.GradientWarning, match="passes numpy_function"):
        assert tape.gradient(through_numpy, x) is None


def test_a_dataset_map_calls_the_function_per_element():
    ds = rt.data.Dataset.range(3).map(
        lambda i: py_function(lambda v: v * 10, [i], rt.int64)).batch(3)
    assert [batch.numpy().tolist() for batch in ds] == [[0, 10, 20]]


def test_graphs_holding_python_functions_are_not_saved_and_stay_on_the_numpy_plan(tmp_path):
    def f(x):
        numpy_function(print, [x], [])
        return py_function(lambda v: v, [x], rt.float32) * 2.0

    concrete = rt.function(f).get_concrete_function(rt.TensorSpec([3]))
    with pytest.raises(TypeError, match="cannot save the attribute 'func' of the numpy_function"):
        rt.save(concrete, str(tmp_path / "f"))
    refused = {node.op.name: reason for node, reason in partition(concrete.graph).refused}
    assert "effects" in refused["numpy_function"] and "py_function" in refused


# -- ordering --------------------------------------------------------------------------------------


def test_ordering_names_change_nothing_because_effects_already_run_in_order():
    v = rt.Variable(0.0)

    @rt.function
    def f(x):
        update = v.assign_add(x)
        rt.debugging.assert_less(x, 10.0)  # an effect nobody uses: it runs all the same
        with control_dependencies([update, no_op()]):
            doubled = v * 2.0
        assert group(update, doubled) is None
        return doubled

    assert float(f(rt.constant(1.0))) == 2.0 and float(f(rt.constant(2.0))) == 6.0
    with pytest.raises(AssertionFailedError, match="assert_less failed"):
        f(rt.constant(20.0))


def test_init_scope_runs_eagerly_inside_a_trace_and_refuses_the_traces_tensors():
    made = []

    @rt.function
    def f(x):
        with init_scope():
            made.append((rt.executing_eagerly(), rt.constant(2.0) * 3.0))
            with pytest.raises(ValueError, match="outside the function that traced it"):
                rt.identity(x)
        return x

    f(rt.constant(1.0))
    eager, value = made[0]
    assert eager and isinstance(value, rt.Tensor) and float(value) == 6.0


# -- devices and threads ---------------------------------------------------------------------------


def test_devices_are_the_cpu_and_thread_settings_are_remembered():
    config = rt.config
    assert config.list_physical_devices("TPU") == [] and config.get_visible_devices("GPU") == []
    config.set_visible_devices([], "GPU")
    config.set_visible_devices(config.list_physical_devices("CPU"))
    with pytest.raises(ValueError, match="cannot be hidden"):
        config.set_visible_devices([])
    with pytest.raises(ValueError, match="Cannot set memory growth"):
        config.set_memory_growth(config.list_physical_devices()[0], True)
    before = config.get_intra_op_parallelism_threads(), config.get_inter_op_parallelism_threads()
    try:
        config.set_intra_op_parallelism_threads(2)
        config.set_inter_op_parallelism_threads(3)
        assert (config.get_intra_op_parallelism_threads(),
                config.get_inter_op_parallelism_threads()) == (2, 3)
    finally:
        config.set_intra_op_parallelism_threads(before[0])
        config.set_inter_op_parallelism_threads(before[1])
