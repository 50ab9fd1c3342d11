"""``transpiler.explain``: the per-line report of what a traced function's code became.

Each test pins the words a user reads: the marker in the gutter (graph / python / skipped) and
the note under the line, found by the line's own text."""

from __future__ import annotations

import functools
import inspect
import os
import subprocess
import sys
import textwrap
import traceback

import numpy as np
import pytest

import runtime as rt
import transpiler
from transpiler import SourceUnavailableError

SCALE = 3.0


def _line(report, fn, text: str):
    """The report of the line of ``fn`` holding ``text``."""
    lines, first = inspect.getsourcelines(inspect.unwrap(fn))
    matches = [first + i for i, line in enumerate(lines) if text in line]
    assert len(matches) == 1, f"{text!r} is on {len(matches)} lines of {fn.__name__}"
    return report.line(matches[0])


def _notes(report, fn, text: str) -> str:
    return "\n".join(_line(report, fn, text).notes)


# -- the seed's surprise: Python side effects run once, while tracing -------------------------


def greet(x):
    print("Tracing with", x.shape)
    rt.print("Executing with", x)
    return x + 1


def test_python_print_runs_only_while_tracing_and_the_report_says_what_to_write(capsys):
    report = transpiler.explain(greet, rt.TensorSpec([2], rt.float32))
    assert "Tracing with (2,)" in capsys.readouterr().out  # explain traces, as a first call does
    line = _line(report, greet, 'print("Tracing')
    assert line.marker == "python"
    assert line.notes == [
        "print ran in Python while tracing and printed 'Tracing with (2,)'; later calls run the "
        "graph and print nothing. Use rt.print(...) to print on every call"]
    kept = _line(report, greet, "rt.print")
    assert kept.marker == "graph"
    assert any(note.startswith("effect kept: print runs on every call") for note in kept.notes)


# -- branches: decided in Python, or staged as a graph cond -----------------------------------


def branchy(x, training):
    if training:
        x = x * 0.5
    else:
        x = x * 2.0
    if rt.reduce_sum(x) > 0:
        x = x - 1.0
    y = 3 if training else 4
    return x + y


def test_a_python_condition_keeps_one_branch_and_the_other_is_marked_skipped():
    report = transpiler.explain(branchy, rt.TensorSpec([3], rt.float64), True)
    assert _notes(report, branchy, "if training:") == (
        "Python if: the condition was True while tracing, so only its body is in the graph; a "
        "Python condition is decided once per trace")
    assert _line(report, branchy, "x * 0.5").marker == "graph"
    assert _line(report, branchy, "x * 2.0").marker == "skipped"
    assert _notes(report, branchy, "3 if training").startswith(
        "Python conditional expression: the condition was True while tracing, so only the value "
        "before `if` is in the graph")


def test_a_tensor_condition_becomes_a_graph_cond_with_both_branches():
    report = transpiler.explain(branchy, rt.TensorSpec([3], rt.float64), False)
    assert _notes(report, branchy, "if rt.reduce_sum").startswith(
        "graph cond: both branches are in the graph, and the condition picks one on every call")
    inside = _line(report, branchy, "x - 1.0")
    assert inside.marker == "graph"
    assert inside.notes == ["graph: 1 op (1 subtract) and 1 constant in a cond branch"]
    assert report.control_flow(rt.ops.registry.COND) == (1, 1)


# -- loops: unrolled in Python, or one graph loop -----------------------------------------------


def loops(x, n):
    for i in range(n):
        x = x + i
    for j in rt.range(n):
        x = x * 2
    return x


def test_a_python_range_unrolls_and_a_tensor_range_is_one_graph_loop():
    report = transpiler.explain(loops, rt.TensorSpec([], rt.int64), 3)
    assert _notes(report, loops, "for i in range(n)").startswith(
        "Python for loop: unrolled while tracing, 3 iterations, adding ")
    assert "iterate over a tensor or rt.range(n) for one graph loop instead" in _notes(
        report, loops, "for i in range(n)")
    assert _notes(report, loops, "x = x + i").startswith("graph: 3 ops (3 add)")
    assert _notes(report, loops, "for j in").startswith("graph while_loop: the body is in the "
                                                       "graph once")
    assert _line(report, loops, "x = x * 2").notes == [
        "graph: 1 op (1 multiply) and 1 constant in a loop body"]
    assert "int64" in report.signature
    assert "Python while tracing: 1 loop run unrolled (3 iterations)" in str(report)


def sum_of_evens(x):
    s = rt.constant(0, rt.int64)
    for v in x:
        if v % 2 == 0:
            s += v
    return s


def test_a_loop_over_a_tensor_is_one_graph_loop_and_its_setup_ops_are_told_apart():
    report = transpiler.explain(sum_of_evens, rt.TensorSpec([None], rt.int64))
    notes = _notes(report, sum_of_evens, "for v in x")
    assert notes.startswith("graph while_loop")
    assert "of them in a loop body" in notes  # the length is read once, outside the body
    assert _line(report, sum_of_evens, "s += v").notes == ["graph: 1 op (1 add) in a cond branch"]
    assert report.control_flow(rt.ops.registry.WHILE_LOOP) == (1, 1)


def nested_python_ifs(x):
    for i in range(4):
        if i % 2 == 0:
            x = x + i
    return x


def test_a_python_if_inside_an_unrolled_loop_counts_each_decision():
    report = transpiler.explain(nested_python_ifs, rt.TensorSpec([], rt.float32))
    assert _notes(report, nested_python_ifs, "if i % 2").startswith(
        "Python if: the condition was a Python value, True 2 times and False 2 times while "
        "tracing")


def early_exit(x):
    i = rt.constant(0)
    while i < 5:
        if rt.reduce_sum(x) > 10.0:
            break
        x = x * 2.0
        i += 1
    return x


def test_conds_made_for_a_break_are_named_as_such_and_the_break_is_in_the_graph():
    report = transpiler.explain(early_exit, rt.TensorSpec([2], rt.float32))
    notes = _notes(report, early_exit, "while i < 5")
    assert "graph while_loop" in notes
    assert "carrying the break, continue or return inside" in notes
    assert _line(report, early_exit, "break").marker == "graph"


# -- what the optimizer did ----------------------------------------------------------------


def optimized(x):
    rt.sin(x) * 2.0  # nothing uses it
    a = rt.constant([1.0, 2.0]) * SCALE + 1.0
    w = x * 1.0
    return w + a


def test_folded_pruned_and_simplified_ops_are_counted_at_their_line():
    report = transpiler.explain(optimized, rt.TensorSpec([2], rt.float32))
    unused = _line(report, optimized, "rt.sin(x)")
    assert unused.marker == "python"  # nothing of it runs on a call
    assert unused.notes == ["graph: 2 ops (1 sin, 1 multiply) and 1 constant; after "
                            "optimization none run: 2 pruned as unused"]
    assert _notes(report, optimized, "* SCALE").endswith("none run: 2 folded to constants")
    assert _notes(report, optimized, "x * 1.0").endswith("none run: 1 simplified away")
    assert report.ops_traced == 6 and report.ops_kept == 1
    assert report.removed == {"pruned as unused": 2, "folded to constants": 2,
                              "simplified away": 1}
    assert report.summary()[0] == (
        "graph: 6 ops traced, 1 run on each call (2 pruned as unused, 2 folded to constants, "
        "1 simplified away)")


# -- calls, methods, and functions already decorated ------------------------------------------


def helper(v):
    return rt.exp(v) + 1.0


def calls_helper(x):
    z = helper(x) * 2.0
    return z


def test_ops_made_in_a_helper_count_at_the_calling_line_and_name_the_helper():
    report = transpiler.explain(calls_helper, rt.TensorSpec([2], rt.float32))
    notes = _notes(report, calls_helper, "helper(x) * 2.0")
    assert notes.startswith("graph: 3 ops (1 exp, 1 add, 1 multiply)")
    helper_line = inspect.getsourcelines(helper)[1] + 1
    assert f"made in helper (test_explain.py:{helper_line}): 2" in notes


class Scaler:
    def __init__(self, factor):
        self.factor = factor

    @transpiler.function
    def __call__(self, x):
        if self.factor > 1:
            x = x * self.factor
        return x


def test_a_decorated_method_is_explained_and_its_cache_left_alone():
    scaler = Scaler(2)
    report = transpiler.explain(scaler.__call__, rt.TensorSpec([2], rt.float32))
    assert _notes(report, Scaler.__call__, "if self.factor").startswith(
        "Python if: the condition was True while tracing")
    assert scaler.__call__.__func__.tracing_count == 0
    np.testing.assert_allclose(scaler(rt.constant([1.0, 2.0])).numpy(), [2.0, 4.0])


class Doubler:
    def __call__(self, x):
        return x * 2


def test_a_callable_object_and_a_partial_are_explained_through_their_functions():
    report = transpiler.explain(Doubler(), rt.TensorSpec([2], rt.float32))
    assert _notes(report, Doubler.__call__, "x * 2").startswith("graph: 1 op (1 multiply)")
    report = transpiler.explain(functools.partial(branchy, training=False),
                                rt.TensorSpec([3], rt.float64))
    assert _line(report, branchy, "x * 0.5").marker == "skipped"


def test_a_decorated_function_keeps_its_own_cache():
    decorated = transpiler.function(branchy)
    decorated(rt.constant([1.0]), True)
    transpiler.explain(decorated, rt.TensorSpec([3], rt.float64), False)
    assert decorated.tracing_count == 1


def straight(x):
    return rt.tanh(x) * 2.0


def test_rt_function_is_explained_without_conversion():
    report = transpiler.explain(rt.function(straight), rt.TensorSpec([2], rt.float64))
    assert _notes(report, straight, "return").startswith("graph: 2 ops")


# -- errors and the tracer ---------------------------------------------------------------------


def fails(x):
    y = x * 2.0
    return y + rt.ones([4])  # shapes (3,) and (4,): an error while tracing


def test_an_error_while_tracing_reaches_the_user_and_the_previous_tracer_is_restored():
    calls = []

    def outer_tracer(frame, event, arg):
        calls.append(event)
        return None

    sys.settrace(outer_tracer)
    try:
        with pytest.raises(ValueError) as raised:
            transpiler.explain(fails, rt.TensorSpec([3], rt.float32))
        assert sys.gettrace() is outer_tracer
    finally:
        sys.settrace(None)
    shown = "".join(traceback.format_exception(raised.value))
    assert f'File "{__file__}", line {inspect.getsourcelines(fails)[1] + 2}, in fails' in shown
    assert "function.py" not in shown  # eager2graph's frames below explain's are hidden


def test_a_function_without_source_gets_a_clear_error():
    namespace: dict = {}
    exec("def typed(x):\n    return x + 1\n", {"rt": rt}, namespace)
    with pytest.warns(transpiler.ConversionWarning), \
            pytest.raises(SourceUnavailableError, match="cannot read the source of"):
        transpiler.explain(namespace["typed"], rt.TensorSpec([], rt.int32))


def test_the_listing_shows_file_lines_markers_and_a_legend():
    report = transpiler.explain(branchy, rt.TensorSpec([3], rt.float64), True)
    text = str(report)
    first = inspect.getsourcelines(branchy)[1]
    assert text.splitlines()[0].startswith("explain branchy(x: ")
    assert text.splitlines()[0].endswith(f"{__file__}:{first}-{first + 8}")
    assert "graph: in the graph, runs on every call; python: ran once, while tracing" in text
    assert f"skipped {first + 4} |         x = x * 2.0" in text
    assert f"          | {'':8}  ^ Python if" not in text  # notes sit under their own line
    assert f"  graph {first + 2} |         x = x * 0.5" in text


def test_the_command_line_explains(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(textwrap.dedent("""\
        import runtime as rt

        def step(x, n):
            for _ in range(n):
                x = rt.tanh(x)
            return x
        """))
    command = [sys.executable, "-m", "transpiler", f"{path}:step", "--args", "float64[4], 2",
               "--explain"]
    result = subprocess.run(command, capture_output=True, text=True, check=True,
                            cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    assert result.stdout.startswith("explain step(x: ")
    assert "Python for loop: unrolled while tracing, 2 iterations" in result.stdout
    assert "graph: 2 ops (2 tanh)" in result.stdout
    missing = subprocess.run(command[:4] + ["--explain"], capture_output=True, text=True)
    assert missing.returncode == 2
    assert "missing a required argument: 'x'. Give the argument specs with --args" in missing.stderr
