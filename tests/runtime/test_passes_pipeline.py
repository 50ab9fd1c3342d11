"""The pipeline: order, fixed point, records of what changed, and the graph kept from before
the passes (``Graph.copy``)."""

import numpy as np
import pytest

import runtime as rt
from runtime.passes import PassRecord, optimize, pipeline
from tests.runtime.graph_helpers import all_ops, assert_identical, ops, run_graph, traced

F32 = rt.TensorSpec([2], rt.float32)


def test_the_passes_run_in_the_documented_order():
    assert [name for name, _ in pipeline.PASSES] == [
        "prune", "constant folding", "simplify", "cse", "inline cond", "dead loops", "prune"]


def test_rounds_repeat_until_nothing_changes():
    def f(x):
        c = rt.identity(rt.constant(3.0))
        # Round 1 inlines the branch; only then can its arithmetic on c be folded (round 2).
        return x + rt.cond(rt.identity(rt.constant(True)), lambda: c * 2.0, lambda: c)
    concrete = traced(f, F32)
    assert ops(concrete.graph) == ["add"]
    assert ("constant folding", 2) in [(r.name, r.round) for r in concrete.pass_records]
    assert optimize(concrete.graph) == []  # a fixed point
    np.testing.assert_array_equal(concrete(np.zeros(2, np.float32)).numpy(), [6.0, 6.0])


def test_the_passes_stop_once_each_has_run_since_the_last_change(monkeypatch):
    runs: list[tuple[str, bool]] = []  # (pass, whether it changed the graph)

    def counting(name, run):
        def counted(graph):
            changes = run(graph)
            runs.append((name, bool(changes)))
            return changes
        return counted
    monkeypatch.setattr(pipeline, "PASSES", tuple((name, counting(name, run))
                                                  for name, run in pipeline.PASSES))
    monkeypatch.setattr(pipeline, "ONCE", ())
    graph = traced(lambda x: rt.exp(x) * 1.0 + rt.exp(x), F32).unoptimized_graph.copy()
    assert optimize(graph)
    last_change = max(i for i, (_, changed) in enumerate(runs) if changed)
    after = [name for name, _ in runs[last_change + 1:]]
    # After the last change (prune's, in round 1), a pass runs once more only if a change
    # since its last run could give it something to do (pipeline.ENABLES), and then the
    # pipeline stops, not at the end of a whole round that only confirms. Constant folding
    # ran before simplify changed the graph; dead loops looks at what prune may remove. The
    # others count as run: cse and prune enable nothing else, and passes do all they can
    # in one walk.
    assert runs[last_change][0] == "prune"
    assert after == ["constant folding", "dead loops"]
    assert optimize(graph) == []


def test_a_pass_that_cannot_find_anything_is_skipped_and_checked_with_check(monkeypatch):
    """A graph only cse changed has nothing left for constant folding, simplify or cse:
    round 2 runs none of them; with ``check`` they run, and must change nothing."""
    runs: list[str] = []

    def counting(name, run):
        def counted(graph):
            runs.append(name)
            return run(graph)
        return counted
    monkeypatch.setattr(pipeline, "PASSES", tuple((name, counting(name, run))
                                                  for name, run in pipeline.PASSES))
    monkeypatch.setattr(pipeline, "ONCE", ())
    concrete = traced(lambda x: rt.exp(x) + rt.exp(x), F32)
    graph = concrete.unoptimized_graph.copy()
    runs.clear()
    records = optimize(graph)
    assert [(r.round, r.name) for r in records] == [(1, "cse")]
    assert runs == ["prune", "constant folding", "simplify", "cse", "inline cond", "dead loops"]
    runs.clear()
    checked = concrete.unoptimized_graph.copy()
    assert [str(r) for r in optimize(checked, check=True)] == [str(r) for r in records]
    assert runs.count("constant folding") == 2 and runs.count("cse") == 2


def test_a_pass_finding_something_it_was_said_not_to_is_an_error_with_check(monkeypatch):
    # Wrong: simplify's integer x * 0 -> zeros gives constant folding zeros + 1.
    monkeypatch.setitem(pipeline.ENABLES, "simplify", frozenset())
    graph = traced(lambda x: x * 0 + 1, rt.TensorSpec([2], rt.int32)).unoptimized_graph.copy()
    with pytest.raises(AssertionError, match="changed a graph it was known to leave as it is"):
        optimize(graph, check=True)
    monkeypatch.undo()
    records = optimize(traced(lambda x: x * 0 + 1, rt.TensorSpec([2], rt.int32))
                       .unoptimized_graph.copy(), check=True)
    assert [(r.round, r.name) for r in records][:3] == [(1, "simplify"), (1, "prune"),
                                                        (2, "constant folding")]


def test_records_say_what_each_pass_changed():
    concrete = traced(lambda x: rt.exp(x) * 1.0 + rt.exp(x), F32)
    records = {r.name: r for r in concrete.pass_records}
    assert set(records) == {"simplify", "cse", "prune"}
    (simplified,) = records["simplify"].changes
    assert simplified.startswith("multiply %") and simplified.endswith(": multiply by 1 removed")
    assert "exp" in str(records["cse"]) and "the same as" in str(records["cse"])
    assert isinstance(records["cse"], PassRecord) and records["cse"].round == 1


def test_every_pass_leaves_a_well_formed_graph():
    def f(x):
        rt.print("start")
        y = rt.cond(rt.identity(rt.constant(True)), lambda: (rt.print("in"), x * 1.0)[1], lambda: x)
        z = rt.while_loop(lambda i, v: i < 0, lambda i, v: (i + 1, (rt.print("loop"), v)[1]),
                          (rt.identity(rt.constant(3)), y))[1]
        rt.print("end")
        return z + z
    graph = traced(f, F32).unoptimized_graph.copy()
    records = optimize(graph, check=True)
    assert {"inline cond", "dead loops"} <= {r.name for r in records}


def test_the_graph_before_the_passes_is_kept_printable_and_runnable():
    concrete = traced(lambda x: x * 1.0 + rt.identity(rt.constant(2.0)) * 3.0, F32)
    before, after = str(concrete.unoptimized_graph), str(concrete.graph)
    assert "multiply" in before and "multiply" not in after
    x = np.array([1.0, -0.0], np.float32)
    assert_identical(run_graph(concrete.unoptimized_graph, x), [concrete(x).numpy()])


def test_a_copy_shares_no_value_or_node_with_the_original():
    v = rt.Variable(rt.constant([1.0, 1.0]))

    def f(x):
        rt.print("a")
        v.assign(x)
        return rt.cond(rt.reduce_sum(x) > 0, lambda: x * 2.0, lambda: x + v.value())
    original = traced(f, F32).unoptimized_graph
    copy = original.copy()
    copy.lint()
    assert str(copy) == str(original)
    old_values = {id(v) for node in original.walk() for v in node.outputs + node.inputs}
    assert not old_values & {id(v) for node in copy.walk() for v in node.outputs + node.inputs}
    assert [n.id for n in copy.walk()] == [n.id for n in original.walk()]
    copied_nodes = {id(n) for n in copy.nodes}
    assert all(id(c) in copied_nodes for n in copy.nodes for c in n.control_inputs)
    assert sum(len(n.control_inputs) for n in copy.nodes) == \
        sum(len(n.control_inputs) for n in original.nodes)
    cond = next(n for n in copy.nodes if n.op.name == "cond")
    for sub in cond.subgraphs.values():
        assert sub.parent is copy
        assert [outer for outer, _ in sub.captures] == cond.inputs[1:]
    assert all_ops(copy) == all_ops(original)
