"""Ops: one definition serves eager and graph mode; trace-time errors name the op and shapes."""

import re

import numpy as np
import pytest

import runtime as rt
from runtime.errors import GraphTypeError, InvalidArgumentError, ShapeError
from runtime.ops import registry

A = np.array([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]], np.float32)
B = np.array([[2.0, 1.0, -1.0], [3.0, 0.5, 2.0]], np.float32)
I = np.array([[3, -7, 0], [5, 2, 9]], np.int32)
P = np.array([[0.5, 1.0, 2.0], [4.0, 0.25, 8.0]], np.float32)  # positive, for log and sqrt
M = np.array([[True, False, True], [False, False, True]])

# (id, function, arguments, NumPy reference or None when eager-vs-graph agreement is enough)
CASES = [
    ("add", rt.add, (A, B), np.add), ("subtract", rt.subtract, (A, B), np.subtract),
    ("multiply", rt.multiply, (A, B), np.multiply), ("divide", rt.divide, (A, B), np.divide),
    ("divide_ints", rt.divide, (I, 2), lambda x, y: x / y),
    ("floordiv", rt.floordiv, (I, 4), np.floor_divide), ("mod", rt.mod, (I, 4), np.mod),
    ("pow", rt.pow, (P, 2.0), np.power), ("maximum", rt.maximum, (A, B), np.maximum),
    ("minimum", rt.minimum, (A, B), np.minimum),
    ("negative", rt.negative, (A,), np.negative), ("abs", rt.abs, (I,), np.abs),
    ("sign", rt.sign, (A,), np.sign), ("exp", rt.exp, (A,), np.exp), ("log", rt.log, (P,), np.log),
    ("sqrt", rt.sqrt, (P,), np.sqrt), ("square", rt.square, (I,), np.square),
    ("sin", rt.sin, (A,), np.sin), ("cos", rt.cos, (A,), np.cos), ("tanh", rt.tanh, (A,), np.tanh),
    ("sigmoid", rt.sigmoid, (A,), lambda x: (1 / (1 + np.exp(-x))).astype(np.float32)),
    ("equal", rt.equal, (A, B), np.equal), ("not_equal", rt.not_equal, (I, 0), np.not_equal),
    ("greater", rt.greater, (A, B), np.greater),
    ("greater_equal", rt.greater_equal, (A, 1.5), np.greater_equal),
    ("less", rt.less, (A, B), np.less), ("less_equal", rt.less_equal, (I, 2), np.less_equal),
    ("logical_and", rt.logical_and, (M, ~M[::-1]), np.logical_and),
    ("logical_or", rt.logical_or, (M, M[::-1]), np.logical_or),
    ("logical_not", rt.logical_not, (M,), np.logical_not),
    ("matmul", rt.matmul, (A, B.T), np.matmul),
    ("matmul_batched", rt.matmul, (np.ones((4, 2, 3), np.float32), B.T), np.matmul),
    ("matmul_vector", rt.matmul, (A, np.ones(3, np.float32)), np.matmul),
    ("reduce_sum", rt.reduce_sum, (I,), lambda x: np.sum(x, dtype=np.int32)),
    ("reduce_sum_axis", lambda x: rt.reduce_sum(x, axis=1), (A,), lambda x: np.sum(x, 1)),
    ("reduce_sum_keepdims", lambda x: rt.reduce_sum(x, axis=-1, keepdims=True), (A,),
     lambda x: np.sum(x, -1, keepdims=True)),
    ("reduce_sum_axes", lambda x: rt.reduce_sum(x, axis=(0, 1)), (I,),
     lambda x: np.sum(x, dtype=np.int32)),
    ("reduce_mean", rt.reduce_mean, (A,), np.mean),
    ("reduce_mean_int_truncates", lambda x: rt.reduce_mean(x, axis=1), (I,),
     lambda x: np.array([-1, 5], np.int32)),
    ("reduce_max", lambda x: rt.reduce_max(x, axis=0), (I,), lambda x: np.max(x, 0)),
    ("reduce_min", rt.reduce_min, (A,), np.min),
    ("reduce_prod", lambda x: rt.reduce_prod(x, 1), (I,), lambda x: np.prod(x, 1, dtype=np.int32)),
    ("reduce_any", lambda x: rt.reduce_any(x, axis=1), (M,), lambda x: np.any(x, 1)),
    ("reduce_all", lambda x: rt.reduce_all(x, axis=0, keepdims=True), (M,),
     lambda x: np.all(x, 0, keepdims=True)),
    ("argmax", rt.argmax, (A,), lambda x: np.argmax(x, 0)),
    ("argmin", lambda x: rt.argmin(x, axis=1), (A,), lambda x: np.argmin(x, 1)),
    ("reshape", lambda x: rt.reshape(x, [3, -1]), (A,), lambda x: x.reshape(3, -1)),
    ("reshape_tensor_shape", lambda x: rt.reshape(x, rt.constant([6])), (A,), np.ravel),
    ("transpose", rt.transpose, (A,), np.transpose),
    ("transpose_perm", lambda x: rt.transpose(x, [1, 0, 2]), (np.zeros((2, 3, 4), np.int32),),
     lambda x: np.transpose(x, (1, 0, 2))),
    ("concat", lambda x, y: rt.concat([x, y], axis=1), (A, B), lambda x, y: np.concatenate([x, y], 1)),
    ("concat_negative_axis", lambda x, y: rt.concat([x, y], -2), (A, B),
     lambda x, y: np.concatenate([x, y], 0)),
    ("stack", lambda x, y: rt.stack([x, y], axis=1), (A, B), lambda x, y: np.stack([x, y], 1)),
    ("stack_scalars", lambda x: rt.stack([x, 2.0]), (np.float32(1),),
     lambda x: np.array([1, 2], np.float32)),
    ("gather", lambda x: rt.gather(x, rt.constant([2, 0]), axis=1), (A,),
     lambda x: np.take(x, [2, 0], 1)),
    ("cast", lambda x: rt.cast(x, rt.int32), (A,), lambda x: x.astype(np.int32)),
    ("cast_bool", lambda x: rt.cast(x, rt.float32), (M,), lambda x: x.astype(np.float32)),
    ("eye", lambda: rt.eye(3), (), lambda: np.eye(3, dtype=np.float32)),
    ("eye_rect", lambda: rt.eye(2, 3, dtype=rt.int32), (), lambda: np.eye(2, 3, dtype=np.int32)),
    ("zeros", lambda: rt.zeros([2, 3]), (), lambda: np.zeros((2, 3), np.float32)),
    ("ones", lambda: rt.ones([2], rt.int32), (), lambda: np.ones(2, np.int32)),
    ("fill", lambda: rt.fill([2, 2], 7), (), lambda: np.full((2, 2), 7, np.int32)),
    ("zeros_like", rt.zeros_like, (A,), np.zeros_like),
    ("ones_like", lambda x: rt.ones_like(x, dtype=rt.int64), (A,),
     lambda x: np.ones(x.shape, np.int64)),
    ("range", lambda: rt.range(5), (), lambda: np.arange(5, dtype=np.int32)),
    ("range_float", lambda: rt.range(1, 2.0, 0.25), (), lambda: np.arange(1, 2, 0.25, np.float32)),
    ("range_tensor", lambda n: rt.range(n), (np.int32(4),), lambda n: np.arange(4, dtype=np.int32)),
    ("where", rt.where, (M, A, B), np.where),
    ("where_indices", rt.where, (M,), np.argwhere),
    ("identity", rt.identity, (A,), lambda x: x),
    ("shape", rt.shape, (A,), lambda x: np.array(x.shape, np.int32)),
    ("size", rt.size, (A,), lambda x: np.int32(x.size)),
    ("clip_by_value", lambda x: rt.clip_by_value(x, -1.0, 2.0), (A,), lambda x: np.clip(x, -1, 2)),
    ("relu", rt.nn.relu, (A,), lambda x: np.maximum(x, 0)),
    ("softmax", rt.nn.softmax, (A,),
     lambda x: np.exp(x) / np.exp(x).sum(-1, keepdims=True)),
]


def _tensors(args):
    return [rt.constant(a) if isinstance(a, (np.ndarray, np.generic)) else a for a in args]


@pytest.mark.parametrize("name, fn, args, reference", CASES, ids=[c[0] for c in CASES])
def test_op_eager_matches_numpy_and_graph(name, fn, args, reference, eager_and_graph):
    eager, _ = eager_and_graph(fn, *_tensors(args))
    expected = np.asarray(reference(*args))
    assert eager.dtype == expected.dtype
    assert eager.shape == expected.shape
    np.testing.assert_allclose(eager.numpy(), expected, rtol=1e-6)


@pytest.mark.parametrize("name, fn, args, reference", CASES, ids=[c[0] for c in CASES])
def test_op_static_shape_inference_fits_the_value(name, fn, args, reference):
    traced = rt.function(fn)
    tensors = _tensors(args)
    concrete = traced.get_concrete_function(*tensors)
    (static,) = concrete.graph.outputs
    value = traced(*tensors)
    assert static.dtype == value.dtype
    assert len(static.shape) == len(value.shape)
    assert all(s is None or s == v for s, v in zip(static.shape, value.shape))


def test_shapes_with_unknown_dimensions_propagate():
    @rt.function
    def f(a, b):
        return rt.matmul(a, b), a + 1.0, rt.reduce_sum(a, axis=1), rt.concat([a, a], axis=0)
    graph = f.get_concrete_function(rt.TensorSpec([None, 3]), rt.TensorSpec([3, 2])).graph
    assert [v.shape for v in graph.outputs] == [(None, 2), (None, 3), (None,), (None, 3)]


def test_dynamic_shapes_become_ops():
    @rt.function
    def f(x):
        return rt.shape(x), rt.size(x), rt.zeros_like(x), rt.ones_like(x)
    graph = f.get_concrete_function(rt.TensorSpec([None, 2])).graph
    assert {node.op.name for node in graph.nodes} >= {"shape", "size", "fill"}
    shape, size, zeros, ones = f(rt.constant(np.ones((3, 2), np.float32)))
    np.testing.assert_array_equal(shape.numpy(), [3, 2])
    assert size.numpy() == 6
    assert zeros.shape == (3, 2) and zeros.dtype == rt.float32 and not zeros.numpy().any()
    assert ones.numpy().all()


def test_known_shape_is_a_constant_while_tracing():
    @rt.function
    def f(x):
        return rt.shape(x)
    graph = f.get_concrete_function(rt.TensorSpec([2, 5])).graph
    assert [node.op.name for node in graph.nodes] == ["const"]


# -- trace-time errors name the op and the shapes ---------------------------------------------


def _trace(fn, *specs):
    return rt.function(fn).get_concrete_function(*specs)


def test_matmul_shape_error_names_op_and_shapes():
    with pytest.raises(ShapeError, match=re.escape("matmul: shapes (2, 3) and (4, 5) are incompatible")):
        _trace(rt.matmul, rt.TensorSpec([2, 3]), rt.TensorSpec([4, 5]))


def test_matmul_scalar_operand_error():
    with pytest.raises(ShapeError, match=re.escape("matmul: scalar operands are not allowed")):
        _trace(rt.matmul, rt.TensorSpec([]), rt.TensorSpec([2, 2]))


@pytest.mark.parametrize("fn, specs, error, fragment", [
    (rt.add, ([2], [3]), ShapeError, "add: shapes (2,) and (3,) cannot be broadcast together."),
    (lambda x: rt.reshape(x, [4, 2]), ([3, 2],), ShapeError,
     "reshape: cannot reshape a tensor of shape (3, 2) (6 elements) into (4, 2) (8 elements)."),
    (lambda x: rt.reshape(x, [-1, 4]), ([3, 2],), ShapeError,
     "reshape: cannot reshape a tensor of shape (3, 2) (6 elements) into (-1, 4)."),
    (lambda x: rt.transpose(x, [0, 0]), ([3, 2],), ShapeError,
     "transpose: perm [0, 0] is not a permutation of the 2 axes"),
    (lambda x, y: rt.concat([x, y], 0), ([2, 3], [2, 4]), ShapeError,
     "concat: shapes (2, 3), (2, 4) differ outside axis 0."),
    (lambda x, y: rt.stack([x, y]), ([2], [3]), ShapeError,
     "stack: all inputs must have the same shape, got (2,), (3,)."),
    (lambda x: rt.reduce_sum(x, axis=2), ([3],), ShapeError,
     "reduce_sum: axis 2 is out of range for a tensor of rank 1."),
    (lambda x: rt.squeeze(x, 0), ([3],), ShapeError, "squeeze: axis 0 of shape (3,) has size 3, not 1."),
])
def test_shape_errors_while_tracing(fn, specs, error, fragment):
    with pytest.raises(error, match=re.escape(fragment)):
        _trace(fn, *[rt.TensorSpec(s) for s in specs])


def test_dtype_errors_while_tracing():
    with pytest.raises(GraphTypeError, match=re.escape(
            "concat: all inputs must have the same dtype, got float32, int32; use rt.cast")):
        _trace(lambda x, y: rt.concat([x, y], 0), rt.TensorSpec([2]), rt.TensorSpec([2], rt.int32))
    with pytest.raises(GraphTypeError, match=re.escape("floordiv: not defined for dtypes complex64, "
                                                       "complex64")):
        _trace(rt.floordiv, rt.TensorSpec([2], rt.complex64), rt.TensorSpec([2], rt.complex64))


def test_trace_time_error_is_raised_before_anything_runs(capsys):
    @rt.function
    def f(x):
        rt.print("ran")
        return rt.matmul(x, x)
    with pytest.raises(ShapeError):
        f(rt.constant(np.ones((2, 3), np.float32)))
    assert capsys.readouterr().out == ""


# -- eager errors ----------------------------------------------------------------------------


def test_eager_kernel_error_names_the_op_and_inputs():
    with pytest.raises(InvalidArgumentError, match=re.escape(
            "gather failed on inputs [(2,) float32, () int32]: indices = 5 is not in [0, 2): index 5 "
            "is out of range for axis 0 of size 2, in a tensor of shape (2,).")):
        rt.gather(rt.constant([1.0, 2.0]), rt.constant(5))
    with pytest.raises(InvalidArgumentError, match=re.escape("matmul failed on inputs [(2, 3) float32, "
                                                             "(4, 5) float32]")):
        rt.matmul(np.zeros((2, 3), np.float32), np.zeros((4, 5), np.float32))


def test_softmax_rejects_integers():
    with pytest.raises(TypeError, match=re.escape("softmax needs a floating-point tensor, got int32.")):
        rt.nn.softmax(rt.constant([1, 2]))


def test_reduce_mean_of_bools_is_an_error():
    with pytest.raises(InvalidArgumentError, match="reduce_mean is not defined for bool tensors"):
        rt.reduce_mean(rt.constant([True, False]))


def test_range_with_zero_delta_fails_when_run():
    with pytest.raises(InvalidArgumentError, match="range: delta must not be zero"):
        rt.range(0, 5, 0)


@pytest.mark.parametrize("bounds", [(0, 10, 3), (10, 0, -3), (5, 5, 1), (-2.5, 7.25, 0.75),
                                    (1.0, 0.0, 0.1), (0, 1, 0.1), (3, -4.5, -1.5)])
def test_the_traced_length_of_a_range_is_numpys(bounds):
    concrete = rt.function(lambda: rt.range(*bounds)).get_concrete_function()
    assert concrete.graph.outputs[0].shape == (len(np.arange(*bounds)),)


def test_a_huge_constant_range_is_typed_without_being_made():
    # Its type is worked out by arithmetic (a loaded graph may declare one): 10**12 int64
    # elements would need 8 TB.
    concrete = rt.function(lambda: rt.range(0, 10**12, 1)).get_concrete_function()
    assert concrete.graph.outputs[0].shape == (10**12,)


def test_where_needs_both_branches_or_neither():
    with pytest.raises(ValueError, match=re.escape("where: give both x and y, or neither.")):
        rt.where(rt.constant([True]), rt.constant([1.0]))


def test_eye_needs_static_sizes_while_tracing():
    with pytest.raises(TypeError, match="eye: num_rows and num_columns must be known while tracing"):
        _trace(lambda n: rt.eye(n), rt.TensorSpec([], rt.int32))


# -- random ----------------------------------------------------------------------------------


def test_random_shapes_dtypes_and_ranges():
    values = rt.random.uniform([1000], minval=2.0, maxval=3.0).numpy()
    assert values.dtype == np.float32 and values.shape == (1000,)
    assert values.min() >= 2.0 and values.max() < 3.0
    ints = rt.random.uniform([50], minval=0, maxval=3, dtype=rt.int32).numpy()
    assert ints.dtype == np.int32 and set(ints.tolist()) <= {0, 1, 2}
    normal = rt.random.normal([2, 3], mean=5.0, dtype=rt.float64)
    assert normal.dtype == rt.float64 and normal.shape == (2, 3)


def test_random_integer_uniform_needs_maxval():
    with pytest.raises(ValueError, match=re.escape("integer dtypes need an explicit maxval")):
        rt.random.uniform([2], dtype=rt.int32)


def test_set_seed_makes_draws_reproducible():
    rt.random.set_seed(7)
    first = [rt.random.uniform([3]).numpy(), rt.random.normal([2], seed=3).numpy()]
    rt.random.set_seed(7)
    second = [rt.random.uniform([3]).numpy(), rt.random.normal([2], seed=3).numpy()]
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)


def test_random_in_a_graph_draws_new_values_every_call():
    @rt.function
    def draw():
        return rt.random.uniform([4], seed=1)
    rt.random.set_seed(3)
    a, b = draw().numpy(), draw().numpy()
    assert not np.array_equal(a, b)
    rt.random.set_seed(3)
    np.testing.assert_array_equal(draw().numpy(), a)
    assert draw.tracing_count == 1


# -- the registry ----------------------------------------------------------------------------


def test_graph_nodes_reference_registered_ops():
    @rt.function
    def f(x):
        return rt.reduce_sum(rt.exp(x) * 2.0)
    graph = f.get_concrete_function(rt.TensorSpec([3])).graph
    for node in graph.nodes:
        assert registry.get_op(node.op.name) is node.op
    assert [n.op.name for n in graph.nodes if n.op.name != "const"] == ["exp", "multiply", "reduce_sum"]


def test_registry_rejects_duplicates_and_unknown_names():
    with pytest.raises(ValueError, match=re.escape("op 'add' is registered twice")):
        registry.register(registry.OpDef("add", np.add, None))
    with pytest.raises(KeyError, match="unknown op 'no_such_op'"):
        registry.get_op("no_such_op")


# -- mid-sized matmuls in blocks of one BLAS thread each ---------------------------------------


def _by_blocks(a, b):
    """``a @ b`` computed block by block as ``blas_blocks`` says, written out plainly."""
    from runtime.ops.linalg_ops import COLUMN_BLOCKS, ROW_BLOCKS, blas_blocks, block_stop
    (m, k), n = a.shape, b.shape[1]
    split, size = blas_blocks(m, k, n)
    assert split in (ROW_BLOCKS, COLUMN_BLOCKS)
    total, start, pieces = (m if split == ROW_BLOCKS else n), 0, []
    while start < total:
        stop = block_stop(start, size, total)
        assert stop - start >= 2  # NumPy would take gemv for one row or column
        pieces.append(a[start:stop] @ b if split == ROW_BLOCKS else a @ b[:, start:stop])
        assert pieces[-1].size * k <= 262_144  # each block stays on one OpenBLAS thread
        start = stop
    return np.concatenate(pieces, axis=0 if split == ROW_BLOCKS else 1)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("m, k, n", [
    (20, 784, 64), (20, 784, 49),  # column blocks (n > m); the second ends in 15 + 2 columns
    (200, 100, 50), (64, 256, 64), (105, 100, 50),  # row blocks; the second ends in 51 + 2 rows
    (4, 1000, 1000),  # one row is over the threshold: column blocks
])
def test_mid_sized_float_matmuls_run_in_blocks_eagerly_and_in_graphs(dtype, m, k, n):
    rng = np.random.default_rng(m)
    a, b = rng.standard_normal((m, k)).astype(dtype), rng.standard_normal((k, n)).astype(dtype)
    blocks = _by_blocks(a, b)
    eager = rt.matmul(a, b).numpy()
    graph = rt.function(lambda a, b: rt.matmul(a, b))(a, b).numpy()
    np.testing.assert_array_equal(eager, blocks)
    np.testing.assert_array_equal(graph, blocks)
    np.testing.assert_allclose(eager, a.astype(np.float64) @ b.astype(np.float64),
                               rtol=1e-4 if dtype == np.float32 else 1e-12, atol=1e-3)


def test_blocks_split_the_longer_side_and_small_large_and_integer_matmuls_are_one_call():
    from runtime.ops.linalg_ops import COLUMN_BLOCKS, ONE_CALL, ROW_BLOCKS, blas_blocks
    assert blas_blocks(20, 784, 64) == (COLUMN_BLOCKS, 16)  # repacks the small left operand
    assert blas_blocks(64, 784, 20) == (ROW_BLOCKS, 16)
    assert blas_blocks(64, 64, 64)[0] == ONE_CALL        # at the threshold: one thread anyway
    assert blas_blocks(1024, 1024, 1024)[0] == ONE_CALL  # big: threads pay off
    assert blas_blocks(10, 30_000, 10)[0] == ONE_CALL    # a block would be under 3 rows
    a = np.arange(20 * 784, dtype=np.int64).reshape(20, 784) % 7
    b = np.arange(784 * 64, dtype=np.int64).reshape(784, 64) % 5
    np.testing.assert_array_equal(rt.matmul(a, b).numpy(), a @ b)
