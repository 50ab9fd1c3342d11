"""Reference samples through ``torch.export.export`` and ``torch.compile(fullgraph=True)``
(issue 26): a few samples of each kind of control flow, on all their inputs (written to take
every branch), give plain Python's values. The whole set is measured by
``python -m tests.torch_programs.reference_samples``; this subset keeps the suite fast."""

from __future__ import annotations

import warnings

import pytest

pytest.importorskip("torch")

from tests.torch_programs.reference_samples import groups, run_group  # noqa: E402

SAMPLES = (
    "samples_logical.logic_in_if_condition",  # if / elif / else on not, and, or
    "samples_logical.ternary",
    "samples_while.collatz_steps",  # an if / else inside a while
    "samples_return.return_inside_while",  # a return inside an if inside a while
    "samples_break_continue.break_and_continue",  # both in a for over a tensor-bounded range
    "samples_break_continue.while_break",
    "samples_nested.dependent_bounds",  # range(i, n) in a loop over i: the counter starts at i
)


@pytest.mark.parametrize("name", SAMPLES)
def test_sample_gives_python_values_exported_and_compiled(name):
    """Every input passes on both paths (none is known to be refused), with no warning."""
    (group,) = groups(names={name})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        results = run_group(group)
    assert [str(w.message) for w in caught] == []
    failures = {(path, args, outcome.status, outcome.detail)
                for path, outcomes in results.items()
                for args, outcome in zip(group.inputs, outcomes) if outcome.status != "pass"}
    assert failures == set()
