"""rt.export.jax on real programs: the example functions, the benchmark workloads W1-W8 (W7 and
W8 as their gradient computations: assigning variables does not export) and random programs of
the two program generators, each exported, jitted, run and compared with the graph.
"""

from __future__ import annotations

import pytest

jax = pytest.importorskip("jax")

import os  # noqa: E402
import sys  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402
from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import runtime as rt  # noqa: E402
import transpiler  # noqa: E402
from tests.runtime.graph_helpers import PROGRAMS, random_program  # noqa: E402
from tests.runtime.test_export_jax import assert_same  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = os.path.join(ROOT, "examples")
if EXAMPLES not in sys.path:
    sys.path.insert(0, EXAMPLES)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import benchmark  # noqa: E402


@pytest.fixture(autouse=True, scope="module")
def x64():
    previous = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    yield
    jax.config.update("jax_enable_x64", previous)


def compare(fn, *args, rtol: float = 1e-5):
    """Exports ``fn`` (a traced function) for ``args``, runs it jitted, compares."""
    concrete = fn.get_concrete_function(*args)
    exported = jax.jit(rt.export.jax(concrete))
    tensors = [a for a in args if isinstance(a, (np.ndarray, np.generic, rt.Tensor, list))]
    assert_same(concrete(*args), exported(*(np.asarray(a) if isinstance(a, rt.Tensor) else a
                                            for a in tensors)), rtol)


# -- benchmark workloads -------------------------------------------------------------------


@pytest.mark.parametrize("key", ["W1", "W2", "W3", "W4", "W5", "W6"])
def test_benchmark_workloads_export(key):
    workload = next(w for w in benchmark.WORKLOADS if w.key == key)
    compare(transpiler.function(workload.source), *workload.arrays, *workload.python_args,
            rtol=1e-4)


def test_training_workloads_export_their_gradients():
    data = benchmark.FIT_DATA
    fits = benchmark.LocalFits(data.sets)

    @transpiler.function
    def fit_gradients(phi, QQ, x_b, t, k, xs, errors):
        with rt.GradientTape() as tape:
            chi2 = rt.reduce_mean(rt.square((fits(phi, QQ, x_b, t, k) - xs) / errors))
        return chi2, tape.gradient(chi2, fits.trainable_variables)
    compare(fit_gradients, *benchmark.WORKLOADS[6].arrays, rtol=1e-4)

    mlp = benchmark.MLP()

    @transpiler.function
    def mlp_gradients(x, labels):
        with rt.GradientTape() as tape:
            logits = mlp(x)
            loss = rt.reduce_mean(rt.nn.softmax_cross_entropy_with_logits(labels, logits))
        return loss, tape.gradient(loss, mlp.trainable_variables)
    compare(mlp_gradients, *benchmark.WORKLOADS[7].arrays, rtol=1e-4)


# -- the examples --------------------------------------------------------------------------


def test_example_functions_export(capfd):
    import control_flow
    import fizzbuzz
    import gradients
    import graphs_from_functions
    import non_strict
    import physics_kinematics
    import polymorphism
    import side_effects
    import speedup

    scalar = np.array(3.0, np.float32)
    compare(transpiler.function(control_flow.simple_relu), scalar)
    compare(transpiler.function(control_flow.my_function), np.array([0.5, 2.0], np.float32))
    compare(graphs_from_functions.outer_function, np.array([[1.0, 2.0]], np.float32))
    compare(non_strict.unused_return_graph, np.array([1.0], np.float32))
    compare(polymorphism.my_relu, np.array([3.0, -1.0], np.float32))
    compare(transpiler.function(gradients.quartic), np.array([0.5, 2.0], np.float32))
    with np.errstate(over="ignore", invalid="ignore"):  # the seed's point: exp(100) overflows
        compare(transpiler.function(gradients.grad_log1pexp), np.array([1.0, 100.0], np.float32))
        compare(transpiler.function(gradients.stable_log1pexp), np.array([1.0, 100.0], np.float32))
    y_true, y_pred = np.array([1, 5, 7], np.int32), np.array([2, 2, 9], np.int32)
    compare(side_effects.get_MSE, y_true, y_pred)
    compare(speedup.power if hasattr(speedup.power, "get_concrete_function")
            else transpiler.function(speedup.power), np.eye(10, dtype=np.int32) * 2, 5)
    kinematics = physics_kinematics.as_tensors(physics_kinematics.kinematic_sets(3)[0])
    compare(transpiler.function(physics_kinematics.cross_section),
            *(k.numpy() for k in kinematics), rtol=1e-4)

    fizz = transpiler.function(fizzbuzz.fizzbuzz)
    capfd.readouterr()
    fizz(np.array(15, np.int32))
    printed = capfd.readouterr().out
    exported = jax.jit(rt.export.jax(fizz.get_concrete_function(np.array(15, np.int32))))
    assert int(exported(np.int32(15))) == 15
    jax.effects_barrier()
    assert capfd.readouterr().out == printed


# -- random programs -----------------------------------------------------------------------

_EXPORTABLE_STEPS = PROGRAMS.filter(
    lambda program: not any(step[0] in ("random", "variable") for step in program[1]))


@settings(max_examples=12, derandomize=True, database=None, deadline=None,
          phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck))
@given(program=_EXPORTABLE_STEPS, n=st.integers(0, 3))
def test_random_runtime_programs_export(program, n):
    dtype_name, steps = program
    built = random_program(dtype_name, steps)
    concrete = built.trace()
    x = np.array([1, -2, 3], built.dtype)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        expected = concrete(x, np.int32(n))
        actual = jax.jit(rt.export.jax(concrete))(x, np.int32(n))
        jax.effects_barrier()
    assert_same(expected, actual, rtol=1e-5)


def test_random_transpiled_programs_export(tmp_path):
    from tests.reference import fuzzing, harness, program_gen
    from tests.reference.program_gen import FEATURES, FLOAT64, INT32, INT64

    checked = 0
    for mode, count in ((INT32, 2), (INT64, 2), (FLOAT64, 2)):
        features = FEATURES.with_(prints=False)

        @settings(max_examples=count, derandomize=True, database=None, deadline=None,
                  phases=[Phase.generate], suppress_health_check=list(HealthCheck))
        @given(source=program_gen.programs(mode, features),
               inputs=st.tuples(program_gen.arguments(mode), program_gen.arguments(mode)))
        def check(source, inputs):
            nonlocal checked
            module = fuzzing.load_program(source, tmp_path)
            try:
                fn = transpiler.function(module.f)
                dtype = getattr(rt, mode.dtype)
                args = [np.asarray(rt.constant(v, dtype).numpy()) for v in inputs]
                graph = harness.run_captured(fn, *args)
                if graph.exception_type is not None:
                    return
                exported = jax.jit(rt.export.jax(fn.get_concrete_function(*args)))
                assert_same(graph.result, exported(*args))
                checked += 1
            finally:
                fuzzing.unload_program(module)
        check()
    assert checked >= 3, f"only {checked} programs ran in the graph"
