"""Fixtures every test shares: a clean global runtime state around each test."""

import os

import pytest

import runtime as rt
from runtime import display, retracing

# The modules that take longest (measured with --durations), slowest first. With `-n 2 --dist
# loadfile` each worker takes a whole file when it is free, in this order (pyproject's
# --no-loadscope-reorder): started last, one of them would leave a worker alone for minutes.
SLOW_MODULES_FIRST = (
    "transpiler/test_torch_staging.py", "runtime/test_jit_exact.py",
    "transpiler/test_torch_programs.py", "runtime/test_jit_tier.py", "runtime/test_jit_fusion.py",
    "test_benchmark_script.py", "reference/test_fuzz.py", "test_examples.py",
    "transpiler/test_jax_staging.py", "transpiler/test_torch_compile_cases.py",
    "runtime/test_jit_compilers.py", "transpiler/test_torch_reference.py",
    "test_end_to_end_programs.py", "runtime/test_first_call.py",
    "runtime/test_export_jax_programs.py", "transpiler/test_gradients_fuzz.py",
    "runtime/test_export_onnx_programs.py", "transpiler/test_jit_programs.py",
    "runtime/test_same_answer_every_run.py", "transpiler/test_cli.py",
    "runtime/test_import_cycles.py", "runtime/test_pipeline_properties.py",
    "runtime/test_executor_reference.py",
)


def pytest_collection_modifyitems(items):
    """Slow modules first (a stable sort: every module keeps its own order of tests)."""
    rank = {f"tests/{path}": place for place, path in enumerate(SLOW_MODULES_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))


@pytest.fixture(scope="session", autouse=True)
def private_caches(tmp_path_factory):
    """The compiled tier's kernels and the code cache's entries go to directories of this run,
    never the user's caches; new interpreters the tests start use this code cache too."""
    rt.config.set_jit_cache_directory(tmp_path_factory.mktemp("kernels"))
    code = str(tmp_path_factory.mktemp("code"))
    rt.config.set_code_cache_directory(code)
    previous = os.environ.get("EAGER2GRAPH_CODE_CACHE")
    os.environ["EAGER2GRAPH_CODE_CACHE"] = code
    yield
    rt.config.set_jit_cache_directory(None)
    rt.config.set_code_cache_directory(None)
    if previous is None:
        del os.environ["EAGER2GRAPH_CODE_CACHE"]
    else:
        os.environ["EAGER2GRAPH_CODE_CACHE"] = previous


@pytest.fixture(autouse=True)
def clean_runtime_state():
    """Retracing history and the eager switch are global; no test may leak them to another.
    Background compiles are off: a test that calls a function many times and compares exact
    float bits must not see the compiled tier take over half-way (its own tests turn it on)."""
    retracing.reset()
    rt.config.run_functions_eagerly(False)
    # `import transpiler.tf` makes tensors print as TensorFlow's; the tests that run
    # TensorFlow programs select that style for the program (tests/tf_programs.run).
    display.set_style(display.RT)
    auto_compile = rt.config.jit_auto_compile_after()
    compiler = rt.config.jit_compiler()
    rt.config.set_jit_auto_compile(None)
    yield
    rt.config.run_functions_eagerly(False)
    display.set_style(display.RT)
    rt.config.set_jit_auto_compile(auto_compile)
    rt.config.set_jit_compiler(compiler)
    retracing.reset()
