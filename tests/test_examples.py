"""Every example runs (quick mode) and prints what the seed documents show."""

import importlib.util
import os
import re
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
                     "Calculating MSE!\nCalculating MSE!\nCalculating MSE!\n",
                     "printed 'Calculating MSE!'; later calls"],
    "non_strict": ["InvalidArgumentError: gather", "Tensor([0.], shape=(1,), dtype=float32)"],
    "fizzbuzz": ["13\n14\nFizzBuzz\ncounted 15", "graphs traced: 1"],
    "speedup": ["power, 20 calls: eager", "100-layer model, 5 calls"],
    "physics_kinematics": ["5 sets of 45 points", "(5 traces)", "(1 trace)", "RetracingWarning",
                           "50 sets of 45 points"],
    "tour": ["Many small operations over sets of kinematics"],
    "explain": ["first call:\ntracing smooth\n", "second call:\nTensor(",
                "explain smooth(x: float32[3], steps=2, verbose=False)",
                "1 loop run unrolled (2 iterations)", "1 pruned as unused"],
    "end_to_end": ["eager2graph default, cold cache", "eager2graph jit_compile=False",
                   "default / eager2graph jit_compile=False"],
    "deploy_jax": ["jax.jit, batch over 8 devices", "devices of the sharded result: 8"],
    "jax_control_flow": ["collatz steps under jax.jit for 6, 7, 27: [8, 16, 111]",
                         "same as Python: True", "jax.grad: 13.800, finite differences: 13.800",
                         "the bounded loop runs as a while_loop and differentiates as a scan: True",
                         "jax.vmap(piecewise)([-3.0, -0.5, 0.5, 2.0]) = [3.0, 0.0, 2.0, 4.0]"],
    "torch_control_flow": ["exported program's control flow: cond, while_loop",
                           "x = 8.0 * ones(4), limit 1.0: steps 5, x[0] 1.250; same as Python: True",
                           "x = 1.0 * ones(4), limit 10.0: steps 0, x[0] 1.000; same as Python: True",
                           "torch.compile(fullgraph=True): steps 5, gradient [0.03125,"],
    "jax_vs_lax": ["same results as the hand-written lax on every input",
                   "eqns top", "collatz while"],
    "gradients": ["gradient of w * w at [[1.]]: Tensor([[2.]], shape=(1, 1), dtype=float32)",
                  "second gradient call: RuntimeError: GradientTape.gradient can only be called",
                  "eager: x = [0.75 0.  ], value = 0.31640625",
                  "graph: x = [0.75 0.  ], value = 0.31640625",
                  "through the loop: eager [0.421875 0.      ], graph [0.421875 0.      ]",
                  "grad_log1pexp(100.), normal gradient: nan",
                  "grad_log1pexp(100.), custom gradient: 1.0", "as graphs: normal nan custom 1.0"],
    "deploy": ["eager2graph not importable in the ONNX Runtime process: True",
               "W2 100 Dense(64, relu) layers", "W4 collatz steps", "ONNX Runtime"],
    "keras_seed_model": ["Eager time (10 calls):", "Graph time (10 calls):", "graph speed-up:"],
    "keras_physics": ["16 kinematic sets of 45 points", "Epoch 3/3\n45/45 ", "ms/step - loss: ",
                      "loss: first epoch"],
    "local_fit": ["8 kinematic sets of 45 points", "epoch 600/600 [", "loss 0.8",
                  "graphs traced for the training step: 1", "fitted vs true form factors",
                  "faster as a graph; same losses"],
}


OPTIONS = {"end_to_end": ["--steps", "20"]}  # four fresh processes or more: keep them short


def run_example(name: str, *options: str) -> str:
    completed = subprocess.run([sys.executable, os.path.join(EXAMPLES, f"{name}.py"), "--quick",
                                *options], capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stderr
    assert "Warning" not in completed.stderr, completed.stderr
    return completed.stdout


@pytest.mark.parametrize("name", sorted(set(EXPECTED) - {"local_fit"}))
def test_example_runs_and_shows_the_seed_results(name):
    if name == "deploy":  # needs the [onnx] extra, which CI installs
        pytest.importorskip("onnxruntime")
    if name in ("deploy_jax", "jax_control_flow", "jax_vs_lax"):  # need the [jax] extra (CI has it)
        pytest.importorskip("jax")
    if name == "torch_control_flow":  # needs the [torch] extra, which CI installs
        pytest.importorskip("torch")
    output = run_example(name, *OPTIONS.get(name, []))
    for text in EXPECTED[name]:
        assert text in output
    if name == "end_to_end":  # every eager2graph setting ends on the same bits
        losses = {line.split()[-1] for line in output.splitlines()
                  if line.startswith("eager2graph")}
        assert len(losses) == 1, output


def test_local_fit_finds_the_true_form_factors_and_plots_the_fit(tmp_path):
    plot = tmp_path / "fit.png"
    output = run_example("local_fit", "--plot", str(plot))
    for text in EXPECTED["local_fit"]:
        assert text in output
    # With 5% noise on 45 points a set, each fitted form factor is within a few percent.
    for name, bound in (("F1", 0.03), ("F2", 0.05)):
        largest = re.search(rf"{name}: \|fitted / true - 1\| mean [\d.]+, largest ([\d.]+)", output)
        assert largest and float(largest.group(1)) < bound, output
    speedup = re.search(r"\(([\d.]+)x faster as a graph", output)
    assert speedup and float(speedup.group(1)) > 1, output
    # matplotlib is optional: a plot when it is installed, none (and no error) otherwise
    assert plot.exists() == (importlib.util.find_spec("matplotlib") is not None)


def test_every_example_script_is_tested():
    scripts = {f[:-3] for f in os.listdir(EXAMPLES) if f.endswith(".py")} - {"benchmark"}
    assert scripts == set(EXPECTED)


@pytest.mark.parametrize("name, missing, extra", [
    ("deploy_jax", ["jax"], "jax"),
    ("deploy", ["onnxruntime"], "onnx"),
    ("deploy", ["onnx", "onnxruntime"], "onnx"),
])
def test_an_example_without_its_extra_names_the_install_command(name, missing, extra):
    """Run in a Python that cannot import ``missing`` (a ``None`` in ``sys.modules`` stops the
    import, as when the package is not installed), so this runs with the extras installed."""
    wrapper = (f"import os, runpy, sys; sys.modules.update(dict.fromkeys({missing!r})); "
               f"sys.argv = sys.argv[1:]; sys.path.insert(0, os.path.dirname(sys.argv[0])); "
               f"runpy.run_path(sys.argv[0], run_name='__main__')")
    completed = subprocess.run([sys.executable, "-c", wrapper, os.path.join(EXAMPLES, f"{name}.py"),
                                "--quick"], capture_output=True, text=True, timeout=120)
    assert completed.returncode == 1, completed.stderr
    assert "Traceback" not in completed.stderr, completed.stderr
    assert len(completed.stderr.strip().splitlines()) == 1, completed.stderr
    assert f'pip install "eager2graph[{extra}]"' in completed.stderr
    assert completed.stdout == ""
