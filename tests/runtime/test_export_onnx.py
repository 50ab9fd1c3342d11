"""rt.export.onnx end to end: the benchmark workloads, the examples, gradients, control flow,
symbolic dimensions, names, variables, effects and the errors that name the user's line."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("onnxruntime")

import runtime as rt  # noqa: E402
import transpiler  # noqa: E402
from runtime.errors import ExportError  # noqa: E402
from runtime.export import onnx_export  # noqa: E402
from tests.runtime.test_export_onnx_harness import (ROOT, assert_close,  # noqa: E402
                                                    export_and_compare, graph_results, op_types,
                                                    run_model, spec_of)

import benchmark  # noqa: E402  (examples/, put on sys.path by the harness)
import control_flow  # noqa: E402
import fizzbuzz  # noqa: E402
import gradients  # noqa: E402
import graphs_from_functions  # noqa: E402
import local_fit  # noqa: E402
import non_strict  # noqa: E402
import physics_kinematics  # noqa: E402
import polymorphism  # noqa: E402
import side_effects  # noqa: E402


def concrete(fn, *args, converted: bool = True):
    """The concrete function of ``fn`` for ``args`` (arrays become specs, others stay)."""
    wrap = (lambda f: transpiler.function(f, jit_compile=False)) if converted else rt.function
    function = fn if hasattr(fn, "get_concrete_function") else wrap(fn)
    return function.get_concrete_function(*[spec_of(a) if isinstance(a, np.ndarray) else a
                                            for a in args])


# -- the benchmark workloads ------------------------------------------------------------------

WORKLOADS = {w.key: w for w in benchmark.WORKLOADS if not w.training}


@pytest.mark.parametrize("key", sorted(WORKLOADS))
def test_every_benchmark_workload_without_effects_runs_in_onnx_runtime(key, tmp_path):
    workload = WORKLOADS[key]
    args = tuple(workload.arrays) + tuple(workload.python_args)
    model = export_and_compare(concrete(workload.source, *args), *args, tmp_path=tmp_path)
    assert os.path.getsize(tmp_path / "model.onnx") > 0
    if key == "W4":
        assert {"Loop", "If"} <= op_types(model)


def test_w7_gradients_of_the_cross_section_fit_export():
    """W7 without its Adam update: the chi-square and its gradients for F1 and F2."""
    model = local_fit.LocalFits(8)

    def chi2_and_gradients(phi, QQ, x_b, t, k, xs, errors):
        with rt.GradientTape() as tape:
            predicted = model(phi, QQ, x_b, t, k)
            chi2 = rt.reduce_mean(rt.square((predicted - xs) / errors))
        return chi2, tape.gradient(chi2, model.trainable_variables)

    data = benchmark.FIT_DATA
    args = (data.phi, *data.kinematics.values(), data.xs, data.errors)
    export_and_compare(concrete(chi2_and_gradients, *args), *args)


def test_w8_gradients_of_the_mlp_export():
    """W8 without its Adam update: the loss and the gradients of all six variables."""
    mlp = benchmark.MLP()

    def loss_and_gradients(x, labels):
        with rt.GradientTape() as tape:
            loss = rt.reduce_mean(rt.nn.softmax_cross_entropy_with_logits(labels, mlp(x)))
        return loss, tape.gradient(loss, mlp.trainable_variables)

    export_and_compare(concrete(loss_and_gradients, *benchmark._MLP_BATCH),
                       *benchmark._MLP_BATCH)


def test_a_training_step_that_assigns_variables_is_refused_with_the_line():
    step = benchmark.mlp_training_step()
    with pytest.raises(ExportError, match=r"assign_variable \(%\d+, created at \w+\.py:\d+\)"):
        onnx_export.export(concrete(step, *benchmark._MLP_BATCH), None)


# -- the examples -----------------------------------------------------------------------------

F32 = np.array([0.5, -2.0, 3.0], np.float32)
EXAMPLE_CALLS = {
    "control_flow.simple_relu": (control_flow.simple_relu, (np.array(-3.0, np.float32),)),
    "control_flow.my_function": (control_flow.my_function, (F32,)),
    "graphs_from_functions.outer_function": (graphs_from_functions.outer_function,
                                             (np.array([[1.0, 2.0]], np.float32),)),
    "graphs_from_functions.a_regular_function": (
        graphs_from_functions.a_regular_function,
        (np.array([[1.0, 2.0]], np.float32), np.array([[2.0], [3.0]], np.float32),
         np.array(4.0, np.float32))),
    "polymorphism.my_relu": (polymorphism.my_relu, (F32,)),
    "side_effects.get_MSE": (side_effects.get_MSE, (np.array([1, 2, 9], np.int32),
                                                    np.array([4, 2, 3], np.int32))),
    "non_strict.unused_return_graph": (non_strict.unused_return_graph,
                                       (np.array([0.0], np.float32),)),
    "physics_kinematics.cross_section": (physics_kinematics.cross_section, tuple(
        np.asarray(a, np.float32) for a in ([[0.0, 1.0, 2.0]], [[1.8]], [[0.34]], [[-0.17]],
                                            [[5.75]], [[0.9]], [[1.1]]))),
    "gradients.line_search_step": (gradients.line_search_step,
                                   (gradients.quartic, np.array([1.0, 2.0], np.float32))),
    "gradients.gradient_through_the_step": (gradients.gradient_through_the_step,
                                            (np.array([1.0, 2.0], np.float32),)),
    "gradients.grad_stable_log1pexp": (gradients.grad_stable_log1pexp,
                                       (np.array([100.0, 0.5], np.float32),)),
    "speedup.power": (benchmark.power, (np.eye(10, dtype=np.int32) * 2, 5)),
}


@pytest.mark.parametrize("name", sorted(EXAMPLE_CALLS))
def test_example_functions_run_in_onnx_runtime(name):
    fn, args = EXAMPLE_CALLS[name]
    export_and_compare(concrete(fn, *args), *args)


def test_fizzbuzz_exports_its_count_when_its_prints_are_dropped():
    n = np.array(15, np.int32)
    fizz = concrete(fizzbuzz.fizzbuzz, n)
    with pytest.raises(ExportError, match=r"print \(%\d+, created at fizzbuzz\.py:\d+\)"):
        onnx_export.export(fizz, None)
    model = rt.export.onnx(fizz, None, drop_effects=True)
    assert run_model(model, [np.array(15, np.int32)])[0] == 15
    assert run_model(model, [np.array(7, np.int32)])[0] == 7


# -- control flow -----------------------------------------------------------------------------


def test_while_loop_maximum_iterations_is_the_trip_count():
    def capped(x, limit):
        return rt.while_loop(lambda v: v < 1000, lambda v: v * 2, [x], maximum_iterations=limit)

    def fixed(x):
        return rt.while_loop(lambda v: v < 1000, lambda v: v * 2, [x], maximum_iterations=3)

    for limit in (0, 2, 20, -1):
        args = (np.array(3, np.int32), np.array(limit, np.int32))
        export_and_compare(concrete(capped, *args, converted=False), *args)
    five = np.array(5, np.int64)
    export_and_compare(concrete(fixed, five, converted=False), five)


def test_nested_loops_and_branches_with_captures():
    def nested(x, n):
        total = 0.0
        for i in range(n):
            j = 0
            while j < i:
                if rt.reduce_sum(x) > 0:
                    total += rt.reduce_sum(x * rt.cast(j, rt.float32))
                else:
                    total -= 1.0
                j += 1
        return total, x[::-1]

    for n in (0, 1, 4):
        args = (np.array([1.5, -0.5], np.float32), np.array(n, np.int32))
        export_and_compare(concrete(nested, *args), *args)


# -- signature: names, symbolic dims, initializers --------------------------------------------


def test_inputs_are_named_after_parameters_and_dims_stay_symbolic():
    def affine(points, scale):
        return points * scale + 1.0, rt.reduce_sum(points, axis=1)

    fn = concrete(affine, rt.TensorSpec([None, 3], rt.float32), rt.TensorSpec([], rt.float32))
    model = onnx_export.export(fn, None)
    inputs = {i.name: i for i in model.graph.input}
    assert list(inputs) == ["points", "scale"]
    dims = inputs["points"].type.tensor_type.shape.dim
    assert dims[0].dim_param and not dims[0].HasField("dim_value") and dims[1].dim_value == 3
    assert [o.name for o in model.graph.output] == ["output_0", "output_1"]
    for rows in (1, 4):
        points = np.arange(rows * 3, dtype=np.float32).reshape(rows, 3)
        assert_close(run_model(model, [points, np.array(2.0, np.float32)]),
                     graph_results(fn, (points, np.array(2.0, np.float32))))


def test_variables_and_constants_become_initializers():
    weights = rt.Variable(np.arange(6, dtype=np.float64).reshape(3, 2), name="weights")

    def project(x):
        return rt.matmul(x, weights) + rt.constant([1.0, 2.0], rt.float64)

    fn = concrete(project, np.ones((4, 3)))
    model = export_and_compare(fn, np.ones((4, 3)))
    assert "weights" in {i.name for i in model.graph.initializer}
    assert [i.name for i in model.graph.input] == ["x"]


# -- effects ----------------------------------------------------------------------------------


def test_print_is_refused_with_the_users_line_or_dropped_when_asked():
    def logged(x):
        rt.print("x is", x)
        return x * 2

    line = logged.__code__.co_firstlineno + 1
    fn = concrete(logged, F32, converted=False)
    with pytest.raises(ExportError) as raised:
        onnx_export.export(fn, None)
    message = str(raised.value)
    assert f"test_export_onnx.py:{line}" in message and "print" in message
    assert "drop_effects=True" in message
    export_and_compare(fn, F32, drop_effects=True)


def test_dropped_assignments_are_still_seen_by_later_reads():
    state = rt.Variable(np.array([1.0, 2.0], np.float32))

    def step(x):
        state.assign_add(x)
        after = state.value() * 2
        state.assign(after)
        return state.value() + 1

    fn = concrete(step, np.ones(2, np.float32), converted=False)
    before = state.numpy().copy()
    model = rt.export.onnx(fn, None, drop_effects=True)
    assert_close(run_model(model, [np.array([3.0, 4.0], np.float32)]),
                 [(before + np.array([3.0, 4.0], np.float32)) * 2 + 1])


def test_random_draws_are_refused_naming_the_op_and_line():
    def noisy(x):
        return x + rt.random.normal([3])

    with pytest.raises(ExportError, match=r"random_normal \(%\d+, created at test_export_onnx\.py:"
                                          r"\d+\) cannot be exported to ONNX: draws come from"):
        onnx_export.export(concrete(noisy, F32, converted=False), None)


# -- options and the optional extra -----------------------------------------------------------


def test_opset_is_checked_and_the_newest_works():
    import onnx
    fn = concrete(control_flow.my_function, F32)
    with pytest.raises(ValueError, match="opset must be an int from 18"):
        onnx_export.export(fn, None, opset=11)
    newest = onnx.defs.onnx_opset_version()
    model = onnx_export.export(fn, None, opset=newest)
    assert model.opset_import[0].version == newest
    assert_close(run_model(model, [F32]), graph_results(fn, (F32,)))


def test_the_seam_writes_the_file(tmp_path):
    path = tmp_path / "f.onnx"
    rt.export.onnx(concrete(control_flow.my_function, F32), str(path))
    import onnx
    onnx.checker.check_model(onnx.load(str(path)), full_check=True)


def _python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)


def test_without_onnx_the_error_says_how_to_install_it():
    completed = _python(
        "import sys; sys.modules['onnx'] = None\n"
        "import runtime as rt\n"
        "assert 'onnx' not in {m for m in sys.modules if sys.modules[m] is not None}\n"
        "f = rt.function(lambda x: x + 1).get_concrete_function(rt.TensorSpec([], rt.float32))\n"
        "try:\n    rt.export.onnx(f, 'never.onnx')\n"
        "except ImportError as error:\n    print(error)\n")
    assert completed.returncode == 0, completed.stderr
    assert 'pip install "eager2graph[onnx]"' in completed.stdout


def test_import_runtime_does_not_import_onnx():
    completed = _python("import sys, runtime\nprint(sorted(m for m in sys.modules "
                        "if m.split('.')[0] in ('onnx', 'onnxruntime')))")
    assert completed.returncode == 0 and completed.stdout.strip() == "[]", completed.stderr


def test_error_messages_are_full_sentences():
    def noisy(x):
        return x + rt.random.uniform([3])

    with pytest.raises(ExportError) as raised:
        onnx_export.export(concrete(noisy, F32, converted=False), None)
    assert re.fullmatch(r"[a-z_]+ \(.*\) cannot be exported to ONNX: .+\.", str(raised.value))


def test_an_assertion_at_the_top_makes_the_model_fail_with_its_message():
    import onnxruntime as ort

    def checked(x):
        rt.assert_(rt.reduce_all(x > 0), "x must be positive")
        return rt.sqrt(x)

    model = export_and_compare(concrete(checked, F32 * 0 + 2, converted=False), F32 * 0 + 2)
    with pytest.raises(ort.capi.onnxruntime_pybind11_state.InvalidArgument,
                       match="x must be positive"):
        run_model(model, [F32])

    def checked_in_a_branch(x):
        return rt.cond(rt.reduce_sum(x) > 0, lambda: x, lambda: (rt.assert_(False, "no"), x)[1])

    with pytest.raises(ExportError, match="assertion inside a conditional"):
        onnx_export.export(concrete(checked_in_a_branch, F32, converted=False), None)


def test_an_output_of_unknown_rank_is_refused():
    def reshaped(x, shape):
        return rt.reshape(x, shape)

    fn = rt.function(reshaped).get_concrete_function(rt.TensorSpec([6], rt.float32),
                                                     rt.TensorSpec([None], rt.int64))
    with pytest.raises(ExportError, match="output 0 of reshaped has a rank unknown"):
        onnx_export.export(fn, None)


def test_a_list_grown_in_a_converted_loop_exports():
    def squares(x, n):
        values = []
        for i in range(n):
            values.append(x * rt.cast(i, rt.float32))
        return rt.stack(values)

    fn = concrete(squares, rt.TensorSpec([2], rt.float32), rt.TensorSpec([], rt.int32))
    model = onnx_export.export(fn, None)
    x = np.array([1.0, -3.0], np.float32)
    for n in (1, 4):
        assert_close(run_model(model, [x, np.array(n, np.int32)]),
                     graph_results(fn, (x, np.array(n, np.int32))))
