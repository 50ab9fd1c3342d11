"""What the compiled tier's tests share: a function on both backends, and the comparison of
their results (integers and bools bit for bit, floats to 1e-6 of the largest magnitude)."""

from __future__ import annotations

import re
import warnings
from contextlib import contextmanager

import numpy as np

import runtime as rt


@contextmanager
def quiet():
    """NumPy's warnings for what the edge values do on purpose (0 divisors, overflow, NaN)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


class Both:
    """``fn`` on the NumPy plan (``jit_compile=False``) and on the compiled tier."""

    def __init__(self, fn, decorate=rt.function, **options):
        self.plan_fn = decorate(fn, jit_compile=False, **options)
        self.jit_fn = decorate(fn, jit_compile=True, **options)

    def __call__(self, *args):
        """(plan result, jit result) after checking that they agree."""
        with quiet():
            plan, jit = self.plan_fn(*args), self.jit_fn(*args)
        assert_same(plan, jit, f"arguments {args!r}")
        return plan, jit

    def report(self, *args) -> str:
        return report_of(self.jit_fn, *args)


def on_both(fn, *args, decorate=rt.function):
    """``fn`` on the NumPy plan and on the compiled tier once: (plan result, jit result,
    jit function), without comparing them."""
    both = Both(fn, decorate)
    with quiet():
        return both.plan_fn(*args), both.jit_fn(*args), both.jit_fn


def report_of(function, *args) -> str:
    return function.get_concrete_function(*args).jit_report


def counts(report: str) -> tuple[int, int]:
    """(regions, distinct kernels) of a report of the compiled tier."""
    match = re.match(r"compiled tier: (\d+) regions?, (\d+) distinct kernels?", report)
    assert match, report
    return int(match.group(1)), int(match.group(2))


def compiled_ops(report: str) -> set[str]:
    """The op names of the nodes the report says run in kernels."""
    names: set[str] = set()
    for line in report.splitlines():
        match = re.match(r"\s+kernel_\w+: \d+ nodes? \(([^)]*)\)", line)
        if match:
            names.update(name.strip() for name in match.group(1).split(","))
    return names


def left_on_plan(report: str) -> list[str]:
    """The lines under "left on the NumPy plan:"."""
    lines = report.splitlines()
    if "left on the NumPy plan:" not in lines:
        return []
    return lines[lines.index("left on the NumPy plan:") + 1:]


def as_array(value) -> np.ndarray:
    return np.asarray(value.numpy() if isinstance(value, rt.Tensor) else value)


def mismatch(plan, jit) -> str | None:
    """Why two arrays differ beyond what the tier allows (None: they match)."""
    a, b = as_array(plan), as_array(jit)
    if a.dtype != b.dtype or a.shape != b.shape:
        return f"dtype/shape {a.dtype}{a.shape} vs {b.dtype}{b.shape}"
    if a.dtype.kind != "f":
        bad = a != b
    else:
        nan_a, nan_b = np.isnan(a), np.isnan(b)
        inf_a = np.isinf(a)
        finite = ~nan_a & ~inf_a
        scale = float(np.abs(a[finite]).max()) if finite.any() else 0.0
        with np.errstate(invalid="ignore"):
            bad = (nan_a != nan_b) | (inf_a & (a != b)) | (finite & (np.isinf(b) | nan_b)) | \
                (finite & ~(np.abs(a - b) <= 1e-6 * scale))
    if not np.any(bad):
        return None
    where = np.argwhere(np.atleast_1d(bad))[:5]
    flat_a, flat_b = np.atleast_1d(a), np.atleast_1d(b)
    shown = ", ".join(f"at {tuple(i)}: plan {flat_a[tuple(i)]!r}, jit {flat_b[tuple(i)]!r}"
                      for i in where)
    return f"{int(np.sum(bad))} elements differ: {shown}"


def assert_same(plan, jit, context: str = "") -> None:
    """Same structure, dtypes, shapes and values (see the module docstring)."""
    plan_leaves, jit_leaves = rt.nest.flatten(plan), rt.nest.flatten(jit)
    assert rt.nest.structure_of(plan) == rt.nest.structure_of(jit), (plan, jit)
    assert len(plan_leaves) == len(jit_leaves)
    for index, (p, j) in enumerate(zip(plan_leaves, jit_leaves)):
        if isinstance(p, rt.Tensor) or isinstance(j, rt.Tensor):
            assert isinstance(p, rt.Tensor) and isinstance(j, rt.Tensor), (p, j)
            problem = mismatch(p, j)
            assert problem is None, f"{context} output {index}: {problem}"
        else:
            assert p == j


def signs_match(plan, jit) -> bool:
    """Zeros of the same sign (what ``1 / x`` tells apart)."""
    a, b = as_array(plan), as_array(jit)
    zeros = a == 0
    return bool(np.array_equal(np.signbit(a[zeros]), np.signbit(b[zeros])))
