"""Fixtures every test shares: a clean global runtime state around each test."""

import pytest

import runtime as rt
from runtime import retracing


@pytest.fixture(scope="session", autouse=True)
def private_kernel_cache(tmp_path_factory):
    """The compiled tier's kernels go to a directory of this run, never the user's cache."""
    rt.config.set_jit_cache_directory(tmp_path_factory.mktemp("kernels"))
    yield
    rt.config.set_jit_cache_directory(None)


@pytest.fixture(autouse=True)
def clean_runtime_state():
    """Retracing history and the eager switch are global; no test may leak them to another.
    Background compiles are off: a test that calls a function many times and compares exact
    float bits must not see the compiled tier take over half-way (its own tests turn it on)."""
    retracing.reset()
    rt.config.run_functions_eagerly(False)
    auto_compile = rt.config.jit_auto_compile_after()
    rt.config.set_jit_auto_compile(None)
    yield
    rt.config.run_functions_eagerly(False)
    rt.config.set_jit_auto_compile(auto_compile)
    retracing.reset()
