"""The executor: graphs compiled once into readable Python plans; run-time failures name the op
and the line of user code that created it."""

import linecache
import re
import sys
import traceback

import warnings

import numpy as np
import pytest

import runtime as rt
from runtime.errors import InvalidArgumentError


def _line() -> int:
    return sys._getframe(1).f_lineno


def test_kernel_error_names_the_op_and_the_users_line():
    lines = {}

    @rt.function
    def pick(values, index):
        lines["gather"] = _line(); return rt.gather(values, index)  # noqa: E702

    pick(rt.constant([1, 2]), rt.constant(1))  # fine
    with pytest.raises(InvalidArgumentError) as info:
        pick(rt.constant([1, 2]), rt.constant(7))
    message = str(info.value)
    assert re.match(r"gather \(node %\d+\) failed while running the graph: indices = 7 is not in "
                    r"\[0, 2\): index 7 is out of range for axis 0 of size 2", message)
    assert f'File "{__file__}", line {lines["gather"]}, in pick' in message
    assert "return rt.gather(values, index)" in message  # the source line itself
    assert info.value.node.op.name == "gather"
    assert isinstance(info.value.__cause__, IndexError)


def test_kernel_error_inside_a_branch_names_the_inner_op():
    lines = {}

    @rt.function
    def f(flag, values):
        def then():
            lines["reshape"] = _line(); return rt.reshape(values, rt.constant([3]))  # noqa: E702
        return rt.cond(flag, then, lambda: values)

    np.testing.assert_array_equal(f(rt.constant(False), rt.constant([1.0, 2.0])).numpy(), [1.0, 2.0])
    with pytest.raises(InvalidArgumentError, match=r"^dynamic_reshape \(node %\d+\) failed") as info:
        f(rt.constant(True), rt.constant([1.0, 2.0]))
    assert f'line {lines["reshape"]}, in then' in str(info.value)


def test_kernel_error_inside_a_loop_body_names_the_inner_op():
    lines = {}

    @rt.function
    def f(values, n):
        def body(i, total):
            lines["gather"] = _line(); item = rt.gather(values, i)  # noqa: E702
            return i + 1, total + item
        return rt.while_loop(lambda i, total: i < n, body, (0, 0))

    assert int(f(rt.constant([1, 2, 3]), rt.constant(3))[1]) == 6
    with pytest.raises(InvalidArgumentError, match=r"^gather \(node %\d+\) failed") as info:
        f(rt.constant([1, 2, 3]), rt.constant(4))
    assert f'line {lines["gather"]}, in body' in str(info.value)


def test_failed_assertion_says_where_it_was_created():
    lines = {}

    @rt.function
    def f(x):
        lines["assert"] = _line(); rt.assert_(x > 0, "x must be positive")  # noqa: E702
        return x

    with pytest.raises(InvalidArgumentError) as info:
        f(rt.constant(-1))
    message = str(info.value)
    assert message.startswith("x must be positive\n  Assertion created at ")
    assert f'File "{__file__}", line {lines["assert"]}, in f' in message


def test_plan_source_is_readable_python():
    @rt.function
    def f(x, n):
        y = rt.cond(rt.reduce_sum(x) > 0, lambda: x * 2.0, lambda: -x)
        return rt.while_loop(lambda i, v: i < n, lambda i, v: (i + 1, v + y), (0, y))

    concrete = f.get_concrete_function(rt.TensorSpec([2]), rt.TensorSpec([], rt.int32))
    source = concrete.plan_source
    assert source.startswith("def plan_f(a0, a1):\n")
    compile(source, "<plan>", "exec")
    assert "\n    if v" in source and "\n    else:\n" in source
    assert "while True:\n" in source and "break" in source
    assert source.rstrip().splitlines()[-1].startswith("    return (")


def test_plan_lines_show_in_tracebacks():
    @rt.function
    def f(values):
        return rt.gather(values, rt.constant(9))

    with pytest.raises(InvalidArgumentError) as info:
        f(rt.constant([1, 2]))
    frames = traceback.extract_tb(info.value.__cause__.__traceback__)
    plan_frames = [frame for frame in frames if frame.filename.startswith("<eager2graph plan")]
    assert plan_frames, "the plan's frame is missing from the traceback"
    assert re.fullmatch(r"v\d+ = k\d+\(a0, c\d+, axis=k\d+_axis\)", plan_frames[0].line)
    assert linecache.getline(plan_frames[0].filename, plan_frames[0].lineno).strip() == \
        plan_frames[0].line


def test_plan_is_compiled_once():
    @rt.function
    def f(x):
        return x + 1
    concrete = f.get_concrete_function(rt.TensorSpec([], rt.int32))
    plan = concrete.executable
    for value in range(3):
        assert int(f(rt.constant(value))) == value + 1
    assert f.get_concrete_function(rt.TensorSpec([], rt.int32)).executable is plan


def test_constant_outputs_are_fresh_writable_arrays():
    @rt.function
    def f(flag, n):
        direct = rt.constant([1, 2])
        branch = rt.cond(flag, lambda: rt.constant([3, 4]), lambda: rt.constant([5, 6]))
        loop = rt.while_loop(lambda i, v: i < n, lambda i, v: (i + 1, rt.constant([7, 8])),
                             (0, rt.constant([9, 9])))[1]
        return direct, branch, loop

    for _ in range(2):
        results = f(rt.constant(True), rt.constant(0))
        for result in results:
            array = result.numpy()
            assert array.flags.writeable
            array[0] = -1  # must not change the graph's constants
        assert [r.numpy().tolist() for r in f(rt.constant(True), rt.constant(0))] == \
            [[1, 2], [3, 4], [9, 9]]
    assert f(rt.constant(False), rt.constant(1))[2].numpy().flags.writeable


def test_intermediates_are_freed_without_changing_results():
    @rt.function
    def f(x):
        a = x * 2.0
        b = a + 1.0
        c = rt.exp(a) - b  # a and b both used twice
        return c, a

    x = np.array([0.5, -1.0], np.float32)
    c, a = f(rt.constant(x))
    np.testing.assert_allclose(c.numpy(), np.exp(2 * x) - (2 * x + 1), rtol=1e-6)
    np.testing.assert_array_equal(a.numpy(), 2 * x)
    assert "del " in f.get_concrete_function(rt.TensorSpec([2])).plan_source


def test_float_arithmetic_and_comparisons_compile_to_operators():
    f = rt.function(lambda x: rt.where(x * 2.0 <= 1.0, x, -x))
    x = rt.constant(np.array([0.25, 3.0], np.float32))
    source = f.get_concrete_function(x).plan_source
    assert " * " in source and " <= " in source
    np.testing.assert_array_equal(f(x).numpy(), np.array([0.25, -3.0], np.float32))


def test_integer_wraparound_on_scalars_stays_silent_as_in_eager_mode():
    f = rt.function(lambda x: x * 2 + 1)
    x = rt.constant(np.int32(2**30))
    with np.errstate(over="ignore"):
        expected = np.multiply(np.int32(2**30), np.int32(2)) + np.int32(1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert f(x).numpy() == expected
    assert " * " not in f.get_concrete_function(x).plan_source


def test_dying_intermediates_receive_elementwise_results_without_touching_inputs():
    f = rt.function(lambda x, w, b: rt.nn.relu(rt.matmul(x, w) + b) * 2.0)
    x = np.arange(6, dtype=np.float32).reshape(2, 3) - 2
    w = np.ones((3, 4), np.float32)
    b = np.full(4, -1.0, np.float32)
    originals = [a.copy() for a in (x, w, b)]
    source = f.get_concrete_function(x, w, b).plan_source
    assert re.search(r"= k\d+\((v\d+), \w+, \1\)", source)  # a dying input given as out
    for _ in range(2):
        np.testing.assert_array_equal(f(x, w, b).numpy(), np.maximum(x @ w + b, 0) * 2.0)
    for before, after in zip(originals, (x, w, b)):
        np.testing.assert_array_equal(before, after)


def test_a_result_written_into_a_dying_array_takes_its_name_and_frees_it_with_its_own_death():
    # A chain of layers: each layer's matmul result receives + b and relu in place, and is
    # freed after the next matmul. Two names for one array would keep every layer's array.
    layers = [(np.full((256, 256), 1 / 256, np.float32), np.full(256, 0.5, np.float32))
              for _ in range(12)]

    def f(x):
        for w, b in layers:
            x = rt.nn.relu(rt.matmul(x, w) + b)
        return x

    g = rt.function(f)
    x = np.ones((64, 256), np.float32)
    source = g.get_concrete_function(x).plan_source
    in_place = re.findall(r"(v\d+) = k\d+\(\1, \w+, \1\)", source)
    assert len(in_place) >= 12
    assert not re.search(r"(v\d+) = k\d+\((v\d+), \w+, \2\)\n\s+del \2\n", source)
    expected = x
    for w, b in layers:
        expected = np.maximum(expected @ w + b, 0)
    import tracemalloc
    g(x)
    tracemalloc.start()
    try:
        result = g(x).numpy()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    np.testing.assert_array_equal(result, expected)
    assert peak < 4 * x.nbytes  # about two activations at a time, not twelve


def test_values_used_later_or_returned_are_never_overwritten():
    def f(x):
        y = x + 1.0
        z = y * 3.0
        return y, z + y

    g = rt.function(f)
    x = np.ones(3, np.float32)
    y, w = g(x)
    np.testing.assert_array_equal(y.numpy(), np.full(3, 2.0, np.float32))
    np.testing.assert_array_equal(w.numpy(), np.full(3, 8.0, np.float32))


def test_a_value_carried_by_a_loop_that_does_not_run_is_not_overwritten():
    # Regression: -(x * 0.5) was written into the buffer that the zero-trip loop's result
    # still aliased, so the second output came out negated twice.
    def f(x):
        half = x * 0.5
        _, carried = rt.while_loop(lambda i, v: i < 0, lambda i, v: (i + 1, v + half),
                                   (rt.constant(0), half))
        return -half, -carried

    g = rt.function(f)
    concrete = g.get_concrete_function(rt.TensorSpec([3], rt.float32))
    x = np.array([-1.5, 0.0, 2.25], np.float32)
    from runtime.executor import Plan
    for outputs in (g(x), Plan(concrete.unoptimized_graph, "f").run(x)):
        np.testing.assert_array_equal(np.asarray(outputs[1]), -(x * 0.5))


def test_a_view_of_a_dying_value_keeps_its_data():
    def f(x):
        y = x * 2.0
        flat = rt.reshape(y, [4])
        z = y + 1.0  # y dies here, but `flat` is a view of it
        return flat, z

    flat, z = rt.function(f)(np.arange(4, dtype=np.float32).reshape(2, 2))
    np.testing.assert_array_equal(flat.numpy(), [0.0, 2.0, 4.0, 6.0])
    np.testing.assert_array_equal(z.numpy(), [[1.0, 3.0], [5.0, 7.0]])


def test_a_returned_argument_does_not_change_with_the_callers_array():
    f = rt.function(lambda x: x * 1.0)  # simplified to returning x itself
    x = np.ones(3, np.float32)
    result = f(x)
    x[0] = 42.0
    assert result.numpy()[0] == 1.0


def test_a_returned_variable_read_cannot_change_the_variable():
    v = rt.Variable(rt.constant([1.0, 2.0]))
    read = rt.function(lambda: v.value())()
    with pytest.raises(ValueError, match="read-only"):
        read.numpy()[0] = 42.0
    v.assign_add(rt.constant([1.0, 1.0]))
    assert read.numpy().tolist() == [1.0, 2.0] and v.numpy().tolist() == [2.0, 3.0]


def _nested_conds(x, depth):
    if depth == 0:
        return x + 1.0
    return rt.cond(x > -1000.0, lambda: _nested_conds(x * 1.0 + 0.5, depth - 1),
                   lambda: x - 1.0)


def _nested_loops(i, depth):
    if depth == 0:
        return i + 1
    return rt.while_loop(lambda j: j < 2, lambda j: (_nested_loops(j, depth - 1),), (i,))[0]


@pytest.mark.parametrize("build, arg", [(lambda x: _nested_conds(x, 99), np.float32(0.0)),
                                        (lambda i: _nested_loops(i, 25), np.int32(0))])
def test_control_flow_nested_past_pythons_limits_compiles(build, arg):
    # 99 nested ifs overflow CPython's 100 levels of indentation, 25 nested loops its 20
    # nested blocks: deep parts of the plan are functions of their own.
    fn = rt.function(build)
    concrete = fn.get_concrete_function(arg)
    assert "def part_" in concrete.plan_source
    np.testing.assert_array_equal(fn(arg).numpy(), build(rt.constant(arg)).numpy())
