"""CSE of constants too large to key by all their bytes: keyed by dtype, shape and a sample,
then compared byte for byte. Equal ones merge at any size; a difference anywhere (off the
sample too) keeps them apart, as do dtype, shape, the sign of zero and NaN payloads."""

import numpy as np
import pytest

import runtime as rt
from runtime.passes import cse
from tests.runtime.graph_helpers import apply, assert_identical, run_graph, traced_graph

SIZE = 1000  # float32: 4000 bytes, sampled every 62nd element
UNSAMPLED = 1  # an index the sample skips


def _nan_with_payload(payload: int) -> np.float32:
    return np.array([0x7FC00000 | payload], np.uint32).view(np.float32)[0]


def merged(*arrays, spec=rt.TensorSpec([SIZE], rt.float32)):
    """CSE of ``x + a`` for each array: how many const nodes are left, and the graphs."""
    before = traced_graph(lambda x: tuple(x + rt.constant(a) for a in arrays), spec)
    after = before.copy()
    apply(cse.run, after)
    return sum(node.op.name == "const" for node in after.nodes), before, after


def test_equal_large_constants_merge_and_results_stay_the_same():
    a = np.random.RandomState(0).randn(SIZE).astype(np.float32)
    left, before, after = merged(a, a.copy(), a.copy())
    assert left == 1
    x = np.linspace(-1, 1, SIZE).astype(np.float32)
    assert_identical(run_graph(after, x), run_graph(before, x))


def test_weight_matrices_larger_than_any_former_size_limit_merge():
    w = np.random.RandomState(1).randn(200, 100).astype(np.float32)  # 80 KB each
    spec = rt.TensorSpec([3, 200], rt.float32)
    graph = traced_graph(lambda x: (rt.matmul(x, rt.constant(w)),
                                    rt.matmul(x, rt.constant(w.copy()))), spec)
    apply(cse.run, graph)
    assert [node.op.name for node in graph.nodes].count("matmul") == 1


@pytest.mark.parametrize("index, old, new", [
    (UNSAMPLED, 0.0, 1.0),
    (UNSAMPLED, 0.0, -0.0),
    (UNSAMPLED, _nan_with_payload(1), _nan_with_payload(5)),
    (SIZE - 1, 0.0, 7.0),
], ids=["element off the sample", "sign of zero", "nan payload", "last element"])
def test_large_constants_differing_anywhere_stay_apart(index, old, new):
    a = np.zeros(SIZE, np.float32)
    a[index] = old
    b = a.copy()
    b[index] = new
    assert a.tobytes() != b.tobytes()
    assert merged(a, b)[0] == 2


def test_nans_with_the_same_payload_merge():
    a = np.full(SIZE, _nan_with_payload(3), np.float32)
    assert merged(a, a.copy())[0] == 1


def test_same_bytes_but_another_dtype_or_shape_stay_apart():
    spec = rt.TensorSpec([1], rt.float32)
    graph = traced_graph(lambda x: (x + rt.constant(np.zeros(SIZE, np.float32)),
                                    rt.cast(rt.constant(np.zeros(SIZE, np.int32)), rt.float32) + x,
                                    x + rt.constant(np.zeros((10, SIZE // 10), np.float32))), spec)
    apply(cse.run, graph)
    assert sum(node.op.name == "const" for node in graph.nodes) == 3


def test_many_large_constants_agreeing_on_the_sample_compare_each_once():
    """Different arrays with the same sample all stay (each compared, none merged)."""
    arrays = []
    for k in range(5):
        a = np.zeros(SIZE, np.float32)
        a[UNSAMPLED] = k
        arrays.append(a)
    assert merged(*arrays, arrays[2].copy())[0] == 5
