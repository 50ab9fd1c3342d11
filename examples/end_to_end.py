"""What a user feels: a fresh process trains a small model for N steps, timed whole.

    python examples/end_to_end.py                 # N = 100, 1,000, 10,000; median of 3
    python examples/end_to_end.py --quick         # N = 100 and 1,000, one run each
    python examples/end_to_end.py --plot e2e.png  # also plot time against steps (matplotlib)
    python examples/end_to_end.py --quick --steps 20,200
    python examples/end_to_end.py --program all   # also W8's MLP and the physics fit

The program (``--program``) is the one users run most: an MLP (``mlp``: 16-32-4, ReLU, softmax
cross-entropy, batch 64) trained with Adam; or the benchmark's W8 (``w8``: the same MLP at
32-64-64-10), or its W7 (``fit``: examples/local_fit.py's chi-square fit of the cross section's
F1 and F2 over 8 kinematic sets of 45 points, Adam), each written once per system the way its
users write it (the fit's formula is examples/physics_kinematics.py's, bound to each system's
ops). Each run is a new interpreter, timed from its start to its last result, so imports,
tracing and compiles count: eager2graph with its default settings (``jit_compile=None``) and
with ``jit_compile=False``, JAX's ``jax.jit`` and TensorFlow's ``tf.function`` when they are
installed (they are not dependencies). eager2graph's default runs twice, with an empty kernel
cache and with one holding the default tier's kernels (filled by an untimed run that waits for
them, as a run that earned them leaves them; a build a run leaves behind is waited for, untimed,
before the next run starts). Python's
bytecode is cached, as for an installed package: one untimed run of each system fills the cache
first. Every system starts from the same weights and batch, and its final loss is printed next
to its time, so a system that computed something else shows. Ratios are of medians measured in
this one run, interleaved; the machine's load average is printed with them, since absolute times
on a busy machine say little, and so are the CPU seconds each process used (all its threads),
which a busy machine changes less.
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

# argv: steps, setting ("default", "plan" or "fill" for eager2graph), then the program's own
# argument
WARM = "eager2graph default, warm cache"
SETUP = """
    import sys
    import numpy as np
    steps = int(sys.argv[1])
    sizes = [int(n) for n in sys.argv[3].split("-")]  # the layers' widths, 16-32-4
    rng = np.random.RandomState(0)
    weights = [(rng.randn(m, n).astype(np.float32) * np.float32(np.sqrt(2 / m)),
                np.zeros(n, np.float32)) for m, n in zip(sizes, sizes[1:])]
    x = rng.randn(64, sizes[0]).astype(np.float32)
    labels = np.eye(sizes[-1], dtype=np.float32)[rng.randint(0, sizes[-1], 64)]
"""

EAGER2GRAPH = SETUP + """
    import runtime as rt
    from transpiler import function

    options = {"jit_compile": False} if sys.argv[2] == "plan" else {}
    if sys.argv[2] == "fill":  # an earlier long run: the default tier's kernels in the cache
        rt.config.set_jit_auto_compile(1)
    variables = [rt.Variable(array) for layer in weights for array in layer]
    optimizer = rt.optimizers.Adam(0.01)

    @function(**options)
    def train_step(x, labels):
        with rt.GradientTape() as tape:
            h = x
            for i in range(0, len(variables) - 2, 2):
                h = rt.nn.relu(rt.matmul(h, variables[i]) + variables[i + 1])
            logits = rt.matmul(h, variables[-2]) + variables[-1]
            loss = rt.reduce_mean(rt.nn.softmax_cross_entropy_with_logits(labels, logits))
        gradients = tape.gradient(loss, variables)
        optimizer.apply_gradients(zip(gradients, variables))
        return loss

    x, labels = rt.constant(x), rt.constant(labels)
    for _ in range(steps):
        loss = train_step(x, labels)
    if sys.argv[2] == "fill":
        assert train_step.get_concrete_function(x, labels).wait_for_jit(600)
    print(float(loss))
"""

# Keras' Adam by hand (JAX has no optimizer of its own), for both JAX programs.
JAX_ADAM = """
    import jax
    import jax.numpy as jnp

    def adam(params, grads, state, rate):
        m, v, t = state
        t = t + 1
        lr = rate * jnp.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t)
        m = [0.9 * a + 0.1 * g for a, g in zip(m, grads)]
        v = [0.999 * a + 0.001 * g * g for a, g in zip(v, grads)]
        return [p - lr * a / (jnp.sqrt(b) + 1e-7) for p, a, b in zip(params, m, v)], (m, v, t)
"""

JAX = SETUP + JAX_ADAM + """

    params = [jnp.asarray(array) for layer in weights for array in layer]
    state = ([jnp.zeros_like(p) for p in params], [jnp.zeros_like(p) for p in params], 0)

    def loss_of(params, x, labels):
        h = x
        for i in range(0, len(params) - 2, 2):
            h = jax.nn.relu(h @ params[i] + params[i + 1])
        logits = h @ params[-2] + params[-1]
        return jnp.mean(-jnp.sum(labels * jax.nn.log_softmax(logits), axis=-1))

    @jax.jit
    def train_step(params, state, x, labels):
        loss, grads = jax.value_and_grad(loss_of)(params, x, labels)
        return (*adam(params, grads, state, 0.01), loss)

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
            h = x
            for i in range(0, len(variables) - 2, 2):
                h = tf.nn.relu(tf.matmul(h, variables[i]) + variables[i + 1])
            logits = tf.matmul(h, variables[-2]) + variables[-1]
            loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels, logits))
        gradients = tape.gradient(loss, variables)
        optimizer.apply_gradients(zip(gradients, variables))
        return loss

    x, labels = tf.constant(x), tf.constant(labels)
    for _ in range(steps):
        loss = train_step(x, labels)
    print(float(loss))
"""

# The fit: argv[3] is a folder with the data (fit_data.npz) and the formula (formula.py, the
# cross section of examples/physics_kinematics.py with its ops module `rt` left to bind).
FIT_SETUP = """
    import sys
    import numpy as np
    steps = int(sys.argv[1])
    sys.path.insert(0, sys.argv[3])
    import formula
    with np.load(sys.argv[3] + "/fit_data.npz") as data:
        arrays = [data[name] for name in ("phi", "QQ", "x_b", "t", "k", "xs", "errors")]
    sets = len(arrays[1])
"""

EAGER2GRAPH_FIT = FIT_SETUP + """
    import runtime as rt
    from transpiler import function

    formula.rt = rt
    options = {"jit_compile": False} if sys.argv[2] == "plan" else {}
    if sys.argv[2] == "fill":  # an earlier long run: the default tier's kernels in the cache
        rt.config.set_jit_auto_compile(1)
    F1, F2 = (rt.Variable(np.ones((sets, 1), np.float32)) for _ in range(2))
    optimizer = rt.optimizers.Adam(0.02)

    @function(**options)
    def train_step(phi, QQ, x_b, t, k, xs, errors):
        with rt.GradientTape() as tape:
            predicted = formula.cross_section(phi, QQ, x_b, t, k, F1, F2)
            chi2 = rt.reduce_mean(rt.square((predicted - xs) / errors))
        gradients = tape.gradient(chi2, [F1, F2])
        optimizer.apply_gradients(zip(gradients, [F1, F2]))
        return chi2

    arrays = [rt.constant(a) for a in arrays]
    for _ in range(steps):
        loss = train_step(*arrays)
    if sys.argv[2] == "fill":
        assert train_step.get_concrete_function(*arrays).wait_for_jit(600)
    print(float(loss))
"""

JAX_FIT = FIT_SETUP + JAX_ADAM + """
    formula.rt = jnp
    params = [jnp.ones((sets, 1), jnp.float32) for _ in range(2)]
    state = ([jnp.zeros_like(p) for p in params], [jnp.zeros_like(p) for p in params], 0)

    def chi2_of(params, phi, QQ, x_b, t, k, xs, errors):
        predicted = formula.cross_section(phi, QQ, x_b, t, k, *params)
        return jnp.mean(jnp.square((predicted - xs) / errors))

    @jax.jit
    def train_step(params, state, *arrays):
        loss, grads = jax.value_and_grad(chi2_of)(params, *arrays)
        return (*adam(params, grads, state, 0.02), loss)

    arrays = [jnp.asarray(a) for a in arrays]
    for _ in range(steps):
        params, state, loss = train_step(params, state, *arrays)
    print(float(loss))
"""

TENSORFLOW_FIT = FIT_SETUP + """
    import os
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf

    formula.rt = tf
    F1, F2 = (tf.Variable(np.ones((sets, 1), np.float32)) for _ in range(2))
    optimizer = tf.keras.optimizers.Adam(0.02, epsilon=1e-7)

    @tf.function
    def train_step(phi, QQ, x_b, t, k, xs, errors):
        with tf.GradientTape() as tape:
            predicted = formula.cross_section(phi, QQ, x_b, t, k, F1, F2)
            chi2 = tf.reduce_mean(tf.square((predicted - xs) / errors))
        gradients = tape.gradient(chi2, [F1, F2])
        optimizer.apply_gradients(zip(gradients, [F1, F2]))
        return chi2

    arrays = [tf.constant(a) for a in arrays]
    for _ in range(steps):
        loss = train_step(*arrays)
    print(float(loss))
"""


@dataclass(frozen=True)
class Program:
    """One program, written for each system: ``scripts`` are eager2graph's, JAX's and
    TensorFlow's; ``argument(folder)`` is the scripts' last argument, preparing what they read."""

    title: str
    scripts: tuple[str, str, str]
    argument: Callable[[str], str]


def write_fit_inputs(folder: str) -> str:
    """The fit's data (local_fit.pseudo_data(8)) and formula, written once into ``folder``."""
    import physics_kinematics  # noqa: PLC0415 - eager2graph's example; not the timed processes
    from local_fit import pseudo_data  # noqa: PLC0415

    path = os.path.join(folder, "fit")
    if not os.path.isdir(path):
        os.makedirs(path)
        data = pseudo_data(8)
        np.savez(os.path.join(path, "fit_data.npz"), phi=data.phi, xs=data.xs,
                 errors=data.errors, **data.kinematics)
        with open(os.path.join(path, "formula.py"), "w", encoding="utf-8") as file:
            file.write(f"import numpy as np\n\nM = {physics_kinematics.M!r}\n\n\n"
                       + inspect.getsource(physics_kinematics.cross_section))
    return path


PROGRAMS = {
    "mlp": Program("MLP 16-32-4, Adam, batch 64", (EAGER2GRAPH, JAX, TENSORFLOW),
                   lambda folder: "16-32-4"),
    "w8": Program("W8: MLP 32-64-64-10, Adam, batch 64", (EAGER2GRAPH, JAX, TENSORFLOW),
                  lambda folder: "32-64-64-10"),
    "fit": Program("W7: the cross-section fit of local_fit.py, 8 sets x 45 points, Adam",
                   (EAGER2GRAPH_FIT, JAX_FIT, TENSORFLOW_FIT), write_fit_inputs),
}


def systems(program: Program) -> list[tuple[str, str, str]]:
    """(column, script, setting) of each system installed here."""
    ours, jax_script, tensorflow_script = program.scripts
    found = [("eager2graph default, cold cache", ours, "default"), (WARM, ours, "default"),
             ("eager2graph jit_compile=False", ours, "plan")]
    if importlib.util.find_spec("jax") is not None:
        found.append(("JAX jit", jax_script, "-"))
    if importlib.util.find_spec("tensorflow") is not None:
        found.append(("TF tf.function", tensorflow_script, "-"))
    return found


def run_once(script: str, steps: int, setting: str, argument: str, cache: str,
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
    done = subprocess.run([sys.executable, path, str(steps), setting, argument],
                          capture_output=True, text=True, env=environment, check=False)
    elapsed = time.perf_counter() - began
    used = _children_cpu_seconds() - used
    if _adopted:
        _wait_for_builds_left_behind()
    if done.returncode != 0:
        raise RuntimeError(f"{path} {steps} {setting} failed:\n{done.stderr}")
    return elapsed, used, done.stdout.strip().splitlines()[-1]


def _children_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


_adopted = False  # whether this process adopts what its runs leave behind (main)


def _adopt_builds_left_behind() -> None:
    """Makes this process the parent of what its runs leave running when they end (Linux's
    child subreaper): eager2graph's default leaves a build of kernels a run earned but did not
    wait for, to finish after it. Its time is not the run's, and must not slow the next."""
    global _adopted
    if sys.platform.startswith("linux"):
        import ctypes  # noqa: PLC0415 - Linux only

        set_child_subreaper = 36  # prctl's PR_SET_CHILD_SUBREAPER
        _adopted = ctypes.CDLL(None).prctl(set_child_subreaper, 1, 0, 0, 0) == 0


def _wait_for_builds_left_behind() -> None:
    """Waits for the processes a run left behind (adopted: see above) to end; the harness
    has no other children then (a test calling ``run_once`` may have: it adopts nothing)."""
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


def measure(program: Program, step_counts: list[int], repeats: int) -> dict:
    """{(column, steps): (median seconds, median CPU seconds, final loss)}, runs interleaved
    across systems."""
    columns = systems(program)
    results: dict = {}
    with tempfile.TemporaryDirectory() as folder:
        argument = program.argument(folder)
        for _, script, setting in columns:  # untimed: fills the bytecode cache
            run_once(script, 1, setting, argument, tempfile.mkdtemp(dir=folder), folder)
        for steps in step_counts:
            times: dict[str, list[float]] = {name: [] for name, _, _ in columns}
            cpu: dict[str, list[float]] = {name: [] for name, _, _ in columns}
            losses: dict[str, str] = {}
            for repeat in range(repeats):
                # A new empty kernel cache for the cold run; then an untimed run fills it
                # with the default tier's kernels (as a long run would), for the warm one.
                cache = tempfile.mkdtemp(dir=folder)
                for name, script, setting in columns:
                    if name == WARM:
                        run_once(script, 1, "fill", argument, cache, folder)
                    elapsed, used, loss = run_once(script, steps, setting, argument, cache,
                                                   folder)
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
    default = WARM
    for other in ("eager2graph jit_compile=False", "JAX jit", "TF tf.function"):
        if other in names:
            ratios = "".join(f"{results[default, n][column] / results[other, n][column]:>12.2f}"
                             for n in step_counts)
            lines.append(f"{'default / ' + other:<{width}} {ratios}")
    return "\n".join(lines)


def plot(results: dict, step_counts: list[int], path: str, title: str) -> None:
    import matplotlib  # noqa: PLC0415 - optional, only for --plot

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    figure, axes = plt.subplots(figsize=(6, 4))
    for name in dict.fromkeys(name for name, _ in results):
        axes.plot(step_counts, [results[name, n][0] for n in step_counts], marker="o", label=name)
    axes.set(xscale="log", xlabel="training steps", ylabel="seconds, whole process",
             title=f"{title}: a fresh process each run")
    axes.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=120)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="100 and 1,000 steps, one run each")
    parser.add_argument("--plot", metavar="PNG", help="also plot time against steps")
    parser.add_argument("--steps", metavar="N,N", help="these step counts instead")
    parser.add_argument("--program", choices=[*PROGRAMS, "all"], default="mlp",
                        help="what the processes train (all: one table each)")
    args = parser.parse_args(argv)
    _adopt_builds_left_behind()
    step_counts = [100, 1000] if args.quick else [100, 1000, 10000]
    if args.steps:
        step_counts = [int(n) for n in args.steps.split(",")]
    chosen = list(PROGRAMS) if args.program == "all" else [args.program]
    for name in chosen:
        program = PROGRAMS[name]
        load_before = os.getloadavg()[0]
        results = measure(program, step_counts, 1 if args.quick else 3)
        print(f"{program.title}\nseconds per whole process (median); load average "
              f"{load_before:.2f} before, {os.getloadavg()[0]:.2f} after")
        print(table(results, step_counts))
        print("\nCPU seconds per whole process (median; all threads, user and system: less "
              "sensitive to the machine's load, JAX's threads counted)")
        print(table(results, step_counts, cpu=True) + "\n")
        if args.plot:
            if importlib.util.find_spec("matplotlib") is None:
                print("--plot needs matplotlib (pip install matplotlib); the table is above.")
                continue
            stem, extension = os.path.splitext(args.plot)
            path = args.plot if len(chosen) == 1 else f"{stem}_{name}{extension}"
            plot(results, step_counts, path, program.title)
            print(f"plot written to {path}")


if __name__ == "__main__":
    main()
