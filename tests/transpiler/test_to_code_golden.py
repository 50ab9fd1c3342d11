"""Golden tests of ``to_code``: the generated source of a few typical functions, compared as
exact text with ``tests/transpiler/golden/<case>.py.txt``.

The generated code is something users read (``to_code``, tracebacks, pdb), so a change to it
should be deliberate and reviewed. After such a change, regenerate the files and review the
diff::

    E2G_UPDATE_GOLDEN=1 python -m pytest tests/transpiler/test_to_code_golden.py

The goldens must be the same in every process (no temporary paths, object addresses, hashes
or set-ordering effects): a test converts every case in two fresh interpreters with different
hash seeds and compares.
"""

from __future__ import annotations

import ast
import difflib
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

import runtime as rt
from transpiler import function, to_code

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"
SUFFIX = ".py.txt"
UPDATE = os.environ.get("E2G_UPDATE_GOLDEN") == "1"


# -- the functions -----------------------------------------------------------------------------


def sign_of_sum(x):
    if rt.reduce_sum(x) > 0:
        y = x * 2.0
    else:
        y = -x
    return y


def while_break_count(n):
    i = 0
    count = 0
    while i < n:
        i += 1
        if i % 7 == 0:
            break
        count += 2
    return count


def sum_of_odd_squares(n):
    total = 0
    for i in range(n):
        if i % 2 == 0:
            continue
        total += i * i
    return total


def clipped_scale(x, scale):
    if scale < 0:
        if rt.reduce_any(x < 0):
            return -x
        scale = -scale
    y = x * scale
    if rt.reduce_max(y) > 10.0:
        return rt.minimum(y, 10.0)
    return y


# From the seed "Graphs and tf.functions" (tf -> rt).
def my_function(x):
    if rt.reduce_sum(x) <= 1:
        return x * x
    else:
        return x - 1


# From the seed "Introduction to graphs and tf.function" (tf -> rt).
def simple_relu(x):
    if rt.greater(x, 0):
        return x
    else:
        return 0


# From the seed's fizzbuzz, written as plain Python (as in examples/fizzbuzz.py): no
# tf.constant / .numpy() round trips, so a tensor bound makes it one graph loop.
def fizzbuzz(max_num):
    counter = 0
    for num in range(1, max_num + 1):
        if num % 3 == 0 and num % 5 == 0:
            print('FizzBuzz')
        elif num % 3 == 0:
            print('Fizz')
        elif num % 5 == 0:
            print('Buzz')
        else:
            print(num)
        counter += 1
    return counter


def dense_layer(x, w, b):
    return rt.nn.relu(rt.matmul(x, w) + b)


def two_layers(x, w1, b1, w2, b2):
    hidden = dense_layer(x, w1, b1)
    return dense_layer(hidden, w2, b2)


CASES = {
    "if_else_on_tensors": sign_of_sum,
    "while_with_break": while_break_count,
    "for_range_with_continue": sum_of_odd_squares,
    "early_return_in_nested_ifs": clipped_scale,
    "seed_my_function": my_function,
    "seed_simple_relu": simple_relu,
    "seed_fizzbuzz": fizzbuzz,
    "calls_a_helper": two_layers,
}


# -- the golden comparison ---------------------------------------------------------------------


def golden_path(case: str) -> Path:
    return GOLDEN_DIR / f"{case}{SUFFIX}"


@pytest.mark.parametrize("case", sorted(CASES))
def test_to_code_matches_the_golden_file(case):
    generated = to_code(CASES[case])
    path = golden_path(case)
    if UPDATE:
        GOLDEN_DIR.mkdir(exist_ok=True)
        path.write_text(generated, encoding="utf-8", newline="\n")
        return
    assert path.exists(), (f"{path} is missing: run with E2G_UPDATE_GOLDEN=1 to create it, "
                           f"then review it")
    expected = path.read_text(encoding="utf-8")
    if generated != expected:
        diff = "".join(difflib.unified_diff(
            expected.splitlines(True), generated.splitlines(True),
            f"golden/{path.name}", f"to_code({CASES[case].__name__})"))
        pytest.fail(f"to_code({CASES[case].__name__}) differs from {path.name} (regenerate with "
                    f"E2G_UPDATE_GOLDEN=1 if the change is deliberate, and review it):\n{diff}")


def test_every_golden_file_belongs_to_a_case():
    files = {p.name[:-len(SUFFIX)] for p in GOLDEN_DIR.glob(f"*{SUFFIX}")}
    assert files - set(CASES) == set(), "stale golden files: delete them"


# -- the goldens are stable and valid ----------------------------------------------------------

def _path(path) -> str | None:
    """A regex for a machine-specific directory (none for a trivial one such as "/")."""
    text = str(path).rstrip("/\\")
    return re.escape(text) + r"(?![\w.-])" if len(text) > 1 else None


_UNSTABLE = [
    (_path(tempfile.gettempdir()), "the temporary directory"),
    (_path(Path.home()), "the home directory"),
    (_path(Path(__file__).resolve().parents[2]), "the checkout path"),
    (r"eager2graph-", "the generated-module directory"),
    (r"\b\w+_[0-9a-f]{12}\.py\b", "a generated (hashed) file name"),
    (r"\b0x[0-9a-fA-F]{4,}\b", "an object address"),
    (r"<(function|object|module) ", "an object repr"),
]


@pytest.mark.parametrize("case", sorted(CASES))
def test_generated_code_has_nothing_that_changes_between_runs(case):
    text = to_code(CASES[case])
    for pattern, what in _UNSTABLE:
        match = re.search(pattern, text) if pattern else None
        assert match is None, f"to_code({case}) contains {what}: {match.group(0)!r}"


@pytest.mark.parametrize("case", sorted(CASES))
def test_generated_code_is_one_valid_function_definition(case):
    text = to_code(CASES[case])
    tree = ast.parse(text)
    assert len(tree.body) == 1 and isinstance(tree.body[0], ast.FunctionDef)
    assert tree.body[0].name == CASES[case].__name__
    assert text.endswith("\n") and not text.endswith("\n\n")


_DUMP_ALL = """
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("golden_cases", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
from transpiler import to_code
print(json.dumps({name: to_code(fn) for name, fn in module.CASES.items()}))
"""


def _to_code_in_a_fresh_process(hash_seed: str) -> dict:
    environment = dict(os.environ, PYTHONHASHSEED=hash_seed)
    environment.pop("E2G_UPDATE_GOLDEN", None)
    completed = subprocess.run([sys.executable, "-c", _DUMP_ALL, __file__], env=environment,
                               capture_output=True, text=True, timeout=120,
                               cwd=tempfile.gettempdir())
    assert completed.returncode == 0, completed.stderr
    return json.loads(completed.stdout)


def test_to_code_is_the_same_in_fresh_processes_with_other_hash_seeds():
    first, second = _to_code_in_a_fresh_process("1"), _to_code_in_a_fresh_process("4242")
    here = {name: to_code(fn) for name, fn in CASES.items()}
    for name in CASES:
        assert first[name] == second[name] == here[name], name


# -- the functions behind the goldens still compute what Python computes -----------------------


def _numbers(value):
    return np.asarray(value.numpy() if isinstance(value, rt.Tensor) else value)


@pytest.mark.parametrize("fn, args", [
    (sign_of_sum, ([1.0, -3.0],)),
    (sign_of_sum, ([1.0, 3.0],)),
    (while_break_count, (5,)),
    (while_break_count, (20,)),
    (sum_of_odd_squares, (7,)),
    (clipped_scale, ([1.0, -2.0], -1.0)),
    (clipped_scale, ([1.0, 2.0], -3.0)),
    (clipped_scale, ([4.0, 6.0], 2.0)),
    (my_function, ([5.0, 5.0],)),
    (my_function, (1.0,)),
    (simple_relu, (-1,)),
    (simple_relu, (3,)),
], ids=lambda value: getattr(value, "__name__", None))
def test_the_converted_functions_compute_what_python_computes(fn, args):
    expected = fn(*[np.asarray(a, np.float32) if isinstance(a, list) else a for a in args])
    got = function(fn)(*[rt.constant(a) for a in args])
    np.testing.assert_allclose(_numbers(got), _numbers(expected), rtol=1e-6)


def test_fizzbuzz_prints_and_counts_as_python_does(capsys):
    expected_count = fizzbuzz(15)
    expected_output = capsys.readouterr().out
    count = function(fizzbuzz)(rt.constant(15))
    assert int(count) == expected_count
    assert capsys.readouterr().out == expected_output


def test_the_helper_calls_compute_what_python_computes():
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(shape).astype(np.float32)
              for shape in [(2, 3), (3, 4), (4,), (4, 2), (2,)]]
    expected = two_layers(*[rt.constant(a) for a in arrays])
    got = function(two_layers)(*[rt.constant(a) for a in arrays])
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-5)
