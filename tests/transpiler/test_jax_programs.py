"""The JAX corpus (``tests/jax_programs``): functions written the way JAX users write them, run
as plain Python on concrete arrays and as ``jax.jit(convert(f))`` (``jax.jit(jax.grad(...))`` and
``jax.jit(jax.vmap(...))`` for those meant for a transform). A converted result is never a
wrong value; the functions that raise where Python gives a value are exactly ``KNOWN_FAILURES``.
The test runs every other program of each kind and every known failure;
``python -m tests.jax_programs.measure`` runs them all and prints the figures and each failure's
first line."""

from __future__ import annotations

import pytest

pytest.importorskip("jax")

from tests import jax_programs  # noqa: E402

# name -> why the converted function raises under jax.jit (every other input of every other
# program gives plain Python's value)
KNOWN_FAILURES = {
    "conditionals.threshold_then_maybe_defined":
        "a variable assigned in one branch of a traced if only (Python: UnboundLocalError on the "
        "other path; here refused even on the path that assigns it)",
    "while_loops.while_else_search": "a variable assigned in a while loop's else clause and "
                                     "before its break: refused as undefined in a branch",
    "for_loops.squares_stacked": "list appended in range(traced n), stacked: no static bound",
    "for_loops.powers_summed": "list appended in range(traced n), stacked: no static bound",
    "containers.positives_list": "list appended under a traced if, made an array",
    "containers.history_traced_steps": "list appended in range(traced n): no static bound",
    "containers.pairs_of_lists": "tuples appended to a list in a traced loop",
    "containers.tokens_until_stop": "len() of a list appended in a loop with break",
    "containers.nested_output": "lists appended under a traced if",
    "idioms.count_positive_generator": "sum() of a generator with a traced condition",
    "idioms.prime_by_for_else": "a variable assigned before a break and in a for loop's "
                                "else clause: refused as undefined in a branch",
    "idioms.mixed_increment": "1 if v > 0 else 0.5: an int and a float from a traced ternary",
    "transforms.grow_until": "unbounded while under jax.grad",
    "transforms.power_traced_n": "range(traced n) under jax.grad",
}

_RESULTS: dict[str, dict[str, list[jax_programs.Outcome]]] = {}


def _results(kind: str) -> dict[str, list[jax_programs.Outcome]]:
    if kind not in _RESULTS:
        names = [n for n in jax_programs.programs() if n.startswith(kind + ".")]
        # Every other program, and every known failure, to keep the suite's time: the measure
        # script runs them all.
        names = [n for i, n in enumerate(names) if i % 2 == 0 or n in KNOWN_FAILURES]
        _RESULTS[kind] = jax_programs.run_all(names)
    return _RESULTS[kind]


@pytest.mark.parametrize("kind", jax_programs.KINDS)
def test_no_wrong_values_and_only_the_known_failures(kind):
    results = _results(kind)
    wrong = [f"{name}[{o.index}]: {o.detail}" for name, outcomes in results.items()
             for o in outcomes if o.status == "wrong"]
    assert wrong == []
    failing = {name: [f"[{o.index}] {o.detail}" for o in outcomes if o.status == "error"]
               for name, outcomes in results.items()}
    failing = {name: lines for name, lines in failing.items() if lines}
    known = {name for name in KNOWN_FAILURES if name.startswith(kind + ".")}
    assert {name: failing[name] for name in set(failing) - known} == {}, "new failures"
    assert sorted(known - set(failing)) == [], "these run now: take them out of KNOWN_FAILURES"


def test_known_failures_name_programs_of_the_corpus():
    assert set(KNOWN_FAILURES) <= set(jax_programs.programs())
    assert len(jax_programs.programs()) >= 100
