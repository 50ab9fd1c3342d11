"""print of f-strings, str.format and % with tensors prints their values at run time, as plain
Python prints the same values as NumPy arrays; formats that need the value while tracing warn."""

import inspect

import numpy as np
import pytest

import runtime as rt
import transpiler
from transpiler import ConversionWarning


def report(x, n):
    print(f"x = {x}, n = {n}!")
    print("x={} n={n}".format(x, n=n), "and", sep=" | ")
    print("x = %s; n = %s; 100%%" % (x, n))
    print("{0} {0}".format(n), f"{n!s}")


def named_percent(x):
    print("x: %(x)s" % {"x": x})


def spec_on_tensor(x):
    print(f"{x:.3f}")


def decimal_on_tensor(x):
    print("%d items" % x)


VALUES = [
    (np.float32(2.5), np.int32(3)),
    (np.array([1.5, -2.0, 3.25], np.float32), np.array([1, 2], np.int32)),
    (np.array([[1, 2], [3, 4]], np.int64), np.float64(0.125)),
]


@pytest.mark.parametrize("x, n", VALUES)
def test_formatted_prints_match_plain_python_on_the_same_values(x, n, capsys):
    report(x, n)
    expected = capsys.readouterr().out
    f = transpiler.function(report)
    f(rt.constant(x), rt.constant(n))
    f(rt.constant(x), rt.constant(n))  # printed by the graph on every call, not while tracing
    assert capsys.readouterr().out == expected * 2


def test_a_named_percent_field_prints_the_value(capsys):
    transpiler.function(named_percent)(rt.constant([1, 2]))
    assert capsys.readouterr().out == "x: [1 2]\n"


def test_python_values_still_format_in_python(capsys):
    transpiler.convert(report)(2.5, 3)
    report(2.5, 3)
    out = capsys.readouterr().out
    half = len(out) // 2
    assert out[:half] == out[half:]


def _line(fn) -> int:
    return inspect.getsourcelines(fn)[1] + 1


def test_a_format_spec_on_a_tensor_warns_at_the_line_and_prints_the_value(capsys):
    with pytest.warns(ConversionWarning) as caught:
        transpiler.function(spec_on_tensor)(rt.constant([1.5, 2.0]))
    [warning] = [w for w in caught if w.category is ConversionWarning]
    assert str(warning.message) == (
        "The format {x:.3f} cannot be applied to a tensor of the graph: its value exists only "
        "when the graph runs, so it prints as NumPy prints it instead. Write {x} to print the "
        "value as it is, or round it in the graph first (e.g. rt.round(x * 1000) / 1000).")
    assert (warning.filename, warning.lineno) == (__file__, _line(spec_on_tensor))
    assert capsys.readouterr().out == "[1.5 2. ]\n"


def test_percent_d_on_a_tensor_warns_with_what_to_write(capsys):
    with pytest.warns(ConversionWarning, match=r"^'%d' cannot format a tensor of the graph: .* "
                                               r"Write '%s' \(or f\"\{x\}\"\) to print the value"):
        transpiler.function(decimal_on_tensor)(rt.constant(4))
    assert capsys.readouterr().out == "4 items\n"
