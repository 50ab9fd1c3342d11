"""Differential fuzzing: random programs (see program_gen) run as plain Python, converted on
Python values, converted on eager tensors and as a graph must agree.

* ``test_generated_programs_are_valid``: the generator's guarantees (no transpiler involved).
* ``test_converted_and_graph_match_python``: int32 programs, every difference fails (shrunk to a
  small program by Hypothesis).
* ``test_never_a_silently_different_answer`` / ``test_every_program_runs``: the 64-bit modes and
  the issue 9 constructs. One deterministic batch of programs per run name; the first test
  fails on any program whose answer differs without an error (listing each in full), the
  second on any program a converted or traced run refuses (with the failure classes).

Deterministic by default (``derandomize``). Environment:
  E2G_FUZZ_EXAMPLES=N   run N programs in every test instead of the CI defaults
  E2G_FUZZ_RANDOM=1     explore new programs on each run (prints a reproduction blob on failure)
  E2G_FUZZ_OFF=...      disable generator features, see program_gen.Features
Statistics over many programs: ``python -m tests.reference.fuzzing --mode int64 --count 500``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from . import fuzzing, harness
from .program_gen import FEATURES, FLOAT64, INT32, INT64, Features, Mode, arguments, programs

# CI sizes keep all fuzz tests together around half a minute on two cores (a program costs
# about 0.3 s, mostly converting it); E2G_FUZZ_EXAMPLES raises all of them.
_OVERRIDE = os.environ.get("E2G_FUZZ_EXAMPLES")
RANDOM = os.environ.get("E2G_FUZZ_RANDOM") == "1"


def _count(ci_default: int) -> int:
    return int(_OVERRIDE) if _OVERRIDE else ci_default


FUZZ_SETTINGS = settings(
    max_examples=_count(20),
    derandomize=not RANDOM,
    deadline=None,
    database=None,  # no .hypothesis/ directory in the project
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                           HealthCheck.filter_too_much],
)
VALIDITY_SETTINGS = settings(FUZZ_SETTINGS, max_examples=_count(40))

_ISSUE9 = FEATURES.with_(state=True, chained_calls=True, try_return=True, appends=True)

# name: (mode, features, CI number of programs)
RUNS: dict[str, tuple[Mode, Features, int]] = {
    # x, y and counters start as int64 tensors (a * 0): a Python int never meets an int64
    # tensor in a loop or branch (see `python -m tests.reference.fuzzing --mode int64` for both)
    "int64": (INT64, FEATURES.with_(python_numbers=False), 20),
    "float64": (FLOAT64, FEATURES.with_(prints=False), 10),  # float prints differ in format
    "state": (INT32, FEATURES.with_(state=True), 6),
    "chained_calls": (INT32, FEATURES.with_(chained_calls=True), 6),
    "try_return": (INT32, FEATURES.with_(try_return=True), 6),
    "appends": (INT32, FEATURES.with_(appends=True), 6),
}


def xfail(reason: str):
    return pytest.mark.xfail(strict=True, reason=reason)


# Runs whose CI batch fails today (strict: a fix turns them into XPASS failures, and the entry
# must then be removed).
WRONG_TODAY: dict = {}
REFUSED_TODAY: dict = {}


@pytest.fixture(scope="module")
def program_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz_programs")


def _describe(source: str, inputs) -> str:
    return f"program (inputs {inputs!r}):\n{source}"


# --------------------------------------------------------------------------------------------
# The generator


@pytest.mark.parametrize("mode, features", [
    (INT32, _ISSUE9), (INT64, _ISSUE9), (FLOAT64, _ISSUE9.with_(prints=False)),
], ids=["int32", "int64", "float64"])
def test_generated_programs_are_valid(program_dir: Path, mode: Mode, features: Features) -> None:
    """Programs terminate, never raise, and compute the same on NumPy scalars of the mode's
    dtype without overflow (no transpiler needed)."""

    @VALIDITY_SETTINGS
    @given(source=programs(mode, features),
           inputs=st.lists(st.tuples(arguments(mode), arguments(mode)), min_size=1, max_size=3))
    def check(source: str, inputs: list[tuple]) -> None:
        note(source)
        module = fuzzing.load_program(source, program_dir)
        try:
            for a, b in inputs:
                try:
                    fuzzing.check_program_is_valid(module, mode, a, b)
                except AssertionError as error:
                    raise AssertionError(f"{_describe(source, (a, b))}\n{error}") from None
        finally:
            fuzzing.unload_program(module)

    check()


# --------------------------------------------------------------------------------------------
# int32: every difference fails, shrunk


@FUZZ_SETTINGS
@given(source=programs(INT32),
       inputs=st.lists(st.tuples(arguments(INT32), arguments(INT32)), min_size=1, max_size=3))
def test_converted_and_graph_match_python(program_dir: Path, source: str,
                                          inputs: list[tuple[int, int]]) -> None:
    error = harness.api_error()
    if error:
        pytest.skip(error)
    note(source)
    module = fuzzing.load_program(source, program_dir)
    try:
        for a, b in inputs:
            try:
                harness.assert_matches_python(module.f, (a, b), tensor_params=(0, 1))
            except AssertionError as failure:
                raise AssertionError(f"{_describe(source, (a, b))}\n{failure}") from None
    finally:
        fuzzing.unload_program(module)


# --------------------------------------------------------------------------------------------
# 64-bit modes and issue 9 constructs: one batch per run, two properties

_BATCHES: dict[str, list[fuzzing.ProgramRun]] = {}


def _batch(name: str, directory: Path) -> list[fuzzing.ProgramRun]:
    if name not in _BATCHES:
        error = harness.api_error()
        if error:
            pytest.skip(error)
        mode, features, count = RUNS[name]
        _BATCHES[name] = fuzzing.run_programs(mode, features, _count(count), directory,
                                              randomize=RANDOM)
    return _BATCHES[name]


def _params(marks: dict) -> list:
    return [pytest.param(name, id=name, marks=[marks[name]] if name in marks else [])
            for name in RUNS]


@pytest.mark.parametrize("name", _params(WRONG_TODAY))
def test_never_a_silently_different_answer(program_dir: Path, name: str) -> None:
    runs = _batch(name, program_dir)
    wrong = [run for run in runs if run.category == "wrong"]
    assert not wrong, (f"{len(wrong)} of {len(runs)} {name} programs give a silently different "
                       "answer:\n" + "\n".join(run.describe() for run in wrong))


@pytest.mark.parametrize("name", _params(REFUSED_TODAY))
def test_every_program_runs(program_dir: Path, name: str) -> None:
    """No run raises where Python gives a value, nor emits a RuntimeWarning Python does not."""
    runs = _batch(name, program_dir)
    assert all(run.category not in ("refused", "warning") for run in runs), \
        fuzzing.statistics(runs)
