"""Tests for finding a def by parsing only its own lines (transpiler.parsing._find_def_alone).

Every def found that way must span exactly the lines the whole-file parse gives; when the
quick way cannot tell it answers None and the whole file is parsed, never a wrong span."""

import ast
import importlib.util
import pathlib
import textwrap
import types

import pytest

import runtime
import transpiler
from transpiler import parsing

TRICKY = textwrap.dedent('''\
    import functools


    def ends_with_pass(x):
        y = x
        pass


    def ends_with_ellipsis():
        ...


    def ends_with_comments(x):
        return x
            # a comment indented deeper than the body
    # a comment at column 0
        # and another one


    after_comments = 1


    def ends_with_string_at_column_0():
        text = """
    not indented
    """
        return text


    def ends_in_else_pass(x):
        if x:
            return 1
        else:
            pass


    def one_liner(x): return x + 1


    def semicolons(x): y = x; return y


    def long_call(x):
        return max(
            x,
            0,
        )


    def trailing_literal():
        return (1,
                2,
                3)


    @functools.lru_cache
    @functools.wraps(one_liner)
    def decorated(x):
        return x


    def outer(k):
        def inner(z):
            return z + k
        class Local:
            def method(self):
                pass
        return inner, Local


    class Sample:
        def method(self, x):
            return x

        @staticmethod
        def static(x):
            return x


    def backslash(x):
        return x + \\
            1


    def last_in_file(x):
        if x:
            pass
''')


def _code_objects(code):
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _code_objects(const)


def _functions_of(path: pathlib.Path):
    text = path.read_text(encoding="utf-8")
    tree = ast.parse(text)
    for code in _code_objects(compile(text, str(path), "exec")):
        if code.co_flags & 2 and not code.co_name.startswith("<"):  # a def, not a class body
            yield code, text.splitlines(True), tree


def _assert_same_spans(path: pathlib.Path) -> int:
    checked = 0
    for code, lines, tree in _functions_of(path):
        whole = parsing._find_def(tree, code, code.co_name, str(path))
        alone = parsing._find_def_alone(code, lines)
        assert alone is not None, (path, code.co_name, code.co_firstlineno)
        assert (alone.lineno, alone.end_lineno) == (whole.lineno, whole.end_lineno), \
            (path, code.co_name)
        checked += 1
    return checked


def test_tricky_endings_span_the_same_lines_as_the_whole_file(tmp_path):
    path = tmp_path / "tricky.py"
    path.write_text(TRICKY, encoding="utf-8")
    assert _assert_same_spans(path) == 17


@pytest.mark.parametrize("package", [runtime, transpiler], ids=["runtime", "transpiler"])
def test_every_def_of_the_project_spans_the_same_lines(package):
    root = pathlib.Path(package.__file__).parent
    assert sum(_assert_same_spans(path) for path in sorted(root.rglob("*.py"))) > 200


def _load(path: pathlib.Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_parse_function_does_not_parse_the_whole_file(tmp_path, monkeypatch):
    path = tmp_path / "tricky_module.py"
    path.write_text(TRICKY, encoding="utf-8")
    module = _load(path, "tricky_module")

    def whole_file(*args):
        raise AssertionError("the whole file was parsed")
    monkeypatch.setattr(parsing, "_parse_file", whole_file)
    node, info = parsing.parse_function(module.ends_with_comments)
    assert node.name == "ends_with_comments" and info.source.rstrip().endswith("return x")
    node, info = parsing.parse_function(module.Sample.static)
    assert node.decorator_list == [] and info.first_lineno == TRICKY.splitlines().index(
        "    def static(x):") + 1
    converted = transpiler.convert(module.ends_in_else_pass)
    assert converted(0) is None and converted(2) == 1


def test_a_def_that_moved_falls_back_to_the_whole_file(tmp_path):
    """Lines inserted above the def after import: its first line holds other code now, the
    quick way says None, and the whole-file search reports the stale file as before."""
    path = tmp_path / "moving.py"
    path.write_text("def moving(x):\n    return x\n", encoding="utf-8")
    module = _load(path, "moving")
    path.write_text("value = 1\n\ndef moving(x):\n    return x\n", encoding="utf-8")
    lines = path.read_text().splitlines(True)
    assert parsing._find_def_alone(module.moving.__code__, lines) is None
    with pytest.raises(parsing.SourceUnavailableError, match="does not match the running code"):
        parsing.parse_function(module.moving)
