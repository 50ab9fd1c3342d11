"""Function.explain_retraces(): every trace's signature, what changed, and the fix."""

import pytest

import runtime as rt


def _scale():
    @rt.function
    def scale(x, n):
        return x * n
    return scale


def test_one_trace_lists_its_signature_and_no_fix():
    scale = _scale()
    scale(rt.constant([1.0, 2.0]), 2)
    assert str(scale.explain_retraces()) == (
        "scale was traced 1 time.\n"
        "Trace 1: scale(x=a tensor of dtype float32 and shape (2,), n=the Python int 2)")


def test_each_change_names_the_argument_the_old_and_new_value_and_the_fix():
    scale = _scale()
    scale(rt.constant([1.0, 2.0]), 2)
    scale(rt.constant([1.0, 2.0]), 3)
    scale(rt.constant([1.0, 2.0, 3.0]), 3)
    scale(rt.constant([1, 2, 3]), 3)
    text = str(scale.explain_retraces())
    assert text.splitlines() == [
        "scale was traced 4 times.",
        "Trace 1: scale(x=a tensor of dtype float32 and shape (2,), n=the Python int 2)",
        "Trace 2: scale(x=a tensor of dtype float32 and shape (2,), n=the Python int 3)",
        "  changed: argument 'n' from the Python int 2 to the Python int 3",
        "Trace 3: scale(x=a tensor of dtype float32 and shape (3,), n=the Python int 3)",
        "  changed: argument 'x' from a tensor of dtype float32 and shape (2,) to a tensor of "
        "dtype float32 and shape (3,)",
        "Trace 4: scale(x=a tensor of dtype int32 and shape (3,), n=the Python int 3)",
        "  changed: argument 'x' from a tensor of dtype float32 and shape (3,) to a tensor of "
        "dtype int32 and shape (3,)",
        "Fix: a Python number or string that changes between calls is part of the trace key; "
        "pass it as a tensor (rt.constant(value)) so one graph serves every value.",
        "Fix: a tensor shape that changes between calls makes a new trace; give "
        "input_signature=[rt.TensorSpec([None], ...)] with None for the varying dimension, "
        "or pass reduce_retracing=True.",
        "Fix: a tensor dtype that changes between calls makes a new trace; cast the argument "
        "to one dtype before the call (rt.cast(x, rt.float32)).",
    ]


def test_a_change_inside_a_list_names_the_element():
    @rt.function
    def total(xs):
        return xs[0] + xs[1]
    total([rt.constant(1.0), 2])
    total([rt.constant(1.0), 5])
    report = total.explain_retraces()
    assert report.changes[1] == [("xs[1]", "the Python int 2", "the Python int 5")]
    assert "changed: argument 'xs[1]' from the Python int 2 to the Python int 5" in str(report)


def test_the_retracing_warning_points_to_explain_retraces():
    scale = _scale()
    with pytest.warns(rt.errors.RetracingWarning, match=r"Its \.explain_retraces\(\) lists every "
                                                        r"trace and what changed\."):
        for n in range(6):
            scale(rt.constant(1.0), n)
    assert len(scale.explain_retraces().traces) == 6


def test_a_converted_function_explains_its_retraces_too():
    import transpiler

    @transpiler.function
    def clip(x, limit):
        if x > limit:
            x = limit
        return x
    clip(rt.constant(1.0), 1)
    clip(rt.constant(1.0), 2)
    assert "changed: argument 'limit' from the Python int 1 to the Python int 2" in str(
        clip.explain_retraces())
