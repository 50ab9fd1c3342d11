"""Running generated programs (see program_gen) three ways and sorting what happens.

Each program is written to a file and imported (the transpiler reads real source files), then
compared with ``harness.compare_with_python`` on its inputs. A program's outcome is the worst
over its inputs:

* ``wrong``: a converted, eager or graph run gave a different answer, printed something else or
  left other state behind, without any error (what the project promises never to do);
* ``refused``: some run raised where Python gave a value (a clear refusal or a crash);
* ``warning``: a RuntimeWarning Python did not emit;
* ``ok``: identical.

Statistics over many programs (deterministic; the fraction of int64 programs that run is one of
issue 9's measures)::

    python -m tests.reference.fuzzing --mode int64 --count 500
    python -m tests.reference.fuzzing --mode int32 --features state,try_return --count 200
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import importlib.util
import itertools
import os
import re
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from . import harness
from .program_gen import FEATURES, MODES, Features, Mode, arguments, programs

_module_ids = itertools.count()
ORDER = ("ok", "warning", "refused", "wrong")  # worst last

# Issue 9 item 3 allows refusing state changed under tensor control flow, with an error that
# names it and suggests rt.Variable.
STATE_REFUSAL = harness.Refusal(
    Exception, r"(\bS\.v\b|\bG\b).*rt\.Variable|rt\.Variable.*(\bS\.v\b|\bG\b)")


# --------------------------------------------------------------------------------------------
# Loading programs


def load_program(source: str, directory: Path) -> Any:
    """Writes ``source`` to a fresh file and imports it as a module."""
    name = f"e2g_fuzz_{os.getpid()}_{next(_module_ids)}"
    path = directory / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def unload_program(module: Any) -> None:
    sys.modules.pop(module.__name__, None)


def state_of(module: Any) -> harness.State | None:
    """The state the program's features change (globals, attribute, helper calls), if any."""
    if not hasattr(module, "_reset"):
        return None
    return harness.State(reset=module._reset, read=module._read,
                         read_calls=getattr(module, "_calls", None))


# --------------------------------------------------------------------------------------------
# The generator's own guarantees (no transpiler involved)


_NUMPY_TYPES = {"int32": np.int32, "int64": np.int64, "float64": np.float64}


def _plain(value: Any) -> Any:
    """NumPy scalars (and tuples of them) as Python numbers."""
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    return value.item() if isinstance(value, np.generic) else value


def check_program_is_valid(module: Any, mode: Mode, a: Any, b: Any) -> None:
    """The program returns without raising, and computes the same with NumPy scalars of the
    mode's dtype as with Python numbers, without overflow or division by zero.

    This checks the generator's bounds, not the transpiler: a failure here is a bug in
    program_gen, never in the code under test."""
    fn, state = module.f, state_of(module)

    def run(*args: Any) -> tuple[harness.Outcome, Any]:
        if state:
            state.reset()
        outcome = harness.run_captured(fn, *args)
        return outcome, _plain(state.read()) if state else None

    expected, expected_state = run(a, b)
    assert expected.exception_type is None, f"program raised:\n{expected.exception_message}"
    scalar = _NUMPY_TYPES[mode.dtype]
    with np.errstate(over="raise", divide="raise", invalid="raise"), warnings.catch_warnings():
        warnings.simplefilter("error")
        shadow, shadow_state = run(scalar(a), scalar(b))
    assert shadow.exception_type is None, f"{mode.dtype} run raised:\n{shadow.exception_message}"
    assert list(_plain(shadow.result)) == list(expected.result), (shadow.result, expected.result)
    assert shadow.stdout == expected.stdout
    assert shadow_state == expected_state


# --------------------------------------------------------------------------------------------
# Comparing a program with Python


@dataclasses.dataclass
class ProgramRun:
    """What one program did on its inputs."""

    source: str
    inputs: list[tuple]
    category: str               # one of ORDER
    summary: str = ""           # the first problem, normalized (to group failures)
    report: str = ""            # the full report of the worst input

    def describe(self) -> str:
        return (f"--- {self.category}: inputs {self.inputs!r}\n{self.source}\n{self.report}")


def _category(comparison: harness.Comparison) -> str:
    kinds = comparison.kinds()
    for category, kind in (("wrong", "wrong"), ("refused", "error"), ("warning", "warning")):
        if kind in kinds:
            return category
    return "ok"


def _summary(comparison: harness.Comparison, category: str) -> str:
    """The first problem of the category, with numbers and node ids taken out."""
    kind = {"wrong": "wrong", "refused": "error", "warning": "warning"}[category]
    text = next(p for p in comparison.problems if p.kind == kind)
    text = re.sub(r"\(at [^)]*\)|at \S+\.py:\d+|line \d+", "", text)
    text = re.sub(r"\(f(/\w+)*\)", "(f/...)", text)  # the nesting of a graph
    text = re.sub(r"-?\d+(\.\d+)?(e[-+]?\d+)?", "N", text)
    text = re.sub(r"%\S+", "%n", text)
    return text[:150]


def run_program(source: str, inputs: Sequence[tuple], mode: Mode, directory: Path) -> ProgramRun:
    """Compares the program with Python on each input (graph inputs of the mode's dtype)."""
    module = load_program(source, directory)
    try:
        state = state_of(module)
        refusal = STATE_REFUSAL if hasattr(module, "S") else None
        worst = ProgramRun(source, list(inputs), "ok")
        for args in inputs:
            comparison = harness.compare_with_python(module.f, args, tensor_params=(0, 1),
                                                     dtype=mode.dtype, state=state,
                                                     refusal=refusal)
            category = _category(comparison)
            if ORDER.index(category) > ORDER.index(worst.category):
                worst = ProgramRun(source, list(inputs), category,
                                   _summary(comparison, category),
                                   f"input {args!r}:\n{comparison.report()}")
        return worst
    finally:
        unload_program(module)


def run_programs(mode: Mode, features: Features, count: int, directory: Path,
                 max_inputs: int = 2, randomize: bool = False) -> list[ProgramRun]:
    """``count`` generated programs (deterministic unless ``randomize``), each run."""
    runs: list[ProgramRun] = []
    inputs = st.lists(st.tuples(arguments(mode), arguments(mode)), min_size=1,
                      max_size=max_inputs)

    @settings(max_examples=count, derandomize=not randomize, database=None, deadline=None,
              phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck))
    @given(source=programs(mode, features), args=inputs)
    def collect(source: str, args: list[tuple]) -> None:
        runs.append(run_program(source, args, mode, directory))

    collect()
    return runs


def statistics(runs: Sequence[ProgramRun]) -> str:
    """Counts per category, the failure classes with one example each, and every silently
    wrong program in full."""
    counts = collections.Counter(run.category for run in runs)
    lines = [f"{len(runs)} programs: " + ", ".join(
        f"{counts[c]} {c} ({100 * counts[c] / max(len(runs), 1):.1f}%)" for c in ORDER)]
    for category in ("refused", "warning", "wrong"):
        classes = collections.defaultdict(list)
        for run in runs:
            if run.category == category:
                classes[run.summary].append(run)
        for summary, members in sorted(classes.items(), key=lambda kv: -len(kv[1])):
            lines.append(f"  {category} x{len(members)}: {summary}")
            if category != "wrong":
                shortest = min(members, key=lambda r: len(r.source))
                lines.append("    e.g. inputs " + repr(shortest.inputs) + "\n"
                             + "\n".join("      " + l for l in shortest.source.splitlines()))
    wrong = [run for run in runs if run.category == "wrong"]
    if wrong:
        lines.append("SILENTLY DIFFERENT ANSWERS, in full:")
        lines += [run.describe() for run in wrong]
    return "\n".join(lines)


def _features_from_names(names: str) -> Features:
    chosen = {n.strip() for n in names.split(",") if n.strip()}
    return FEATURES.with_(**{name: True for name in chosen})


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mode", choices=sorted(MODES), default="int64")
    parser.add_argument("--features", default="",
                        help="issue 9 features: state,chained_calls,try_return,appends")
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--off", default="", help="features to switch off, e.g. python_numbers")
    parser.add_argument("--random", action="store_true", help="new programs on each run")
    options = parser.parse_args(argv)
    mode = MODES[options.mode]
    features = _features_from_names(options.features)
    features = features.with_(**{n.strip(): False for n in options.off.split(",") if n.strip()})
    if mode.floats:
        features = features.with_(prints=False)
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as directory, warnings.catch_warnings():
        # Warnings of the runs are findings in the report, not noise on the terminal.
        warnings.simplefilter("ignore")
        runs = run_programs(mode, features, options.count, Path(directory),
                            randomize=options.random)
    print(f"mode {mode.name}, features {options.features or 'default'}"
          f"{', off ' + options.off if options.off else ''}, "
          f"{time.perf_counter() - start:.0f} s")
    print(statistics(runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
