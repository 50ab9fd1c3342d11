"""The first call's leaner path: the graph as traced is recorded, not copied, before the
passes, and ``ConcreteFunction.unoptimized_graph`` rebuilds it on first use, identical to a
copy taken before the passes (printed text, ids, types, captures, behaviour)."""

import sys
import textwrap
import threading

import numpy as np
from hypothesis import HealthCheck, given, settings

import runtime as rt
from runtime.graph import Graph
from tests.runtime.graph_helpers import (INPUTS, PROGRAMS, assert_identical, assert_same_behaviour,
                                         random_program, run_graph)
from transpiler import cli

_function_module = sys.modules["runtime.function"]
F32 = rt.TensorSpec([3], rt.float32)


def _with_copies_before_the_passes(monkeypatch) -> list:
    """Makes every trace also keep ``graph.copy()`` from just before the passes, the way the
    unoptimized graph used to be kept; returns the list they are appended to."""
    copies, optimize = [], _function_module.optimize

    def copy_then_optimize(graph, *args, **kwargs):
        copies.append(graph.copy())
        return optimize(graph, *args, **kwargs)
    monkeypatch.setattr(_function_module, "optimize", copy_then_optimize)
    return copies


def _assert_same_graph(rebuilt: Graph, copy: Graph) -> None:
    rebuilt.lint()
    assert str(rebuilt) == str(copy)
    for mine, theirs in zip(_all_nodes(rebuilt), _all_nodes(copy), strict=True):
        assert (mine.id, mine.op, mine.label, mine.location) == \
            (theirs.id, theirs.op, theirs.label, theirs.location)
        assert [(v.dtype, v.shape, v.weak) for v in mine.outputs] == \
            [(v.dtype, v.shape, v.weak) for v in theirs.outputs]
        assert [c.id for c in mine.control_inputs] == [c.id for c in theirs.control_inputs]
        assert mine.attrs.keys() == theirs.attrs.keys()


def _all_nodes(graph: Graph):
    for node in graph.nodes:
        yield node
        for sub in node.subgraphs.values():
            assert sub.parent is graph
            yield from (v.node for v in sub.inputs)
            yield from _all_nodes(sub)


def test_tracing_copies_no_graph(monkeypatch):
    def refuse(self, *args, **kwargs):
        raise AssertionError("a graph was copied")
    monkeypatch.setattr(Graph, "copy", refuse)
    concrete = rt.function(lambda x: -(-x) * 1.0 + 0.0).get_concrete_function(F32)
    assert [n.op.name for n in concrete.unoptimized_graph.nodes].count("negative") == 2
    assert concrete.unoptimized_graph is concrete.unoptimized_graph  # rebuilt once
    assert "negative" not in str(concrete.graph)


def test_the_rebuilt_graph_is_the_graph_as_traced(monkeypatch):
    copies = _with_copies_before_the_passes(monkeypatch)
    v = rt.Variable(np.float32(2.0))
    outside = rt.constant(np.arange(3, dtype=np.float32))

    def f(x, n):
        unused = rt.exp(x)  # pruned  # noqa: F841
        y = rt.cond(rt.reduce_sum(x) > 0, lambda: x * 2.0 + outside, lambda: x - v.read_value())
        i, y = rt.while_loop(lambda i, y: i < n, lambda i, y: (i + 1, y * 1.0 + rt.sin(y)), (0, y))
        v.assign_add(rt.reduce_sum(y))
        rt.print("y", y)
        return y + (1.0 - 1.0), i * 1

    concrete = rt.function(f).get_concrete_function(F32, rt.TensorSpec([], rt.int32))
    assert str(concrete.graph) != str(copies[0])  # the passes did change it
    _assert_same_graph(concrete.unoptimized_graph, copies[0])
    x = np.array([0.5, -1.0, 2.0], np.float32)
    assert_identical(run_graph(concrete.unoptimized_graph, x, np.int32(3)),
                     run_graph(copies[0], x, np.int32(3)))


def test_the_rebuilt_graph_is_independent_of_the_optimized_one(monkeypatch):
    copies = _with_copies_before_the_passes(monkeypatch)
    concrete = rt.function(lambda x: rt.exp(x) + rt.exp(x)).get_concrete_function(F32)
    rebuilt = concrete.unoptimized_graph
    assert not {id(n) for n in rebuilt.nodes} & {id(n) for n in concrete.graph.nodes}
    assert all(n.graph is rebuilt for n in rebuilt.nodes)
    rebuilt.nodes.clear()  # changing it changes neither the optimized graph nor the function
    x = np.ones(3, np.float32)
    assert_identical([concrete(x).numpy()], run_graph(copies[0], x))


def test_threads_asking_at_once_get_one_rebuilt_graph():
    concrete = rt.function(lambda x: rt.exp(x) * 2.0).get_concrete_function(F32)
    seen, start = [], threading.Barrier(4)

    def read():
        start.wait()
        traced = concrete.unoptimized_graph
        seen.append((traced, str(traced)))
    threads = [threading.Thread(target=read) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({id(graph) for graph, _ in seen}) == 1
    assert len({text for _, text in seen}) == 1


SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


@SETTINGS
@given(PROGRAMS)
def test_random_programs_rebuild_the_graph_as_traced(monkeypatch, program):
    copies = _with_copies_before_the_passes(monkeypatch)
    dtype_name, steps = program
    program = random_program(dtype_name, steps)
    concrete = program.trace()
    _assert_same_graph(concrete.unoptimized_graph, copies[-1])
    for x in INPUTS[dtype_name][:2]:
        assert_same_behaviour(
            program.observe(lambda *a: run_graph(concrete.unoptimized_graph, *a), x, 2),
            program.observe(lambda *a: run_graph(copies[-1], *a), x, 2))


def test_the_cli_prints_the_graph_as_traced(tmp_path, capsys):
    path = tmp_path / "sample.py"
    path.write_text(textwrap.dedent("""\
        import runtime as rt

        def f(x):
            return -(-x) + rt.exp(x) * 0.0
        """), encoding="utf-8")
    assert cli.main([f"{path}:f", "--args", "f32[3]", "--unoptimized"]) == 0
    traced = capsys.readouterr().out
    assert cli.main([f"{path}:f", "--args", "f32[3]", "--graph"]) == 0
    optimized = capsys.readouterr().out
    assert traced.count("negative") == 2 and "negative" not in optimized
