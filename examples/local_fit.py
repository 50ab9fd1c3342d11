"""Local fits of the form factors, the physics group's job (seed 000), trained as a graph.

    python examples/local_fit.py                    # 50 kinematic sets, 3000 epochs
    python examples/local_fit.py --quick            # 8 sets, 600 epochs (a few seconds)
    python examples/local_fit.py --sets 20 --epochs 1000 --plot fit.png

For every kinematic set (45 points in phi), pseudo-data are the cross section of
`physics_kinematics.py` at that set's true F1 and F2, with 5% Gaussian noise (seeded). A local
fit finds F1 and F2 of each set from its own points: all sets are fitted at once, as columns of
two variables, by minimising the chi-square per point with Adam. The training step (forward
pass, `rt.GradientTape`, `optimizer.apply_gradients`) is converted by `transpiler.function`
with an `input_signature`, so it is traced once and every epoch runs the same graph. At the end
the same step is timed eagerly (`rt.config.run_functions_eagerly(True)`) and as a graph, and a
plot of the fit is saved when matplotlib is installed (it is not a dependency).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from dataclasses import dataclass

import numpy as np

import runtime as rt
from transpiler import function

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from physics_kinematics import POINTS_PER_SET, cross_section, kinematic_sets  # noqa: E402

NOISE = 0.05  # relative error of a pseudo-data point
KINEMATICS = ("QQ", "x_b", "t", "k")


@dataclass
class PseudoData:
    """Points of many kinematic sets, one row per set: phi, xs, errors are [sets, 45]; each
    kinematic variable and each true form factor is a column, [sets, 1]."""

    phi: np.ndarray
    kinematics: dict
    xs: np.ndarray
    errors: np.ndarray
    true: dict

    @property
    def sets(self) -> int:
        return self.phi.shape[0]

    def step_arguments(self) -> list:
        """What a training step takes, as tensors (see SIGNATURE)."""
        arrays = [self.phi] + [self.kinematics[name] for name in KINEMATICS]
        return [rt.constant(a) for a in arrays + [self.xs, self.errors]]


def pseudo_data(sets: int, seed: int = 1) -> PseudoData:
    """The cross section at each set's true F1, F2, plus NOISE relative Gaussian errors."""
    chosen = kinematic_sets(sets)

    def column(name):
        return np.array([[s[name]] for s in chosen], np.float32)

    phi = np.stack([s["phi"] for s in chosen]).astype(np.float32)
    kinematics = {name: column(name) for name in KINEMATICS}
    true = {"F1": column("F1"), "F2": column("F2")}
    exact = cross_section(rt.constant(phi), *(rt.constant(kinematics[n]) for n in KINEMATICS),
                          rt.constant(true["F1"]), rt.constant(true["F2"])).numpy()
    errors = (NOISE * np.abs(exact)).astype(np.float32)
    xs = exact + np.random.default_rng(seed).normal(size=exact.shape).astype(np.float32) * errors
    return PseudoData(phi, kinematics, xs.astype(np.float32), errors, true)


class LocalFits(rt.Module):
    """F1 and F2 of every kinematic set, one row per set, all starting from the same guess."""

    def __init__(self, sets: int, guess: float = 1.0):
        super().__init__()
        self.F1 = rt.Variable(np.full((sets, 1), guess, np.float32))
        self.F2 = rt.Variable(np.full((sets, 1), guess, np.float32))

    def __call__(self, phi, QQ, x_b, t, k):
        return cross_section(phi, QQ, x_b, t, k, self.F1, self.F2)


POINTS = rt.TensorSpec([None, POINTS_PER_SET], rt.float32)
PER_SET = rt.TensorSpec([None, 1], rt.float32)
SIGNATURE = [POINTS, PER_SET, PER_SET, PER_SET, PER_SET, POINTS, POINTS]


def make_train_step(model: LocalFits, optimizer):
    """One epoch: the chi-square per point, its gradient, one Adam update; returns the loss."""

    def train_step(phi, QQ, x_b, t, k, xs, errors):
        with rt.GradientTape() as tape:
            predicted = model(phi, QQ, x_b, t, k)
            chi2 = rt.reduce_mean(rt.square((predicted - xs) / errors))
        gradients = tape.gradient(chi2, model.trainable_variables)
        optimizer.apply_gradients(zip(gradients, model.trainable_variables))
        return chi2

    return train_step


def new_fit(sets: int, learning_rate: float):
    """A fresh model, its optimizer and its training step, converted to a graph."""
    model = LocalFits(sets)
    optimizer = rt.optimizers.Adam(learning_rate)
    return model, function(make_train_step(model, optimizer), input_signature=SIGNATURE)


# -- progress -----------------------------------------------------------------------------------


class Progress:
    """`epoch 300/3000 [===>      ] loss 0.8092  elapsed 0.42 s`: a line every tenth of the
    run; in a terminal the line is also redrawn in place in between."""

    WIDTH = 30

    def __init__(self, epochs: int):
        self.epochs, self.start = epochs, time.perf_counter()
        self.interactive = sys.stdout.isatty()
        self.every = max(1, epochs // 10)
        self.redraw_every = max(1, epochs // 200)

    def update(self, epoch: int, loss) -> None:
        done = epoch + 1
        keep = done == 1 or done % self.every == 0 or done == self.epochs
        if not keep and not (self.interactive and done % self.redraw_every == 0):
            return
        filled = self.WIDTH * done // self.epochs
        bar = "=" * filled + (">" if filled < self.WIDTH else "") + " " * (self.WIDTH - filled - 1)
        line = (f"epoch {done:>{len(str(self.epochs))}}/{self.epochs} [{bar[:self.WIDTH]}] "
                f"loss {float(loss):.4f}  elapsed {time.perf_counter() - self.start:.2f} s")
        print(("\r" if self.interactive else "") + line, end="\n" if keep else "", flush=True)


# -- the run ------------------------------------------------------------------------------------


def train(data: PseudoData, epochs: int, learning_rate: float) -> tuple[LocalFits, object]:
    model, train_step = new_fit(data.sets, learning_rate)
    arguments = data.step_arguments()
    progress = Progress(epochs)
    for epoch in range(epochs):
        loss = train_step(*arguments)
        progress.update(epoch, loss)
    print(f"graphs traced for the training step: {train_step.tracing_count}")
    return model, train_step


def report_parameters(model: LocalFits, data: PseudoData, shown: int = 8) -> None:
    print(f"\nfitted vs true form factors (first {min(shown, data.sets)} of {data.sets} sets)")
    print(f"{'set':>4} {'QQ':>6} {'x_b':>6} {'t':>7}   {'F1 fit':>7} {'true':>7}   "
          f"{'F2 fit':>7} {'true':>7}")
    fitted = {"F1": model.F1.numpy(), "F2": model.F2.numpy()}
    for s in range(min(shown, data.sets)):
        kin = {name: data.kinematics[name][s, 0] for name in KINEMATICS}
        print(f"{s:>4} {kin['QQ']:>6.3f} {kin['x_b']:>6.3f} {kin['t']:>7.3f}   "
              f"{fitted['F1'][s, 0]:>7.4f} {data.true['F1'][s, 0]:>7.4f}   "
              f"{fitted['F2'][s, 0]:>7.4f} {data.true['F2'][s, 0]:>7.4f}")
    for name in ("F1", "F2"):
        relative = np.abs(fitted[name] / data.true[name] - 1)
        print(f"{name}: |fitted / true - 1| mean {relative.mean():.4f}, largest "
              f"{relative.max():.4f} (data noise {NOISE:.2f} per point)")


def timed_epochs(train_step, arguments: list, epochs: int) -> tuple[float, list]:
    """The median time of an epoch, and the losses."""
    times, losses = [], []
    for _ in range(epochs):
        start = time.perf_counter()
        losses.append(float(train_step(*arguments)))
        times.append(time.perf_counter() - start)
    return statistics.median(times), losses


def time_per_epoch(data: PseudoData, epochs: int, learning_rate: float) -> None:
    """The same step from the same start, run eagerly and as a graph (the trace not timed)."""
    arguments = data.step_arguments()
    _, eager_step = new_fit(data.sets, learning_rate)
    rt.config.run_functions_eagerly(True)
    try:
        eager, eager_losses = timed_epochs(eager_step, arguments, epochs)
    finally:
        rt.config.run_functions_eagerly(False)
    _, graph_step = new_fit(data.sets, learning_rate)
    graph_step.get_concrete_function(*SIGNATURE)
    graph, graph_losses = timed_epochs(graph_step, arguments, epochs)
    np.testing.assert_allclose(eager_losses, graph_losses, rtol=1e-4)
    print(f"\ntime per epoch, median of {epochs} epochs from the same start ({data.sets} sets of "
          f"{POINTS_PER_SET} points): eager {eager * 1e3:.2f} ms, graph {graph * 1e3:.2f} ms "
          f"({eager / graph:.1f}x faster as a graph; same losses)")


def plot(model: LocalFits, data: PseudoData, path: str, shown: int = 4) -> None:
    try:
        import matplotlib
    except ImportError:
        return  # matplotlib is optional: no plot without it
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    shown = min(shown, data.sets)
    columns = min(shown, 2)
    rows = -(-shown // columns)
    figure, axes = plt.subplots(rows, columns, figsize=(6 * columns, 4 * rows), squeeze=False)
    fine_phi = np.linspace(0.0, 360.0, 181, dtype=np.float32)
    for s, axis in enumerate(axes.flat):
        if s >= shown:
            axis.set_visible(False)
            continue
        kin = [rt.constant(data.kinematics[name][s, 0]) for name in KINEMATICS]

        def curve(F1, F2):
            return cross_section(rt.constant(fine_phi), *kin, rt.constant(F1),
                                 rt.constant(F2)).numpy()
        axis.errorbar(data.phi[s], data.xs[s], yerr=data.errors[s], fmt="o", markersize=3,
                      label="pseudo-data")
        axis.plot(fine_phi, curve(model.F1.numpy()[s, 0], model.F2.numpy()[s, 0]), label="fit")
        axis.plot(fine_phi, curve(data.true["F1"][s, 0], data.true["F2"][s, 0]), "--",
                  label="truth")
        axis.set_title(f"set {s}: QQ={kin[0].numpy():.2f}, x_b={kin[1].numpy():.3f}, "
                       f"t={kin[2].numpy():.3f}")
        axis.set_xlabel("phi (degrees)")
        axis.set_ylabel("cross section (arbitrary units)")
        axis.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
    print(f"\nplot of the fit: {path}")


def main(quick: bool = False, epochs: int | None = None, sets: int | None = None,
         learning_rate: float = 0.02, plot_path: str | None = None) -> None:
    epochs = epochs or (600 if quick else 3000)
    sets = sets or (8 if quick else 50)
    data = pseudo_data(sets)
    print(f"local fits of F1 and F2: {sets} kinematic sets of {POINTS_PER_SET} points, "
          f"{epochs} epochs of Adam (learning rate {learning_rate})")
    model, _ = train(data, epochs, learning_rate)
    report_parameters(model, data)
    time_per_epoch(data, 20 if quick else 100, learning_rate)
    if plot_path:
        plot(model, data, plot_path)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="8 sets, 600 epochs")
    parser.add_argument("--epochs", type=int, help="training epochs (default 3000)")
    parser.add_argument("--sets", type=int, help="kinematic sets (default 50)")
    parser.add_argument("--learning-rate", type=float, default=0.02, help="Adam's (0.02)")
    parser.add_argument("--plot", default="local_fit.png", metavar="PATH",
                        help="PNG of the fit, saved when matplotlib is installed "
                             "(default local_fit.png; '' for none)")
    options = parser.parse_args()
    main(options.quick, options.epochs, options.sets, options.learning_rate, options.plot)
