"""Converted code is never written to disk: a shared temporary folder another user prepared
(a planted symlink, a folder of the wrong mode) cannot be made to receive it, and nothing is
left behind. Tracebacks, ``inspect`` and ``to_code`` read the source from memory."""

import inspect
import linecache
import os
import stat
import tempfile
import traceback

import pytest

import runtime as rt
from transpiler import convert, function, to_code
from transpiler.generated_sources import is_generated


def shared_folder() -> str:
    """The folder earlier versions wrote generated modules to."""
    user = os.getuid() if hasattr(os, "getuid") else "user"
    return os.path.join(tempfile.gettempdir(), f"eager2graph-{user}")


def make_function():
    """A fresh function (its own code object), so each test converts it anew."""
    def clipped(x):
        if rt.reduce_sum(x) > 0:
            x = x * 2
        return x
    return clipped


@pytest.fixture
def planted_folder(tmp_path):
    """The shared folder, pre-created world-writable, with a symlink at every name the
    transpiler could pick pointing at a file of the victim."""
    folder = shared_folder()
    created = not os.path.exists(folder)
    if created:
        os.mkdir(folder)
    before = set(os.listdir(folder))
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    for name in ("clipped.py", "lambda_.py"):
        link = os.path.join(folder, name)
        if not os.path.lexists(link):
            os.symlink(victim, link)
    mode = stat.S_IMODE(os.stat(folder).st_mode)
    os.chmod(folder, 0o777)
    yield folder, victim, before
    os.chmod(folder, mode)
    for name in set(os.listdir(folder)) - before:
        os.remove(os.path.join(folder, name))
    if created:
        for name in os.listdir(folder):
            os.remove(os.path.join(folder, name))
        os.rmdir(folder)


def test_a_planted_folder_receives_nothing(planted_folder):
    folder, victim, before = planted_folder
    fn = function(make_function())
    assert fn(rt.constant([1.0, 2.0])).numpy().tolist() == [2.0, 4.0]
    square = function(lambda x: x * x)
    assert square(rt.constant(3.0)).numpy() == 9.0
    assert victim.read_text() == "precious\n"
    assert set(os.listdir(folder)) - before <= {"clipped.py", "lambda_.py"}  # only our links


def test_generated_code_is_in_memory_only():
    # behind the frame that filters tracebacks (and, with PyTorch imported, Dynamo's marker)
    converted = inspect.unwrap(convert(make_function()),
                               stop=lambda function: is_generated(function.__code__))
    filename = converted.__code__.co_filename
    assert is_generated(converted.__code__)
    assert filename.startswith("<") and filename.endswith(">")
    assert not os.path.exists(filename)
    assert "ag__.if_stmt" in "".join(linecache.getlines(filename))


def test_inspect_and_tracebacks_read_the_generated_source():
    def fails(x):
        y = x + 1
        raise ValueError("boom")
    converted = convert(fails)
    assert "raise ValueError('boom')" in inspect.getsource(converted)
    with pytest.raises(ValueError) as info:
        converted(1)
    text = "".join(traceback.format_exception(info.value))
    assert 'raise ValueError("boom")' in text  # the user's line, mapped back
    rt.config.set_traceback_filtering(False)
    try:
        with pytest.raises(ValueError) as info:
            converted(1)
    finally:
        rt.config.set_traceback_filtering(True)
    text = "".join(traceback.format_exception(info.value))
    assert "raise ValueError('boom')" in text  # the generated line, read from memory
    assert to_code(fails).startswith("def fails(x):")


def test_to_code_is_unchanged_by_where_the_source_lives():
    assert to_code(make_function()) == to_code(make_function())
