"""``rt.function``: cache keys, input signatures, relaxed shapes, concrete functions, the eager
switch, the retracing warning and calls from several threads."""

import re
import threading
import time
import warnings

import numpy as np
import pytest

import runtime as rt
from runtime.errors import RetracingWarning
from transpiler import function

# Tests that retrace on purpose would warn; the warning tests below record warnings themselves.
pytestmark = pytest.mark.filterwarnings("ignore::runtime.errors.RetracingWarning")


def _counting(fn=None):
    """``rt.function`` around a body that records every Python execution (= every trace)."""
    runs = []

    @rt.function
    def traced(x, *rest):
        runs.append(rest)
        return fn(x, *rest) if fn else x
    return traced, runs


# -- the decorator -----------------------------------------------------------------------------


def test_decorator_forms_and_attributes():
    def plain(x):
        """Doc."""
        return x + 1

    wrapped = rt.function(plain)
    configured = rt.function(reduce_retracing=True)(plain)
    assert isinstance(wrapped, rt.Function) and isinstance(configured, rt.Function)
    assert wrapped.python_function is plain
    assert wrapped.__name__ == "plain" and wrapped.__doc__ == "Doc." and wrapped.__wrapped__ is plain
    assert wrapped.tracing_count == 0
    assert int(wrapped(rt.constant(1))) == 2 and int(configured(rt.constant(1))) == 2


def test_keyword_and_positional_calls_share_a_trace():
    @rt.function
    def f(x, y):
        return x - y
    assert float(f(rt.constant(3.0), rt.constant(1.0))) == 2.0
    assert float(f(y=rt.constant(1.0), x=rt.constant(5.0))) == 4.0
    assert float(f(rt.constant(3.0), y=rt.constant(2.0))) == 1.0
    assert f.tracing_count == 1


def test_missing_argument_names_the_function():
    @rt.function
    def f(x, y):
        return x
    with pytest.raises(TypeError, match=re.escape("f(): missing a required argument: 'y'")):
        f(rt.constant(1))


def test_calling_a_function_while_tracing_inlines_it():
    inner = rt.function(lambda x: rt.exp(x))

    @rt.function
    def outer(x):
        return inner(x) + 1.0
    graph = outer.get_concrete_function(rt.TensorSpec([2])).graph
    assert "exp" in [node.op.name for node in graph.nodes]
    assert inner.tracing_count == 0


# -- cache keys ------------------------------------------------------------------------------


def test_tensors_are_keyed_by_dtype_and_shape():
    f, runs = _counting()
    f(rt.constant([1.0, 2.0]))
    f(rt.constant([3.0, 4.0]))
    f(np.array([5.0, 6.0], np.float32))  # arrays key like tensors
    assert f.tracing_count == 1
    f(rt.constant([1.0, 2.0, 3.0]))
    f(rt.constant([1, 2]))
    f(rt.constant([[1.0, 2.0]]))
    assert f.tracing_count == 4 and len(runs) == 4


def test_python_scalars_are_keyed_by_type_and_value():
    f, runs = _counting(lambda x, n: x * n)
    x = rt.constant(2.0)
    results = [f(x, value) for value in (1, 1.0, True, 1, 2, 2.0)]
    assert [r[0] for r in runs] == [1, 1.0, True, 2, 2.0]
    assert [type(r[0]) for r in runs] == [int, float, bool, int, float]
    assert f.tracing_count == 5
    assert [float(r) for r in results] == [2.0, 2.0, 2.0, 2.0, 4.0, 4.0]


def test_nan_arguments_reuse_their_trace():
    f, _ = _counting(lambda x, v: x)
    f(rt.constant(1.0), float("nan"))
    f(rt.constant(1.0), float("nan"))
    assert f.tracing_count == 1


def _atan2_of_python_y(y_of):
    """``atan2(y, -1)`` with ``y`` taken from a Python argument: pi for 0.0, -pi for -0.0."""
    return rt.function(lambda x, arg: rt.math.atan2(y_of(arg), x))


@pytest.mark.parametrize("y_of, wrap", [
    (lambda arg: arg, lambda y: y),
    (lambda arg: arg[1], lambda y: (1.0, y)),
    (lambda arg: arg[0][0], lambda y: [[y]]),
    (lambda arg: arg["y"], lambda y: {"y": y}),
    (lambda arg: arg.imag, lambda y: complex(1.0, y)),
], ids=["float", "in a tuple", "in a list", "in a dict", "in a complex"])
def test_signed_zeros_get_traces_of_their_own(y_of, wrap):
    f, x = _atan2_of_python_y(y_of), rt.constant(-1.0)
    # Twice each, so the second call goes through the fast entry of the first trace.
    results = [float(f(x, wrap(y))) for y in (0.0, 0.0, -0.0, -0.0, 0.0)]
    assert results == pytest.approx([np.pi, np.pi, -np.pi, -np.pi, np.pi])
    assert f.tracing_count == 2


def test_a_signed_zero_numpy_scalar_is_a_graph_input():
    f, x = _atan2_of_python_y(lambda arg: arg), rt.constant(-1.0)
    assert [float(f(x, np.float32(y))) for y in (0.0, -0.0)] == pytest.approx([np.pi, -np.pi])
    assert f.tracing_count == 1


@pytest.mark.parametrize("make_nan", [  # a new NaN object each call
    lambda: float("nan"), lambda: [float("nan")], lambda: {"v": (float("nan"),)},
    lambda: complex(float("nan"), 1.0)], ids=["float", "in a list", "in a dict", "in a complex"])
def test_nan_arguments_anywhere_reuse_their_trace(make_nan):
    f, _ = _counting(lambda x, v: x)
    for _ in range(3):
        f(rt.constant(1.0), make_nan())
    assert f.tracing_count == 1


def test_retraces_name_a_signed_zero():
    f, x = _atan2_of_python_y(lambda arg: arg), rt.constant(-1.0)
    f(x, 0.0)
    f(x, -0.0)
    assert "from the Python float 0.0 to the Python float -0.0" in str(f.explain_retraces())


def test_strings_and_none_are_keyed_by_value():
    f, _ = _counting(lambda x, mode: x * 2 if mode == "double" else x)
    assert int(f(rt.constant(3), "double")) == 6
    assert int(f(rt.constant(3), "same")) == 3
    assert int(f(rt.constant(3), None)) == 3
    assert int(f(rt.constant(4), "double")) == 8
    assert f.tracing_count == 3


def test_other_objects_are_keyed_by_identity():
    class Config:
        def __init__(self, scale):
            self.scale = scale

        def __eq__(self, other):
            return True  # equality must not matter

        __hash__ = object.__hash__

    f, _ = _counting(lambda x, config: x * config.scale)
    first, second = Config(2.0), Config(3.0)
    assert float(f(rt.constant(1.0), first)) == 2.0
    assert float(f(rt.constant(1.0), first)) == 2.0
    assert float(f(rt.constant(1.0), second)) == 3.0
    assert f.tracing_count == 2


def test_containers_are_keyed_recursively():
    f, _ = _counting(lambda x, extra: x)
    t1, t2 = rt.constant([1.0]), rt.constant([1.0, 2.0])
    calls = [
        [t1, 1], [t1, 1],  # same structure, same values
        [t1, 2],           # a literal inside changed
        [t2, 1],           # a tensor shape inside changed
        (t1, 1),           # tuple instead of list
        {"a": t1}, {"a": rt.constant([7.0])},  # dicts: same key and spec
        {"b": t1},         # different key
    ]
    for extra in calls:
        f(rt.constant(0.0), extra)
    assert f.tracing_count == 6


def test_tensors_inside_containers_are_graph_inputs():
    @rt.function
    def f(pair, table):
        return pair[0] + pair[1] * table["scale"]
    assert float(f((rt.constant(1.0), rt.constant(2.0)), {"scale": rt.constant(10.0)})) == 21.0
    assert float(f((rt.constant(0.0), rt.constant(1.0)), {"scale": rt.constant(3.0)})) == 3.0
    assert f.tracing_count == 1


# -- input_signature -------------------------------------------------------------------------


def test_input_signature_pins_one_trace():
    @rt.function(input_signature=[rt.TensorSpec([None], rt.float32)])
    def f(x):
        return x * 2.0
    for n in (1, 2, 5):
        np.testing.assert_array_equal(f(rt.constant(np.ones(n, np.float32))).numpy(), np.full(n, 2.0))
    np.testing.assert_array_equal(f([1.0, 2.0]).numpy(), [2.0, 4.0])  # converted to the spec
    assert f.tracing_count == 1
    assert f.get_concrete_function().graph.inputs[0].shape == (None,)


@pytest.mark.parametrize("value", [rt.constant([1, 2]), rt.constant(1.0), rt.constant([[1.0]]), "text"])
def test_input_signature_rejects_other_arguments_naming_the_parameter(value):
    @rt.function(input_signature=[rt.TensorSpec([], rt.int32), rt.TensorSpec([None], rt.float32)])
    def f(count, values):
        return values * 2.0
    with pytest.raises(TypeError, match=re.escape(
            "f() argument 'values' does not match the input_signature: expected float32 with shape "
            "(None,)")):
        f(rt.constant(1), value)
    assert f.tracing_count == 0


def test_nested_input_signature():
    @rt.function(input_signature=[(rt.TensorSpec([2]), rt.TensorSpec([], rt.int32))])
    def f(pair):
        return pair[0] * rt.cast(pair[1], rt.float32)
    np.testing.assert_array_equal(f((rt.constant([1.0, 2.0]), rt.constant(3))).numpy(), [3.0, 6.0])
    with pytest.raises(TypeError, match=re.escape("f() argument 'pair' does not match")):
        f((rt.constant([1.0, 2.0]), rt.constant(3.0)))


def test_input_signature_must_hold_tensor_specs_for_the_parameters():
    with pytest.raises(TypeError, match=re.escape("must contain only rt.TensorSpec objects, got 1.0.")):
        rt.function(lambda x: x, input_signature=[1.0])
    with pytest.raises(TypeError, match=re.escape("has 2 entries but the function takes 1 positional "
                                                  "parameters")):
        rt.function(lambda x: x, input_signature=[rt.TensorSpec([]), rt.TensorSpec([])])
    with pytest.raises(TypeError, match=re.escape("has no TensorSpec for parameter 'y', which has no "
                                                  "default value")):
        rt.function(lambda x, y: x, input_signature=[rt.TensorSpec([])])


def test_parameters_after_the_signature_keep_their_defaults():
    @rt.function(input_signature=[rt.TensorSpec([], rt.float32)])
    def f(x, scale=3.0):
        return x * scale
    assert float(f(rt.constant(2.0))) == 6.0
    with pytest.raises(TypeError, match=re.escape("f() argument 'scale' is not covered by its "
                                                  "input_signature")):
        f(rt.constant(2.0), 4.0)


def test_get_concrete_function_checks_specs_against_the_signature():
    @rt.function(input_signature=[rt.TensorSpec([None], rt.float32)])
    def f(x):
        return x
    assert f.get_concrete_function(rt.TensorSpec([3])) is f.get_concrete_function()
    with pytest.raises(TypeError, match=re.escape("f() argument 'x'")):
        f.get_concrete_function(rt.TensorSpec([3], rt.int32))


def _scaler_class(decorator):
    """An rt.Module whose decorated methods have an input_signature that leaves out self."""
    class Scaler(rt.Module):
        def __init__(self, scale):
            super().__init__()
            self.scale = rt.Variable(scale)

        @decorator(input_signature=[rt.TensorSpec([None], rt.float32)])
        def predict(self, x):
            return x * self.scale

        @decorator(input_signature=[rt.TensorSpec([None], rt.float32)])
        def __call__(self, x):
            return x + self.scale
    return Scaler


_DECORATORS = pytest.mark.parametrize("decorator", [rt.function, function],
                                      ids=["rt.function", "transpiler.function"])


@_DECORATORS
def test_input_signature_of_a_method_leaves_out_self(decorator, tmp_path):
    scaler_class = _scaler_class(decorator)
    model, other = scaler_class(2.0), scaler_class(3.0)
    assert model.predict(rt.constant([1.0, 2.0])).numpy().tolist() == [2.0, 4.0]
    assert model.predict([1.0, 2.0, 3.0]).numpy().tolist() == [2.0, 4.0, 6.0]
    assert other.predict([1.0]).numpy().tolist() == [3.0]
    assert model([1.0]).numpy().tolist() == [3.0]
    assert scaler_class.predict(model, [4.0]).numpy().tolist() == [8.0]
    concrete = model.predict.get_concrete_function()
    assert concrete is scaler_class.predict.get_concrete_function(model, rt.TensorSpec([5]))
    assert model.predict.tracing_count == 1
    path = str(tmp_path / "predict.e2g")
    rt.save(concrete, path)
    assert rt.load(path)([1.0, 2.0]).numpy().tolist() == [2.0, 4.0]


@_DECORATORS
def test_input_signature_of_a_method_is_checked_without_self(decorator):
    model = _scaler_class(decorator)(2.0)
    with pytest.raises(TypeError, match=re.escape("predict() argument 'x' does not match the "
                                                  "input_signature: expected float32")):
        model.predict(rt.constant([1, 2]))
    with pytest.raises(TypeError, match=re.escape("predict() is a method and its input_signature "
                                                  "covers the parameters after self")):
        type(model).predict.get_concrete_function()
    with pytest.raises(TypeError, match=re.escape("has 2 entries but the function takes 1 "
                                                  "positional parameters after self")):
        decorator(lambda self, x: x, input_signature=[rt.TensorSpec([])] * 2)


# -- reduce_retracing ------------------------------------------------------------------------


def test_reduce_retracing_relaxes_shapes():
    @rt.function(reduce_retracing=True)
    def f(x):
        return x + 1.0
    for n in range(1, 6):
        np.testing.assert_array_equal(f(np.zeros(n, np.float32)).numpy(), np.ones(n))
    assert f.tracing_count == 2
    shapes = [c.graph.inputs[0].shape for c in f.concrete_functions()]
    assert shapes == [(1,), (None,)]
    f(np.zeros((2, 2), np.float32))  # another rank
    f(np.zeros(3, np.float64))       # another dtype
    assert f.tracing_count == 4


def test_without_reduce_retracing_every_shape_traces():
    f, _ = _counting()
    for n in range(1, 4):
        f(np.zeros(n, np.float32))
    assert f.tracing_count == 3


# -- concrete functions ----------------------------------------------------------------------


def test_get_concrete_function_with_values_and_specs():
    f, runs = _counting(lambda x, k: x * k)
    from_values = f.get_concrete_function(rt.constant([1.0]), 2)
    assert f.get_concrete_function(rt.TensorSpec([1]), 2) is from_values
    assert len(runs) == 1
    f(rt.constant([5.0]), 2)  # the polymorphic function reuses it
    assert f.tracing_count == 1
    np.testing.assert_array_equal(from_values(rt.constant([3.0]), 2).numpy(), [6.0])
    relaxed = f.get_concrete_function(rt.TensorSpec([None]), 2)
    np.testing.assert_array_equal(relaxed(rt.constant([1.0, 2.0]), 2).numpy(), [2.0, 4.0])


def test_concrete_function_rejects_other_arguments():
    @rt.function
    def f(x, k):
        return x * k
    concrete = f.get_concrete_function(rt.TensorSpec([1]), 2)
    assert concrete.signature == ("(x: a tensor of dtype float32 and shape (1,), "
                                  "k: the Python int 2)")
    assert concrete.structured_input_signature == (rt.TensorSpec([1]), 2)
    with pytest.raises(TypeError, match=re.escape(
            "this concrete function of f was traced for (x: a tensor of dtype float32 and shape (1,), "
            "k: the Python int 2) and cannot be called with (a tensor of dtype float32 and shape (1,), "
            "the Python int 3)")):
        concrete(rt.constant([1.0]), 3)


def test_concrete_function_graph_is_printable():
    @rt.function
    def f(x):
        return x + 1.0
    concrete = f.get_concrete_function(rt.TensorSpec([2]))
    assert [node.op.name for node in concrete.graph.nodes if node.op.name != "const"] == ["add"]
    assert str(concrete.graph).startswith("graph f(%x: f32[2]) -> (f32[2])")


def test_pretty_printed_concrete_signatures():
    @rt.function
    def f(x, n=2):
        return {"y": x * n, "n": n}
    f(rt.constant([1.0, 2.0]))
    f(rt.constant(1), n=3)
    assert f.pretty_printed_concrete_signatures() == "\n".join([
        "f(x, n)",
        "  Args:",
        "    x: float32 Tensor, shape=(2,)",
        "    n: the Python int 2",
        "  Returns:",
        "    {'n': <1>, 'y': <2>}",
        "    <1>: int32 Tensor, shape=()",
        "    <2>: float32 Tensor, shape=(2,)",
        "",
        "f(x, n)",
        "  Args:",
        "    x: int32 Tensor, shape=()",
        "    n: the Python int 3",
        "  Returns:",
        "    {'n': <1>, 'y': <2>}",
        "    <1>: int32 Tensor, shape=()",
        "    <2>: int32 Tensor, shape=()",
    ])


def test_pretty_printed_signature_of_a_single_output():
    @rt.function
    def g(x):
        return x
    g.get_concrete_function(rt.TensorSpec([None, 3], rt.int64))
    assert g.pretty_printed_concrete_signatures() == (
        "g(x)\n  Args:\n    x: int64 Tensor, shape=(None, 3)\n  Returns:\n"
        "    int64 Tensor, shape=(None, 3)")


# -- Python side effects and the eager switch ---------------------------------------------------


def test_python_print_runs_only_while_tracing(capsys):
    @rt.function
    def f(x):
        print("tracing f")
        return x * 2
    for value in (1, 2, 3):
        f(rt.constant(value))
    assert capsys.readouterr().out == "tracing f\n"
    f(rt.constant([1, 2]))  # a new shape traces again
    assert capsys.readouterr().out == "tracing f\n"


def test_run_functions_eagerly(capsys):
    @rt.function
    def f(x):
        print("python body")
        return x * 2
    rt.config.run_functions_eagerly(True)
    assert rt.config.functions_run_eagerly()
    assert int(f(rt.constant(2))) == 4
    assert int(f(rt.constant(3))) == 6
    assert capsys.readouterr().out == "python body\n" * 2
    assert f.tracing_count == 0
    rt.config.run_functions_eagerly(False)
    assert not rt.config.functions_run_eagerly()
    f(rt.constant(2))
    f(rt.constant(3))
    assert capsys.readouterr().out == "python body\n"
    assert f.tracing_count == 1


def test_run_functions_eagerly_allows_python_control_flow_on_tensors():
    @rt.function
    def f(x):
        return x if x > 0 else -x
    rt.config.run_functions_eagerly(True)
    assert int(f(rt.constant(-3))) == 3
    rt.config.run_functions_eagerly(False)
    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError):
        f(rt.constant(-3))


# -- retracing warning -----------------------------------------------------------------------


def _retracing_warnings(record):
    return [w for w in record if issubclass(w.category, RetracingWarning)]


def test_frequent_retracing_warns_once_naming_the_argument():
    @rt.function
    def f(x, n):
        return x * n
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        for n in range(4):
            f(rt.constant(1.0), n)
        assert _retracing_warnings(record) == []
        f(rt.constant(1.0), 4)  # the fifth trace in five calls
        (warning,) = _retracing_warnings(record)
        for n in range(5, 12):
            f(rt.constant(1.0), n)
    assert len(_retracing_warnings(record)) == 1
    message = str(warning.message)
    assert "function test_frequent_retracing_warns_once_naming_the_argument.<locals>.f was traced " \
           "5 times in its last 5 calls" in message
    assert "argument 'n' changed from the Python int 3 to the Python int 4" in message
    assert warning.filename == __file__  # points at the caller's line


def test_retracing_warning_names_a_tensor_argument():
    @rt.function
    def f(x):
        return x
    with pytest.warns(RetracingWarning, match=re.escape(
            "argument 'x' changed from a tensor of dtype float32 and shape (4,) to a tensor of dtype "
            "float32 and shape (5,)")):
        for n in range(1, 6):
            f(np.zeros(n, np.float32))


def test_no_warning_when_traces_are_spread_over_more_than_ten_calls():
    f, _ = _counting(lambda x, n: x)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        for n in range(6):
            f(rt.constant(1.0), n)  # traces
            f(rt.constant(1.0), n)  # cached
            f(rt.constant(1.0), n)  # cached
    assert f.tracing_count == 6
    assert _retracing_warnings(record) == []


def test_warning_when_the_function_is_recreated_every_call():
    def body(x):
        return x + 1
    with pytest.warns(RetracingWarning, match="The function object itself was created again"):
        for _ in range(5):
            rt.function(body)(rt.constant(1))


# -- threads ---------------------------------------------------------------------------------


def test_many_threads_calling_at_once_trace_each_signature_once():
    traces = []

    @rt.function
    def f(x, k):
        traces.append(k)
        time.sleep(0.02)  # widen the window in which a second thread could trace too
        return x * k

    threads_count, calls = 8, 15
    barrier = threading.Barrier(threads_count, timeout=30)
    errors = []

    def worker(index):
        try:
            barrier.wait()
            for i in range(calls):
                k = (index + i) % 3
                result = f(rt.constant([float(index)]), k)
                assert result.numpy()[0] == index * k
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(threads_count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert sorted(traces) == [0, 1, 2]
    assert f.tracing_count == 3


def test_threads_tracing_different_functions_do_not_mix_graphs():
    barrier = threading.Barrier(2, timeout=30)

    def make(op):
        @rt.function
        def f(x):
            barrier.wait()
            y = op(x)
            time.sleep(0.02)
            return op(y)
        return f

    functions = [make(rt.exp), make(rt.negative)]
    results = [None, None]

    def worker(index):
        results[index] = functions[index].get_concrete_function(rt.TensorSpec([2]))

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for concrete, name in zip(results, ["exp", "negative"]):
        concrete.graph.lint()
        traced = concrete.unoptimized_graph  # the passes remove a double negation
        assert [node.op.name for node in traced.nodes] == [name, name]


@pytest.mark.parametrize("a, b, dtype", [
    (1e300, 2.0, rt.float64), (1e-300, 2.0, rt.float64), (1.5, 2.0, rt.float32),
    (2**40, 3, rt.int64), (3, 4, rt.int32), (-2**40, 3, rt.int64)])
def test_a_python_number_result_keeps_its_value(a, b, dtype):
    # Computed at trace time from Python arguments: the graph returns it without rounding,
    # overflowing or wrapping, in the default dtype when that holds it.
    got = rt.function(lambda x, y: x * y)(a, b)
    assert got.dtype == dtype and got.numpy() == a * b


def test_input_signature_on_a_function_with_star_args_names_the_parameter():
    def summed(*values):
        return values[0]
    with pytest.raises(TypeError, match=r"variadic positional parameter 'values'"):
        rt.function(summed, input_signature=[rt.TensorSpec([], rt.float32)] * 2)
