"""What lets the compiled tier fuse a training step into few kernels, through the public API:
variable reads forwarded from assignments, composite ops written as primitives, reshapes and
transposes as views, and neighbouring regions merged. Each must leave results exactly those
of the NumPy plan (integers bit for bit, floats to 1e-6 of the largest magnitude) and
variables holding the same values after every call.
"""

from __future__ import annotations

import pytest

pytest.importorskip("numba")

import threading  # noqa: E402

import numpy as np  # noqa: E402

import runtime as rt  # noqa: E402
import transpiler  # noqa: E402
from runtime.backends.jit import codegen, merging  # noqa: E402
from runtime.backends.jit.numpy_blas import numpy_gemm  # noqa: E402
from tests.runtime.jit_helpers import (Both, assert_same, compiled_ops, counts,  # noqa: E402
                                       left_on_plan, on_both, report_of)


def twin_variables(*initial_values):
    """Two sets of variables with the same values: one for the plan, one for the tier."""
    return ([rt.Variable(np.array(v)) for v in initial_values],
            [rt.Variable(np.array(v)) for v in initial_values])


def run_both(make_step, variables_plan, variables_jit, args, calls: int = 3):
    """Calls the step made over each set of variables ``calls`` times on its backend;
    checks results and the variables' values after every call. Returns the jit function."""
    plan_fn = transpiler.function(make_step(variables_plan), jit_compile=False)
    jit_fn = transpiler.function(make_step(variables_jit), jit_compile=True)
    for call in range(calls):
        assert_same(plan_fn(*args), jit_fn(*args), f"call {call}")
        for p, j in zip(variables_plan, variables_jit):
            assert_same(p.value(), j.value(), f"variable {p.name} after call {call}")
    return jit_fn


# --------------------------------------------------------------------------------------------
# Variables: reads after assignments, assign_add and assign_sub


def adam_like(variables):
    w, m, v = variables

    def step(g):
        m.assign_add((g - m) * 0.1)
        v.assign_add((g * g - v) * 0.001)
        w.assign_sub(m * 0.01 / (rt.sqrt(v) + 1e-7))
        return rt.reduce_sum(w * g)
    return step


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_an_optimizer_update_reads_what_it_assigned_and_runs_in_one_kernel(dtype):
    rng = np.random.default_rng(1)
    values = [rng.standard_normal((8, 5)).astype(dtype) for _ in range(2)] + \
        [np.abs(rng.standard_normal((8, 5))).astype(dtype)]
    plan_vars, jit_vars = twin_variables(*values)
    g = rng.standard_normal((8, 5)).astype(dtype)
    fn = run_both(adam_like, plan_vars, jit_vars, (g,))
    report = report_of(fn, g)
    assert counts(report) == (1, 1), report
    # Only the variables' reads and plain assignments stay on the plan.
    left = " ".join(left_on_plan(report))
    assert "add" not in left.replace("read_variable", "").replace("assign_variable", ""), report


def test_integer_assign_add_wraps_around_as_on_the_plan():
    big = np.iinfo(np.int64).max - 2
    plan_vars, jit_vars = twin_variables(np.full(6, big, np.int64), np.arange(6, dtype=np.int64))

    def make(variables):
        total, seen = variables

        def step(x):
            total.assign_add(x * 3)
            seen.assign_sub(x)
            return total.value() + seen.value() * 2
        return step
    x = np.arange(6, dtype=np.int64) - 2
    run_both(make, plan_vars, jit_vars, (x,), calls=4)


def test_a_read_after_an_assignment_in_a_branch_reads_the_variable():
    plan_vars, jit_vars = twin_variables(np.zeros(4), np.ones(4))

    def make(variables):
        a, b = variables

        def step(x, flag):
            a.assign(x * 2.0)
            if flag > 0:
                a.assign_add(b * 3.0)   # the branch may change a: the read below must see it
            return a.value() * x + b.value()
        return step
    x = np.arange(4.0)
    for flag in (np.int32(1), np.int32(0)):
        run_both(make, plan_vars, jit_vars, (x, flag), calls=2)


def test_assignments_inside_a_loop_body_are_forwarded_there():
    plan_vars, jit_vars = twin_variables(np.zeros(3), np.zeros(()))

    def make(variables):
        acc, count = variables

        def step(x, n):
            for i in rt.range(n):
                acc.assign_add(x * rt.cast(i, rt.float64))
                count.assign_add(1.0)
                acc.assign(acc.value() / (count.value() + 1.0))
            return acc.value()
        return step
    run_both(make, plan_vars, jit_vars, (np.array([1.0, -2.0, 0.5]), np.int32(5)))


def test_an_assignment_of_another_shape_still_fails_as_on_the_plan():
    signature = [rt.TensorSpec([None], rt.float64)]
    for jit in (False, True):
        v = rt.Variable(np.zeros(3))
        fn = rt.function(lambda d: v.assign_add(d) and v.value() * 2.0, jit_compile=jit,
                         input_signature=signature)
        np.testing.assert_array_equal(fn(np.ones(3)).numpy(), np.full(3, 2.0))
        with pytest.raises(ValueError, match="shape"):
            fn(np.ones(2))
        np.testing.assert_array_equal(v.numpy(), np.ones(3))  # nothing stored


# --------------------------------------------------------------------------------------------
# Composite ops written as primitives


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_softmax_log_softmax_and_cross_entropy(dtype, axis):
    rng = np.random.default_rng(2)
    logits = (rng.standard_normal((6, 7)) * 4).astype(dtype)
    labels = rng.dirichlet(np.ones(logits.shape[axis]), logits.shape[1 - axis % 2]).astype(dtype)
    labels = labels if axis % 2 == 1 else labels.T

    def f(x, y):
        probs = rt.nn.softmax(x * 1.5, axis=axis)
        logs = rt.nn.log_softmax(x - 1.0, axis=axis)
        loss = rt.nn.softmax_cross_entropy_with_logits(y, x + 0.5, axis=axis)
        return probs - y, logs * 2.0, rt.reduce_mean(loss)
    both = Both(f)
    both(logits, labels)
    both(np.full_like(logits, 1e4), labels)      # large logits: the shift keeps exp finite
    report = both.report(logits, labels)
    assert not {"softmax", "log_softmax"} & {line.split()[0] for line in left_on_plan(report)}
    assert {"exp", "log", "reduce_max"} <= compiled_ops(report)


def test_softmax_over_a_middle_axis_stays_on_the_plan_with_the_same_bits():
    x = np.random.default_rng(3).standard_normal((3, 4, 5))
    plan, jit, fn = on_both(lambda x: rt.nn.softmax(x * 2.0, axis=1) + 1.0, x)
    np.testing.assert_array_equal(plan.numpy(), jit.numpy())


# --------------------------------------------------------------------------------------------
# Reshapes and transposes as views


def test_transposes_reshapes_and_matmuls_of_views():
    rng = np.random.default_rng(4)
    a, b = rng.standard_normal((4, 6)), rng.standard_normal((4, 6))
    c = rng.standard_normal((2, 3, 4))

    def f(a, b, c):
        gram = rt.matmul(rt.transpose(a), b) * 2.0          # F-ordered operand to BLAS
        flat = rt.reshape(rt.transpose(a) + 1.0, [-1])       # a reshape of a computed value
        moved = rt.transpose(c, [2, 0, 1]) * 3.0             # a strided view in a nest
        squeezed = rt.squeeze(rt.expand_dims(a, 0), 0) - b
        rows = rt.reshape(rt.transpose(b), [3, 8])           # a reshape of a view: a copy
        total = rt.reshape(rt.reduce_sum(a * b, keepdims=True), [])  # to a scalar
        return gram, flat, moved, squeezed, rows, total * 2.0, rt.transpose(a * 2.0)
    both = Both(f)
    both(a, b, c)
    assert {"transpose", "reshape"} <= compiled_ops(both.report(a, b, c))


def test_integer_matmul_of_a_transposed_operand():
    a = np.arange(12, dtype=np.int64).reshape(3, 4) * (2 ** 40)
    b = np.arange(12, dtype=np.int64).reshape(3, 4) - 5
    Both(lambda a, b: rt.matmul(rt.transpose(a), b) + 1)(a, b)


def test_a_view_carried_through_a_loop_and_a_branch():
    x = np.arange(6.0).reshape(2, 3)

    def f(x, n):
        y = x * 1.0
        z = rt.transpose(y)
        for _ in rt.range(n):
            y = rt.transpose(rt.transpose(y) * 0.5) + 1.0
        if n > 2:
            z = rt.transpose(y) * 3.0
        return y, z
    both = Both(f, decorate=transpiler.function)
    for n in (np.int32(0), np.int32(4)):
        both(x, n)


# --------------------------------------------------------------------------------------------
# Neighbouring regions merged


def mlp_step(variables):
    w1, b1, w2, b2 = variables

    def step(x, labels):
        with rt.GradientTape() as tape:
            hidden = rt.nn.relu(rt.matmul(x, w1) + b1)
            logits = rt.matmul(hidden, w2) + b2
            loss = rt.reduce_mean(rt.nn.softmax_cross_entropy_with_logits(labels, logits))
        grads = tape.gradient(loss, variables)
        for variable, grad in zip(variables, grads):
            variable.assign_sub(grad * 0.1)
        return loss
    return step


def test_a_training_step_runs_in_one_kernel():
    rng = np.random.default_rng(5)
    initial = [rng.standard_normal((6, 8)) * 0.3, np.zeros(8), rng.standard_normal((8, 3)) * 0.3,
               np.zeros(3)]
    plan_vars, jit_vars = twin_variables(*initial)
    x = rng.standard_normal((10, 6))
    labels = np.eye(3)[rng.integers(0, 3, 10)]
    fn = run_both(mlp_step, plan_vars, jit_vars, (x, labels), calls=4)
    assert counts(report_of(fn, x, labels)) == (1, 1)


def test_merging_stops_at_values_the_plan_makes_in_between():
    plan_vars, jit_vars = twin_variables(np.zeros(4))

    def make(variables):
        (v,) = variables

        def step(x):
            first = rt.exp(x) * 2.0 + 1.0
            v.assign(first + 0.0)
            v.assign_add(x)                      # on the plan, between the two regions
            return rt.sin(v.value()) * 3.0 - x, first
        return step
    run_both(make, plan_vars, jit_vars, (np.linspace(-1, 1, 4),))


def test_merged_nodes_are_bounded_by_the_budget(monkeypatch):
    monkeypatch.setattr(merging, "MERGED_NODES_BUDGET", 6)
    layers = [rt.Variable(np.full((3, 3), 0.1 * (i + 1))) for i in range(5)]

    def f(x):
        for w in layers:          # variables: not a chain of constants that would roll
            x = rt.tanh(rt.matmul(x, w) + 1.0)
        return x
    x = np.eye(3)
    plan, jit, fn = on_both(f, x)
    assert_same(plan, jit)
    regions, kernels = counts(report_of(fn, x))
    assert regions == 4 and kernels == 2  # two layers merged (6 nodes), three alike left


# --------------------------------------------------------------------------------------------
# Float matmuls through NumPy's own BLAS


def float_matmuls(a, b, c):
    return (rt.matmul(a, b), rt.matmul(rt.transpose(c), c) + 1.0,
            rt.matmul(rt.transpose(b), rt.transpose(a)),
            rt.matmul(rt.reshape(rt.transpose(rt.reshape(c, [2, 2, -1]), [1, 0, 2]), [4, -1]), b))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("m, k, n", [(5, 7, 3), (64, 96, 48), (20, 784, 49)])  # row, column blocks
def test_float_matmuls_give_the_plans_bits(dtype, m, k, n):
    if numpy_gemm() is None:
        pytest.skip("NumPy's BLAS is not one the tier recognizes: kernels use np.dot")
    rng = np.random.default_rng(6)
    a, b, c = (rng.standard_normal(shape).astype(dtype) for shape in ((m, k), (k, n), (4, k)))
    plan, jit, fn = on_both(float_matmuls, a, b, c)
    for p, j in zip(plan, jit):
        np.testing.assert_array_equal(p.numpy(), j.numpy())
    assert "matmul" in compiled_ops(report_of(fn, a, b, c))


@pytest.mark.parametrize("m, k, n", [(0, 3, 2), (3, 0, 2), (3, 2, 0)])
def test_empty_float_matmuls(m, k, n):
    Both(lambda a, b: rt.matmul(a, b) + 1.0)(np.ones((m, k)), np.ones((k, n)))


def test_float_matmuls_without_numpys_blas_use_numbas(monkeypatch):
    monkeypatch.setattr(codegen, "numpy_gemm", lambda: None)
    rng = np.random.default_rng(7)
    a, b, c = (rng.standard_normal(shape) * 3.0 for shape in ((5, 7), (7, 3), (4, 7)))
    both = Both(float_matmuls)
    both(a, b, c)
    assert "np.dot(" in both.jit_fn.get_concrete_function(a, b, c).plan_source


def test_compiled_assign_add_stays_atomic_across_threads():
    v = rt.Variable(np.zeros(3))

    def step(x):
        v.assign_add(x * 2.0)
        return v.value() + 1.0   # a read after the update: forwarded inside the kernel
    fn = transpiler.function(step, jit_compile=True)
    ones = np.ones(3)
    fn(ones)
    threads = [threading.Thread(target=lambda: [fn(ones) for _ in range(400)]) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    np.testing.assert_array_equal(v.numpy(), np.full(3, 2.0 * (1 + 4 * 400)))


def test_bool_variables_updated_then_read():
    plan_vars, jit_vars = twin_variables(np.array([True, False, False]))

    def make(variables):
        (flags,) = variables

        def step(x):
            flags.assign_add(x > 0.5)      # NumPy's bool addition: or
            return rt.logical_not(flags.value())
        return step
    run_both(make, plan_vars, jit_vars, (np.array([0.0, 1.0, 0.2]),), calls=2)
    for jit in (False, True):
        flags = rt.Variable(np.array([True, False]))
        fn = transpiler.function(lambda x: flags.assign_sub(x > 0.5) and flags.value(),
                                 jit_compile=jit)
        with pytest.raises(Exception, match="subtract"):
            fn(np.array([1.0, 0.0]))


# --------------------------------------------------------------------------------------------
# Counted loops compiled as loops


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_a_counted_reduction_runs_as_a_compiled_loop(dtype):
    def sum_of_cubes(n):
        s = n * 0
        for i in rt.range(n):
            s += i * i * i + 3
        return s
    both = Both(sum_of_cubes, decorate=transpiler.function)
    for n in (0, 1, 1000, 70_000, 3_000_000):   # past the vectorized length, and wrapping
        both(dtype(n))
    report = both.report(dtype(5))
    assert counts(report) == (1, 1) and "while_loop" in report
    assert not left_on_plan(report), report   # no array code, no guard left on the plan
