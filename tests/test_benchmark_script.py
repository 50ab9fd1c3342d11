"""The benchmark script runs and writes its JSON report (no timing is asserted)."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    """One quick run of a plain workload and the two training steps (W7, W8)."""
    out = tmp_path_factory.mktemp("bench") / "bench.json"
    completed = subprocess.run(
        [sys.executable, os.path.join(ROOT, "examples", "benchmark.py"), "--quick", "--only",
         "W3,W7,W8", "--json", str(out)], capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert completed.returncode == 0, completed.stderr
    return completed.stdout, json.loads(out.read_text())


def test_quick_benchmark_of_one_workload_writes_a_complete_report(quick_run):
    stdout, report = quick_run
    entry = report["workloads"]["W3"]
    assert entry["failures"] == []
    assert {"numpy", "eager", "graph"} <= set(entry["per_call_us"])
    assert all(value > 0 for value in entry["per_call_us"].values())
    assert "graph" in entry["first_call_ms"] and entry["targets"]
    assert report["import_s"] > 0
    assert "W3" in stdout and "targets" in stdout


@pytest.mark.parametrize("key", ["W7", "W8"])
def test_training_steps_are_checked_timed_and_given_their_targets(quick_run, key):
    stdout, report = quick_run
    entry = report["workloads"][key]
    assert entry["failures"] == []  # every mode's first two losses match the NumPy reference
    assert {"eager", "graph"} <= set(entry["per_call_us"])
    assert all(value > 0 for value in entry["per_call_us"].values())
    assert "graph, new process" in entry["first_call_ms"]
    assert ("graph >= 5x faster than eager" if key == "W7" else "graph faster than eager") \
        in entry["targets"]
    # W7 has no hand-written NumPy step (it says why); W8 has one
    assert ("numpy" in entry["per_call_us"]) == (key == "W8")
    assert ("numpy" in entry) == (key == "W7")
    if "tf.function" in entry["per_call_us"]:
        assert "graph faster than tf.function" in entry["targets"]
    assert any(line.startswith(key) for line in stdout.splitlines())


@pytest.fixture(scope="module")
def scaling_run(tmp_path_factory):
    """`--scaling --quick`: W2, W4, W5, W6 at their two smallest sizes (a few seconds)."""
    out = tmp_path_factory.mktemp("scaling") / "scaling.json"
    completed = subprocess.run(
        [sys.executable, os.path.join(ROOT, "examples", "benchmark.py"), "--scaling", "--quick",
         "--json", str(out)], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert completed.returncode == 0, completed.stdout + completed.stderr  # 1: a check failed
    return completed.stdout, json.loads(out.read_text())


SCALING_SIZES = {"W2": [10, 30], "W4": [10, 100], "W5": [100, 1000], "W6": [10, 1000]}


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
    assert set(expected) <= set(header)
    rows = [dict(zip(header, table_cells(line)))
            for line in lines[title + 2:title + 2 + len(SCALING_SIZES[key])]]
    assert [int(row[entry["unit"]]) for row in rows] == SCALING_SIZES[key]
    for row in rows:
        assert row["check graph"] == "exact" or float(row["check graph"]) <= 1e-6
        assert float(row["graph us"]) > 0 and float(row["peak numpy"]) > 0
        assert float(row["graph/numpy"]) == pytest.approx(
            float(row["graph us"]) / float(row["numpy us"]), rel=0.1, abs=0.05)
    assert lines[title + 2 + len(rows)].strip().startswith("per-call growth")


@pytest.mark.parametrize("key", sorted(SCALING_SIZES))
def test_scaling_checks_every_size_against_numpy(scaling_run, key):
    _, report = scaling_run
    for row in report["scaling"][key]["rows"]:
        assert row["failures"] == []
        integers = key in ("W4", "W5")
        assert row["deviation"]["graph"] == 0.0 if integers else row["deviation"]["graph"] <= 1e-6
        assert {"graph", "numpy"} <= set(row["per_call_us"]) <= set(row["deviation"])
        assert all(value > 0 for value in row["per_call_us"].values())
        assert set(row["peak_kB"]) == {"graph", "numpy"}
        assert "graph" in row["first_call_ms"]
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
    assert row["failures"] == ["graph"]  # numpy runs the (wrong) reference itself
    assert "graph" not in row["per_call_us"] and row["deviation"]["graph"] > 1e-6
