"""Differential fuzzing: random programs (see program_gen) run as plain Python, converted on
Python ints, and as a graph on int32 tensors must agree.

Deterministic by default (``derandomize``). Environment:
  E2G_FUZZ_EXAMPLES=N   run N programs instead of the CI default
  E2G_FUZZ_RANDOM=1     explore new programs on each run (prints a reproduction blob on failure)
  E2G_FUZZ_OFF=...      disable generator features, see program_gen.Features
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import sys
import warnings
from pathlib import Path
from typing import Callable

import numpy as np
import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from . import harness
from .program_gen import arguments, programs

CI_EXAMPLES = 60  # keeps the differential test around 20 s; the generator check is cheaper
EXAMPLES = int(os.environ.get("E2G_FUZZ_EXAMPLES", CI_EXAMPLES))
FUZZ_SETTINGS = settings(
    max_examples=EXAMPLES,
    derandomize=os.environ.get("E2G_FUZZ_RANDOM") != "1",
    deadline=None,
    database=None,  # no .hypothesis/ directory in the project
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
_module_ids = itertools.count()


@pytest.fixture(scope="module")
def program_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz_programs")


def load_program(source: str, directory: Path) -> Callable:
    """Writes ``source`` to a fresh file and imports it: the transpiler reads real files."""
    name = f"e2g_fuzz_{os.getpid()}_{next(_module_ids)}"
    path = directory / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module.f


def unload_program(fn: Callable) -> None:
    sys.modules.pop(fn.__module__, None)


def check_int32_safe(fn: Callable, a: int, b: int) -> None:
    """The program gives the same answer on np.int32 as on Python ints, without overflowing.

    This checks the generator's bounds, not the transpiler: a failure here is a bug in
    program_gen, never in the code under test.
    """
    expected = harness.run_captured(fn, a, b)
    assert expected.exception_type is None, f"program raised:\n{expected.exception_message}"
    with np.errstate(all="raise"), warnings.catch_warnings():
        warnings.simplefilter("error")
        shadow = harness.run_captured(fn, np.int32(a), np.int32(b))
    assert shadow.exception_type is None, f"int32 run raised:\n{shadow.exception_message}"
    assert [int(v) for v in shadow.result] == list(expected.result)
    assert shadow.stdout == expected.stdout


def _describe(source: str, a: int, b: int) -> str:
    return f"program (a={a}, b={b}):\n{source}"


@FUZZ_SETTINGS
@given(source=programs(), inputs=st.lists(st.tuples(arguments, arguments), min_size=1, max_size=3))
def test_generated_programs_are_valid(program_dir: Path, source: str,
                                      inputs: list[tuple[int, int]]) -> None:
    """Programs terminate, never raise, and stay inside int32 (no transpiler needed)."""
    note(source)
    fn = load_program(source, program_dir)
    try:
        for a, b in inputs:
            try:
                check_int32_safe(fn, a, b)
            except AssertionError as error:
                raise AssertionError(f"{_describe(source, a, b)}\n{error}") from None
    finally:
        unload_program(fn)


@FUZZ_SETTINGS
@given(source=programs(), inputs=st.lists(st.tuples(arguments, arguments), min_size=1, max_size=3))
def test_converted_and_graph_match_python(program_dir: Path, source: str,
                                          inputs: list[tuple[int, int]]) -> None:
    error = harness.api_error()
    if error:
        pytest.skip(error)
    note(source)
    fn = load_program(source, program_dir)
    try:
        for a, b in inputs:
            try:
                harness.assert_matches_python(fn, (a, b), tensor_params=(0, 1))
            except AssertionError as failure:
                raise AssertionError(f"{_describe(source, a, b)}\n{failure}") from None
    finally:
        unload_program(fn)
