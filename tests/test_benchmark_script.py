"""The benchmark script runs and writes its JSON report (no timing is asserted)."""

import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_quick_benchmark_of_one_workload_writes_a_complete_report(tmp_path):
    out = tmp_path / "bench.json"
    completed = subprocess.run(
        [sys.executable, os.path.join(ROOT, "examples", "benchmark.py"), "--quick", "--only", "W3",
         "--json", str(out)], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert completed.returncode == 0, completed.stderr
    report = json.loads(out.read_text())
    entry = report["workloads"]["W3"]
    assert entry["failures"] == []
    assert {"numpy", "eager", "graph"} <= set(entry["per_call_us"])
    assert all(value > 0 for value in entry["per_call_us"].values())
    assert "graph" in entry["first_call_ms"] and entry["targets"]
    assert report["import_s"] > 0
    assert "W3" in completed.stdout and "targets" in completed.stdout
