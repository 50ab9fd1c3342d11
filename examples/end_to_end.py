"""What a user feels: a fresh process trains a small model for N steps, timed whole.

    python examples/end_to_end.py                 # N = 100, 1,000, 10,000; median of 3
    python examples/end_to_end.py --quick         # N = 100 and 1,000, one run each
    python examples/end_to_end.py --plot e2e.png  # also plot time against steps (matplotlib)
    python examples/end_to_end.py --quick --steps 20,200

The program is the one users run most: an MLP (16-32-4, ReLU, softmax cross-entropy, batch 64)
trained with Adam, written once per system the way its users write it. Each run is a new
interpreter, timed from its start to its last result, so imports, tracing and compiles count:
eager2graph with its default settings (``jit_compile=None``) and with ``jit_compile=False``,
JAX's ``jax.jit`` and TensorFlow's ``tf.function`` when they are installed (they are not
dependencies). eager2graph's default runs twice, with an empty kernel cache and with the one
that run filled. Python's bytecode is cached, as for an installed package: one untimed run of
each system fills the cache first. Every system starts from the same weights and batch, and
its final loss is printed next to its time, so a system that computed something else shows.
Ratios are of medians measured in this one run, interleaved; the machine's load average is
printed with them, since absolute times on a busy machine say little, and so are the CPU
seconds each process used (all its threads), which a busy machine changes less.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time

SETUP = """
    import sys
    import numpy as np
    steps = int(sys.argv[1])
    rng = np.random.RandomState(0)
    shapes = ((16, 32), (32, 4))
    weights = [(rng.randn(m, n).astype(np.float32) * np.float32(np.sqrt(2 / m)),
                np.zeros(n, np.float32)) for m, n in shapes]
    x = rng.randn(64, 16).astype(np.float32)
    labels = np.eye(4, dtype=np.float32)[rng.randint(0, 4, 64)]
"""

EAGER2GRAPH = SETUP + """
    import runtime as rt
    from transpiler import function

    options = {} if sys.argv[2] == "default" else {"jit_compile": False}
    variables = [rt.Variable(array) for layer in weights for array in layer]
    optimizer = rt.optimizers.Adam(0.01)

    @function(**options)
    def train_step(x, labels):
        with rt.GradientTape() as tape:
            h = rt.nn.relu(rt.matmul(x, variables[0]) + variables[1])
            logits = rt.matmul(h, variables[2]) + variables[3]
            loss = rt.reduce_mean(rt.nn.softmax_cross_entropy_with_logits(labels, logits))
        gradients = tape.gradient(loss, variables)
        optimizer.apply_gradients(zip(gradients, variables))
        return loss

    x, labels = rt.constant(x), rt.constant(labels)
    for _ in range(steps):
        loss = train_step(x, labels)
    print(float(loss))
"""

JAX = SETUP + """
    import jax
    import jax.numpy as jnp

    params = [jnp.asarray(array) for layer in weights for array in layer]
    state = ([jnp.zeros_like(p) for p in params], [jnp.zeros_like(p) for p in params], 0)

    def loss_of(params, x, labels):
        h = jax.nn.relu(x @ params[0] + params[1])
        logits = h @ params[2] + params[3]
        return jnp.mean(-jnp.sum(labels * jax.nn.log_softmax(logits), axis=-1))

    @jax.jit
    def train_step(params, state, x, labels):
        loss, grads = jax.value_and_grad(loss_of)(params, x, labels)
        m, v, t = state
        t = t + 1
        lr = 0.01 * jnp.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t)
        m = [0.9 * a + 0.1 * g for a, g in zip(m, grads)]
        v = [0.999 * a + 0.001 * g * g for a, g in zip(v, grads)]
        params = [p - lr * a / (jnp.sqrt(b) + 1e-7) for p, a, b in zip(params, m, v)]
        return params, (m, v, t), loss

    x, labels = jnp.asarray(x), jnp.asarray(labels)
    for _ in range(steps):
        params, state, loss = train_step(params, state, x, labels)
    print(float(loss))
"""

TENSORFLOW = SETUP + """
    import os
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf

    variables = [tf.Variable(array) for layer in weights for array in layer]
    optimizer = tf.keras.optimizers.Adam(0.01, epsilon=1e-7)

    @tf.function
    def train_step(x, labels):
        with tf.GradientTape() as tape:
            h = tf.nn.relu(tf.matmul(x, variables[0]) + variables[1])
            logits = tf.matmul(h, variables[2]) + variables[3]
            loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels, logits))
        gradients = tape.gradient(loss, variables)
        optimizer.apply_gradients(zip(gradients, variables))
        return loss

    x, labels = tf.constant(x), tf.constant(labels)
    for _ in range(steps):
        loss = train_step(x, labels)
    print(float(loss))
"""


def systems() -> list[tuple[str, str, str]]:
    """(column, script, setting) of each system installed here."""
    found = [("eager2graph default, cold cache", EAGER2GRAPH, "default"),
             ("eager2graph default, warm cache", EAGER2GRAPH, "default"),
             ("eager2graph jit_compile=False", EAGER2GRAPH, "plan")]
    if importlib.util.find_spec("jax") is not None:
        found.append(("JAX jit", JAX, "-"))
    if importlib.util.find_spec("tensorflow") is not None:
        found.append(("TF tf.function", TENSORFLOW, "-"))
    return found


def run_once(script: str, steps: int, setting: str, cache: str,
             folder: str) -> tuple[float, float, str]:
    """Seconds from a new interpreter's start to its exit, the CPU seconds it used (all its
    threads, user and system), and its final loss."""
    path = os.path.join(folder, f"program_{abs(hash(script))}.py")  # converted code needs a file
    if not os.path.exists(path):
        with open(path, "w", encoding="utf-8") as file:
            file.write(textwrap.dedent(script))
    # Bytecode is cached as a user's interpreter caches it (PYTHONDONTWRITEBYTECODE, set in
    # some environments, would compile every module of a source checkout in every run).
    environment = {**os.environ, "XDG_CACHE_HOME": cache, "PYTHONWARNINGS": "ignore",
                   "PYTHONPYCACHEPREFIX": os.path.join(folder, "bytecode")}
    environment.pop("PYTHONDONTWRITEBYTECODE", None)
    used = _children_cpu_seconds()
    began = time.perf_counter()
    done = subprocess.run([sys.executable, path, str(steps), setting], capture_output=True,
                          text=True, env=environment, check=False)
    elapsed = time.perf_counter() - began
    if done.returncode != 0:
        raise RuntimeError(f"{path} {steps} {setting} failed:\n{done.stderr}")
    return elapsed, _children_cpu_seconds() - used, done.stdout.strip().splitlines()[-1]


def _children_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure(step_counts: list[int], repeats: int) -> dict:
    """{(column, steps): (median seconds, median CPU seconds, final loss)}, runs interleaved
    across systems."""
    columns = systems()
    results: dict = {}
    with tempfile.TemporaryDirectory() as folder:
        for _, script, setting in columns:  # untimed: fills the bytecode cache
            run_once(script, 1, setting, tempfile.mkdtemp(dir=folder), folder)
        for steps in step_counts:
            times: dict[str, list[float]] = {name: [] for name, _, _ in columns}
            cpu: dict[str, list[float]] = {name: [] for name, _, _ in columns}
            losses: dict[str, str] = {}
            for repeat in range(repeats):
                # A new empty kernel cache: the cold run fills it, the warm run reads it.
                cache = tempfile.mkdtemp(dir=folder)
                for name, script, setting in columns:
                    elapsed, used, loss = run_once(script, steps, setting, cache, folder)
                    times[name].append(elapsed)
                    cpu[name].append(used)
                    losses[name] = loss
            for name in times:
                results[name, steps] = (statistics.median(times[name]),
                                        statistics.median(cpu[name]), losses[name])
    return results


def table(results: dict, step_counts: list[int], cpu: bool = False) -> str:
    """Wall-clock seconds (or with ``cpu``, CPU seconds) and the default's ratios to the others."""
    names = list(dict.fromkeys(name for name, _ in results))
    width = max(len(n) for n in names)
    column = 1 if cpu else 0
    lines = [f"{'system':<{width}} " + "".join(f"{n:>12,}" for n in step_counts) + "   final loss",
             "-" * (width + 12 * len(step_counts) + 15)]
    for name in names:
        cells = "".join(f"{results[name, n][column]:>11.2f}s" for n in step_counts)
        lines.append(f"{name:<{width}} {cells}   {results[name, step_counts[-1]][2]}")
    default = "eager2graph default, warm cache"
    for other in ("eager2graph jit_compile=False", "JAX jit", "TF tf.function"):
        if other in names:
            ratios = "".join(f"{results[default, n][column] / results[other, n][column]:>12.2f}"
                             for n in step_counts)
            lines.append(f"{'default / ' + other:<{width}} {ratios}")
    return "\n".join(lines)


def plot(results: dict, step_counts: list[int], path: str) -> None:
    import matplotlib  # noqa: PLC0415 - optional, only for --plot

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    figure, axes = plt.subplots(figsize=(6, 4))
    for name in dict.fromkeys(name for name, _ in results):
        axes.plot(step_counts, [results[name, n][0] for n in step_counts], marker="o", label=name)
    axes.set(xscale="log", xlabel="training steps", ylabel="seconds, whole process",
             title="MLP 16-32-4, Adam, batch 64: a fresh process each run")
    axes.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=120)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="100 and 1,000 steps, one run each")
    parser.add_argument("--plot", metavar="PNG", help="also plot time against steps")
    parser.add_argument("--steps", metavar="N,N", help="these step counts instead")
    args = parser.parse_args(argv)
    step_counts = [100, 1000] if args.quick else [100, 1000, 10000]
    if args.steps:
        step_counts = [int(n) for n in args.steps.split(",")]
    load_before = os.getloadavg()[0]
    results = measure(step_counts, 1 if args.quick else 3)
    print(f"seconds per whole process (median); load average {load_before:.2f} before, "
          f"{os.getloadavg()[0]:.2f} after")
    print(table(results, step_counts))
    print("\nCPU seconds per whole process (median; all threads, user and system: less "
          "sensitive to the machine's load, JAX's threads counted)")
    print(table(results, step_counts, cpu=True))
    if args.plot:
        if importlib.util.find_spec("matplotlib") is None:
            print("--plot needs matplotlib (pip install matplotlib); the table is above.")
        else:
            plot(results, step_counts, args.plot)
            print(f"plot written to {args.plot}")


if __name__ == "__main__":
    main()
