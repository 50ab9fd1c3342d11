"""The ``--args`` text: tensor specs (short or full dtype names) and Python values."""

import pytest

import runtime as rt
from transpiler.cli_args import ArgumentsError, parse_arguments


def test_specs_with_short_and_full_dtype_names_and_python_values():
    assert parse_arguments("f32[50], float32[None, 3], i32[], int64[2], 3, 0.5, 'relu', "
                           "(1, 2), None, True") == [
        rt.TensorSpec([50], rt.float32), rt.TensorSpec([None, 3], rt.float32),
        rt.TensorSpec([], rt.int32), rt.TensorSpec([2], rt.int64), 3, 0.5, "relu", (1, 2),
        None, True]


def test_empty_text_means_no_arguments():
    assert parse_arguments("  ") == []


@pytest.mark.parametrize("text, message", [
    ("f33[2]", "unknown dtype 'f33' in 'f33[2]': use one of f16, f32,"),
    ("f32[x]", "the shape of 'f32[x]' must list integers or None, e.g. f32[None, 3]."),
    ("f32[-1]", "the shape of 'f32[-1]' must list integers or None"),
    ("float32", "the tensor spec 'float32' has no shape: add its dims in brackets, e.g. "
                "float32[] for a scalar or float32[None] for a vector."),
    ("f32[2] f32", "cannot read the arguments 'f32[2] f32': write one entry per argument"),
    ("open('x')", """cannot read "open('x')" in the arguments"""),
])
def test_unreadable_arguments_say_what_to_write(text, message):
    with pytest.raises(ArgumentsError) as caught:
        parse_arguments(text)
    assert message in str(caught.value)
