"""Random programs on both backends: the compiled tier (``jit_compile=True``) must give what the
NumPy plan (``jit_compile=False``) gives, and what plain Python gives wherever the plan does.

The programs come from the fuzzer's generator (``tests/reference/program_gen``): small
``def f(a, b)`` with ``while``/``for``/``if`` on tensors, ``break``/``continue``/``return``,
wrap-around kept away by ``% M``. Their staged loops and branches over scalars are what the
compiled tier turns into kernels. Only programs with a loop on tensors are kept, nested at
most two levels and at most ``MAX_LINES`` long: a kernel's compile time grows fast with its
size (the generator's largest programs take 10 to 50 s), and these tests must stay cheap.

For each program and each input pair:

* the jit run raises exactly when the plan raises (same exception type), prints the same, and
  gives the same result: same structure, dtypes and shapes, integers and bools bit for bit,
  floats to 1e-6 of the largest magnitude (NaN where the plan has NaN);
* where the plan agrees with plain Python (as the fuzz tests require), so does the jit run.

Deterministic (``derandomize``), without shrinking (each example compiles kernels): a failure
shows the program and the inputs that differ. The CI sizes are small (a program costs about a
second, most of it compiling its kernels); ``E2G_JIT_PROGRAMS=N`` runs N programs per mode.
"""

from __future__ import annotations

import pytest

pytest.importorskip("numba")

import dataclasses  # noqa: E402
import os  # noqa: E402
import re  # noqa: E402
import sys  # noqa: E402
import warnings  # noqa: E402
from contextlib import contextmanager  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
from hypothesis import HealthCheck, Phase, assume, given, note, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import runtime as rt  # noqa: E402
import transpiler  # noqa: E402
from runtime.backends.jit.c_build import builds_with_c  # noqa: E402

_ROOT = str(Path(__file__).resolve().parents[2])
if _ROOT not in sys.path:  # ``tests.reference`` however pytest was started
    sys.path.insert(0, _ROOT)

from tests.reference import fuzzing, harness, program_gen  # noqa: E402
from tests.reference.program_gen import (FEATURES, FLOAT64, INT32, INT64,  # noqa: E402
                                         Features, Mode)

MAX_LINES = 16     # lines of ``f``: larger kernels take seconds to compile
_OVERRIDE = os.environ.get("E2G_JIT_PROGRAMS")
INPUTS = 3         # input pairs per program


@dataclasses.dataclass(frozen=True)
class Run:
    mode: Mode
    features: Features
    count: int          # programs
    depth: int = 2      # nesting of loops and branches (the generator allows 3)
    compiled: int = 1   # at least this many programs must run a kernel (not vacuous; the
                        # optimizer removes loops whose results are not used)


RUNS: dict[str, Run] = {
    # Python numbers as start values: they meet int32 tensors in loops and branches.
    "int32": Run(INT32, FEATURES.with_(prints=False), 3),
    # one loop or branch, x, y and counters tensors from the start (a * 0)
    "int32_flat": Run(INT32, FEATURES.with_(prints=False, python_numbers=False), 3, depth=1),
    "int64": Run(INT64, FEATURES.with_(python_numbers=False, prints=False), 3),
    "float64": Run(FLOAT64, FEATURES.with_(prints=False), 3),
}


@pytest.fixture(scope="module", autouse=True)
def kernel_cache(tmp_path_factory: pytest.TempPathFactory):
    """Kernels of this module go to a private directory of this test session."""
    previous = rt.config.jit_cache_directory()
    rt.config.set_jit_cache_directory(tmp_path_factory.mktemp("jit_program_kernels"))
    yield
    rt.config.set_jit_cache_directory(previous)


@pytest.fixture(scope="module")
def program_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("jit_programs")


# --------------------------------------------------------------------------------------------
# Drawing the programs


def _lines(source: str) -> int:
    return source[source.index("def f("):].count("\n")


_STAGED_LOOP = re.compile(r"^\s*(while c\d+ < \d+ and |for i\d+ in range\()", re.M)


def has_staged_loop(source: str) -> bool:
    """A ``while`` or ``for`` on tensors (the generator's Python loops do not count)."""
    return _STAGED_LOOP.search(source[source.index("def f("):]) is not None


def small_with_a_loop(source: str) -> bool:
    return has_staged_loop(source) and _lines(source) <= MAX_LINES


@contextmanager
def nesting_at_most(depth: int):
    saved = program_gen.MAX_DEPTH
    program_gen.MAX_DEPTH = depth
    try:
        yield
    finally:
        program_gen.MAX_DEPTH = saved


# --------------------------------------------------------------------------------------------
# Comparing


def _leaves(value) -> list:
    return rt.nest.flatten(value)


def jit_differences(plan, jit, path: str = "result") -> list[str]:
    """Differences between the plan's result and the jit's: same structure, dtypes, shapes;
    integers and bools exact; floats to 1e-6 of the largest magnitude, NaN and inf in place."""
    plan_leaves, jit_leaves = _leaves(plan), _leaves(jit)
    if rt.nest.structure_of(plan) != rt.nest.structure_of(jit) or \
            len(plan_leaves) != len(jit_leaves):
        return [f"{path}: structure {plan!r} vs {jit!r}"]
    problems = []
    for index, (p, j) in enumerate(zip(plan_leaves, jit_leaves)):
        if not isinstance(p, rt.Tensor) or not isinstance(j, rt.Tensor):
            if type(p) is not type(j) or p != j:
                problems.append(f"{path}[{index}]: {p!r} vs {j!r}")
            continue
        a, b = np.asarray(p.numpy()), np.asarray(j.numpy())
        if a.dtype != b.dtype or a.shape != b.shape:
            problems.append(f"{path}[{index}]: {a.dtype}{a.shape} vs {b.dtype}{b.shape}")
        elif a.dtype.kind == "f":
            if not floats_match(a, b):
                problems.append(f"{path}[{index}]: plan {a!r}, jit {b!r}")
        elif not np.array_equal(a, b):
            problems.append(f"{path}[{index}]: plan {a!r}, jit {b!r}")
    return problems


def floats_match(a: np.ndarray, b: np.ndarray) -> bool:
    nan = np.isnan(a)
    if not np.array_equal(nan, np.isnan(b)):
        return False
    infinite = np.isinf(a)
    if not np.array_equal(a[infinite], b[infinite]) or np.isinf(b[~infinite]).any():
        return False
    finite = ~nan & ~infinite
    if not finite.any():
        return True
    scale = float(np.abs(a[finite]).max())
    return bool(np.all(np.abs(a[finite] - b[finite]) <= 1e-6 * scale))


def regions_compiled(function, args) -> int:
    """How many regions of ``function``'s graph for ``args`` run as kernels (its report)."""
    report = function.get_concrete_function(*args).jit_report
    match = re.match(r"compiled tier: (\d+) regions?", report)
    assert match, report
    return int(match.group(1))


def run_program(source: str, inputs: list, mode: Mode, directory: Path) -> tuple[list, int]:
    """What differs between the backends (and Python) for one program, as messages, and
    how many regions its first traced graph runs compiled."""
    module = fuzzing.load_program(source, directory)
    problems: list[str] = []
    regions = 0
    try:
        plan_fn = transpiler.function(module.f, jit_compile=False)
        jit_fn = transpiler.function(module.f, jit_compile=True)
        dtype = getattr(rt, mode.dtype)
        for a, b in inputs:
            args = (rt.constant(a, dtype), rt.constant(b, dtype))
            python = harness.run_captured(module.f, a, b)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", rt.errors.RetracingWarning)
                plan = harness.run_captured(plan_fn, *args)
                jit = harness.run_captured(jit_fn, *args)
            where = f"inputs ({a!r}, {b!r})"
            if jit.exception_type is None and not regions:
                regions = regions_compiled(jit_fn, args)
            if jit.exception_type is not plan.exception_type:
                problems.append(f"{where}: the plan gives\n{plan.describe()}\nthe jit gives\n"
                                f"{jit.describe()}")
                continue
            if jit.stdout != plan.stdout:
                problems.append(f"{where}: printed {plan.stdout!r} vs {jit.stdout!r}")
            if plan.exception_type is not None:
                continue
            problems += [f"{where}: {p}" for p in jit_differences(plan.result, jit.result)]
            if python.exception_type is None and \
                    not harness.numeric_differences(python.result, plan.result):
                problems += [f"{where}: vs Python: {p}"
                             for p in harness.numeric_differences(python.result, jit.result)]
    finally:
        fuzzing.unload_program(module)
    return problems, regions


# Kernels built by C take a fraction of a second, Numba's seconds: C sees more programs.
PROGRAMS_PER_RUN = {"c": 4, "numba": 1}


@pytest.mark.parametrize("compiler", list(PROGRAMS_PER_RUN))
@pytest.mark.parametrize("name", list(RUNS))
def test_compiled_tier_gives_the_plans_answers(name: str, compiler: str,
                                               program_dir: Path) -> None:
    error = harness.api_error()
    if error:
        pytest.skip(error)
    if compiler == "c" and not builds_with_c():
        pytest.skip("no C compiler with Python's headers on this machine")
    rt.config.set_jit_compiler(compiler)  # the conftest restores the setting
    run = RUNS[name]
    count = int(_OVERRIDE) if _OVERRIDE else run.count * PROGRAMS_PER_RUN[compiler]
    seen: list = []
    compiled: list = []

    @settings(max_examples=count, derandomize=True, database=None, deadline=None,
              phases=[Phase.explicit, Phase.generate], print_blob=True,
              suppress_health_check=list(HealthCheck))
    @given(source=program_gen.programs(run.mode, run.features),
           inputs=st.lists(st.tuples(program_gen.arguments(run.mode),
                                     program_gen.arguments(run.mode)),
                           min_size=INPUTS, max_size=INPUTS))
    def check(source: str, inputs: list) -> None:
        assume(small_with_a_loop(source) and source not in seen)
        seen.append(source)
        note(source)
        problems, regions = run_program(source, inputs, run.mode, program_dir)
        compiled.append(regions > 0)
        assert not problems, (f"the compiled tier and the NumPy plan differ on\n{source}\n"
                              + "\n".join(problems))

    with nesting_at_most(run.depth):
        check()
    assert len(seen) >= count // 2, f"only {len(seen)} programs were drawn"
    # Not vacuous: programs with a loop on tensors mostly run it as a kernel.
    assert sum(compiled) >= run.compiled, f"only {sum(compiled)} programs compiled a kernel"
