"""Fixtures every test shares: a clean global runtime state around each test."""

import pytest

import runtime as rt
from runtime import retracing


@pytest.fixture(autouse=True)
def clean_runtime_state():
    """Retracing history and the eager switch are global; no test may leak them to another."""
    retracing.reset()
    rt.config.run_functions_eagerly(False)
    yield
    rt.config.run_functions_eagerly(False)
    retracing.reset()
