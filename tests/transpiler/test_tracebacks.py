"""Tracebacks of errors that leave a traced or converted function show the user's code.

Each test formats the exception as Python prints it and pins the user's ``file:line``, the
source line, the caret line where Python draws one, and the absence of eager2graph's own
frames (generated modules, ``runtime/`` and ``transpiler/``). Sample functions live at module
level; a ``# <-`` marker comment flags the line a frame must point at.
"""

from __future__ import annotations

import contextlib
import inspect
import io
import os
import re
import sys
import traceback

import pytest

import runtime as rt
import transpiler
from transpiler import function

HERE = os.path.basename(__file__)
PACKAGES = tuple(os.path.dirname(package.__file__) for package in (rt, transpiler))
# The one frame Python always shows: the entry point that re-raised the error.
ENTRY = re.compile(r'  File "[^"]*", line \d+, in (__call__|get_concrete_function|converted_call(?: of \S+ at \S+)?|explain)\n'
                   r"    raise error\.with_traceback\(user_traceback\(error\)\)\n")


def internals(text: str) -> list[str]:
    """Lines of ``text`` that show generated code or a frame of eager2graph's packages."""
    return [line for line in ENTRY.sub("", text).splitlines()
            if "eager2graph converted" in line or any(p in line for p in PACKAGES)]


def line_of(fn, marker: str = "# <-") -> int:
    lines, start = inspect.getsourcelines(fn)
    return next(start + i for i, text in enumerate(lines) if marker in text)


def formatted(call) -> str:
    with pytest.raises(Exception) as info:
        call()
    return "".join(traceback.format_exception(info.value))


def displayed(call) -> str:
    """What Python prints for the exception ``call`` raises when nothing catches it."""
    with pytest.raises(Exception) as info:
        call()
    shown = io.StringIO()
    with contextlib.redirect_stderr(shown):
        sys.__excepthook__(info.type, info.value, info.value.__traceback__)
    return shown.getvalue().rstrip()


def assert_user_frame(text: str, fn, source: str, caret: str | None = None) -> None:
    frame = f'File "{__file__}", line {line_of(fn)}, in {fn.__name__}\n    {source}\n'
    assert frame in text, text
    if caret is not None:
        assert frame + caret + "\n" in text, text
    assert not internals(text), text


def typo(x):
    y = x + 1
    return y * undefined_name  # <-  # noqa: F821


def misspelt_local(x):
    total = x + 1
    return totl * 2  # <-  # noqa: F821


factor = 2.0


def misspelt_global(x):
    return x * factr  # <-  # noqa: F821


def wrong_shapes(x):
    w = rt.ones((3, 4))
    return rt.matmul(x, w)  # <-


def failed_assert(x):
    y = x + 1
    assert y.shape[0] == 3, "needs three"  # <-
    return y


def branch_with_typo(x):
    if x > 0:
        y = x + missing  # <-  # noqa: F821
    else:
        y = x
    return y


add_typo = lambda x: x + nothing  # <-  # noqa: E731, F821


class TestTraceTimeErrors:
    def test_a_name_error_shows_the_users_line_and_caret(self):
        text = formatted(lambda: function(typo)(rt.constant([1.0])))
        assert_user_frame(text, typo, "return y * undefined_name  # <-  # noqa: F821",
                          "               ^^^^^^^^^^^^^^")
        assert text.rstrip().endswith("NameError: name 'undefined_name' is not defined")

    def test_a_shape_error_points_at_the_call_that_made_the_op(self):
        text = formatted(lambda: function(wrong_shapes)(rt.constant([[1.0, 2.0]])))
        assert_user_frame(text, wrong_shapes, "return rt.matmul(x, w)  # <-",
                          "           ^^^^^^^^^^^^^^^")
        assert "ShapeError: matmul: shapes (1, 2) and (3, 4)" in text

    def test_a_failed_assert_points_at_the_assert_line(self):
        text = formatted(lambda: function(failed_assert)(rt.constant([1.0])))
        assert_user_frame(text, failed_assert, 'assert y.shape[0] == 3, "needs three"  # <-')
        assert "def failed_assert" not in text

    def test_an_error_in_a_tensor_branch_points_at_the_branch_line(self):
        text = formatted(lambda: function(branch_with_typo)(rt.constant(1.0)))
        assert_user_frame(text, branch_with_typo, "y = x + missing  # <-  # noqa: F821",
                          "            ^^^^^^^")

    def test_a_lambda_reports_the_users_file_and_line(self):
        text = formatted(lambda: function(add_typo)(rt.constant(1.0)))
        assert f'File "{__file__}", line {line_of(add_typo)}, in <lambda>' in text, text
        assert "lambda_" not in text and not internals(text), text

    @pytest.mark.parametrize("fn, suggestion", [(misspelt_local, "total"),
                                                (misspelt_global, "factor")])
    def test_a_name_error_suggests_what_python_suggests_in_the_users_frame(self, fn, suggestion):
        """Python's own display (sys.excepthook) offers "Did you mean" from the names the
        innermost frame sees; the frame standing for the user's sees the user's names."""
        plain, converted = (displayed(lambda: call(rt.constant([1.0])))
                            for call in (fn, function(fn)))
        assert plain.endswith(f"Did you mean: '{suggestion}'?")
        assert converted.splitlines()[-1] == plain.splitlines()[-1]
        assert not internals(converted), converted

    def test_get_concrete_function_filters_too(self):
        text = formatted(lambda: function(typo).get_concrete_function(rt.TensorSpec([1])))
        assert_user_frame(text, typo, "return y * undefined_name  # <-  # noqa: F821")


def checks_positive(x):
    assert x > 0, "x must be positive"  # <-
    return x


class TestRunTimeErrors:
    def test_a_failed_graph_assert_shows_the_assert_line(self):
        fn = function(checks_positive)
        fn(rt.constant(1.0))
        text = formatted(lambda: fn(rt.constant(-1.0)))
        assert f'File "{__file__}", line {line_of(checks_positive)}, in checks_positive' in text
        assert "x must be positive" in text
        assert not internals(text), text

    def test_concrete_functions_filter_too(self):
        concrete = function(checks_positive).get_concrete_function(rt.TensorSpec([], rt.float32))
        text = formatted(lambda: concrete(rt.constant(-1.0)))
        assert f'line {line_of(checks_positive)}, in checks_positive' in text, text
        assert not internals(text), text


class TestOtherEntryPoints:
    def test_a_converted_function_called_directly_shows_the_users_line(self):
        text = formatted(lambda: transpiler.convert(branch_with_typo)(rt.constant(1.0)))
        assert_user_frame(text, branch_with_typo, "y = x + missing  # <-  # noqa: F821",
                          "            ^^^^^^^")

    def test_a_converted_python_error_keeps_pythons_message(self):
        text = formatted(lambda: transpiler.convert(typo)(1))
        assert_user_frame(text, typo, "return y * undefined_name  # <-  # noqa: F821")
        assert text.rstrip().endswith("NameError: name 'undefined_name' is not defined")

    def test_explain_shows_the_users_line(self):
        text = formatted(lambda: transpiler.explain(wrong_shapes, rt.TensorSpec([1, 2])))
        assert_user_frame(text, wrong_shapes, "return rt.matmul(x, w)  # <-")


class TestSwitch:
    def test_filtering_off_shows_the_internal_frames(self):
        rt.config.set_traceback_filtering(False)
        try:
            text = formatted(lambda: function(typo)(rt.constant([1.0])))
        finally:
            rt.config.set_traceback_filtering(True)
        assert "eager2graph converted" in text and PACKAGES[0] + os.sep in text, text

    def test_it_is_on_by_default(self):
        assert rt.config.traceback_filtering()
