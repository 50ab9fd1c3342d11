"""Illegal programs get errors that name the variable, the construct, the user's file and
line, and say how to fix it. Messages are pinned on those parts."""

import inspect
import warnings

import pytest

import runtime as rt
from transpiler import function
from transpiler.api import ConversionWarning
from transpiler.errors import UnsupportedSyntaxError

HERE = "test_error_messages.py"


def line_of(fn, marker: str) -> int:
    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, text in enumerate(lines) if marker in text)


def set_in_one_branch(x):
    if x > 0:  # marker
        y = x + 1
    return y


def set_only_inside_loop(n):
    i = 0
    while i < n:  # marker
        last = i
        i += 1
    return last


def changes_shape(n):
    v = rt.zeros([1])
    i = 0
    while i < n:  # marker
        v = rt.concat([v, v], 0)
        i += 1
    return v


def changes_dtype(x, n):
    i = 0
    while i < n:  # marker
        x = rt.cast(x, rt.float32) * 1.5
        i += 1
    return x


def branches_of_two_dtypes(x):
    if x > 0:  # marker
        return rt.constant(1)
    return rt.constant(1.0)


def branches_of_two_structures(x):
    if x > 0:  # marker
        return x, x
    return x


def vector_condition(x):
    if x > 0:  # marker
        return x
    return -x


def value_on_some_paths(x):
    if x > 0:  # marker
        return x


def generator(n):
    for i in range(n):
        yield i  # marker


CASES = [
    (set_in_one_branch, (1,), ValueError,
     r"'y' is not assigned in the else branch of an if statement on a tensor at {where}, but it "
     r"is used after the if statement\. .*Assign 'y' in the else branch too"),
    (set_only_inside_loop, (0,), rt.errors.InvalidArgumentError,
     r"the while loop at {where} ran zero times, so 'last', first assigned inside it, has no "
     r"value after it .*Give it a value before the loop"),
    (changes_shape, (2,), rt.errors.ShapeError,
     r"'v' has shape \(1,\) before the loop, but shape \(2,\) after one iteration \(at {where}\)\. "
     r".*shape_invariants"),
    (changes_dtype, (rt.constant(1), rt.constant(2)), rt.errors.GraphTypeError,
     r"'x' has dtype int32 before the loop, but dtype float32 after one iteration \(at {where}\)\. "
     r".*rt\.cast"),
    (branches_of_two_dtypes, (1,), rt.errors.GraphTypeError,
     r"'the return value' has dtype int32 in the true branch but float32 in the false branch of "
     r"a tensor conditional \(at {where}\).*rt\.cast"),
    (branches_of_two_structures, (1,), rt.errors.GraphTypeError,
     r"the two branches of a tensor conditional .* return different structures.* \(at {where}\)"),
    (vector_condition, ([1.0, 2.0],), ValueError,
     r"the condition of an if statement must be a scalar, got a tensor of shape \(2,\).*"
     r"\(at {where}\)\. Reduce it with rt\.reduce_all or rt\.reduce_any"),
    (value_on_some_paths, (1,), ValueError,
     r"the function returns None on some paths .* if statement at {where}: .*`return <value>`"),
]


@pytest.mark.parametrize("fn, args, error, pattern", CASES, ids=[c[0].__name__ for c in CASES])
def test_graph_errors_name_variable_construct_and_line(fn, args, error, pattern):
    where = rf"\S*{HERE}:{line_of(fn, '# marker')}"
    tensors = [a if isinstance(a, rt.Tensor) else rt.constant(a) for a in args]
    with pytest.raises(error, match=pattern.format(where=where)):
        function(fn)(*tensors)


def test_python_values_run_these_functions_as_python_does():
    assert function(set_in_one_branch)(1) == 2
    assert function(value_on_some_paths)(-1) is None
    assert function(vector_condition)(-3) == 3


def test_unsupported_syntax_names_the_construct_line_and_fix():
    with pytest.raises(UnsupportedSyntaxError,
                       match=rf"a generator \(yield; generators are not converted\) at \S*{HERE}:{line_of(generator, '# marker')} "
                             r"\(`yield i.*`\), which a graph cannot express.*do_not_convert"):
        function(generator)(3)


def test_a_function_without_source_runs_as_python_with_one_warning():
    namespace = {}
    exec("def no_source(x):\n    return x + 1\n", namespace)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn = function(namespace["no_source"])
        assert int(fn(rt.constant(1))) == 2
        function(namespace["no_source"])
    messages = [str(w.message) for w in caught if issubclass(w.category, ConversionWarning)]
    assert len(messages) == 1
    assert "Cannot read the source code of no_source" in messages[0]
    assert "runs as plain Python" in messages[0]


def test_a_tensor_used_as_bool_without_conversion_says_how_to_fix_it():
    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError,
                       match=r"Using as a Python bool a symbolic tensor .* transpiler\.function"):
        rt.function(lambda x: x if x > 0 else -x)(rt.constant(1.0))


def test_arguments_that_do_not_match_the_input_signature_are_named():
    fn = function(lambda x: x * 2, input_signature=[rt.TensorSpec([None], rt.float32)])
    with pytest.raises(TypeError, match=r"argument 'x' does not match the input_signature: "
                                        r"expected float32 with shape \(None,\), got a tensor of "
                                        r"dtype int32 and shape \(2,\)"):
        fn(rt.constant([1, 2]))


def power_by_recursion(x, k):
    if k == 0:
        return 1
    return x * power_by_recursion(x, k - 1)


def test_recursion_on_a_tensor_depth_says_to_write_a_loop():
    with pytest.raises(RecursionError, match="depth depends on a tensor cannot be traced"):
        function(power_by_recursion)(rt.constant(2), rt.constant(3))
    assert int(function(power_by_recursion)(rt.constant(2), 3)) == 8


# -- issue 22, item 8: a message names what the user wrote, not what Python did with it --------


def zeros_by_repeating(n):
    return rt.constant([0.0] * n)  # marker


@pytest.mark.parametrize("decorate", [function, rt.function], ids=["transpiler", "rt"])
def test_a_list_repeated_by_a_tensor_says_so_and_suggests_fill(decorate):
    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError) as caught:
        decorate(zeros_by_repeating)(rt.constant(3))
    message = str(caught.value)
    assert message.startswith("Repeating a Python list by a symbolic tensor (%n: i32[]")
    assert "`[...] * n` needs n as a Python int. To make a tensor of n copies of 0.0, use " \
           "rt.fill([n], 0.0) or rt.zeros([n])" in message
    assert f"used this way at {HERE}:{line_of(zeros_by_repeating, '# marker')}, in " \
           f"`[0.0] * n`." in message
    assert ".numpy()" not in message
    assert function(zeros_by_repeating)(3).numpy().tolist() == [0.0, 0.0, 0.0]


def count_with_range(n):
    return [i for i in range(n)]


def repeat_a_tuple(n):
    return (0,) * n


def int_of(x):
    return int(x) + 1


def float_of(x):
    return float(x) * 2


def length_of(x):
    return len(x)


def unpacked(x):
    a, b = x
    return a


PROTOCOLS = [
    (count_with_range, rt.constant(3), "Using as a Python index", "range(n)"),
    (repeat_a_tuple, rt.constant(3), "Using as a Python index", "(0,) * n"),
    (int_of, rt.constant(3), "Converting to int", "int(x)"),
    (float_of, rt.constant(3.0), "Converting to float", "float(x)"),
    (length_of, rt.TensorSpec([None]), "Taking len() of", "len(x)"),
    (unpacked, rt.constant([1.0, 2.0]), "Iterating over", "a, b"),
]


@pytest.mark.parametrize("fn, arg, what, written", PROTOCOLS,
                         ids=[c[0].__name__ for c in PROTOCOLS])
def test_a_protocol_python_called_on_a_symbolic_tensor_names_the_expression(fn, arg, what,
                                                                            written):
    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError) as caught:
        rt.function(fn).get_concrete_function(arg)
    message = str(caught.value)
    assert message.startswith(what) and " a symbolic tensor (%x: " in message.replace("%n", "%x")
    line = inspect.getsourcelines(fn)[1] + 1
    assert message.endswith(f"The tensor was used this way at {HERE}:{line}, in `{written}`."), \
        message


def zeros_rows(x):
    return rt.zeros([x.shape[0], 3])


def ones_rows(x):
    return rt.ones([x.shape[0], 3])


def fill_rows(x):
    return rt.fill([x.shape[0], 3], 2.0)


def reshape_rows(x):
    return rt.reshape(x, [x.shape[0], 3])


def zeros_like_shape(x):
    return rt.zeros(x.shape)


UNKNOWN = "has an unknown dimension (None) at position 0, from `x.shape[0]`. "
DYNAMIC = "Use `rt.shape(x)[0]` instead, the dynamic shape: a tensor that holds the size when " \
          "the graph runs."
SHAPES = [
    (zeros_rows, f"zeros: the shape [None, 3] {UNKNOWN}", DYNAMIC),
    (ones_rows, f"ones: the shape [None, 3] {UNKNOWN}", DYNAMIC),
    (fill_rows, f"fill: the shape [None, 3] {UNKNOWN}", DYNAMIC),
    (reshape_rows, f"reshape: the shape [None, 3] {UNKNOWN}", DYNAMIC),
    (zeros_like_shape, "zeros: the shape [None, 3] has an unknown dimension (None) at position 0, "
                       "from `x.shape`. ", "Use `rt.shape(x)` instead"),
    (lambda x: rt.random.normal([x.shape[0], 3]), f"random.normal: the shape [None, 3] {UNKNOWN}",
     DYNAMIC),
    (lambda x: rt.random.uniform([x.shape[0], 3]), f"random.uniform: the shape [None, 3] {UNKNOWN}",
     DYNAMIC),
]


@pytest.mark.parametrize("decorate", [function, rt.function], ids=["transpiler", "rt"])
@pytest.mark.parametrize("fn, happened, fix", SHAPES, ids=[
    "zeros", "ones", "fill", "reshape", "zeros_x_shape", "random_normal", "random_uniform"])
def test_an_unknown_dimension_in_a_shape_says_where_it_came_from_and_suggests_rt_shape(
        decorate, fn, happened, fix):
    with pytest.raises(TypeError) as caught:
        decorate(fn).get_concrete_function(rt.TensorSpec([None, 3]))
    message = str(caught.value)
    assert message.startswith(happened), message
    assert fix in message
    assert "expected a shape as a list of ints" not in message


def test_the_suggested_dynamic_shapes_work():
    @function
    def rows(x):
        return (rt.zeros([rt.shape(x)[0], 3]), rt.ones([rt.shape(x)[0], 3]),
                rt.fill([rt.shape(x)[0], 3], 2.0), rt.reshape(x, [rt.shape(x)[0], 3]),
                rt.zeros(rt.shape(x)), rt.random.normal([rt.shape(x)[0], 3]),
                rt.random.uniform([rt.shape(x)[0], 3]))
    concrete = rows.get_concrete_function(rt.TensorSpec([None, 3]))
    results = concrete(rt.ones([2, 3]))
    assert [r.shape for r in results] == [(2, 3)] * 7
    assert results[2].numpy().tolist() == [[2.0] * 3] * 2
