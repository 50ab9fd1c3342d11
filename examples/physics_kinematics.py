"""A fit model made of many small elementwise operations, eager vs. graph, and retracing.

Mirrors the physics group's notes (seed 000): a cross-section formula evaluated over sets of
kinematics is dominated by per-operation overhead, so a graph helps; but calling the graph
with Python numbers that change from set to set retraces every time (the warning below), and
an `input_signature` fixes that. The formula is in the style of a Bethe-Heitler cross section
(kinematic factors, lepton propagators, a Fourier series in phi); it exercises the same kind of
code, it is not a physics reference.
"""

import argparse
import time
import warnings

import numpy as np

import runtime as rt
from transpiler import function

M = 0.938272  # proton mass, GeV
POINTS_PER_SET = 45  # phi from 0 to 352 degrees in steps of 8


def cross_section(phi, QQ, x_b, t, k, F1, F2):
    ee = 4.0 * M * M * x_b * x_b / QQ
    y = rt.sqrt(QQ) / (rt.sqrt(ee) * k)
    xi = x_b * (1.0 + t / (2.0 * QQ)) / (2.0 - x_b + x_b * t / QQ)
    t_min = -QQ * (2.0 * (1.0 - x_b) * (1.0 - rt.sqrt(1.0 + ee)) + ee) / (4.0 * x_b * (1.0 - x_b) + ee)
    K2 = rt.abs(-t / QQ * (1.0 - x_b) * (1.0 - y - y * y * ee / 4.0) * (1.0 - t_min / t)
                * (rt.sqrt(1.0 + ee) + (4.0 * x_b * (1.0 - x_b) + ee) / (4.0 * (1.0 - x_b))
                   * (t - t_min) / QQ))
    K = rt.sqrt(K2)
    J = (1.0 - y - y * ee / 2.0) * (1.0 + t / QQ) - (1.0 - x_b) * (2.0 - y) * t / QQ
    angle = (180.0 - phi) * np.pi / 180.0
    P1 = -(J + 2.0 * K * rt.cos(angle)) / (y * (1.0 + ee))
    P2 = 1.0 + t / QQ - P1
    Gamma = 1.0 / (x_b * y * y * (1.0 + ee) ** 2 * t * P1 * P2)
    c0 = 8.0 * K2 * ((2.0 + 3.0 * ee) * QQ / t * (F1 * F1 - t / (4.0 * M * M) * F2 * F2)
                     + 2.0 * x_b * x_b * (F1 + F2) ** 2)
    c1 = 8.0 * K * (2.0 - y) * ((4.0 * xi * xi * QQ / t - 2.0 * xi - ee) * (F1 * F1 - t / (4.0 * M * M) * F2 * F2)
                               + 2.0 * xi * xi * (1.0 - (1.0 - 2.0 * xi) * t / QQ) * (F1 + F2) ** 2)
    c2 = 8.0 * x_b * x_b * t / QQ * K2 * (F1 + F2) ** 2
    return Gamma * (c0 + c1 * rt.cos(angle) + c2 * rt.cos(2.0 * angle)) * 1e-3


def kinematic_sets(count: int) -> list[dict]:
    rng = np.random.default_rng(0)
    phi = np.arange(0.0, 360.0, 8.0, dtype=np.float32)
    return [dict(phi=phi, QQ=float(rng.uniform(1.5, 3.0)), x_b=float(rng.uniform(0.3, 0.45)),
                 t=float(rng.uniform(-0.4, -0.2)), k=float(rng.uniform(5.5, 6.0)),
                 F1=float(rng.uniform(0.5, 0.7)), F2=float(rng.uniform(0.8, 1.0)))
            for _ in range(count)]


def as_tensors(kinematics: dict) -> list:
    return [rt.constant(np.float32(v)) if not isinstance(v, np.ndarray) else rt.constant(v)
            for v in kinematics.values()]


SIGNATURE = [rt.TensorSpec([None], rt.float32)] + [rt.TensorSpec([], rt.float32)] * 6


def evaluate(fn, sets, prepare) -> tuple[float, list]:
    start = time.perf_counter()
    results = [fn(*prepare(s)) for s in sets]
    return time.perf_counter() - start, results


def main(quick: bool = False) -> None:
    for count in (5, 50):
        sets = kinematic_sets(count)
        eager_time, expected = evaluate(cross_section, sets, as_tensors)

        naive = function(cross_section)  # called with Python numbers: a trace per set
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            naive_time, naive_results = evaluate(naive, sets, lambda s: list(s.values()))
        retracing = [w for w in caught if issubclass(w.category, rt.errors.RetracingWarning)]

        fixed = function(cross_section, input_signature=SIGNATURE)
        fixed(*as_tensors(sets[0]))  # trace once, outside the timing
        fixed_time, fixed_results = evaluate(fixed, sets, as_tensors)

        for a, b, c in zip(expected, naive_results, fixed_results):
            np.testing.assert_allclose(a.numpy(), c.numpy(), rtol=1e-5, atol=1e-8)
            # The naive version does the Python-number parts in double precision while tracing.
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-3, atol=1e-6)
        print(f"{count} sets of {POINTS_PER_SET} points: eager {eager_time * 1e3:.1f} ms, "
              f"graph retracing every set {naive_time * 1e3:.1f} ms ({naive.tracing_count} traces), "
              f"graph with input_signature {fixed_time * 1e3:.1f} ms ({fixed.tracing_count} trace), "
              f"{eager_time / fixed_time:.1f}x faster than eager")
        if retracing:
            print(f"  RetracingWarning: {str(retracing[0].message)[:160]}...")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="(no effect: this example is fast)")
    main(parser.parse_args().quick)
