"""PyTorch programs written as PyTorch users write them (``tests/torch_programs``), converted,
then exported (``torch.export.export`` of a module calling them, ``.module()`` run on every
input) and compiled (``torch.compile(..., fullgraph=True, backend="aot_eager")``): each input
gives what the unconverted program gives eagerly, or raises where it raises (issue 26).

A wrong value (a result that differs from Python's, or a result where Python raised) always
fails. A program that fails with an error on some input is listed in ``KNOWN_FAILURES`` with
the reason; the set of failing programs must be exactly that list, so a fix shows up as an
unexpected pass (remove the entry) and a regression as a new failure.

For time, this test runs a representative subset (``IN_TEST``) of the corpus;
``python -m tests.torch_programs.measure`` runs all of it and prints the figures.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from tests import torch_programs  # noqa: E402

PROGRAMS = torch_programs.programs()

# Programs that fail with an error (never a wrong value) on some input of some path, and why
# (the whole corpus measured after 6354647, the numerics kind included).
KNOWN_FAILURES = {
    "algorithms.sieve_count":
        "compile, a second n only: n made dynamic stages `while i * i < n`, and "
        "`is_p[i * i::i] = False` then slices with a step known only when the program runs "
        "(GuardOnDataDependentSymNode)",
    "conditionals.bool_mask_count": "export+compile: branches return different strings",
    "conditionals.size_word": "export+compile: branches return different strings",
    "for_loops.powers_list":
        "export+compile: a list appended to in a loop over range(traced n): NotImplementedError",
    "for_loops.sum_first_n":
        "export+compile, zero iterations only: total = 0 becomes a float tensor in the loop; "
        "the program's run fails naming it (Python keeps the int 0)",
    "numbers.sum_of_positives_generator":
        "export+compile: a generator expression's if on a traced value (comprehensions are "
        "not converted)",
    "while_loops.while_else_search":
        "export+compile: found = i before a break in an unrolled loop: each staged if that "
        "leaves it unassigned fails when the program takes it, though the else clause assigns "
        "it before it is read",
}

# The programs this test runs (the others only in measure.py): every kind of construct, and
# every cause of failure, at most about 40 s on a loaded 2-core machine.
IN_TEST = (
    "conditionals.inplace_method_branch", "conditionals.scalar_item_branch",
    "conditionals.defined_in_one_branch", "conditionals.bool_mask_count",
    "conditionals.flag_offset", "conditionals.int32_matrix", "conditionals.return_python_bool",
    "conditionals.compare_two_tensors", "conditionals.stats_dict", "conditionals.optional_bias",
    "conditionals.inplace_branch", "conditionals.slice_bound_from_outside",
    "while_loops.gcd", "while_loops.halve_item", "while_loops.fibonacci_above",
    "while_loops.tensor_counter", "while_loops.while_else_search", "while_loops.gradient_descent",
    "while_loops.digit_sum",
    "for_loops.powers_list", "for_loops.scaled_rows_stack", "for_loops.topk_by_loop",
    "for_loops.range_of_item", "for_loops.rnn_cell_loop", "for_loops.last_scaled",
    "for_loops.range_of_int", "for_loops.fix_negatives_inplace",
    "numbers.any_row_positive", "numbers.floor_of_float", "numbers.sum_of_positives_generator",
    "numbers.divmod_steps", "numbers.item_double_if_positive", "numbers.len_loop_counter",
    "numbers.rounded_mean", "numbers.tuple_of_python_results",
    "modules.ThresholdClamp", "modules.ClippedUpdate", "modules.RepeatedLayer",
    "modules.WeightSignBranch",
    "algorithms.staircase_integer_ops", "algorithms.kth_smallest", "algorithms.kmeans_1d",
    "algorithms.extended_gcd",
    "numerics.divide_steps", "numerics.clamp_python_scalars",
    "numerics.min_of_sum_and_const", "numerics.early_stop_training",
)


def _outcomes(kind: str):
    chosen = [p for name, p in PROGRAMS.items() if name in IN_TEST and name.startswith(kind + ".")]
    wrong, failing = [], {}
    for program in chosen:
        for path, outcomes in torch_programs.run_program(program).items():
            for index, outcome in enumerate(outcomes):
                if outcome.status == "wrong":
                    wrong.append(f"{program.name} [{path}] input #{index}: {outcome.detail}")
                elif outcome.status == "error":
                    failing.setdefault(program.name, f"[{path}] input #{index}: "
                                                     f"{outcome.detail}")
    return {p.name for p in chosen}, wrong, failing


@pytest.mark.parametrize("kind", torch_programs.KINDS)
def test_programs_give_pythons_values_when_exported_and_compiled(kind):
    names, wrong, failing = _outcomes(kind)
    assert not wrong, "WRONG VALUES:\n" + "\n".join(wrong)
    known = {name for name in KNOWN_FAILURES if name in names}
    new = {name: failing[name] for name in sorted(set(failing) - known)}
    fixed = sorted(known - set(failing))
    assert not new and not fixed, (
        "\n".join(f"fails now: {name}: {detail}" for name, detail in new.items()) +
        "".join(f"\npasses now (remove it from KNOWN_FAILURES): {name}" for name in fixed))


def test_the_lists_name_programs_of_the_corpus():
    assert set(KNOWN_FAILURES) <= set(PROGRAMS), set(KNOWN_FAILURES) - set(PROGRAMS)
    assert set(IN_TEST) <= set(PROGRAMS), set(IN_TEST) - set(PROGRAMS)
    assert len(set(IN_TEST)) == len(IN_TEST)
