"""Every (sample, input) pair: plain Python vs. convert() vs. function(); ids like
``samples_if.sign[3]``. Run with ``E2G_REFERENCE_STUB=1`` to check the samples alone."""

from __future__ import annotations

import importlib
from types import ModuleType

import pytest

from . import harness
from .known_gaps import KNOWN_GAPS, REASONS, gap_for

SAMPLE_MODULES = (
    "samples_if",
    "samples_while",
    "samples_for",
    "samples_break_continue",
    "samples_return",
    "samples_logical",
    "samples_calls",
    "samples_nested",
    "samples_print",
    "samples_misc",
    "samples_tensor_ops",
    "samples_wide",
    "samples_state",
    "samples_semantics",
    "samples_collections",
)


def _import_samples(name: str) -> tuple[ModuleType | None, str | None]:
    """The sample module, or the reason it cannot be used yet."""
    try:
        module = importlib.import_module(f"{__package__}.{name}")
    except ImportError as error:
        return None, f"{name} cannot be imported: {error}"
    if getattr(module, "REQUIRES_RUNTIME", False):
        import runtime

        if not hasattr(runtime, "constant"):
            return module, f"{name} needs the runtime's ops (runtime.constant is missing)"
    return module, None


def _params() -> list:
    params = []
    for name in SAMPLE_MODULES:
        module, skip_reason = _import_samples(name)
        if module is None:
            params.append(pytest.param(None, None, id=name,
                                       marks=pytest.mark.skip(reason=skip_reason)))
            continue
        marks = [pytest.mark.skip(reason=skip_reason)] if skip_reason else []
        for sample in module.CASES:
            for args in sample.inputs:
                case_id = f"{sample.name}[{harness.input_id(args)}]"
                gap = gap_for(case_id)
                case_marks = marks + ([pytest.mark.xfail(strict=True, reason=REASONS[gap])]
                                      if gap and not harness.STUB else [])
                params.append(pytest.param(sample, args, marks=case_marks, id=case_id))
    return params


PARAMS = _params()


def test_transpiler_is_importable():
    """One clear failure instead of hundreds when the transpiler cannot be imported."""
    error = harness.api_error()
    if error:
        pytest.fail(error, pytrace=False)


@pytest.mark.parametrize("sample, args", PARAMS)
def test_matches_python(sample: harness.Case, args: tuple) -> None:
    error = harness.api_error()
    if error:
        pytest.skip("see test_transpiler_is_importable")
    sample.check(args)


def test_every_known_gap_names_a_case():
    """A stale entry in known_gaps (a renamed case, a typo) would silently mark nothing."""
    ids = [p.id for p in PARAMS]
    for key, reason in KNOWN_GAPS.items():
        assert reason in REASONS, (key, reason)
        if key.endswith("[*"):
            assert any(i.startswith(key[:-1]) for i in ids), key
        else:
            assert key in ids, key


def test_enough_samples():
    """The suite is meant to stay broad: at least 150 distinct sample functions."""
    functions = {(p.values[0].fn.__module__, p.values[0].fn.__name__)
                 for p in PARAMS if p.values[0] is not None}
    assert len(functions) >= 150, len(functions)
