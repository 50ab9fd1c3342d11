"""Every example runs (quick mode) and prints what the seed documents show."""

import os
import subprocess
import sys

import pytest

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples")

EXPECTED = {
    "graphs_from_functions": ["eager: [[12.]]", "graph: [[12.]]", "outer_function: [[12.]]"],
    "control_flow": ["First branch, with graph: 1", "Second branch, with graph: 0",
                     "Second branch, with graph: [4. 4.]",
                     "return ag__.if_stmt(rt.greater(x, 0), if_body, else_body)"],
    "polymorphism": ["Tensor(5.5, shape=(), dtype=float32)", "Tensor([3. 0.], shape=(2,), dtype=float32)",
                     "graphs traced: 3", "x: float32 Tensor, shape=(2,)"],
    "side_effects": ["-- three graph calls:\n-- three eager calls (run_functions_eagerly):\n"
                     "Calculating MSE!\nCalculating MSE!\nCalculating MSE!\n"],
    "non_strict": ["InvalidArgumentError: gather", "Tensor([0.], shape=(1,), dtype=float32)"],
    "fizzbuzz": ["13\n14\nFizzBuzz\ncounted 15", "graphs traced: 1"],
    "speedup": ["power, 20 calls: eager", "100-layer model, 5 calls"],
    "physics_kinematics": ["5 sets of 45 points", "(5 traces)", "(1 trace)", "RetracingWarning",
                           "50 sets of 45 points"],
    "tour": ["Many small operations over sets of kinematics"],
}


def run_example(name: str) -> str:
    completed = subprocess.run([sys.executable, os.path.join(EXAMPLES, f"{name}.py"), "--quick"],
                               capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stderr
    return completed.stdout


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example_runs_and_shows_the_seed_results(name):
    output = run_example(name)
    for text in EXPECTED[name]:
        assert text in output


def test_every_example_script_is_tested():
    scripts = {f[:-3] for f in os.listdir(EXAMPLES) if f.endswith(".py")} - {"benchmark"}
    assert scripts == set(EXPECTED)
