"""roll, sequence_mask, segment sums, gather(batch_dims=), map_fn, scan, switch_case and case:
values (expected ones taken from TensorFlow 2.21), eagerly and in graphs, and gradients
against finite differences."""

import numpy as np
import pytest

import runtime as rt
from tests.runtime.gradient_helpers import numeric_gradient, tape_gradients

X = np.arange(12, dtype=np.float32).reshape(3, 4)


def both(fn, *args):
    """``fn``'s result eagerly and from a traced function, checked equal; the eager one."""
    eager = fn(*[rt.constant(a) for a in args])
    traced = rt.function(fn)(*[rt.constant(a) for a in args])
    for a, b in zip(rt.nest.flatten(eager), rt.nest.flatten(traced)):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    return eager


def check_gradient(fn, arrays, wrt=0, rtol=1e-4, atol=1e-6):
    arrays = [np.asarray(a, np.float64) for a in arrays]
    seed = np.random.default_rng(0).normal(size=np.shape(fn(*[rt.constant(a) for a in arrays])))
    (grad,) = tape_gradients(fn, [rt.constant(a) for a in arrays], [wrt], rt.constant(seed))
    np.testing.assert_allclose(grad.numpy(), numeric_gradient(fn, arrays, wrt, seed),
                               rtol=rtol, atol=atol)
    (traced,) = rt.function(lambda *t: tape_gradients(fn, list(t), [wrt], rt.constant(seed)))(
        *[rt.constant(a) for a in arrays])
    np.testing.assert_allclose(traced.numpy(), grad.numpy(), rtol=1e-6)


# -- roll ------------------------------------------------------------------------------------


@pytest.mark.parametrize("shift,axis", [(1, 1), (-5, 1), (0, 0), (4, 1), ([1, -2], [0, 1]),
                                        ([1, 2], [1, 1])])
def test_roll_is_numpy_roll(shift, axis):
    result = both(lambda x: rt.roll(x, shift, axis), X)
    np.testing.assert_array_equal(result.numpy(), np.roll(X, shift, axis))


def test_roll_by_a_tensor_computed_in_the_graph():
    f = rt.function(lambda x, s: rt.roll(x, s, 0))
    for s in (2, -1, 7):
        np.testing.assert_array_equal(f(rt.constant(X), rt.constant(s)).numpy(),
                                      np.roll(X, s, 0))
    g = rt.function(lambda x, s: rt.roll(x, s, [0, 1]))
    np.testing.assert_array_equal(g(rt.constant(X), rt.constant([1, 3])).numpy(),
                                  np.roll(X, [1, 3], [0, 1]))


def test_roll_with_an_unknown_size():
    f = rt.function(lambda x: rt.roll(x, 1, 0), input_signature=[rt.TensorSpec([None, 4])])
    np.testing.assert_array_equal(f(rt.constant(X)).numpy(), np.roll(X, 1, 0))


def test_roll_gradient():
    check_gradient(lambda x: rt.roll(x, [1, -3], [0, 1]) * x, [X])
    check_gradient(lambda x: rt.roll(x, rt.constant(2), 1), [X])


def test_roll_errors():
    with pytest.raises(ValueError, match="same length"):
        rt.roll(X, [1, 2], 0)


# -- sequence_mask ------------------------------------------------------------------------------


def test_sequence_mask():
    np.testing.assert_array_equal(both(lambda n: rt.sequence_mask(n, 4), np.array([1, 3, 2])),
                                  [[True, False, False, False], [True, True, True, False],
                                   [True, True, False, False]])
    np.testing.assert_array_equal(both(rt.sequence_mask, np.array([[1], [2]])),
                                  [[[True, False]], [[True, True]]])
    result = rt.sequence_mask([2, 0], 3, dtype=rt.float32)
    assert result.dtype == np.float32
    np.testing.assert_array_equal(result.numpy(), [[1.0, 1.0, 0.0], [0.0, 0.0, 0.0]])
    with pytest.raises(TypeError, match="integers"):
        rt.sequence_mask([1.5])


# -- segment sums -------------------------------------------------------------------------------


def test_segment_sum():
    result = both(rt.math.segment_sum, X, np.array([0, 0, 2]))
    np.testing.assert_array_equal(result.numpy(), [[4, 6, 8, 10], [0, 0, 0, 0], [8, 9, 10, 11]])


def test_unsorted_segment_sum():
    result = both(lambda x, ids: rt.math.unsorted_segment_sum(x, ids, 3), X, np.array([1, 0, 1]))
    np.testing.assert_array_equal(result.numpy(), [[4, 5, 6, 7], [8, 10, 12, 14], [0, 0, 0, 0]])
    ids = np.array([[0, 1, 0, 2], [2, 2, 1, 0], [1, 1, 1, 1]])
    expected = np.zeros(3, np.float32)
    np.add.at(expected, ids, X)
    np.testing.assert_array_equal(rt.math.unsorted_segment_sum(X, ids, 3).numpy(), expected)


def test_segment_sum_with_ids_known_only_when_the_graph_runs():
    f = rt.function(lambda x, ids: rt.math.segment_sum(x, ids),
                    input_signature=[rt.TensorSpec([None, 4]), rt.TensorSpec([None], rt.int32)])
    np.testing.assert_array_equal(f(rt.constant(X), rt.constant([0, 1, 1])).numpy(),
                                  [X[0], X[1] + X[2]])
    assert f(rt.constant(X[:0]), rt.constant(np.zeros(0, np.int32))).shape == (0, 4)


def test_segment_sum_gradient():
    check_gradient(lambda x: rt.math.segment_sum(x, [0, 0, 1]), [X])
    check_gradient(lambda x: rt.math.unsorted_segment_sum(x * x, [2, 0, 2], 4), [X])


# -- gather with batch_dims -----------------------------------------------------------------------

P = np.arange(24).reshape(2, 3, 4)
I = np.array([[0, 2], [1, 1]])


def test_gather_batch_dims():
    np.testing.assert_array_equal(
        both(lambda p, i: rt.gather(p, i, axis=2, batch_dims=1), P, I).numpy(),
        [[[0, 2], [4, 6], [8, 10]], [[13, 13], [17, 17], [21, 21]]])
    np.testing.assert_array_equal(
        both(lambda p, i: rt.gather(p, i, axis=1, batch_dims=1), P, I).numpy(),
        [[[0, 1, 2, 3], [8, 9, 10, 11]], [[16, 17, 18, 19], [16, 17, 18, 19]]])
    np.testing.assert_array_equal(rt.gather(P, [[2], [0]], axis=-1, batch_dims=-1).numpy(),
                                  [[[2], [6], [10]], [[12], [16], [20]]])
    p4 = np.arange(120).reshape(2, 3, 4, 5)
    i4 = np.array([[1, 0, 4], [2, 2, 3]])
    result = rt.gather(p4, i4, axis=3, batch_dims=1)
    expected = np.stack([np.take(p4[b], i4[b], axis=2) for b in range(2)])
    assert result.shape == (2, 3, 4, 3)
    np.testing.assert_array_equal(result.numpy(), expected)
    assert rt.gather(P, [1], axis=0).shape == (1, 3, 4)  # batch_dims=0 is the plain gather


def test_gather_batch_dims_default_axis_and_errors():
    np.testing.assert_array_equal(rt.gather(P[:, :, 0], [2, 0], batch_dims=1).numpy(),
                                  [P[0, 2, 0], P[1, 0, 0]])
    with pytest.raises(ValueError, match="batch_dims"):
        rt.gather(P, I, axis=0, batch_dims=1)


def test_gather_batch_dims_gradient():
    check_gradient(lambda p: rt.gather(p, I, axis=2, batch_dims=1), [P.astype(np.float32)])
    check_gradient(lambda p: rt.gather(p, I, axis=1, batch_dims=1), [P.astype(np.float32)])


# -- map_fn and scan -----------------------------------------------------------------------------


def test_map_fn():
    np.testing.assert_array_equal(both(lambda x: rt.map_fn(lambda r: r * 2.0, x), X).numpy(),
                                  X * 2)
    np.testing.assert_array_equal(
        both(lambda x: rt.map_fn(rt.reduce_sum, x), X).numpy(), X.sum(1))


def test_map_fn_over_a_structure_with_a_signature():
    a, b = rt.map_fn(lambda t: (t[0] * 2, t[1]), (rt.constant([1.0, 2.0]), rt.constant([3, 4])))
    np.testing.assert_array_equal(a.numpy(), [2.0, 4.0])
    np.testing.assert_array_equal(b.numpy(), [3, 4])
    result = both(lambda x: rt.map_fn(lambda r: rt.cast(rt.reduce_sum(r), rt.int32), x,
                                      fn_output_signature=rt.int32), X)
    assert result.dtype == np.int32
    np.testing.assert_array_equal(result.numpy(), [6, 22, 38])
    d = rt.map_fn(lambda e: {"s": e["x"] + 1.0}, {"x": rt.constant(X)},
                  fn_output_signature={"s": rt.TensorSpec([4], rt.float32)})
    np.testing.assert_array_equal(d["s"].numpy(), X + 1)


def test_map_fn_is_one_loop_in_the_graph():
    f = rt.function(lambda x: rt.map_fn(lambda r: r * r, x))
    graph = f.get_concrete_function(rt.TensorSpec([None, 4])).graph
    assert sum(node.op.name == "while_loop" for node in graph.nodes) == 1
    np.testing.assert_array_equal(f(rt.constant(X)).numpy(), X * X)


def test_map_fn_errors_name_the_fix():
    with pytest.raises(TypeError, match="fn_output_signature"):
        rt.map_fn(lambda r: rt.cast(r, rt.int32), rt.constant(X))
    with pytest.raises(rt.errors.GraphStructureError, match="structure"):
        rt.map_fn(lambda r: (r, r), rt.constant(X))
    with pytest.raises(rt.errors.ShapeError, match="one leading size"):
        rt.map_fn(lambda t: t[0], (rt.constant(X), rt.constant([1.0])))


def test_map_fn_gradient():
    check_gradient(lambda x: rt.map_fn(lambda r: r * rt.reduce_sum(r * r), x), [X / 10])


def test_scan():
    np.testing.assert_array_equal(both(lambda x: rt.scan(lambda a, r: a + r, x), X).numpy(),
                                  np.cumsum(X, 0))
    np.testing.assert_array_equal(
        both(lambda x: rt.scan(lambda a, r: a + r, x, reverse=True), X).numpy(),
        [[12, 15, 18, 21], [12, 14, 16, 18], [8, 9, 10, 11]])
    np.testing.assert_array_equal(
        both(lambda x: rt.scan(lambda a, r: a * 2 + r, x, initializer=rt.constant(1.0)),
             np.array([1.0, 2.0, 3.0], np.float32)).numpy(), [3.0, 8.0, 19.0])
    total, product = rt.scan(lambda a, r: (a[0] + r, a[1] * r), rt.constant([1.0, 2.0, 3.0]),
                             initializer=(rt.constant(0.0), rt.constant(1.0)))
    np.testing.assert_array_equal(total.numpy(), [1.0, 3.0, 6.0])
    np.testing.assert_array_equal(product.numpy(), [1.0, 2.0, 6.0])


def test_scan_gradient():
    check_gradient(lambda x: rt.scan(lambda a, r: a * r + 1.0, x), [X / 10 + 0.5])
    check_gradient(lambda x: rt.scan(lambda a, r: a * r, x, reverse=True), [X / 10 + 0.5])


# -- switch_case and case -------------------------------------------------------------------------


def test_switch_case():
    branches = [lambda: rt.constant(1.0), lambda: rt.constant(2.0), lambda: rt.constant(3.0)]
    f = rt.function(lambda i: rt.switch_case(i, branches))
    g = rt.function(lambda i: rt.switch_case(i, branches, default=lambda: rt.constant(9.0)))
    for index, plain, with_default in [(0, 1.0, 1.0), (2, 3.0, 3.0), (7, 3.0, 9.0),
                                       (-1, 3.0, 9.0)]:
        assert float(rt.switch_case(rt.constant(index), branches)) == plain
        assert float(f(rt.constant(index))) == plain
        assert float(g(rt.constant(index))) == with_default
    h = rt.function(lambda i: rt.switch_case(i, {1: lambda: rt.constant(5), 0: lambda: i * 2}))
    assert int(h(rt.constant(0))) == 0 and int(h(rt.constant(1))) == 5


def test_switch_case_errors():
    with pytest.raises(ValueError, match="0 to 1"):
        rt.switch_case(rt.constant(0), {0: lambda: 1.0, 2: lambda: 2.0})
    with pytest.raises(TypeError, match="integer scalar"):
        rt.switch_case(rt.constant(0.0), [lambda: 1.0])


def test_case():
    f = rt.function(lambda x: rt.case([(x > 0, lambda: x), (x < -5, lambda: -x)],
                                      default=lambda: x * 0))
    assert [float(f(rt.constant(v))) for v in (3.0, -7.0, -1.0)] == [3.0, 7.0, 0.0]
    g = rt.function(lambda x: rt.case([(x > 0, lambda: x), (x < -5, lambda: -x)]))
    assert float(g(rt.constant(-7.0))) == 7.0
    with pytest.raises(rt.errors.InvalidArgumentError, match="none of the predicates"):
        g(rt.constant(-1.0))


# -- names under rt.math -----------------------------------------------------------------------


def test_l2_normalize_and_reductions_under_math():
    np.testing.assert_allclose(rt.math.l2_normalize(X, axis=1).numpy()[1],
                               [0.35634834, 0.4454354, 0.5345225, 0.6236096], rtol=1e-6)
    np.testing.assert_allclose(rt.math.reduce_std(X).numpy(), np.std(X), rtol=1e-6)
    np.testing.assert_allclose(rt.math.reduce_variance(X, axis=0).numpy(), np.var(X, 0),
                               rtol=1e-6)
    np.testing.assert_allclose(rt.linalg.trace(X[:, :3]).numpy(), np.trace(X[:, :3]))


def test_map_structure_over_several_structures_and_while_loop_tensorflow_keywords():
    assert rt.nest.map_structure(lambda a, b: a * b, {"x": 2, "y": [3]},
                                 {"x": 5, "y": [7]}) == {"x": 10, "y": [21]}
    with pytest.raises(ValueError, match="structures differ"):
        rt.nest.map_structure(lambda a, b: a, [1], [1, 2])
    (i,) = rt.while_loop(lambda i: i < 3, lambda i: (i + 1,), (rt.constant(0),),
                         parallel_iterations=1, back_prop=False, swap_memory=True, name="w")
    assert int(i) == 3
