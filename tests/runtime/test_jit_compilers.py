"""The compiled tier's two compilers: kernels built by the machine's C compiler give the bits
Numba's give (and the plan's), each setting of ``rt.config.set_jit_compiler`` does what it
says, and the C modules are cached like Numba's kernels (see also test_jit_programs, which
runs random programs through both)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import runtime as rt
import transpiler
from runtime.backends.jit import c_build, c_source, kernels
from runtime.backends.jit.c_build import builds_with_c

from jit_helpers import assert_same, on_both, report_of

ROOT = str(Path(__file__).resolve().parents[2])

pytest.importorskip("numba")
pytestmark = pytest.mark.skipif(not builds_with_c(),
                                reason="no C compiler with Python's headers on this machine")


def on_each_compiler(fn, *args, decorate=rt.function):
    """``fn(*args)`` on the plan and compiled by each compiler: all three must agree (the
    comparison of jit_helpers: integers and bools bit for bit, floats to 1e-6), and the two
    compilers bit for bit."""
    results = {}
    for compiler in ("c", "numba"):
        rt.config.set_jit_compiler(compiler)  # the conftest restores the setting
        plan, jit, function = on_both(fn, *args, decorate=decorate)
        assert_same(plan, jit, compiler)
        report = report_of(function, *args)
        assert f"built by {'C' if compiler == 'c' else 'Numba'}" in report, report
        results[compiler] = [np.asarray(leaf.numpy()) for leaf in rt.nest.flatten(jit)]
    for c_leaf, numba_leaf in zip(results["c"], results["numba"]):
        assert c_leaf.dtype == numba_leaf.dtype and c_leaf.tobytes() == numba_leaf.tobytes()


# float32 only: float64 takes the same code paths in both writers, and each dtype's step
# costs 15 s of Numba compiling.
@pytest.mark.parametrize("dtype", ["float32"])
def test_a_training_step_gives_numbas_bits(dtype: str):
    rng = np.random.default_rng(3)
    w1, w2 = (rng.standard_normal(shape).astype(dtype) for shape in ((5, 7), (7, 3)))
    x = rng.standard_normal((6, 5)).astype(dtype)
    labels = np.eye(3, dtype=dtype)[rng.integers(0, 3, 6)]

    def step(x, labels, w1, w2):
        with rt.GradientTape() as tape:
            tape.watch([w1, w2])
            hidden = rt.nn.relu(rt.matmul(x, w1) - 0.1)
            logits = rt.matmul(hidden, w2)
            loss = rt.reduce_mean(rt.nn.softmax_cross_entropy_with_logits(labels, logits))
        g1, g2 = tape.gradient(loss, [w1, w2])
        return loss, w1 - 0.1 * g1, w2 - 0.1 * g2, rt.reduce_max(hidden, axis=0)
    on_each_compiler(step, x, labels, w1, w2)


@pytest.mark.parametrize("dtype", ["int8", "int32", "int64", "uint32", "uint64"])
def test_integer_loops_wrap_like_numba(dtype: str):
    info = np.iinfo(dtype)
    x = np.array([info.max, info.min, 7, 0, 3], dtype)

    def f(x, n):
        total = x * 0
        i = n * 0
        while i < n:
            total = total * 3 + x // 3 - x % 5
            i += 1
        return total, rt.reduce_sum(total), rt.reduce_prod(x + 1)
    on_each_compiler(f, x, np.array(4, dtype), decorate=transpiler.function)


def test_transposes_reshapes_and_views_as_results():
    x = np.arange(24.0).reshape(4, 6)

    def f(x):
        t = rt.transpose(x * 2.0)
        return t, rt.reshape(t + 1.0, [3, 8]), rt.matmul(t, x) * 0.5, rt.reduce_sum(t, axis=1)
    on_each_compiler(f, x)


def test_kernels_compile_in_tensorflows_display_style():
    """Shapes print as ``TensorShape([...])`` in that style; kernel sources must not take
    that text (neither compiler took any kernel of a ``transpiler.tf`` program)."""
    rt.display.set_style(rt.display.TENSORFLOW)  # the fixtures set it back
    x = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    on_each_compiler(lambda x: (x * 2.0 + 1.0, rt.reduce_sum(x * x, axis=0)), x)


def test_a_select_over_short_rows_stays_exact():
    """gcc 12 at -O3 with AVX2 vectorized ``mask ? a : 0`` over rows of 6 doubles wrongly
    (two elements of 12 came out 0): the C compiler vectorizes with -O2's cost model."""
    mask_source = np.array([[0, .045, .53, 0, .548, .074], [.043, 0, .005, 0, .3, 0]])
    values = np.arange(1.0, 13.0).reshape(2, 6)
    on_each_compiler(lambda m, v: rt.where(m > 0.0, v * 1.0, 0.0) + 0.0, mask_source, values)


def test_a_chain_of_identical_layers_is_one_c_kernel():
    """A chain of identical layers is one kernel that calls its layer in a loop: C writes
    the layer in place, each layer's weights a slice of the stacked constants."""
    rng = np.random.default_rng(0)
    layers = [(rt.constant(rng.standard_normal((4, 4))), rt.constant(rng.standard_normal(4)))
              for _ in range(6)]

    def model(x):
        for w, b in layers:
            x = rt.nn.relu(rt.matmul(x, w) + b)
        return x
    on_each_compiler(model, rng.standard_normal((3, 4)))


@pytest.fixture
def c_takes_nothing(monkeypatch):
    """Kernels the C writer does not take (there are few left: this stands for them)."""
    def untranslatable(source, name):
        raise c_source.Untranslatable("a construct for this test")
    monkeypatch.setattr(kernels, "kernel_function", untranslatable)
    monkeypatch.setattr(kernels, "_compiled", {})


def test_kernels_the_c_writer_does_not_take_go_to_numba(c_takes_nothing):
    """By default Numba builds them; with set_jit_compiler("c") they stay on the plan."""
    x = np.arange(4.0)
    plan, jit, function = on_both(lambda x: (x * 7.0 - 1.0) * x, x)
    assert_same(plan, jit)
    assert "built by Numba" in report_of(function, x)
    rt.config.set_jit_compiler("c")
    plan, jit, function = on_both(lambda x: (x * 7.0 - 2.0) * x, x)
    assert_same(plan, jit)
    report = report_of(function, x)
    assert "built by" not in report and "set_jit_compiler('c') leaves out Numba" in report


def test_the_background_tier_leaves_what_c_does_not_take_on_the_plan(c_takes_nothing):
    """Numba would compile in this process, holding the interpreter's lock for seconds: the
    background tier of jit_compile=None uses only C when there is one."""
    def f(x):
        return (x * 9.0 - 1.0) * x
    fn = rt.function(f)
    x = np.arange(4.0)
    concrete = fn.get_concrete_function(x)
    assert concrete.wait_for_jit(60)
    assert "the background tier does not use Numba" in concrete.jit_report, concrete.jit_report
    np.testing.assert_array_equal(fn(x).numpy(), rt.function(f, jit_compile=False)(x).numpy())


def test_c_modules_are_built_once_per_machine(tmp_path, monkeypatch):
    rt.config.set_jit_cache_directory(tmp_path / "kernels")
    scale = 1.0 + np.random.default_rng().integers(1, 2**20) / 2**21

    def f(x):
        return (x * scale + 2.0) * x
    x = np.arange(3.0)
    try:
        plan, jit, _ = on_both(f, x)
        assert_same(plan, jit)
        index, lock, module = sorted(p.name for p in (tmp_path / "kernels").iterdir())
        assert module.startswith("eager2graph_c_") and module.endswith(".so"), module
        assert lock == module.replace(".so", ".lock"), lock  # its build lock (c_build)
        assert index.startswith("eager2graph_batch_") and index.endswith(".txt"), index
        assert (tmp_path / "kernels").stat().st_mode & 0o777 == 0o700
        # A new process (this one's kernels forgotten) finds the module by the batch's index:
        # it neither translates the kernels to C nor builds them again.
        monkeypatch.setattr(kernels, "_compiled", {})

        def no_build(*args):
            raise AssertionError("the module was built or translated again")
        monkeypatch.setattr(c_build, "_build", no_build)
        monkeypatch.setattr(kernels, "kernel_function", no_build)
        plan, jit, _ = on_both(f, x)
        assert_same(plan, jit)
    finally:
        rt.config.set_jit_cache_directory(None)


def test_a_damaged_module_in_the_cache_is_built_again(tmp_path):
    """A new process finds a file it cannot load where its module should be (a disk that
    filled up, say): it builds the module again, and warns about nothing."""
    program = textwrap.dedent(f"""
        import warnings, numpy as np, runtime as rt
        warnings.simplefilter("error")
        rt.config.set_jit_cache_directory({str(tmp_path / "kernels")!r})
        f = rt.function(lambda x: (x * 11.0 - 3.0) * x, jit_compile=True)
        print(f(np.arange(3.0)).numpy().tolist())
        print(f.get_concrete_function(np.arange(3.0)).jit_report.splitlines()[1])""")

    def run() -> list[str]:
        done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                              timeout=120, cwd=ROOT)
        assert done.returncode == 0, done.stderr
        return done.stdout.splitlines()
    first = run()
    (module,) = (tmp_path / "kernels").glob("eager2graph_c_*.so")
    damaged = tmp_path / "damaged"
    damaged.write_bytes(b"not a shared library")
    os.replace(damaged, module)  # a new file: the old one may still be mapped
    assert run() == first and first[0] == "[-0.0, 8.0, 38.0]" and first[1].endswith("built by C")
    assert module.stat().st_size > 1000


def test_a_failing_c_compiler_leaves_the_kernels_to_numba(monkeypatch):
    """Once a build has failed (flags this compiler refuses, say), the process leaves its
    kernels to Numba, with a warning, instead of failing again at every compile."""
    monkeypatch.setattr(c_build, "FLAGS", (*c_build.FLAGS, "--no-such-flag"))
    monkeypatch.setattr(kernels, "_compiled", {})
    monkeypatch.setattr(kernels, "_c_failure", None)
    with pytest.warns(rt.errors.CompileWarning, match="the C compiler failed.*no-such-flag"):
        plan, jit, function = on_both(lambda x: (x * 3.0 - 1.0) * x, np.arange(4.0))
    assert_same(plan, jit)
    assert "built by Numba" in report_of(function, np.arange(4.0))
    monkeypatch.setattr(c_build, "_build", lambda *args: pytest.fail("built again"))
    plan, jit, function = on_both(lambda x: (x * 3.0 - 2.0) * x, np.arange(4.0))
    assert "built by Numba" in report_of(function, np.arange(4.0))


def test_without_a_c_compiler_numba_builds_and_the_c_setting_says_why(monkeypatch):
    monkeypatch.setattr(kernels, "toolchain", lambda quick=False: None)
    monkeypatch.setattr(kernels, "_compiled", {})
    x = np.arange(4.0)
    plan, jit, function = on_both(lambda x: (x * 5.0 - 1.0) * x, x)
    assert_same(plan, jit)
    assert "built by Numba" in report_of(function, x)
    rt.config.set_jit_compiler("c")
    plan, jit, function = on_both(lambda x: (x * 5.0 - 2.0) * x, x)
    assert_same(plan, jit)
    assert "needs a C compiler" in report_of(function, x)


@pytest.mark.parametrize("name", ["C", "gcc", "", None])
def test_unknown_compilers_are_refused(name):
    with pytest.raises(ValueError, match="must be one of auto, c, numba"):
        rt.config.set_jit_compiler(name)


def test_large_nests_and_products_run_without_the_interpreters_lock():
    """As Numba's kernels did (nogil): other threads go on while a large kernel computes;
    small work keeps the lock (taking it back would cost more)."""
    rng = np.random.default_rng(2)
    big, small = rng.standard_normal((256, 256)), rng.standard_normal((4, 4))

    def f(x):
        return rt.nn.relu(rt.matmul(x, x) * 0.5 - 0.1) * x

    for x, unlocked in ((big, True), (small, False)):
        plan, jit, function = on_both(f, x)
        assert_same(plan, jit)
        texts = [c_source.kernel_function(kernel.source, "k")
                 for _, kernel in function.get_concrete_function(x).executable.kernels]
        assert texts and any("Py_BEGIN_ALLOW_THREADS" in t for t in texts) == unlocked


def test_the_default_tiers_quick_builds_are_kept_apart_from_full_ones():
    """The default tier builds at -O1 with the vectorizer (a running program waits for it),
    jit_compile=True at -O2: the same kernel text names two modules, so neither loads the
    other's build."""
    quick, full = c_build.toolchain(quick=True), c_build.toolchain()
    assert "-O1" in quick.flags and "-O2" in full.flags and "-O2" not in quick.flags
    for chain in (quick, full):  # never GCC's dynamic model (see c_build.OPTIMIZATION)
        assert "-fvect-cost-model=cheap" in chain.flags
    text = "/* the same kernel */"
    assert c_build.module_name(text, quick) != c_build.module_name(text, full)
    assert "-DEAGER2GRAPH_QUICK_BUILD" in quick.flags  # plumbing unoptimized: c_prelude
    assert "-DEAGER2GRAPH_QUICK_BUILD" not in full.flags


def kernel_texts(fn, *args) -> list[str]:
    function = transpiler.function(fn, jit_compile=True)
    function(*args)
    return [c_source.kernel_function(kernel.source, "k")
            for _, kernel in function.get_concrete_function(*args).executable.kernels]


def test_kernels_that_only_call_their_nests_are_plumbing_and_loops_are_not():
    """A kernel whose own body runs no loop is marked PLUMBING (which quick builds compile
    unoptimized); one whose body runs a loop is not: its loop is the hot part."""
    x = np.linspace(-1.0, 1.0, 6)
    (nests,) = kernel_texts(lambda x: rt.exp(x * 0.5) * x + 1.0, x)
    assert "\nPLUMBING\nstatic PyObject* k(" in nests

    def count_down(n):
        total = 0
        while n > 0:
            total += n * n
            n -= 1
        return total
    (looping,) = kernel_texts(count_down, rt.constant(np.int64(9)))
    assert "PLUMBING" not in looping


def test_a_quick_build_gives_the_plans_bits(tmp_path):
    """The default tier's quick build (its plumbing unoptimized) computes what the plan does,
    bit for bit, in a new process: kernels with nests only and with loops of their own."""
    program = tmp_path / "program.py"  # converted code needs its source in a file
    program.write_text(textwrap.dedent("""
        import numpy as np, runtime as rt, transpiler
        from runtime.backends.jit import JIT_EXACT
        def step(x, y):
            z = rt.tanh(x * 1.5 - y) * rt.exp(-x)
            return z / (1.0 + rt.reduce_sum(z * z)), rt.nn.relu(z - 0.25) * y
        def loop(n, x):
            total = rt.zeros_like(x)
            while n > 0:
                total = total * 0.5 + x / rt.cast(n, rt.float64)
                n -= 1
            return total
        cases = [(step, (np.linspace(-2, 2, 12).reshape(3, 4), np.full((3, 4), 0.3))),
                 (loop, (np.int64(7), np.linspace(0.5, 3, 5)))]
        for fn, args in cases:
            plan = transpiler.function(fn, jit_compile=False)
            concrete = plan.get_concrete_function(*args)
            quick = JIT_EXACT.compile(concrete.graph, "q", numba=False, quick=True)
            expected = [np.asarray(v) for v in concrete.executable.run(*map(np.asarray, args))]
            got = [np.asarray(v) for v in quick.run(*map(np.asarray, args))]
            print(bool(quick.kernels),
                  all(a.tobytes() == b.tobytes() for a, b in zip(expected, got)))
        """))
    lines = subprocess.run([sys.executable, str(program)], capture_output=True, text=True,
                           timeout=300, cwd=ROOT, env={**os.environ, "PYTHONPATH": ROOT,
                                                       "XDG_CACHE_HOME": str(tmp_path)}
                           ).stdout.split("\n")
    assert lines[:2] == ["True True", "True True"], lines
