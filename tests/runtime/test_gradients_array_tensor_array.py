"""Gradients through ``rt.TensorArray``: each written value gets the gradient of the row it
filled, overwritten and unwritten rows pass none, and buffers that are over-allocated or
shared by several arrays change nothing of that."""

import numpy as np
import pytest

import runtime as rt
from tests.runtime.test_gradients_array import check_gradients, gradient_of

RNG = np.random.default_rng(7)
X = RNG.standard_normal((4, 3))
UNKNOWN_ROWS = [rt.TensorSpec([None, 3], rt.float64)]


def _fixed(x, size=4):
    return rt.TensorArray(x.dtype, size=size, element_shape=[3])


def write_stack(x):
    ta = _fixed(x).write(0, x[0]).write(2, x[1] * x[2])  # row 1 and 3 never written
    return ta.stack()


def overwrite(x):
    ta = _fixed(x).write(1, x[0]).write(0, x[1]).write(1, x[2] * 2.0)
    return ta.stack()


def read(x):
    ta = _fixed(x).write(0, x[0]).write(1, x[1] * x[1])
    return ta.read(1) * ta.read(0) + ta.read(3)  # element 3 reads as zeros


def gather(x):
    ta = _fixed(x).write(0, x[0]).write(2, x[2])
    return ta.gather([2, 0, 2, 1])  # a repeat, and an unwritten element


def concat(x):
    ta = rt.TensorArray(x.dtype, size=3)
    ta = ta.write(0, x[:2]).write(2, x[2:] * 3.0)
    return ta.concat()


def unstack(x):
    ta = rt.TensorArray(x.dtype, size=4).unstack(x * x)
    ta = ta.write(2, x[0])  # overwrites what unstack put there
    return ta.stack() + ta.gather([3, 3, 0, 1])


def dynamic(x):
    """Five writes to a growing array: its buffer has 8 rows, of which 5 are elements."""
    ta = rt.TensorArray(x.dtype, size=0, dynamic_size=True)
    for i in range(5):
        ta = ta.write(i, x[i % 4] * float(i + 1))
    return ta.stack() + ta.read(4)


def without_element_shape(x):
    """The buffer is a 0-d stand-in until the first write decides the element shape."""
    ta = rt.TensorArray(x.dtype, size=2)
    return ta.write(1, x[3]).write(0, x[0] - x[3]).stack()


def shared_buffer(x):
    """``base`` and ``first`` share a buffer (an in-order write fills it in place); ``second``
    writes the same row from ``base`` and gets a copy. Each sees only its own elements."""
    base = _fixed(x).write(0, x[0])
    first = base.write(1, x[1])
    second = base.write(1, x[2] * x[2])
    return first.stack() * 2.0 + second.stack() * 3.0 + base.stack() * 5.0


CASES = [write_stack, overwrite, read, gather, concat, unstack, dynamic, without_element_shape,
         shared_buffer]


@pytest.mark.parametrize("fn", CASES, ids=[fn.__name__ for fn in CASES])
def test_gradient_matches_finite_differences(fn):
    check_gradients(fn, X)
    check_gradients(fn, X, signature=UNKNOWN_ROWS)


def test_overwritten_and_unwritten_elements_pass_no_gradient():
    (dx,) = gradient_of(overwrite, rt.constant(X), seed=np.ones((4, 3)))
    # x[0] was written to element 1, then overwritten: no gradient
    np.testing.assert_array_equal(dx.numpy(), [[0] * 3, [1] * 3, [2] * 3, [0] * 3])


def test_shared_buffer_gradients_by_hand():
    (dx,) = gradient_of(shared_buffer, rt.constant(X), seed=np.ones((4, 3)))
    np.testing.assert_allclose(dx.numpy(), [[10] * 3, [2] * 3, 6 * X[2], [0] * 3])


def test_float32_array_gives_float32_gradients():
    x = rt.constant(X.astype(np.float32))
    (dx,) = gradient_of(write_stack, x)
    assert dx.dtype == np.float32
    np.testing.assert_allclose(dx.numpy()[0], np.ones(3, np.float32))


def test_integer_elements_get_no_gradient():
    x = rt.constant(np.arange(12, dtype=np.int32).reshape(4, 3))
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = write_stack(x)
    assert tape.gradient(y, x) is None


def test_index_gets_no_gradient():
    x, i = rt.constant(X), rt.constant(2)
    with rt.GradientTape() as tape:
        tape.watch([x, i])
        y = _fixed(x).write(i, x[0]).read(i)
    dx, di = tape.gradient(y, [x, i])
    assert di is None
    np.testing.assert_array_equal(dx.numpy()[0], np.ones(3))


@pytest.mark.parametrize("predicate", [True, False])
def test_cond_writing_different_elements(predicate):
    def branches(x, p):
        ta = _fixed(x).write(0, x[0])
        ta = rt.cond(p, lambda: ta.write(1, x[1] * x[1]), lambda: ta.write(3, x[2] * 3.0))
        return ta.stack()

    check_gradients(branches, X, np.bool_(predicate))


def test_eager_while_loop_filling_an_array():
    """(Traced, the gradient of a while_loop through a TensorArray is refused for now by the
    loop's own gradient rule; see runtime.autodiff.control_flow.)"""
    def run(x):
        with rt.GradientTape() as tape:
            tape.watch(x)

            def body(i, ta):
                return [i + 1, ta.write(i, x[i] * rt.cast(i + 1, rt.float64))]

            _, ta = rt.while_loop(lambda i, ta: i < 4, body, [rt.constant(0), _fixed(x)])
            y = ta.stack()
        return tape.gradient(y, x)

    expected = np.repeat(np.arange(1.0, 5.0)[:, None], 3, axis=1)
    np.testing.assert_array_equal(run(rt.constant(X)).numpy(), expected)


def test_second_derivatives_through_writes_and_stack():
    """g = d<w, stack>/dx = w[0] + 2 x w[2]; then dg/dx = 2 w[2] and dg/dw = [1, 0, 2x]."""
    def derivatives(x, w, v):
        with rt.GradientTape(persistent=True) as outer:
            outer.watch([x, w])
            with rt.GradientTape() as inner:
                inner.watch(x)
                ta = rt.TensorArray(rt.float64, size=3, element_shape=[2])
                y = ta.write(0, x).write(2, x * x).stack()
            g = inner.gradient(y, x, output_gradients=w)
        return [g] + outer.gradient(g, [x, w], output_gradients=v)

    x, w, v = (rt.constant(RNG.standard_normal(s)) for s in [(2,), (3, 2), (2,)])
    xs, ws, vs = x.numpy(), w.numpy(), v.numpy()
    for g, dx, dw in (derivatives(x, w, v), rt.function(derivatives)(x, w, v)):
        np.testing.assert_allclose(g.numpy(), ws[0] + 2 * xs * ws[2])
        np.testing.assert_allclose(dx.numpy(), 2 * ws[2] * vs)
        np.testing.assert_allclose(dw.numpy(), [vs, [0, 0], 2 * xs * vs])


def test_second_derivatives_through_read_gather_and_concat():
    def derivatives(x, w):
        with rt.GradientTape() as outer:
            outer.watch(w)
            with rt.GradientTape() as inner:
                inner.watch(x)
                ta = rt.TensorArray(rt.float64, size=2).write(0, x).write(1, x * 2.0)
                y = [ta.read(1), ta.gather([1, 0, 1]), ta.concat()]
            seeds = [w[0, :2], rt.reshape(w[:3, :2], [3, 2]), rt.reshape(w[:2, :2], [4])]
            g = inner.gradient(y, x, output_gradients=seeds)
        return outer.gradient(g, w)

    x, w = rt.constant(RNG.standard_normal(2)), rt.constant(RNG.standard_normal((3, 3)))
    # g = 2 w0 + (2 w0 + w1 + 2 w2) + (w0 + 2 w1) over the first two columns
    expected = [[5, 5, 0], [3, 3, 0], [2, 2, 0]]
    np.testing.assert_allclose(derivatives(x, w).numpy(), expected)
    np.testing.assert_allclose(rt.function(derivatives)(x, w).numpy(), expected)
