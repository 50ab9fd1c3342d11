"""Random graphs give identical results with and without the passes, and the compiled plan
agrees with a node-by-node reference interpreter (control flow included)."""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import runtime as rt
from tests.runtime.graph_helpers import interpret, run_unoptimized

X = np.array([-1.5, 0.0, 2.25], np.float32)
N = np.int32(3)


def _unary(name):
    return {"neg": lambda a: -a, "square": rt.square, "abs": rt.abs, "tanh": rt.tanh,
            "identity": rt.identity, "times_one": lambda a: a * 1.0, "minus_zero": lambda a: a - 0.0,
            "plus_zero": lambda a: a + 0.0, "pow2": lambda a: a ** 2}[name]


def _binary(name):
    return {"add": rt.add, "sub": rt.subtract, "mul": rt.multiply, "max": rt.maximum}[name]


STEP = st.one_of(
    st.tuples(st.just("unary"), st.sampled_from(["neg", "square", "abs", "tanh", "identity",
                                                 "times_one", "minus_zero", "plus_zero", "pow2"]),
              st.integers(0, 50)),
    st.tuples(st.just("binary"), st.sampled_from(["add", "sub", "mul", "max"]),
              st.integers(0, 50), st.integers(0, 50)),
    st.tuples(st.just("constant"), st.floats(-4, 4, width=32), st.integers(0, 50)),
    st.tuples(st.just("cond"), st.booleans(), st.integers(0, 50), st.integers(0, 50)),
    st.tuples(st.just("loop"), st.integers(0, 4), st.integers(0, 50)),
    st.tuples(st.just("duplicate"), st.integers(0, 50)),
)


def build(steps):
    """A function of (x: f32[3], n: i32[]) applying ``steps`` to a growing pool of values."""
    def f(x, n):
        pool = [x, x * 0.5]

        def pick(i):
            return pool[i % len(pool)]
        for step in steps:
            kind = step[0]
            if kind == "unary":
                pool.append(_unary(step[1])(pick(step[2])))
            elif kind == "binary":
                pool.append(_binary(step[1])(pick(step[2]), pick(step[3])))
            elif kind == "constant":  # a constant-only subexpression, then used
                c = rt.constant(np.float32(step[1])) * 2.0 + 1.0
                pool.append(pick(step[2]) + c)
            elif kind == "cond":
                a, b = pick(step[2]), pick(step[3])
                pred = rt.constant(step[1]) if step[2] % 3 == 0 else rt.reduce_sum(a) > 0.0
                pool.append(rt.cond(pred, lambda: a * 2.0, lambda: b - 1.0))
            elif kind == "loop":
                a = pick(step[2])
                limit = n if step[1] % 2 else rt.constant(step[1])
                _, v = rt.while_loop(lambda i, v: i < limit, lambda i, v: (i + 1, v * 0.5 + a),
                                     (rt.constant(0), a))
                pool.append(v)
            else:
                pool.append(rt.exp(rt.tanh(pick(step[1]))) + rt.exp(rt.tanh(pick(step[1]))))
        return pool[-1], pool[len(pool) // 2]
    return f


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(STEP, min_size=1, max_size=10))
def test_passes_and_executor_agree_with_the_unoptimized_graph_and_the_interpreter(steps):
    concrete = rt.function(build(steps)).get_concrete_function(rt.TensorSpec([3], rt.float32),
                                                               rt.TensorSpec([], rt.int32))
    concrete.graph.lint()
    optimized = [t.numpy() for t in concrete(X, N)]
    unoptimized = run_unoptimized(concrete, X, N)
    interpreted = interpret(concrete.unoptimized_graph, [X, N])
    interpreted_optimized = interpret(concrete.graph, [X, N])
    for a, b, c, d in zip(optimized, unoptimized, interpreted, interpreted_optimized):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, np.asarray(c))
        np.testing.assert_array_equal(a, np.asarray(d))
