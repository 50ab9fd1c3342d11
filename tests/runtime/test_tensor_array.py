"""``rt.TensorArray``: functional writes, TensorFlow's semantics (bounds, growth, zeros for
unwritten elements, one dtype and shape), eagerly and as state of graph loops and conditionals
(``rt.while_loop``, ``rt.cond``, converted ``for``/``while``), with pinned error messages and a
save/load round trip."""

import re

import numpy as np
import pytest

import runtime as rt
from runtime.errors import GraphTypeError, InvalidArgumentError, ShapeError
from tests.runtime.conftest import assert_same_values
from transpiler import function

DTYPES = [rt.int32, rt.int64, rt.float64]


def _data(dtype, shape, seed):
    values = np.random.default_rng(seed).integers(-50, 50, size=shape)
    return rt.constant(values.astype(dtype))


# -- eager ------------------------------------------------------------------------------------


def test_write_returns_a_new_array_and_leaves_the_old_one_as_it_was():
    empty = rt.TensorArray(rt.float32, size=3)
    one = empty.write(0, 1.5)
    two = one.write(2, rt.constant(5.0))
    assert two.stack().numpy().tolist() == [1.5, 0.0, 5.0]
    assert one.stack().numpy().tolist() == [1.5, 0.0, 0.0]
    assert one.read(2).numpy() == 0.0
    assert int(two.size()) == 3 and two.dtype == rt.float32 and two.element_shape == ()


def test_methods_eagerly():
    rows = rt.constant(np.arange(6, dtype=np.int64).reshape(3, 2))
    ta = rt.TensorArray(rt.int64, size=3).unstack(rows)
    assert ta.read(1).numpy().tolist() == [2, 3]
    assert ta.stack().numpy().tolist() == [[0, 1], [2, 3], [4, 5]]
    assert ta.gather([2, 0]).numpy().tolist() == [[4, 5], [0, 1]]
    assert ta.gather(rt.constant([[1]])).shape == (1, 1, 2)
    assert ta.concat().numpy().tolist() == [0, 1, 2, 3, 4, 5]
    assert ta.size().dtype == rt.int32 and int(ta.size()) == 3
    assert ta.element_shape == (2,)
    assert repr(ta) == "<rt.TensorArray dtype=int64 size=3 element_shape=(2,)>"


def test_dynamic_size_grows_and_fills_gaps_with_zeros():
    ta = rt.TensorArray(rt.float64, size=0, dynamic_size=True)
    ta = ta.write(0, [1.0, 2.0]).write(3, [7.0, 8.0])
    assert int(ta.size()) == 4
    np.testing.assert_array_equal(ta.stack().numpy(), [[1, 2], [0, 0], [0, 0], [7, 8]])
    assert ta.read(2).numpy().tolist() == [0.0, 0.0]


def test_unwritten_elements_are_zeros_when_the_element_shape_is_known():
    ta = rt.TensorArray(rt.int32, size=2, element_shape=[3])
    assert ta.stack().numpy().tolist() == [[0, 0, 0], [0, 0, 0]]
    assert ta.read(1).shape == (3,)
    assert rt.TensorArray(rt.int32, size=0).stack().shape == (0,)
    assert rt.TensorArray(rt.int32, size=0, element_shape=[2]).stack().shape == (0, 2)


def test_python_numbers_take_the_array_dtype():
    assert rt.TensorArray(rt.float64, 1).write(0, 1).stack().dtype == rt.float64
    assert rt.TensorArray(rt.int64, 1).write(0, [2 ** 40]).read(0).numpy().tolist() == [2 ** 40]
    assert rt.TensorArray(rt.float32, 0, dynamic_size=True).unstack([0.0, 1.0]).size().numpy() == 2


def test_unstack_of_fewer_elements_than_a_fixed_size_shrinks_it():
    ta = rt.TensorArray(rt.float32, size=3).unstack([1.0, 2.0])
    assert int(ta.size()) == 2 and ta.stack().numpy().tolist() == [1.0, 2.0]


def test_unstack_copies_a_numpy_argument():
    values = np.array([1.0, 2.0])
    ta = rt.TensorArray(rt.float64, size=2).unstack(values)
    values[0] = 100.0
    assert ta.stack().numpy().tolist() == [1.0, 2.0]


# -- errors -----------------------------------------------------------------------------------

_OUT_OF_BOUNDS = ("TensorArray.write: index 3 is out of bounds for a TensorArray of size 3. Use "
                  "an index in [0, 3), or create the array with dynamic_size=True to let it grow.")


def test_writing_out_of_bounds_of_a_fixed_size_array_is_an_error():
    with pytest.raises(InvalidArgumentError, match=re.escape(_OUT_OF_BOUNDS)):
        rt.TensorArray(rt.float32, size=3).write(3, 1.0)
    with pytest.raises(InvalidArgumentError, match=re.escape(
            "TensorArray.write: index -1 is negative; the elements of a TensorArray are "
            "numbered from 0.")):
        rt.TensorArray(rt.float32, size=3, dynamic_size=True).write(-1, 1.0)


def test_writing_out_of_bounds_in_a_graph_fails_when_it_runs():
    @rt.function
    def fill(n, count):
        ta = rt.TensorArray(rt.float32, size=n)
        _, ta = rt.while_loop(lambda i, ta: i < count,
                              lambda i, ta: (i + 1, ta.write(i, rt.cast(i, rt.float32))), (0, ta))
        return ta.stack()
    assert fill(rt.constant(3), rt.constant(3)).numpy().tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(InvalidArgumentError, match=re.escape(_OUT_OF_BOUNDS)) as caught:
        fill(rt.constant(3), rt.constant(4))
    assert "tensor_array_write" in str(caught.value) and "test_tensor_array.py" in str(caught.value)


def test_reading_out_of_bounds_is_an_error():
    ta = rt.TensorArray(rt.float32, size=2, element_shape=[])
    message = ("TensorArray.read: index 2 is out of bounds for a TensorArray of size 2. Use an "
               "index in [0, 2).")
    with pytest.raises(InvalidArgumentError, match=re.escape(message)):
        ta.read(2)
    with pytest.raises(InvalidArgumentError, match=re.escape(message)):
        rt.function(lambda i: ta.read(i))(rt.constant(2))
    with pytest.raises(InvalidArgumentError, match="TensorArray.gather: index -1 is out"):
        ta.gather([0, -1])


def test_values_of_another_dtype_are_refused():
    ta = rt.TensorArray(rt.float32, size=2)
    with pytest.raises(TypeError, match=re.escape(
            "TensorArray.write: the TensorArray holds float32 elements but the value is a tensor "
            "of dtype int32. Cast it with rt.cast(value, rt.float32), or create the array with "
            "that dtype.")):
        ta.write(0, rt.constant(1))
    with pytest.raises(TypeError, match=re.escape(
            "TensorArray.write: the TensorArray holds int32 elements but the value is the Python "
            "value 0.5.")):
        rt.TensorArray(rt.int32, size=2).write(0, 0.5)
    with pytest.raises(TypeError, match="TensorArray.unstack: the TensorArray holds float32"):
        ta.unstack(rt.constant([1, 2]))


def test_values_of_another_shape_are_refused():
    ta = rt.TensorArray(rt.float32, size=2).write(0, [1.0, 2.0])
    with pytest.raises(ShapeError, match=re.escape(
            "TensorArray.write: the value has shape (3,), but the elements of this TensorArray "
            "have shape (2,). All elements of a TensorArray have one shape; reshape the value or "
            "create the array with another element_shape.")):
        ta.write(1, [1.0, 2.0, 3.0])
    with pytest.raises(ShapeError, match=re.escape("the value has shape (), but the elements")):
        rt.TensorArray(rt.float32, size=2, element_shape=[None, 2]).write(0, 1.0)
    with pytest.raises(ShapeError, match=re.escape(
            "TensorArray.unstack: the value has shape (2, 3), so its elements have shape (3,), "
            "but the elements of this TensorArray have shape (2,).")):
        ta.unstack(rt.zeros([2, 3]))


def test_a_shape_known_only_when_the_graph_runs_is_checked_then():
    @rt.function(input_signature=[rt.TensorSpec([None]), rt.TensorSpec([None])])
    def two(a, b):
        return rt.TensorArray(rt.float32, size=2).write(0, a).write(1, b).stack()
    assert two(rt.constant([1.0]), rt.constant([2.0])).numpy().tolist() == [[1.0], [2.0]]
    with pytest.raises(InvalidArgumentError, match=re.escape(
            "TensorArray.write: the value for index 1 has shape (2,), but the elements written "
            "before have shape (1,). All elements of a TensorArray have one shape.")):
        two(rt.constant([1.0]), rt.constant([2.0, 3.0]))


def test_reading_an_array_of_unknown_element_shape_before_any_write_is_an_error():
    ta = rt.TensorArray(rt.float32, size=2)
    message = ("TensorArray.stack: none of the 2 elements has been written and the element shape "
               "is not fully known, so there is no value to return (TensorFlow returns zeros only "
               "for a known shape). Write the elements first, or pass element_shape= when "
               "creating the TensorArray.")
    with pytest.raises(InvalidArgumentError, match=re.escape(message)):
        ta.stack()
    with pytest.raises(InvalidArgumentError, match=re.escape(message)):
        rt.function(lambda: ta.stack())()
    with pytest.raises(InvalidArgumentError, match="TensorArray.read: none of the 2 elements"):
        ta.read(0)


def test_unstacking_more_elements_than_a_fixed_size_is_an_error():
    message = ("TensorArray.unstack: a tensor of shape (3,) has 3 elements, more than the fixed "
               "size 2 of the TensorArray. Create it with size=3 or with dynamic_size=True.")
    with pytest.raises(InvalidArgumentError, match=re.escape(message)):
        rt.TensorArray(rt.float32, size=2).unstack([1.0, 2.0, 3.0])
    with pytest.raises(ShapeError, match=re.escape("TensorArray.unstack: cannot unstack a scalar")):
        rt.TensorArray(rt.float32, size=2).unstack(1.0)


def test_concat_needs_elements_of_rank_one_or_more():
    message = ("TensorArray.concat: the elements are scalars, and concat joins elements along "
               "their first axis, so they need rank 1 or more. Use stack() for scalars.")
    ta = rt.TensorArray(rt.float32, size=2, element_shape=[])
    with pytest.raises(InvalidArgumentError, match=re.escape(message)):
        ta.concat()
    with pytest.raises(ShapeError, match=re.escape(message)):
        rt.function(lambda: ta.concat())()


@pytest.mark.parametrize("kwargs, error, fragment", [
    ({"size": -1}, ValueError, "TensorArray: the size must not be negative, got -1."),
    ({"size": 1.5}, TypeError, "TensorArray: the size must be an int or an integer scalar tensor"),
    ({"size": 2, "element_shape": "ab"}, TypeError, "TensorArray: element_shape must be a list"),
])
def test_bad_constructor_arguments(kwargs, error, fragment):
    with pytest.raises(error, match=re.escape(fragment)):
        rt.TensorArray(rt.float32, **kwargs)


def test_a_negative_size_tensor_fails_when_the_graph_runs():
    make = rt.function(lambda n: rt.TensorArray(rt.float32, size=n, element_shape=[]).stack())
    with pytest.raises(InvalidArgumentError, match=re.escape(
            "TensorArray: the size must not be negative, got -2.")):
        make(rt.constant(-2))


def test_indices_must_be_integers():
    ta = rt.TensorArray(rt.float32, size=2, element_shape=[])
    with pytest.raises(TypeError, match=re.escape(
            "TensorArray.read: the index must be an integer scalar, got a float32 tensor of shape "
            "().")):
        ta.read(rt.constant(1.0))
    with pytest.raises(TypeError, match=re.escape("TensorArray.write: the index must be an int")):
        ta.write(1.0, 2.0)
    with pytest.raises(TypeError, match="TensorArray.gather: the indices must be integers"):
        ta.gather([0.5])


# -- rt.function with rt.while_loop and rt.cond --------------------------------------------------


def scaled_rows(n, x, dynamic):
    ta = rt.TensorArray(x.dtype, size=0 if dynamic else n, dynamic_size=dynamic)

    def body(i, ta):
        return i + 1, ta.write(i, x * rt.cast(i, x.dtype))
    _, ta = rt.while_loop(lambda i, ta: i < n, body, (0, ta))
    return ta.stack(), ta.size()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dynamic", [False, True])
def test_while_loop_fills_an_array_as_eagerly(dtype, dynamic):
    graph = rt.function(scaled_rows)
    for n in range(0, 7):
        x = _data(dtype, (2,), seed=n)
        eager = scaled_rows(rt.constant(n), x, dynamic)
        assert_same_values(eager, graph(rt.constant(n), x, dynamic))
    assert graph.tracing_count == 1


@pytest.mark.parametrize("dynamic, element_shape, stacked_shape", [
    (True, [3], (None, 3)),   # the leading dimension varies in the loop
    (False, [3], (4, 3)),     # fixed size and element shape: nothing varies
    (False, None, None),      # allocated by the first write in the loop: rank unknown before
])
def test_loop_variable_shapes_relax_only_where_they_vary(dynamic, element_shape, stacked_shape):
    def fill(n, x):
        ta = rt.TensorArray(rt.float64, size=4, dynamic_size=dynamic, element_shape=element_shape)
        _, ta = rt.while_loop(lambda i, ta: i < n, lambda i, ta: (i + 1, ta.write(i, x)), (0, ta))
        return ta.stack(), ta.size()
    concrete = rt.function(fill).get_concrete_function(
        rt.TensorSpec([], rt.int32), rt.TensorSpec([3], rt.float64))
    stacked, size = concrete.graph.outputs
    assert stacked.shape == stacked_shape and size.shape == ()
    result = concrete(rt.constant(3), rt.constant([1.0, 2.0, 3.0], rt.float64))
    assert result[0].numpy().tolist() == [[1.0, 2.0, 3.0]] * 3 + [[0.0, 0.0, 0.0]]


def test_an_array_created_eagerly_can_be_a_graph_loop_variable():
    start = rt.TensorArray(rt.float32, size=0, dynamic_size=True).write(0, [1.0, 2.0])
    unallocated = rt.TensorArray(rt.float32, size=3)

    @rt.function
    def grow(n, x):
        def body(i, a, b):
            return i + 1, a.write(a.size(), x), b.write(i, x)
        _, a, b = rt.while_loop(lambda i, a, b: i < n, body, (0, start, unallocated))
        return a.stack(), b.stack()
    a, b = grow(rt.constant(3), rt.constant([3.0, 4.0]))
    assert a.numpy().tolist() == [[1.0, 2.0]] + [[3.0, 4.0]] * 3
    assert b.numpy().tolist() == [[3.0, 4.0]] * 3


def test_fibonacci_reads_earlier_elements_in_the_loop():
    def fibonacci(n):
        first_two = rt.constant([0, 1], rt.int64)
        ta = rt.TensorArray(rt.int64, size=0, dynamic_size=True).unstack(first_two)
        _, ta = rt.while_loop(lambda i, ta: i < n,
                              lambda i, ta: (i + 1, ta.write(i, ta.read(i - 1) + ta.read(i - 2))),
                              (2, ta))
        return ta.stack()
    graph = rt.function(fibonacci)
    for n in range(2, 12):
        assert_same_values(fibonacci(rt.constant(n)), graph(rt.constant(n)))
    assert graph(rt.constant(8)).numpy().tolist() == [0, 1, 1, 2, 3, 5, 8, 13]


def pick(flag, x):
    ta = rt.TensorArray(x.dtype, size=2)
    ta = rt.cond(flag, lambda: ta.write(0, x), lambda: ta.write(1, x + x))
    return ta.stack(), ta.read(0)


@pytest.mark.parametrize("dtype", DTYPES)
def test_cond_outputs_an_array(dtype, eager_and_graph):
    for seed, flag in enumerate([True, False, True, False]):
        eager_and_graph(pick, rt.constant(flag), _data(dtype, (3,), seed))


def test_cond_joins_an_unwritten_array_with_a_written_one(eager_and_graph):
    def maybe(flag, x):
        ta = rt.TensorArray(rt.float32, size=2)
        ta = rt.cond(flag, lambda: ta.write(1, x), lambda: ta.write(0, x * 2.0).write(1, x))
        return ta.stack()
    eager_and_graph(maybe, rt.constant(True), rt.constant([1.0, 2.0]))
    eager_and_graph(maybe, rt.constant(False), rt.constant([1.0, 2.0]))

    def partly(flag):
        ta = rt.TensorArray(rt.float32, size=1)
        return rt.cond(flag, lambda: ta.write(0, 1.0), lambda: ta)
    written = rt.function(partly)(rt.constant(True))
    assert isinstance(written, rt.TensorArray) and written.stack().numpy().tolist() == [1.0]
    with pytest.raises(InvalidArgumentError, match="TensorArray.stack: none of the 1 elements"):
        rt.function(lambda flag: partly(flag).stack())(rt.constant(False))


def test_cond_branches_must_give_arrays_of_the_same_dtype():
    @rt.function
    def mixed(flag):
        return rt.cond(flag, lambda: rt.TensorArray(rt.float32, size=1),
                       lambda: rt.TensorArray(rt.int32, size=1))
    with pytest.raises(GraphTypeError, match=re.escape(
            "the true branch gives TensorArray[float32](*, *, *) and the false branch gives "
            "TensorArray[int32](*, *, *)")):
        mixed(rt.constant(True))


def test_old_array_keeps_its_values_in_a_graph(eager_and_graph):
    def both(x):
        before = rt.TensorArray(rt.float32, size=2).write(0, x)
        after = before.write(0, x * 10.0).write(1, x)
        return before.stack(), after.stack()
    eager_and_graph(both, rt.constant([1.0, 2.0]))


def test_static_shapes_in_a_graph():
    def shapes(x, n):
        fixed = rt.TensorArray(rt.float32, size=4, element_shape=[3])
        grown = rt.TensorArray(rt.float32, size=0, dynamic_size=True).write(0, x).write(1, x)
        symbolic = rt.TensorArray(rt.float32, size=n).write(0, x)
        assert fixed.stack().shape == (4, 3) and fixed.size().shape == ()
        # A dynamic array's size is a run-time value (as in TensorFlow).
        assert grown.stack().shape == (None, 3) and grown.element_shape == (3,)
        assert symbolic.stack().shape == (None, 3) and symbolic.concat().shape == (None,)
        return grown.size(), fixed.size()
    result = rt.function(shapes)(rt.zeros([3]), rt.constant(2))
    assert [int(t) for t in result] == [2, 4]


def test_nest_sees_the_components_as_leaves():
    ta = rt.TensorArray(rt.float32, size=2, element_shape=[1])
    leaves = rt.nest.flatten({"a": (1, ta)})
    assert len(leaves) == 4 and leaves[2] is ta.components()[1]
    rebuilt = rt.nest.pack_like(ta, [rt.ones([2, 1]), rt.constant(2), rt.constant(2)])
    assert isinstance(rebuilt, rt.TensorArray) and rebuilt.element_shape == (1,)
    assert rebuilt.stack().numpy().tolist() == [[1.0], [1.0]]
    assert rt.nest.leaf_paths((ta,)) == ["[0].buffer", "[0].size", "[0].filled"]
    assert rt.nest.describe_structure([ta]) == \
        "[TensorArray[float32, element_shape=(1,)](*, *, *)]"


# -- converted loops --------------------------------------------------------------------------


def collect(n, x):
    ta = rt.TensorArray(x.dtype, size=n)
    for i in range(n):
        ta = ta.write(i, x * i)
    return ta.stack()


def collect_even(n, x):
    ta = rt.TensorArray(x.dtype, size=0, dynamic_size=True)
    i = 0
    while i < n:
        if i % 2 == 0:
            ta = ta.write(ta.size(), x + i)
        i += 1
    return ta.stack(), ta.size()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fn", [collect, collect_even])
def test_converted_loops_carry_an_array(fn, dtype):
    converted = function(fn)
    for n in range(0, 7):
        x = _data(dtype, (2,), seed=n)
        assert_same_values(fn(n, x), converted(rt.constant(n), x))
    assert converted.tracing_count == 1


# -- save and load ----------------------------------------------------------------------------


def test_a_saved_graph_with_arrays_runs_after_loading(tmp_path):
    path = str(tmp_path / "arrays.e2g")
    concrete = function(collect_even).get_concrete_function(
        rt.TensorSpec([], rt.int32), rt.TensorSpec([2], rt.float64))
    rt.save(concrete, path)
    loaded = rt.load(path)
    for n in range(0, 6):
        x = _data(rt.float64, (2,), seed=n)
        assert_same_values(loaded(rt.constant(n), x), concrete(rt.constant(n), x))

    every_method = rt.function(lambda x: (
        rt.TensorArray(rt.float32, size=0, dynamic_size=True).unstack(x).gather([1, 0]),
        rt.TensorArray(rt.float32, size=3).unstack(x).concat(),
        rt.TensorArray(rt.float32, size=3).unstack(x).read(2)))
    concrete = every_method.get_concrete_function(rt.TensorSpec([3, 2]))
    rt.save(concrete, path)
    x = rt.constant(np.arange(6, dtype=np.float32).reshape(3, 2))
    assert_same_values(rt.load(path)(x), concrete(x))


# -- arrays sharing a buffer --------------------------------------------------------------------


def test_writes_in_index_order_share_the_buffer_and_keep_older_arrays_intact():
    base = rt.TensorArray(rt.int32, size=4, element_shape=[])
    one = base.write(0, 1)
    two = one.write(1, 2)
    def storage(ta):
        return ta.components()[0].numpy()
    assert storage(one) is storage(two)  # written in place, not copied
    fork = one.write(1, 20)  # `two` claimed row 1 already: this write copies
    assert storage(fork) is not storage(two)
    assert base.stack().numpy().tolist() == [0, 0, 0, 0]
    assert one.stack().numpy().tolist() == [1, 0, 0, 0]
    assert two.stack().numpy().tolist() == [1, 2, 0, 0]
    assert fork.stack().numpy().tolist() == [1, 20, 0, 0]
    assert [int(one.read(1)), int(two.read(1)), int(fork.read(1))] == [0, 2, 20]
    assert one.gather([1, 0]).numpy().tolist() == [0, 1]


def test_a_returned_read_does_not_change_with_later_writes():
    ta = rt.TensorArray(rt.float64, size=0, dynamic_size=True).write(0, [1.0, 2.0])
    first, stacked = ta.read(0), ta.stack()
    ta.write(0, [5.0, 6.0]).write(1, [7.0, 8.0])
    assert first.numpy().tolist() == [1.0, 2.0] and stacked.numpy().tolist() == [[1.0, 2.0]]


def _random_program(seed: int, steps: int = 12) -> list:
    """Writes (``version, index, value``) on arrays of size 3, each making a new version."""
    rng = np.random.default_rng(seed)
    program = []
    for step in range(steps):
        program.append((int(rng.integers(0, step + 1)), int(rng.integers(0, 6)),
                        int(rng.integers(-9, 9))))
    return program


def _run_program(program, dynamic: bool):
    versions = [rt.TensorArray(rt.int64, size=3, dynamic_size=dynamic, element_shape=[2])]
    for version, index, value in program:
        if not dynamic:
            index %= 3
        versions.append(versions[version].write(index, rt.constant([value, -value], rt.int64)))
    return [ta.stack() for ta in versions]


def _model(program, dynamic: bool) -> list:
    versions = [[[0, 0]] * 3]
    for version, index, value in program:
        rows = list(versions[version])
        if not dynamic:
            index %= 3
        rows += [[0, 0]] * (index + 1 - len(rows))
        rows[index] = [value, -value]
        versions.append(rows)
    return versions


@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("seed", range(25))
def test_random_writes_on_many_versions_match_a_list_model(seed, dynamic):
    program = _random_program(seed)
    expected = _model(program, dynamic)
    eager = _run_program(program, dynamic)
    assert [t.numpy().tolist() for t in eager] == expected
    assert_same_values(eager, rt.function(lambda: _run_program(program, dynamic))())


def test_an_array_from_before_a_loop_is_intact_after_it():
    def before_and_after(n):
        start = rt.TensorArray(rt.float32, size=0, dynamic_size=True).write(0, 1.0)
        _, end = rt.while_loop(lambda i, ta: i < n,
                               lambda i, ta: (i + 1, ta.write(i + 1, rt.cast(i, rt.float32))),
                               (0, start))
        return start.stack(), end.stack(), start.write(1, 9.0).stack()
    graph = rt.function(before_and_after)
    for n in range(5):
        assert_same_values(before_and_after(rt.constant(n)), graph(rt.constant(n)))


def test_long_loops_write_in_place(eager_and_graph):
    def squares(n):
        ta = rt.TensorArray(rt.int64, size=0, dynamic_size=True)
        _, ta = rt.while_loop(lambda i, ta: i < n,
                              lambda i, ta: (i + 1, ta.write(i, rt.cast(i * i, rt.int64))),
                              (0, ta))
        return ta.stack()
    eager, _ = eager_and_graph(squares, rt.constant(20000))
    assert eager.numpy().tolist() == [i * i for i in range(20000)]


def test_the_spare_capacity_of_a_dynamic_array_never_shows_in_static_shapes():
    grown = rt.TensorArray(rt.float32, size=0, dynamic_size=True)
    for _ in range(5):
        grown = grown.write(grown.size(), [1.0, 2.0])
    assert grown.components()[0].shape[0] > 5  # room to grow in place

    @rt.function
    def through_cond(flag):
        same = rt.cond(flag, lambda: (grown, 1), lambda: (grown, 2))[0]
        stacked = same.stack()
        return rt.shape(stacked), rt.shape(same.concat()), same.size()
    assert [t.numpy().tolist() for t in through_cond(rt.constant(True))] == [[5, 2], [10], 5]
