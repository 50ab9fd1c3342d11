"""Deploying a graph: export it to ONNX, run it in ONNX Runtime where eager2graph is absent.

    python examples/deploy.py           # export, check and time (about ten seconds)
    python examples/deploy.py --quick   # fewer repeats

Two workloads of examples/benchmark.py go through `rt.export.onnx`: W2, the seed's model of
100 Dense(64, relu) layers on a [20, 28, 28] batch, and W4, the Collatz loop (`while` around
an `if`, an ONNX `Loop` around an `If`). A fresh Python process then loads the .onnx files with
onnxruntime alone: before anything else it removes eager2graph's import hook and directory
from the import system and checks that `import runtime` fails, as on a machine where only
numpy and onnxruntime are installed. It checks the results against the graph's (integers
exactly, floats to 1e-5) and times a call; the table puts that next to the graph's time per
call in this process (`transpiler.function(..., jit_compile=False)`, the NumPy plan). Times
are medians over repeats; ONNX Runtime runs on one thread, and so does NumPy's BLAS here.
ONNX Runtime wins on the dense model (one fused session call instead of 200 NumPy calls);
the Collatz loop is slower there, as each ``Loop`` iteration costs ONNX Runtime microseconds
of bookkeeping on scalars that the graph's generated Python spends nanoseconds on.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

# One BLAS thread, as ONNX Runtime gets one: on a busy machine BLAS threads stall W2's
# small products (see the benchmark's notes), which would measure the machine, not the graph.
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import numpy as np  # noqa: E402

import runtime as rt  # noqa: E402
import transpiler  # noqa: E402
from benchmark import WORKLOADS  # noqa: E402

DEPLOYED = ("W2", "W4")

# Runs in the new process: numpy and onnxruntime only.
CHILD = r'''
import importlib.abc, json, statistics, sys, time
class NoEager2graph(importlib.abc.MetaPathFinder):
    """eager2graph's packages cannot be imported here (wherever they are installed, the
    virtual environment's site-packages included): the models must run without them."""
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in ("runtime", "transpiler"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, NoEager2graph())
try:
    import runtime
    sys.exit("eager2graph could be imported")
except ModuleNotFoundError:
    pass
import numpy as np
import onnxruntime as ort
jobs = json.loads(sys.argv[1])
results = {}
for key, job in jobs.items():
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.log_severity_level = 3
    session = ort.InferenceSession(job["model"], options, providers=["CPUExecutionProvider"])
    feed = {i.name: np.load(path) for i, path in zip(session.get_inputs(), job["inputs"])}
    output = session.run(None, feed)[0]
    expected = np.load(job["expected"])
    if expected.dtype.kind == "f":
        ok = bool(np.allclose(output, expected, rtol=1e-5, atol=1e-5 * np.abs(expected).max()))
    else:
        ok = bool(np.array_equal(output, expected))
    samples = []
    for _ in range(job["repeats"]):
        start = time.perf_counter()
        for _ in range(job["calls"]):
            session.run(None, feed)
        samples.append((time.perf_counter() - start) / job["calls"])
    results[key] = {"seconds": statistics.median(samples), "matches": ok,
                    "dtype": str(output.dtype), "shape": list(output.shape)}
print(json.dumps({"runtime_importable": False, "results": results}))
'''


def per_call(call, repeats: int, calls: int) -> float:
    call()
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            call()
        samples.append((time.perf_counter() - start) / calls)
    return statistics.median(samples)


def export_workloads(directory: str, repeats: int, calls: int) -> tuple[dict, dict]:
    """Exports each workload; returns the jobs for the child and the graph's times."""
    jobs, graph_seconds = {}, {}
    workloads = {w.key: w for w in WORKLOADS}
    for key in DEPLOYED:
        workload = workloads[key]
        function = transpiler.function(workload.source, jit_compile=False)
        args = [rt.constant(a) for a in workload.arrays]
        concrete = function.get_concrete_function(*args)
        model = os.path.join(directory, f"{key}.onnx")
        rt.export.onnx(concrete, model)
        inputs = []
        for index, array in enumerate(workload.arrays):
            inputs.append(os.path.join(directory, f"{key}_input{index}.npy"))
            np.save(inputs[-1], array)
        expected = os.path.join(directory, f"{key}_expected.npy")
        np.save(expected, concrete(*args).numpy())
        graph_seconds[key] = per_call(lambda: concrete(*args), repeats, calls)
        jobs[key] = {"model": model, "inputs": inputs, "expected": expected,
                     "repeats": repeats, "calls": calls, "bytes": os.path.getsize(model)}
    return jobs, graph_seconds


def run_elsewhere(jobs: dict) -> dict:
    """Runs the models in a new process that cannot import eager2graph."""
    completed = subprocess.run([sys.executable, "-I", "-c", CHILD, json.dumps(jobs)],
                               capture_output=True, text=True, timeout=120)
    if completed.returncode != 0:
        raise RuntimeError(f"the ONNX Runtime process failed:\n{completed.stderr}")
    return json.loads(completed.stdout)


def require_onnx_extra() -> None:
    """Exits with the install command when the exporter or ONNX Runtime is missing."""
    missing = [name for name in ("onnx", "onnxruntime") if importlib.util.find_spec(name) is None]
    if missing:
        raise SystemExit(f"examples/deploy.py exports with onnx and runs the models with "
                         f"onnxruntime; {' and '.join(missing)} cannot be imported. Install the "
                         f'extra with: pip install "eager2graph[onnx]"')


def main(quick: bool = False) -> None:
    require_onnx_extra()
    repeats, calls = (3, 20) if quick else (7, 50)
    titles = {w.key: w.title for w in WORKLOADS}
    with tempfile.TemporaryDirectory() as directory:
        jobs, graph_seconds = export_workloads(directory, repeats, calls)
        report = run_elsewhere(jobs)
    print("eager2graph not importable in the ONNX Runtime process: "
          f"{not report['runtime_importable']}")
    print(f"{'workload':<48} {'model':>9} {'graph':>10} {'ONNX Runtime':>13} {'ORT / graph':>12}"
          f"  same results")
    for key in DEPLOYED:
        result = report["results"][key]
        ratio = result["seconds"] / graph_seconds[key]
        print(f"{key + ' ' + titles[key]:<48.48} {jobs[key]['bytes'] / 1e3:>7.0f}kB "
              f"{graph_seconds[key] * 1e6:>8.1f}us {result['seconds'] * 1e6:>11.1f}us "
              f"{ratio:>11.2f}x  {'yes' if result['matches'] else 'NO'}")
        if not result["matches"]:
            raise SystemExit(f"{key}: ONNX Runtime's result differs from the graph's")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    main(parser.parse_args().quick)
