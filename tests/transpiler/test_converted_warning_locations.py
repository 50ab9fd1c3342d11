"""Warnings raised while converted code traces or runs name the user's file and line and show
the user's source, not the generated module (issue 22, item 7)."""

import inspect
import linecache
import warnings

import numpy as np

import runtime as rt
import transpiler
from runtime.errors import GradientWarning


def line_of(fn, text: str) -> int:
    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, line in enumerate(lines) if text in line)


def caught(call, *args):
    with warnings.catch_warnings(record=True) as records:
        warnings.simplefilter("always")
        call(*args)
    return [(str(r.message), r.category, r.filename, r.lineno,
             linecache.getline(r.filename, r.lineno).strip()) for r in records]


def safe_log(x):
    if rt.reduce_sum(x) < 0:
        x = x * 1.0
    return rt.log(x)  # warns for x <= 0


def test_numpy_warnings_of_a_converted_function_name_the_users_line():
    line = line_of(safe_log, "warns for x <= 0")
    x = np.array([-1.0, 0.0], np.float32)
    for call in (transpiler.function(safe_log), transpiler.convert(safe_log)):  # graph, eager
        records = caught(call, rt.constant(x))
        assert [r[0] for r in records] == ["divide by zero encountered in log",
                                           "invalid value encountered in log"]
        assert {r[2:] for r in records} == {(__file__, line, "return rt.log(x)  # warns for x <= 0")}


W = rt.Variable(1.0)
B = rt.Variable(2.0)


def train_step(x, opt):
    with rt.GradientTape() as tape:
        loss = W * x
    grads = tape.gradient(loss, [W, B])
    opt.apply_gradients(zip(grads, [W, B]))  # B has no gradient
    return loss


def test_the_none_gradient_warning_names_the_users_line_in_converted_code():
    step = transpiler.function(train_step)
    records = caught(step, rt.constant(3.0), rt.optimizers.SGD(0.1))
    assert [(r[2], r[3], r[4]) for r in records if "gradient is None" in r[0]] == [
        (__file__, line_of(train_step, "B has no gradient"),
         "opt.apply_gradients(zip(grads, [W, B]))  # B has no gradient")]


def stopped_gradient(x):
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.cast(rt.round(x), rt.float32) * 2.0
    return tape.gradient(y, x)  # no gradient through round


def test_the_stopped_gradient_warning_names_the_users_line_in_converted_code():
    records = caught(transpiler.function(stopped_gradient), rt.constant(1.5))
    stopped = [r for r in records if r[1] is GradientWarning]
    assert stopped, records
    assert {(r[2], r[3]) for r in stopped} == {(__file__, line_of(stopped_gradient,
                                                                    "no gradient through"))}
