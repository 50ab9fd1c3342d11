"""rt.export.jax: ops, dtypes, control flow, errors, variables, gradients, without JAX.

Each test traces a function, exports it, runs it under ``jax.jit`` and compares with the
graph: integers and bools exactly, floats to rounding. One function per dtype holds many ops,
so that few compiles cover them (jit compiles are the cost of these tests). 64-bit types are
enabled for the module (and switched off where a test checks the refusal).
"""

from __future__ import annotations

import pytest

jax = pytest.importorskip("jax")

import os  # noqa: E402
import re  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import textwrap  # noqa: E402

import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

import runtime as rt  # noqa: E402
import transpiler  # noqa: E402
from runtime.errors import ExportError  # noqa: E402
from runtime.export.jax_table import HANDLED, LOWERINGS, NOT_EXPORTED  # noqa: E402
from runtime.ops.registry import all_ops  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(autouse=True, scope="module")
def x64():
    previous = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    yield
    jax.config.update("jax_enable_x64", previous)


def leaves(value) -> list:
    return [np.asarray(leaf) for leaf in rt.nest.flatten(value)]


def assert_same(graph_result, jax_result, rtol: float = 1e-5) -> None:
    """Same structure, dtypes and shapes; integers and bools exactly, floats to ``rtol``
    (NaN and infinities in place)."""
    expected, actual = leaves(graph_result), leaves(jax_result)
    assert rt.nest.structure_of(graph_result) == rt.nest.structure_of(
        jax.tree_util.tree_map(lambda a: rt.constant(np.asarray(a)), jax_result,
                               is_leaf=lambda a: isinstance(a, jax.Array)))
    for e, a in zip(expected, actual):
        assert (e.dtype, e.shape) == (a.dtype, a.shape), ((e.dtype, e.shape), (a.dtype, a.shape))
        if e.dtype.kind in "fc":
            np.testing.assert_allclose(a, e, rtol=rtol, atol=rtol * max(1.0, float(
                np.nanmax(np.abs(np.where(np.isfinite(e), e, 0)), initial=0))))
        else:
            np.testing.assert_array_equal(a, e)


def export_and_compare(fn, *args, specs=None, rtol: float = 1e-5):
    """Traces ``fn`` (a transpiler.function) for ``specs`` or ``args``, exports, jits, runs
    on ``args`` and compares with the graph. Returns the exported function."""
    concrete = fn.get_concrete_function(*(specs or args))
    exported = rt.export.jax(concrete)
    tensor_args = [a for a in args if isinstance(a, np.ndarray)]
    assert_same(concrete(*args), jax.jit(exported)(*tensor_args), rtol)
    return exported


# -- the table ---------------------------------------------------------------------------------


def test_every_registered_op_exports_or_is_refused_with_a_reason():
    for name, op in all_ops().items():
        exported = op in LOWERINGS or op in HANDLED
        assert exported != (op in NOT_EXPORTED), name
        if op in NOT_EXPORTED:
            reason = NOT_EXPORTED[op]
            assert reason.endswith(".") and len(reason) > 60, name
    assert set(LOWERINGS).isdisjoint(HANDLED)


# -- elementwise ops, one function per dtype ---------------------------------------------------

EDGES = {
    "int32": np.array([0, 1, -1, 7, -7, 2**31 - 1, -2**31, 3], np.int32),
    "int64": np.array([0, 1, -1, 7, -7, 2**63 - 1, -2**63, 3], np.int64),
    "float32": np.array([0.0, -0.0, 1.5, -2.5, np.inf, -np.inf, np.nan, 3e38], np.float32),
    "float64": np.array([0.0, -0.0, 1.5, -2.5, np.inf, -np.inf, np.nan, 1e300], np.float64),
}
DIVISORS = {
    "int32": np.array([0, 2, -3, 0, 3, -1, -1, 5], np.int32),
    "int64": np.array([3, 0, 2, -2, 4, -1, -1, 0], np.int64),
    "float32": np.array([3.0, 3.0, -0.0, 2.0, 3.0, 0.0, 1.0, -7.0], np.float32),
    "float64": np.array([-3.0, 3.0, 0.0, 2.0, np.inf, 0.5, 1.0, -7.0], np.float64),
}


@transpiler.function
def arithmetic(x, y):
    return {"add": x + y, "sub": x - y, "mul": x * y, "div": x / y, "floordiv": x // y,
            "mod": x % y, "max": rt.maximum(x, y), "min": rt.minimum(x, y),
            "cmp": (x < y, x <= y, x > y, x >= y, rt.equal(x, y), rt.not_equal(x, y)),
            "neg": -x, "abs": rt.abs(x), "sign": rt.sign(x), "square": rt.square(x),
            "where": rt.where(x > y, x, y), "clip": rt.clip_by_value(x, -3, 5),
            "logic": (rt.logical_and(x > 0, y > 0), rt.logical_or(x > 0, y > 0),
                      rt.logical_not(x > 0), rt.logical_xor(x > 0, y > 0))}


@transpiler.function
def integer_only(x, y):
    return (x & y, x | y, x ^ y, ~x, rt.pow(x, 3), rt.cast(x, rt.int8), rt.cast(x, rt.float32),
            rt.cast(x, rt.bool))


@transpiler.function
def float_only(x, y):
    return (rt.exp(x), rt.log(rt.abs(x) + 1), rt.log1p(rt.abs(y)), rt.sqrt(rt.abs(x)),
            rt.sin(y), rt.cos(y), rt.tan(y), rt.tanh(x), rt.sigmoid(x), rt.floor(x), rt.ceil(x),
            rt.round(x * 0.5), rt.pow(rt.abs(y), 1.5), rt.cast(y, rt.int32),
            rt.cast(y, rt.int16), rt.cast(y, rt.float16), rt.math.rsqrt(rt.abs(x)),
            rt.math.reciprocal(y))


@pytest.mark.parametrize("dtype", sorted(EDGES))
def test_elementwise_ops_give_the_graphs_results_bit_for_bit_on_integers(dtype):
    x, y = EDGES[dtype], DIVISORS[dtype]
    with np.errstate(all="ignore"):
        export_and_compare(arithmetic, x, y)
        if dtype.startswith("int"):
            export_and_compare(integer_only, x, y)
        else:
            finite = np.nan_to_num(x, posinf=3.0, neginf=-3.0) % 50
            export_and_compare(float_only, finite, y * 0.25, rtol=1e-5)


def test_float_to_int_casts_follow_numpy_on_this_machine():
    import platform
    if platform.machine().lower() not in ("x86_64", "amd64"):
        pytest.skip("NumPy's casts of NaN and out-of-range floats are x86's on x86 only")
    values = np.array([np.nan, np.inf, -np.inf, 1e10, -1e10, 300.7, -300.7, 70000.5, -1.5],
                      np.float32)

    @transpiler.function
    def casts(x):
        return tuple(rt.cast(x, dtype) for dtype in ("int8", "int16", "int32", "int64",
                                                      "uint8", "uint16"))
    with np.errstate(all="ignore"):
        export_and_compare(casts, values)


def test_integer_division_by_zero_is_zero_as_in_numpy_and_signs_of_zero_are_kept():
    x, y = np.array([7, -7, -2**31, 0], np.int32), np.array([0, 0, -1, 0], np.int32)
    exported = rt.export.jax(arithmetic.get_concrete_function(x, y))
    result = jax.jit(exported)(x, y)
    np.testing.assert_array_equal(result["floordiv"], [0, 0, -2**31, 0])
    np.testing.assert_array_equal(result["mod"], [0, 0, 0, 0])
    zero = np.array([-0.0, 0.0], np.float32), np.array([3.0, -3.0], np.float32)
    floats = jax.jit(rt.export.jax(arithmetic.get_concrete_function(*zero)))(*zero)
    assert np.signbit(floats["floordiv"]).tolist() == np.signbit(np.floor_divide(*zero)).tolist()
    assert np.signbit(floats["mod"]).tolist() == np.signbit(np.remainder(*zero)).tolist()


# -- reductions, arrays, indexing, nn ------------------------------------------------------


@transpiler.function
def reductions(x, m):
    return (rt.reduce_sum(x), rt.reduce_sum(x, 0), rt.reduce_prod(x, 1, keepdims=True),
            rt.reduce_max(x, 1), rt.reduce_min(x), rt.reduce_mean(x, 0), rt.reduce_any(x > 2),
            rt.reduce_all(x > -9, 1), rt.argmax(x, 1), rt.argmin(x, 0),
            rt.reduce_mean(m, 1), rt.reduce_logsumexp(rt.cast(x, rt.float32), 1))


def test_reductions_keep_dtypes_and_truncate_integer_means():
    x = np.array([[3, -4, 5], [2**30, 2**30, 7]], np.int32)
    export_and_compare(reductions, x, x * -3)


@transpiler.function
def arrays(x, i):
    y = rt.reshape(x, (3, 4))
    parts = rt.unstack(y, axis=1)
    return (rt.transpose(y), rt.concat([y, y * 2], 1), rt.stack(parts, 1), rt.squeeze(y[None]),
            rt.expand_dims(x, 0), rt.gather(y, [2, 0, 1]), rt.gather(y, i + 1, axis=1),
            y[1:, ::-2], y[i], y[..., 1], y[:, None, 1], rt.fill([2, 3], x[0]),
            rt.eye(3, 4, dtype=rt.int32), rt.range(2, 11, 3), rt.shape(y), rt.size(x),
            rt.zeros_like(y), rt.ones([2], rt.float64), rt.identity(x), y[rt.constant([True, False, True])])


def test_array_ops_and_indexing():
    x, i = np.arange(12, dtype=np.int64) - 3, np.array([2, -1, 0], np.int32)
    export_and_compare(arrays, x, i)


@transpiler.function
def neural(x, labels, sparse):
    logits = rt.matmul(x, rt.transpose(x)) * 0.1
    return (rt.nn.relu(x - 0.5), rt.nn.softmax(logits), rt.nn.log_softmax(logits, 0),
            rt.nn.softplus(x), rt.nn.leaky_relu(x - 1), rt.nn.l2_loss(x),
            rt.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits),
            rt.nn.softmax_cross_entropy_with_logits(labels, logits),
            rt.nn.sparse_softmax_cross_entropy_with_logits(labels=sparse, logits=logits),
            rt.matmul(x, x[0]), rt.matmul(rt.cast(x > 1, rt.int32), rt.transpose(rt.cast(x < 2, rt.int32))))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_activations_losses_and_matmuls(dtype):
    x = (np.arange(12, dtype=dtype).reshape(3, 4) - 5) / 3
    labels = np.eye(3, dtype=dtype)[[2, 0, 1]]
    export_and_compare(neural, x, labels, np.array([2, 0, 1], np.int32))


# -- control flow ------------------------------------------------------------------------------


@transpiler.function
def collatz(n):
    steps = 0
    while n > 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


@transpiler.function
def power_series(x, n):
    total = rt.zeros_like(x)
    term = rt.ones_like(x)
    for i in range(n):
        transpiler.set_loop_options(maximum_iterations=12)
        total += term
        term = term * x / rt.cast(i + 1, x.dtype)
    return total


def test_while_and_if_on_tensors_become_lax_control_flow():
    for n in (27, 1, 97):
        export_and_compare(collatz, np.array(n, np.int32))
    jaxpr = str(jax.make_jaxpr(rt.export.jax(collatz.get_concrete_function(
        np.array(3, np.int32))))(np.int32(3)))
    assert "while" in jaxpr and "cond" in jaxpr


def test_maximum_iterations_gives_a_scan_that_jax_grad_differentiates():
    x = np.array([0.5, -1.0], np.float32)
    concrete = power_series.get_concrete_function(x, np.array(20, np.int32))
    exported = rt.export.jax(concrete)
    assert_same(concrete(x, np.array(20, np.int32)), jax.jit(exported)(x, np.int32(20)))
    assert "scan" in str(jax.make_jaxpr(exported)(x, np.int32(20)))
    grad = jax.jit(jax.grad(lambda v: exported(v, np.int32(5)).sum()))(x)
    with rt.GradientTape() as tape:
        xt = rt.constant(x)
        tape.watch(xt)
        y = rt.reduce_sum(power_series(xt, rt.constant(np.int32(5))))
    np.testing.assert_allclose(grad, tape.gradient(y, xt).numpy(), rtol=1e-5)


def test_reverse_mode_through_a_loop_of_unknown_trip_count_is_jaxs_clear_error():
    @transpiler.function
    def grow(x):
        while rt.reduce_sum(x) < 10.0:
            x = x * 2
        return x
    exported = rt.export.jax(grow.get_concrete_function(np.ones(2, np.float32)))
    with pytest.raises(ValueError, match="Reverse-mode differentiation does not work for "
                                         "lax.while_loop"):
        jax.grad(lambda v: exported(v).sum())(jnp.ones(2, jnp.float32))
    primal, tangent = jax.jvp(exported, (jnp.ones(2, jnp.float32),), (jnp.ones(2, jnp.float32),))
    np.testing.assert_allclose(tangent, [8.0, 8.0])


def test_a_loop_limit_given_as_a_tensor_counts():
    @rt.function
    def limited(x, limit):
        return rt.while_loop(lambda v: v < 100, lambda v: v * 3, [x],
                             maximum_iterations=limit)[0]
    for limit in (0, 2, 50):
        export_and_compare(limited, np.array(2, np.int32), np.array(limit, np.int32))


# -- gradients ---------------------------------------------------------------------------------


def _tape_gradient(fn, x):
    xt = rt.constant(x)
    with rt.GradientTape() as tape:
        tape.watch(xt)
        y = fn(xt)
    return tape.gradient(y, xt).numpy()


@pytest.mark.parametrize("name", ["mlp", "branches", "indexing"])
def test_jax_grad_agrees_with_the_gradient_tape(name):
    w = np.linspace(-1, 1, 12).reshape(4, 3).astype(np.float32)

    def mlp(x):
        return rt.reduce_sum(rt.nn.softmax(rt.nn.relu(rt.matmul(x, w)) + rt.tanh(x[:, :3])))

    def branches(x):
        y = rt.cond(rt.reduce_sum(x) > 0, lambda: rt.exp(x) * x, lambda: rt.square(x))
        return rt.reduce_mean(rt.sigmoid(y) + rt.reduce_logsumexp(x, 1, keepdims=True))

    def indexing(x):
        return rt.reduce_sum(rt.gather(x, [1, 1, 0]) ** 2) + rt.reduce_max(x[:, 1:]) \
            + rt.reduce_prod(x[0])
    fn = {"mlp": mlp, "branches": branches, "indexing": indexing}[name]
    x = np.linspace(-2, 1.5, 8).reshape(2, 4).astype(np.float32)
    exported = rt.export.jax(rt.function(fn).get_concrete_function(x))
    np.testing.assert_allclose(jax.jit(jax.grad(exported))(x), _tape_gradient(fn, x),
                               rtol=1e-5, atol=1e-6)


def test_a_gradient_graph_exports_too():
    w = rt.Variable(np.array([[0.5], [-1.0]], np.float32))

    @rt.function
    def gradient(x):
        with rt.GradientTape() as tape:
            loss = rt.reduce_sum(rt.square(rt.matmul(x, w)))
        return tape.gradient(loss, w)
    export_and_compare(gradient, np.array([[1.0, 2.0], [3.0, 4.0]], np.float32))


# -- variables, effects, errors ----------------------------------------------------------------


def test_variables_are_constants_taken_at_export():
    v = rt.Variable(np.array([1.0, 2.0], np.float32))

    @rt.function
    def scaled(x):
        return x * v
    exported = rt.export.jax(scaled.get_concrete_function(np.ones(2, np.float32)))
    v.assign([10.0, 20.0])
    np.testing.assert_array_equal(jax.jit(exported)(np.ones(2, np.float32)), [1.0, 2.0])


def test_assigning_a_variable_is_refused_naming_the_op_and_line():
    v = rt.Variable(0.0)

    @rt.function
    def step(x):
        v.assign_add(x)
        return x
    with pytest.raises(ExportError, match=r"assign_variable .*test_export_jax.py:\d+.*"
                                          r"Return the new value"):
        rt.export.jax(step.get_concrete_function(np.float32(1)))


def test_random_draws_are_refused():
    @rt.function
    def noisy(x):
        return x + rt.random.normal([2])
    with pytest.raises(ExportError, match=r"random_normal .*created at test_export_jax.py"):
        rt.export.jax(noisy.get_concrete_function(np.zeros(2, np.float32)))


def test_64_bit_graphs_need_x64_and_say_how_to_enable_it():
    jax.config.update("jax_enable_x64", False)
    try:
        with pytest.raises(ExportError, match=r'jax.config.update\("jax_enable_x64", True\)'):
            rt.export.jax(arithmetic.get_concrete_function(EDGES["int64"], DIVISORS["int64"]))
        x = np.arange(6, dtype=np.float32).reshape(2, 3)
        export_and_compare(rt.function(lambda v: rt.nn.softmax(v) * 2), x)  # 32 bits: fine
    finally:
        jax.config.update("jax_enable_x64", True)


def test_a_shape_known_only_when_the_graph_runs_is_refused():
    @rt.function
    def positives(x):
        return x[x > 0]
    with pytest.raises(ExportError, match=r"getitem .*test_export_jax.py:\d+.*a boolean mask "
                                          r"index .* JAX needs every shape while it traces"):
        rt.export.jax(positives.get_concrete_function(np.ones(3, np.float32)))


def test_values_the_graph_checks_make_the_call_raise():
    @rt.function
    def pick(x, i):
        rt.assert_(rt.reduce_all(x > 0), "x must be positive")
        return rt.gather(x, i)
    exported = jax.jit(rt.export.jax(pick.get_concrete_function(
        np.ones(3, np.float32), np.zeros(2, np.int32))))
    np.testing.assert_array_equal(exported(np.ones(3, np.float32), np.array([2, 0], np.int32)),
                                  [1.0, 1.0])
    with pytest.raises(Exception, match=re.escape("indices[1] = 3 is not in [0, 3): index 3 is "
                                                  "out of range")):
        exported(np.ones(3, np.float32), np.array([0, 3], np.int32)).block_until_ready()
    with pytest.raises(Exception, match=re.escape("indices[0] = -1 is not in [0, 3)")):
        exported(np.ones(3, np.float32), np.array([-1, 0], np.int32)).block_until_ready()
    with pytest.raises(Exception, match="x must be positive"):
        exported(-np.ones(3, np.float32), np.array([0, 1], np.int32)).block_until_ready()


def test_print_prints_the_graphs_text_in_order(capfd):
    @transpiler.function
    def loud(x):
        for i in range(3):
            rt.print("step", i, x)
            x = x * 2
        return x
    arg = np.array([1, 2], np.int32)
    loud(arg)
    expected = capfd.readouterr().out
    result = jax.jit(rt.export.jax(loud.get_concrete_function(arg)))(arg)
    jax.effects_barrier()
    assert capfd.readouterr().out == expected
    np.testing.assert_array_equal(result, [8, 16])


def test_arguments_are_checked_and_python_arguments_are_part_of_the_trace():
    @transpiler.function
    def scale(x, factor, rows):
        return [x * factor, rows[0] + rows[1]]
    rows = [np.ones(2, np.float32), np.zeros(2, np.float32)]
    concrete = scale.get_concrete_function(rt.TensorSpec([None], rt.float32), 3.0, rows)
    exported = rt.export.jax(concrete)
    result = jax.jit(exported)(np.arange(4, dtype=np.float32), rows)
    np.testing.assert_array_equal(result[0], [0, 3, 6, 9])
    with pytest.raises(TypeError, match="must have dtype float32"):
        exported(np.arange(4), rows)
    with pytest.raises(TypeError, match="takes 2 arguments"):
        exported(np.arange(4, dtype=np.float32))


def test_without_jax_the_error_says_which_install_fixes_it():
    script = textwrap.dedent("""
        import sys
        sys.modules["jax"] = None  # as if JAX were not installed
        import runtime as rt
        assert "jax" not in [name.split(".")[0] for name in sys.modules if sys.modules[name]]
        cf = rt.function(lambda x: x + 1).get_concrete_function(rt.constant(1.0))
        try:
            rt.export.jax(cf)
        except ImportError as error:
            print(error)
    """)
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                               cwd=ROOT, timeout=120)
    assert completed.returncode == 0, completed.stderr
    assert 'pip install "eager2graph[jax]"' in completed.stdout


def test_a_batch_sharded_over_eight_devices_gives_the_single_device_results():
    script = textwrap.dedent("""
        import os
        os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
        import jax, numpy as np
        from jax.sharding import Mesh, NamedSharding, PartitionSpec
        import runtime as rt
        w = np.linspace(-1, 1, 48).reshape(16, 3).astype(np.float32)
        @rt.function
        def model(x):
            h = rt.nn.relu(rt.matmul(x, w))
            return rt.cond(rt.reduce_sum(h) > 0, lambda: rt.nn.softmax(h), lambda: h)
        exported = rt.export.jax(model.get_concrete_function(rt.TensorSpec([None, 16], rt.float32)))
        x = np.random.RandomState(0).randn(64, 16).astype(np.float32)
        assert len(jax.devices()) == 8
        mesh = Mesh(np.array(jax.devices()), ("batch",))
        sharded = jax.device_put(x, NamedSharding(mesh, PartitionSpec("batch")))
        many = jax.jit(exported)(sharded)
        one = jax.jit(exported)(jax.device_put(x, jax.devices()[0]))
        assert len(many.sharding.device_set) == 8, many.sharding
        np.testing.assert_allclose(np.asarray(many), np.asarray(one), rtol=1e-6)
        np.testing.assert_allclose(np.asarray(one), model(x).numpy(), rtol=1e-5)
        print("ok")
    """)
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                               cwd=ROOT, timeout=300)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == "ok"
