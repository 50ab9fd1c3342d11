"""The benchmark script runs and writes its JSON report (no timing is asserted)."""

import importlib.util
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from runtime.backends.jit.c_build import builds_with_c

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "examples", "benchmark.py")
# The compiled column runs (with a C compiler or Numba), or is n/a.
NUMBA = importlib.util.find_spec("numba") is not None or builds_with_c()
NEW_PROCESS_FIRST_CALLS = ("compiled, new process, cold cache", "compiled, new process, warm cache")


# A Python that cannot import Numba (nor TensorFlow and JAX, to be quick), running the script;
# its runs also find no C compiler (NO_C_COMPILER), so the compiled tier has none.
WITHOUT_NUMBA = ["-c", "import os, runpy, sys; "
                 "sys.modules.update(dict.fromkeys(['numba', 'tensorflow', 'jax'])); "
                 "sys.argv = sys.argv[1:]; sys.path.insert(0, os.path.dirname(sys.argv[0])); "
                 "runpy.run_path(sys.argv[0], run_name='__main__')"]

# The script's runs, one fixture each: the arguments (before --json) and how long they may take.
RUNS = {
    # two plain workloads, compiled too (a training step's kernel compiles for 7-16 s cold:
    # the training steps run without Numba below)
    "quick_run": ([SCRIPT, "--quick", "--only", "W3,W4"], 600),
    # W4 and W5 at their two smallest sizes (the tables are written by one code for every
    # workload; W2's layers and W6 with Numba would add compiling the suite does not need)
    "scaling_run": ([SCRIPT, "--scaling", "--quick", "--only", "W4,W5"], 300),
    "quick_run_without_numba": ([*WITHOUT_NUMBA, SCRIPT, "--quick", "--only", "W3,W7,W8"],
                                300),
    "scaling_run_without_numba": ([*WITHOUT_NUMBA, SCRIPT, "--scaling", "--quick", "--only",
                                   "W6"], 120),
}


@pytest.fixture(scope="module")
def started_runs(request, tmp_path_factory):
    """Starts, side by side, every run that a selected test of this module needs (the quick
    run's cold compiles take a while): run name -> (process, its directory, timeout). The
    directory gets report.json and the run's output (files: a full pipe would stall a run)."""
    needed = {name for item in request.session.items if item.module.__name__ == __name__
              for name in item.fixturenames if name in RUNS}
    started = {}
    for name in sorted(needed):
        arguments, timeout = RUNS[name]
        directory = tmp_path_factory.mktemp(name)
        environment = None
        if arguments[0] is WITHOUT_NUMBA[0]:  # an empty PATH: no C compiler either
            environment = {**os.environ, "CC": "", "PATH": str(tmp_path_factory.mktemp("path"))}
        with open(directory / "stdout", "w") as stdout, open(directory / "stderr", "w") as stderr:
            process = subprocess.Popen(
                [sys.executable, *arguments, "--json", str(directory / "report.json")],
                cwd=ROOT, stdout=stdout, stderr=stderr, env=environment)
        started[name] = (process, directory, timeout)
    yield started
    for process, _, _ in started.values():
        if process.poll() is None:
            process.kill()
            process.wait()


def finished(started_runs: dict, name: str) -> tuple[str, dict]:
    """A run's standard output and JSON report, once it exits with 0 (1: a check failed)."""
    process, directory, timeout = started_runs[name]
    process.wait(timeout=timeout)
    stdout = (directory / "stdout").read_text()
    assert process.returncode == 0, stdout + (directory / "stderr").read_text()
    return stdout, json.loads((directory / "report.json").read_text())


@pytest.fixture(scope="module")
def quick_run(started_runs):
    return finished(started_runs, "quick_run")


def test_quick_benchmark_of_one_workload_writes_a_complete_report(quick_run):
    stdout, report = quick_run
    entry = report["workloads"]["W3"]
    assert entry["failures"] == []
    assert {"numpy", "eager", "graph"} <= set(entry["per_call_us"])
    assert all(value > 0 for value in entry["per_call_us"].values())
    assert "graph" in entry["first_call_ms"] and entry["targets"]
    assert report["import_s"] > 0
    assert "W3" in stdout and "targets" in stdout
    assert entry["ratios"]["graph/numpy"] == pytest.approx(
        entry["per_call_us"]["graph"] / entry["per_call_us"]["numpy"], rel=0.01)
    assert entry["deviation"]["graph"] == 0.0  # integers: exactly NumPy's


@pytest.mark.skipif(not NUMBA, reason="no compiler for the compiled tier: its column is n/a")
@pytest.mark.parametrize("key", ["W3", "W4"])
def test_the_compiled_column_is_checked_timed_and_its_first_calls_measured(quick_run, key):
    stdout, report = quick_run
    entry = report["workloads"][key]
    assert report["compiled_available"] and "compiled" not in entry["failures"]
    assert entry["per_call_us"]["compiled"] > 0
    assert entry["deviation"]["compiled"] == 0.0  # integers: exactly NumPy's
    assert entry["jit_report"].startswith("compiled tier:")
    # in this process, then in new processes: an empty kernel cache, then the one it filled
    assert {"compiled", *NEW_PROCESS_FIRST_CALLS} <= set(entry["first_call_ms"])
    assert all(entry["first_call_ms"][name] > 0 for name in NEW_PROCESS_FIRST_CALLS)
    assert entry["ratios"]["compiled/graph"] == pytest.approx(
        entry["per_call_us"]["compiled"] / entry["per_call_us"]["graph"], rel=0.01)
    if "jax.jit" in entry["per_call_us"]:
        assert entry["ratios"]["compiled/jax.jit"] > 0
        assert "compiled/jax.jit" in stdout
    header = next(line for line in stdout.splitlines() if line.split()[:3] == [
        "numpy", "eager", "graph"])
    assert header.split()[3] == "compiled" and "compiled/graph" in header
    assert "comp, cold" in stdout and "comp, warm" in stdout
    assert any(line.startswith(f"{key:4} compiled tier:") for line in stdout.splitlines())


@pytest.mark.parametrize("key", ["W7", "W8"])
def test_training_steps_are_checked_timed_and_given_their_targets(quick_run_without_numba, key):
    stdout, report = quick_run_without_numba
    entry = report["workloads"][key]
    assert entry["failures"] == []  # every mode's first two losses match the NumPy reference
    assert {"eager", "graph"} <= set(entry["per_call_us"])
    assert all(value > 0 for value in entry["per_call_us"].values())
    assert {"graph, new process", "graph, new process, code cached"} <= set(entry["first_call_ms"])
    assert ("graph >= 5x faster than eager" if key == "W7" else "graph faster than eager") \
        in entry["targets"]
    # W7 has no hand-written NumPy step (it says why); W8 has one
    assert ("numpy" in entry["per_call_us"]) == (key == "W8")
    assert ("numpy" in entry) == (key == "W7")
    if "tf.function" in entry["per_call_us"]:
        assert "graph faster than tf.function" in entry["targets"]
    assert any(line.startswith(key) for line in stdout.splitlines())


@pytest.fixture(scope="module")
def scaling_run(started_runs):
    """`--scaling --quick --only W4,W5`: at their two smallest sizes."""
    return finished(started_runs, "scaling_run")


SCALING_SIZES = {"W4": [10, 100], "W5": [100, 1000]}


def table_cells(line: str) -> list[str]:
    """A scaling table's line: the size (10 characters), then cells of 12 characters."""
    return [line[:10].strip()] + [line[i:i + 12].strip() for i in range(10, len(line), 12)]


@pytest.mark.parametrize("key", sorted(SCALING_SIZES))
def test_scaling_prints_a_table_per_workload_with_every_column(scaling_run, key):
    stdout, report = scaling_run
    entry = report["scaling"][key]
    lines = stdout.splitlines()
    title = lines.index(f"{key}: {entry['title']}")
    header = table_cells(lines[title + 1])
    assert header[0] == entry["unit"]
    expected = ["graph us", "numpy us", "graph/numpy", "first graph", "first jax", "peak graph",
                "peak numpy", "check graph", "check jax"]
    if "jax.jit" in entry["rows"][0]["per_call_us"]:
        expected += ["jax us", "graph/jax"]
    if NUMBA:
        expected += ["comp us", "comp/numpy", "first comp", "check comp"]
    assert set(expected) <= set(header)
    rows = [dict(zip(header, table_cells(line)))
            for line in lines[title + 2:title + 2 + len(SCALING_SIZES[key])]]
    assert [int(row[entry["unit"]]) for row in rows] == SCALING_SIZES[key]
    for row in rows:
        assert row["check graph"] == "exact" or float(row["check graph"]) <= 1e-6
        assert float(row["graph us"]) > 0 and float(row["peak numpy"]) > 0
        assert float(row["graph/numpy"]) == pytest.approx(
            float(row["graph us"]) / float(row["numpy us"]), rel=0.1, abs=0.05)
        if NUMBA:
            assert row["check comp"] == "exact" or float(row["check comp"]) <= 1e-6
            assert float(row["comp/numpy"]) == pytest.approx(
                float(row["comp us"]) / float(row["numpy us"]), rel=0.1, abs=0.05)
    assert lines[title + 2 + len(rows)].strip().startswith("per-call growth")


@pytest.mark.parametrize("key", sorted(SCALING_SIZES))
def test_scaling_checks_every_size_against_numpy(scaling_run, key):
    _, report = scaling_run
    for row in report["scaling"][key]["rows"]:
        assert row["failures"] == []
        integers = key in ("W4", "W5")
        compared = ["graph", "compiled"] if NUMBA else ["graph"]
        for mode in compared:
            assert row["deviation"][mode] == 0.0 if integers else row["deviation"][mode] <= 1e-6
        assert {*compared, "numpy"} <= set(row["per_call_us"]) <= set(row["deviation"])
        assert all(value > 0 for value in row["per_call_us"].values())
        assert set(row["peak_kB"]) == {"graph", "numpy"}
        assert set(compared) <= set(row["first_call_ms"])
        if "jax.jit" in row["deviation"]:
            assert row["deviation"]["jax.jit"] <= 1e-4 and "jax.jit" in row["first_call_ms"]


@pytest.fixture(scope="module")
def benchmark():
    sys.path.insert(0, os.path.join(ROOT, "examples"))
    try:
        import benchmark
    finally:
        sys.path.pop(0)
    return benchmark


def test_the_scaling_check_accepts_equal_integers_and_close_floats_only(benchmark):
    deviation = benchmark.deviation
    assert deviation(np.int32(7), np.int32(7)) == 0.0
    assert deviation(np.int32(7), np.int32(8)) is None  # integers: no tolerance
    assert deviation(np.float32([1, 2, 4]), np.float32([1, 2.5, 5])) == pytest.approx(0.2)
    assert deviation(np.float32([1]), np.int32([1])) is None  # a float is not an integer
    assert deviation(np.ones(3), np.ones(4)) is None
    # W5's references wrap around as int32 does: the closed form n(n-1)(2n-1)/6, mod 2**32
    n = 10 ** 4
    wrapped = ((n - 1) * n * (2 * n - 1) // 6 + 2 ** 31) % 2 ** 32 - 2 ** 31
    assert benchmark.numpy_sum_of_squares_int32(n) == wrapped == -1724114088
    assert benchmark.numpy_vectorized_sum_of_squares(n) == wrapped


def test_a_scaling_size_whose_graph_computes_something_else_fails_and_is_not_timed(benchmark):
    w6 = benchmark.w6_of(10)
    wrong = benchmark.Scaling("W6", "x * x against x * x + 1", "elements", (10,), (10,),
                              lambda n: benchmark.Workload("W6", "", w6.source,
                                                           lambda x: x * x + 1, w6.arrays))
    row = benchmark.scaling_row(wrong, 10, None, benchmark.Settings(1, 0.001))
    compared = ["graph", "compiled"] if NUMBA else ["graph"]
    assert row["failures"] == compared  # numpy runs the (wrong) reference itself
    for mode in compared:
        assert mode not in row["per_call_us"] and row["deviation"][mode] > 1e-6


def test_the_check_of_the_main_table_takes_integers_exactly(benchmark):
    same = benchmark.same
    assert same(np.int32(123456789), np.int64(123456789))
    assert not same(np.int32(123456789), np.int32(123456790))  # within rtol 1e-4, still wrong
    assert same(np.float32([1, 2]), np.float64([1, 2.0001]))
    assert not same(np.float32([1, 2]), np.float32([1, 2.01]))
    assert not same(np.float32(1), np.int32(1)) and not same(np.ones(2), np.ones(3))


@pytest.fixture(scope="module")
def quick_run_without_numba(started_runs):
    return finished(started_runs, "quick_run_without_numba")


@pytest.fixture(scope="module")
def scaling_run_without_numba(started_runs):
    return finished(started_runs, "scaling_run_without_numba")


def test_without_numba_the_compiled_column_says_n_a(quick_run_without_numba):
    stdout, report = quick_run_without_numba
    entry = report["workloads"]["W3"]
    assert not report["compiled_available"] and entry["failures"] == []
    assert "compiled" not in entry["per_call_us"] and "graph" in entry["per_call_us"]
    assert not set(NEW_PROCESS_FIRST_CALLS) & set(entry["first_call_ms"])
    lines = stdout.splitlines()
    header = next(i for i, line in enumerate(lines) if line.split()[:3] == [
        "numpy", "eager", "graph"])
    assert lines[header].split()[3] == "compiled" and lines[header + 1].split()[4] == "n/a"
    assert "neither a C compiler nor Numba" in stdout


def test_without_numba_the_scaling_tables_say_n_a(scaling_run_without_numba):
    stdout, report = scaling_run_without_numba
    lines = stdout.splitlines()
    title = lines.index(f"W6: {report['scaling']['W6']['title']}")
    row = dict(zip(table_cells(lines[title + 1]), table_cells(lines[title + 2])))
    assert row["comp us"] == row["first comp"] == row["check comp"] == "n/a"
    assert row["check graph"] == "exact" and float(row["graph us"]) > 0
