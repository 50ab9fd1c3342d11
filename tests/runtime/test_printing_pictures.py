"""Printed graphs and pictures: capture names in one order, constant values shown."""

import numpy as np

import runtime as rt
from runtime.printing import constant_text


def _branches_reading_captures_in_different_orders():
    @rt.function
    def f(p, a, b):
        a2 = a * 2.0
        b2 = b * 3.0
        return rt.cond(p, lambda: a2 + b2, lambda: b2 - 1.0)
    return f.get_concrete_function(rt.TensorSpec([], rt.bool), rt.TensorSpec([2], rt.float32),
                                   rt.TensorSpec([2], rt.float32))


def test_both_branches_of_a_cond_list_their_captures_in_one_order():
    lines = [line.split("#")[0].rstrip() for line in
             str(_branches_reading_captures_in_different_orders().graph).splitlines()]
    assert "    then(%capture0: f32[2], %capture1: f32[2]):" in lines
    assert "    else(%capture0: f32[2], %capture1: f32[2]):" in lines
    # b2 is capture1 in both branches:
    assert any(line.endswith(": f32[2] = subtract(%capture1, 1.0)") for line in lines)


def test_the_dot_picture_uses_the_same_capture_names():
    dot = rt.visualize.to_dot(_branches_reading_captures_in_different_orders())
    assert dot.count('label="%capture0\\nf32[2]"') == 2
    assert dot.count('label="%capture1\\nf32[2]"') == 2


def test_small_constants_are_shown_in_full():
    assert constant_text(np.array([1.0, 2.5, 3.0], np.float32)) == "[1. , 2.5, 3. ]"
    assert constant_text(np.arange(16).reshape(4, 4)) == (
        "[[ 0, 1, 2, 3], [ 4, 5, 6, 7], [ 8, 9, 10, 11], [12, 13, 14, 15]]")


def test_large_constants_are_summarized():
    assert constant_text(np.arange(200, dtype=np.float32)) == (
        "200 values: min 0, max 199, mean 99.5")
    assert constant_text(np.array([True, False] * 20)) == "40 values: 20 true"


def test_a_picture_shows_the_constant_values():
    weights = np.arange(200, dtype=np.float32).reshape(10, 20)

    @rt.function
    def f(x):
        return rt.matmul(x, rt.constant(weights)) + rt.constant([1.0, 2.0] * 10)

    dot = rt.visualize.to_dot(f.get_concrete_function(rt.TensorSpec([2, 10], rt.float32)))
    assert 'label="const f32[10,20]\\n200 values: min 0, max 199, mean 99.5"' in dot
    assert "const f32[20]\\n20 values: min 1, max 2, mean 1.5" in dot
