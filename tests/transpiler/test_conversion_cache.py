"""Converted functions kept on disk (``transpiler.conversion_cache``) are what converting anew
gives, and are used only while the file, the converter and the names they depend on are the
same."""

from __future__ import annotations

import linecache
import os
import subprocess
import sys
import textwrap
import warnings

import pytest

import runtime as rt
import transpiler
from runtime import code_cache
from transpiler import pipeline
from transpiler.api import clear_conversion_cache

from tests.reference import harness
from tests.reference.test_reference import PARAMS

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A code cache of this test alone; conversions made before it are forgotten."""
    directory = tmp_path / "code"
    monkeypatch.setattr(rt.config, "_code_cache_directory", str(directory))
    clear_conversion_cache()
    yield directory
    clear_conversion_cache()


@pytest.fixture
def conversions(monkeypatch):
    """How many functions the converters ran on (a conversion read back from disk runs none)."""
    count = [0]
    convert_tree = pipeline.convert_tree

    def counting(node, ctx):
        if ctx.enclosing_locals == frozenset():
            count[0] += 1
        return convert_tree(node, ctx)
    monkeypatch.setattr(pipeline, "convert_tree", counting)
    return count


def _sample_functions():
    seen, functions = set(), []
    for param in PARAMS:
        sample = param.values[0]
        if sample is not None and sample.fn not in seen:
            seen.add(sample.fn)
            functions.append(sample)
    return functions


def test_every_reference_sample_reads_back_as_it_was_converted(cache, conversions):
    """Over all the reference samples: the code read back is the code generated, and the
    function it makes gives Python's answer."""
    samples = _sample_functions()
    first = {sample.name: transpiler.to_code(sample.fn) for sample in samples}
    assert conversions[0] == len(samples)
    clear_conversion_cache()
    for sample in samples:
        assert transpiler.to_code(sample.fn) == first[sample.name], sample.name
    assert conversions[0] == len(samples), "a conversion was made again instead of read back"
    for sample in samples[::7]:  # the read-back function runs as the original
        args = sample.inputs[0]
        expected = harness.run_captured(sample.fn, *args)
        actual = harness.run_captured(transpiler.convert(sample.fn), *args)
        assert repr(actual.result) == repr(expected.result), sample.name
        assert actual.stdout == expected.stdout, sample.name
        assert actual.exception_type is expected.exception_type, sample.name


def test_the_cache_off_converts_every_time(monkeypatch, conversions):
    monkeypatch.setattr(rt.config, "_code_cache_directory", False)
    clear_conversion_cache()
    sample = _sample_functions()[0]
    transpiler.to_code(sample.fn)
    clear_conversion_cache()
    transpiler.to_code(sample.fn)
    assert conversions[0] == 2


def _shadowing_print(x):
    print(x)
    return x


def test_a_name_that_means_something_else_now_converts_again(cache, conversions, monkeypatch):
    """``print`` the built-in is rewritten to print tensors' values; a global ``print`` of
    the user's is a call like any other. The kept conversion knew which one it saw."""
    builtin_code = transpiler.to_code(_shadowing_print)
    clear_conversion_cache()
    assert transpiler.to_code(_shadowing_print) == builtin_code
    assert conversions[0] == 1
    monkeypatch.setitem(globals(), "print", lambda *args: None)
    clear_conversion_cache()
    shadowed_code = transpiler.to_code(_shadowing_print)
    assert conversions[0] == 2
    assert shadowed_code != builtin_code
    monkeypatch.delitem(globals(), "print")
    clear_conversion_cache()
    assert transpiler.to_code(_shadowing_print) == builtin_code
    assert conversions[0] == 3


def test_a_file_that_changed_converts_again(cache, conversions, tmp_path, monkeypatch):
    module_file = tmp_path / "edited_module.py"
    module_file.write_text("def f(x):\n    if x > 0:\n        return x\n    return -x\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import edited_module
    transpiler.to_code(edited_module.f)
    clear_conversion_cache()
    transpiler.to_code(edited_module.f)
    assert conversions[0] == 1
    module_file.write_text("def f(x):\n    if x > 0:\n        return x\n    return -2 * x\n")
    clear_conversion_cache()
    assert "return -2 * x" in transpiler.to_code(edited_module.f)
    assert conversions[0] == 2


def test_damaged_entries_are_converted_again(cache, conversions):
    sample = _sample_functions()[0]
    code = transpiler.to_code(sample.fn)
    assert list(cache.iterdir()) == []  # written when the process exits
    code_cache.flush()
    entries = list(cache.iterdir())
    assert entries
    for entry in entries:
        data = entry.read_bytes()
        entry.write_bytes(data[:len(data) // 2])  # cut short, as by a crash mid-write
    clear_conversion_cache()
    assert transpiler.to_code(sample.fn) == code
    assert conversions[0] == 2
    code_cache.flush()  # the entry made again
    for entry in cache.iterdir():
        entry.write_bytes(b"not an entry")
    clear_conversion_cache()
    assert transpiler.to_code(sample.fn) == code
    assert conversions[0] == 3


def test_a_directory_others_can_write_is_not_used(tmp_path, monkeypatch, conversions):
    directory = tmp_path / "shared"
    directory.mkdir()
    directory.chmod(0o777)
    monkeypatch.setattr(rt.config, "_code_cache_directory", str(directory))
    monkeypatch.setattr(code_cache, "_unusable", set())
    clear_conversion_cache()
    sample = _sample_functions()[0]
    with pytest.warns(RuntimeWarning, match="code cache is off for this process.*others can "
                                            "write to it"):
        transpiler.to_code(sample.fn)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # warned once
        clear_conversion_cache()
        transpiler.to_code(sample.fn)
    assert list(directory.iterdir()) == []
    assert conversions[0] == 2


def test_compiled_plans_are_shared_and_renamed():
    source = "def f(x):\n    def g():\n        return x\n    return g\n" * 30
    first = code_cache.compiled(source, "<plan a>")
    second = code_cache.compiled(source, "<plan b>")
    assert first.co_filename == "<plan a>" and second.co_filename == "<plan b>"
    nested = [c for c in second.co_consts if hasattr(c, "co_filename")]
    assert nested and all(c.co_filename == "<plan b>" for c in nested)
    assert all(c.co_filename == "<plan b>"
               for c in nested[0].co_consts if hasattr(c, "co_filename"))


def test_set_code_cache_directory_refuses_true():
    with pytest.raises(ValueError, match="directory, None .* or False"):
        rt.config.set_code_cache_directory(True)


_PROGRAM = textwrap.dedent(r'''
    import re
    import sys
    import numpy as np
    import runtime as rt
    import transpiler
    from transpiler import pipeline

    if sys.argv[1] == "read back":
        def refuse(node, ctx):
            raise AssertionError("converted again instead of read back")
        pipeline.convert_tree = refuse

    @transpiler.function
    def digits_sum(n):
        total = 0
        while n > 0:
            total += n % 10
            n //= 10
        return total

    @transpiler.function
    def checked(x):
        for i in rt.range(3):
            if rt.reduce_sum(x) > 5:
                rt.debugging.assert_less(x, 3.0, message="x went out of range")
            x = x + 1.0
        return x

    print(int(digits_sum(rt.constant(np.int64(987654321987)))))
    print(transpiler.to_code(digits_sum.python_function).count("ag__.while_stmt"))
    try:
        checked(rt.constant([1.0, 2.0]))
    except Exception as error:
        print(type(error).__name__, re.search(r'program.py", line \d+', str(error)).group())
''')


def test_a_new_process_reads_conversions_back(tmp_path):
    """The same results, generated code and error location, without converting."""
    program = tmp_path / "program.py"
    program.write_text(_PROGRAM)
    environment = {**os.environ, "EAGER2GRAPH_CODE_CACHE": str(tmp_path / "code"),
                   "PYTHONPATH": ROOT}

    def run(mode):
        done = subprocess.run([sys.executable, str(program), mode], capture_output=True,
                              text=True, env=environment, timeout=120)
        assert done.returncode == 0, done.stderr
        return done.stdout

    converted = run("convert")
    assert converted.splitlines()[:2] == ["69", "1"]
    assert 'AssertionFailedError program.py", line 26' in converted, converted
    assert run("read back") == converted


def test_lambdas_on_one_line_are_kept_apart(cache, conversions):
    doubled, odd = (lambda x: x * 2), (lambda x: x % 2 == 1)
    codes = transpiler.to_code(doubled), transpiler.to_code(odd)
    clear_conversion_cache()
    assert (transpiler.to_code(doubled), transpiler.to_code(odd)) == codes
    assert transpiler.convert(odd)(3) is True and transpiler.convert(doubled)(3) == 6
    assert conversions[0] == 2


def test_a_directory_that_cannot_be_made_turns_the_cache_off_quietly(tmp_path, monkeypatch,
                                                                     conversions):
    blocker = tmp_path / "a file"
    blocker.write_text("")
    monkeypatch.setattr(rt.config, "_code_cache_directory", str(blocker / "code"))
    monkeypatch.setattr(code_cache, "_unusable", set())
    clear_conversion_cache()
    sample = _sample_functions()[0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        first = transpiler.to_code(sample.fn)
        clear_conversion_cache()
        assert transpiler.to_code(sample.fn) == first
    assert conversions[0] == 2


def test_the_directory_is_pruned_to_its_newest_entries(tmp_path, monkeypatch):
    monkeypatch.setattr(code_cache, "_MAX_ENTRIES", 10)
    for number in range(15):
        entry = tmp_path / f"code-{number:02}.bin"
        entry.write_bytes(b"")
        os.utime(entry, (1000 + number, 1000 + number))
    leftover = tmp_path / "code-99.bin.1.2.tmp"
    leftover.write_bytes(b"")
    os.utime(leftover, (1000, 1000))
    code_cache._prune(str(tmp_path))
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        f"code-{number:02}.bin" for number in range(10, 15)]


def test_a_file_of_the_same_size_and_time_with_other_text_converts_again(cache, conversions,
                                                                         tmp_path, monkeypatch):
    """As ``cp -p`` or ``tar`` may leave it: the text decides, not the file's size and time."""
    module_file = tmp_path / "copied_module.py"
    module_file.write_text("def f(x):\n    if x > 0:\n        return x * 2.0\n    return -x\n")
    os.utime(module_file, ns=(10**18, 10**18))
    monkeypatch.syspath_prepend(str(tmp_path))
    import copied_module
    assert "x * 2.0" in transpiler.to_code(copied_module.f)
    module_file.write_text("def f(x):\n    if x > 0:\n        return x * 3.0\n    return -x\n")
    os.utime(module_file, ns=(10**18, 10**18))
    linecache.cache.pop(str(module_file), None)  # as a new process reads the file
    clear_conversion_cache()
    assert "x * 3.0" in transpiler.to_code(copied_module.f)
    assert conversions[0] == 2


def test_an_edited_converter_changes_every_key(tmp_path, monkeypatch):
    import types as module_types

    from transpiler import conversion_cache
    converter = tmp_path / "fake_converter.py"
    converter.write_text("RULE = 1\n")
    monkeypatch.setitem(sys.modules, "transpiler.fake_converter",
                        module_types.SimpleNamespace(__file__=str(converter)))
    monkeypatch.setattr(conversion_cache, "_fingerprint", None)
    monkeypatch.setattr(conversion_cache, "_installed", lambda path: False)  # a working copy
    before = conversion_cache._converter_fingerprint()
    converter.write_text("RULE = 22\n")
    monkeypatch.setattr(conversion_cache, "_fingerprint", None)
    assert conversion_cache._converter_fingerprint() != before


def test_an_installed_converter_is_known_by_its_package_file():
    from transpiler import conversion_cache
    site = os.path.join("/usr", "lib", "python3", "site-packages", "transpiler", "__init__.py")
    assert conversion_cache._installed(site)
    assert not conversion_cache._installed(os.path.join("/home", "me", "eager2graph",
                                                        "transpiler", "__init__.py"))
