"""The benchmark script runs and writes its JSON report (no timing is asserted)."""

import json
import os
import subprocess
import sys

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
