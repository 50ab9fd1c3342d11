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


def test_a_format_spec_on_an_array_warns_at_the_line_and_prints_the_value(capsys):
    with pytest.warns(ConversionWarning) as caught:
        transpiler.function(spec_on_tensor)(rt.constant([1.5, 2.0]))
    [warning] = [w for w in caught if w.category is ConversionWarning]
    assert str(warning.message) == (
        "The format {x:.3f} cannot be applied here: a format applies to one number, and this "
        "tensor has shape (2,) (Python raises for an array), so it prints as NumPy prints it. "
        "Format one element (x[0]), or write {x} to print the array.")
    assert (warning.filename, warning.lineno) == (__file__, _line(spec_on_tensor))
    assert capsys.readouterr().out == "[1.5 2. ]\n"


def test_percent_d_on_an_array_warns_with_what_to_write(capsys):
    with pytest.warns(ConversionWarning, match=r"^'%d' cannot format this tensor: .* shape "
                                               r"\(3,\).* or write '%s' to print the array"):
        transpiler.function(decimal_on_tensor)(rt.constant([4, 5, 6]))
    assert capsys.readouterr().out == "[4 5 6] items\n"


def scalar_formats(x, n):
    print(f"x={x:.3f} n={n:>4d} {x:+.1e} {n!s:>3}")
    print("%5.2f|%d|%x" % (x, n, n))
    print("{:08.3f}/{:,}".format(x, n * 1000))


@pytest.mark.parametrize("dtypes", [(np.float32, np.int32), (np.float64, np.int64)])
@pytest.mark.parametrize("x, n", [(3.14159, 7), (-0.5, 255), (1e10, -3)])
def test_formats_on_scalar_tensors_apply_when_the_graph_runs(x, n, dtypes, capsys, recwarn):
    x, n = dtypes[0](x), dtypes[1](n)
    scalar_formats(x, n)
    expected = capsys.readouterr().out
    f = transpiler.function(scalar_formats)
    f(rt.constant(x), rt.constant(n))
    f(rt.constant(x), rt.constant(n))
    assert capsys.readouterr().out == expected * 2
    assert not [w for w in recwarn if w.category is ConversionWarning]


def format_per_value(x):
    print(f"{x:.2f}")


def test_a_saved_graph_keeps_the_format(tmp_path, capsys):
    concrete = transpiler.function(format_per_value).get_concrete_function(
        rt.TensorSpec([], rt.float64))
    path = str(tmp_path / "g.e2g")
    rt.save(concrete, path)
    rt.load(path)(rt.constant(2.0, rt.float64))
    assert capsys.readouterr().out == "2.00\n"
