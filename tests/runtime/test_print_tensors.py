"""``rt.print_tensors`` (``tf.print``): TensorFlow's text for tensors, to standard error unless
told otherwise, eagerly and from graphs (also saved and loaded)."""

import sys

import numpy as np
import pytest

import runtime as rt
from runtime.ops.io_ops import tensorflow_text


@pytest.mark.parametrize("value, summarize, text", [
    (np.array([1.0, 2.5, 3.0], np.float32), 3, "[1 2.5 3]"),
    (np.arange(10), 3, "[0 1 2 ... 7 8 9]"),
    (np.arange(7), -1, "[0 1 2 3 4 5 6]"),
    (np.array([[1, 2], [3, 4]]), 3, "[[1 2]\n [3 4]]"),
    (np.arange(8).reshape(2, 2, 2), 3, "[[[0 1]\n  [2 3]]\n\n [[4 5]\n  [6 7]]]"),
    (np.arange(28).reshape(7, 4)[:, :1], 1, "[[0]\n ...\n [24]]"),
    (np.array([True, False]), 3, "[1 0]"),
    (np.array([1 / 3]), 3, "[0.33333333333333331]"),
    (np.array([1 / 3], np.float32), 3, "[0.333333343]"),
    (np.array([0.1, 1e-8, 123456.789], np.float32), 3, "[0.1 1e-08 123456.789]"),
    (np.array([np.nan, np.inf, -np.inf, -0.0], np.float32), 3, "[nan inf -inf -0]"),
    (np.zeros([0]), 3, "[]"),
])
def test_tensorflow_text(value, summarize, text):
    assert tensorflow_text(value, summarize) == text


def test_streams_structures_and_separators(capsys):
    rt.print_tensors("x =", rt.constant([1, 2]), {"a": rt.constant(1.5), "b": [2, "s"]})
    rt.print_tensors(rt.constant(True), 7, sep=", ", end="!\n", output_stream=sys.stdout)
    captured = capsys.readouterr()
    assert captured.err == "x = [1 2] {'a': 1.5, 'b': [2, 's']}\n"
    assert captured.out == "1, 7!\n"
    with pytest.raises(ValueError, match="output_stream must be sys.stdout or sys.stderr"):
        rt.print_tensors(1, output_stream=42)


def test_in_a_graph_every_call_and_after_saving(capsys, tmp_path):
    @rt.function
    def f(x):
        rt.print_tensors("got", x, summarize=1)
        return x + 1

    f(rt.constant([1, 2, 3]))
    f(rt.constant([4, 5, 6]))
    assert capsys.readouterr().err == "got [1 ... 3]\ngot [4 ... 6]\n"
    path = tmp_path / "f.e2g"
    rt.save(f.get_concrete_function(rt.constant([0, 0, 0])), path)
    rt.load(path)(rt.constant([7, 8, 9]))
    assert capsys.readouterr().err == "got [7 ... 9]\n"
