"""Tests for transpiler.parsing: finding, parsing and locating user functions."""

import functools
import re
import textwrap

import gast
import pytest

from transpiler import parsing
from transpiler.analysis import annotations as anno
from transpiler.analysis.annotations import Anno
from transpiler.errors import ConversionError, SourceUnavailableError, UnsupportedSyntaxError


def _line_of(text: str) -> int:
    """The line of this file ending with ``text`` (which must appear once)."""
    with open(__file__) as f:
        hits = [i + 1 for i, line in enumerate(f) if line.rstrip().endswith(text)]
    assert len(hits) == 1, hits
    return hits[0]


def _origin(node: gast.AST) -> parsing.Origin:
    return anno.get(node, Anno.ORIGIN)


# Sample functions. Their text is asserted on, so keep them as they are.

def plain(x):
    y = x + 1  # plain-body
    return y


def _decorator(fn):
    return fn


@_decorator
@_decorator
def decorated(x):  # decorated-def
    return x


def _wrapping(fn):
    @functools.wraps(fn)
    def wrapper(*args):  # wrapper-def
        return fn(*args)
    return wrapper


@_wrapping
def wrapped(x):
    return x


class Sample:
    def method(self, x):
        text = """
not indented"""  # method-string
        return x + len(text)

    @staticmethod
    def static(x):
        return x

    @classmethod
    def klass(cls, x):
        return x


def make_closure(k):
    def inner(z):  # inner-def
        return z + k
    return inner


LAMBDAS = (lambda a: a + 1, lambda b: b * 2, lambda a: a - 1)  # lambdas-line
SPREAD = dict(key=(
    lambda v: -v))["key"]  # spread-lambda
CURRIED = lambda x: lambda y: x + y  # curried-line
UNICODE = ("é", lambda s: s + "ü")[1]  # unicode-line


async def coroutine():
    return 1


# Functions ------------------------------------------------------------------------------


def test_module_function_is_parsed_with_absolute_lines():
    node, info = parsing.parse_function(plain)
    assert isinstance(node, gast.FunctionDef) and node.name == "plain"
    assert info.filename == __file__
    assert info.first_lineno == node.lineno == plain.__code__.co_firstlineno
    assert info.source == "def plain(x):\n    y = x + 1  # plain-body\n    return y\n"
    assign = node.body[0]
    assert _origin(assign) == parsing.Origin(
        __file__, _line_of("# plain-body"), 4, "plain", "y = x + 1  # plain-body")


def test_every_node_has_an_origin():
    node, _ = parsing.parse_function(Sample.method)
    # gast makes up the context of an argument's name; readers take the parent's origin there
    missing = [type(n).__name__ for n in gast.walk(node)
               if not anno.has(n, Anno.ORIGIN) and not isinstance(n, gast.Param)]
    assert missing == []
    assert all(_origin(a).lineno == node.lineno for a in node.args.args)
    arguments = node.args  # No position of its own: inherits the def's.
    assert _origin(arguments).lineno == node.lineno


def test_decorators_are_stripped_and_def_line_is_first_lineno():
    node, info = parsing.parse_function(decorated)
    assert node.decorator_list == []
    assert info.first_lineno == _line_of("# decorated-def")
    assert info.source.startswith("def decorated(x):")


def test_functools_wraps_parses_the_given_wrapper_not_the_wrapped_function():
    node, info = parsing.parse_function(wrapped)
    assert node.name == "wrapper"
    assert info.first_lineno == _line_of("# wrapper-def")


@pytest.mark.parametrize("fn", [Sample.method, Sample().method])
def test_methods_keep_original_columns(fn):
    node, info = parsing.parse_function(fn)
    assert node.name == "method" and node.col_offset == 4
    assert _origin(node.body[0]).col_offset == 8
    # Dedenting must not touch the contents of a multi-line string.
    assert node.body[0].value.value == "\nnot indented"
    assert "\nnot indented\"\"\"" in info.source and info.source.startswith("def method")


@pytest.mark.parametrize("fn, name", [(Sample.static, "static"), (Sample.klass, "klass"),
                                      (Sample().klass, "klass")])
def test_static_and_class_methods(fn, name):
    node, _ = parsing.parse_function(fn)
    assert node.name == name and node.decorator_list == []


def test_nested_closure():
    node, info = parsing.parse_function(make_closure(1))
    assert node.name == "inner"
    assert info.first_lineno == _line_of("# inner-def")
    assert _origin(node.body[0]).function_name == "inner"


def test_origin_function_name_is_innermost_def():
    node, _ = parsing.parse_function(make_closure)
    inner_def = node.body[0]
    assert _origin(inner_def).function_name == "make_closure"
    assert _origin(inner_def.body[0]).function_name == "inner"


def test_returned_tree_is_a_private_copy():
    first, _ = parsing.parse_function(plain)
    first.body.clear()
    second, _ = parsing.parse_function(plain)
    assert len(second.body) == 2


# Lambdas ----------------------------------------------------------------------------------


@pytest.mark.parametrize("index, text", [(0, "lambda a: a + 1"), (1, "lambda b: b * 2"),
                                         (2, "lambda a: a - 1")])
def test_several_lambdas_on_one_line(index, text):
    node, info = parsing.parse_function(LAMBDAS[index])
    assert isinstance(node, gast.Lambda)
    assert info.source == text
    assert info.first_lineno == _line_of("# lambdas-line")
    assert _origin(node).col_offset == _source_line("# lambdas-line").index(text)
    assert _origin(node.body).function_name == "<lambda>"


def _source_line(marker: str) -> str:
    with open(__file__) as f:
        return f.read().splitlines()[_line_of(marker) - 1]


def test_lambda_in_the_middle_of_an_expression():
    node, info = parsing.parse_function(SPREAD)
    assert info.first_lineno == _line_of("# spread-lambda") and info.source == "lambda v: -v"
    assert isinstance(node.body, gast.UnaryOp)


def test_lambda_text_after_non_ascii_characters():
    _, info = parsing.parse_function(UNICODE)
    assert info.source == 'lambda s: s + "ü"'


def test_curried_lambdas_are_told_apart():
    outer, _ = parsing.parse_function(CURRIED)
    inner, _ = parsing.parse_function(CURRIED(1))
    assert outer.args.args[0].id == "x" and isinstance(outer.body, gast.Lambda)
    assert inner.args.args[0].id == "y" and isinstance(inner.body, gast.BinOp)


def test_ambiguous_lambdas_raise_with_advice():
    fn = LAMBDAS[0]
    blind = type(fn)(fn.__code__.replace(co_linetable=b""), fn.__globals__)  # No positions.
    with pytest.raises(SourceUnavailableError, match="on its own line"):
        parsing.parse_function(blind)


# Errors -----------------------------------------------------------------------------------


@pytest.mark.parametrize("fn, name", [(len, "len"), ([].append, "list.append"),
                                      (functools.partial(plain, 1), "partial")])
def test_non_python_callables_raise(fn, name):
    with pytest.raises(SourceUnavailableError, match=re.escape(name)) as info:
        parsing.parse_function(fn)
    assert isinstance(info.value, ConversionError) and isinstance(info.value, ValueError)


def test_exec_function_raises_with_advice():
    namespace = {}
    exec("def typed_in_repl(x):\n    return x\n", namespace)
    with pytest.raises(SourceUnavailableError) as info:
        parsing.parse_function(namespace["typed_in_repl"])
    message = str(info.value)
    assert message.startswith("Cannot read the source code of typed_in_repl (")
    assert "define it in a .py file" in message and "@transpiler.do_not_convert" in message


def test_function_compiled_under_a_wrong_file_name_raises():
    namespace = {}
    exec(compile("\n\n\n\ndef impostor():\n    pass\n", __file__, "exec"), namespace)
    with pytest.raises(SourceUnavailableError, match="does not match the running code"):
        parsing.parse_function(namespace["impostor"])


def test_async_function_is_unsupported():
    with pytest.raises(UnsupportedSyntaxError, match="async functions are not supported"):
        parsing.parse_function(coroutine)


# parse_source -----------------------------------------------------------------------------


def test_parse_source_offsets_lines():
    module = parsing.parse_source("x = 1\ny = x\n", filename="user.py", first_lineno=10)
    assert [s.lineno for s in module.body] == [10, 11]
    assert _origin(module.body[1].value) == parsing.Origin("user.py", 11, 4, "<module>", "y = x")


def test_parse_source_accepts_indented_code_without_dedenting():
    source = "    def m(self):\n        s = '''\nraw'''\n        return s\n"
    module = parsing.parse_source(source, first_lineno=5)
    fn = module.body[0]
    assert (fn.lineno, fn.col_offset) == (5, 4)
    assert fn.body[0].value.value == "\nraw"
    assert _origin(fn.body[1]).lineno == 8


def test_parse_source_syntax_error_points_at_absolute_line():
    with pytest.raises(SyntaxError) as info:
        parsing.parse_source(textwrap.dedent("""\
            x = 1
            y = (
            """), filename="user.py", first_lineno=20)
    assert info.value.filename == "user.py" and info.value.lineno >= 21
