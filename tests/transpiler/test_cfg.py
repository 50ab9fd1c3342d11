"""Tests for transpiler.analysis.cfg: graph shape and the dataflow solver.

Nodes are named by kind and the first line of their source, e.g.
``"TEST x > 0"`` or ``"LEAVE while x > 0:"``.
"""

import ast
import textwrap

import gast

from transpiler import parsing
from transpiler.analysis import cfg
from transpiler.analysis.cfg import Kind


def build(source: str) -> cfg.Graph:
    return cfg.build(parsing.parse_source(textwrap.dedent(source)).body[0])


def label(node: cfg.Node) -> str:
    if node.kind in (Kind.ENTRY, Kind.EXIT, Kind.ARGS):
        return node.kind.name
    text = ast.unparse(gast.gast_to_ast(node.ast_node)).splitlines()[0]
    return f"{node.kind.name} {text}"


def succ(graph: cfg.Graph, name: str) -> set[str]:
    nodes = [n for n in graph.nodes if label(n) == name]
    assert len(nodes) == 1, (name, [label(n) for n in graph.nodes])
    return {label(n) for n in nodes[0].next}


def test_straight_line():
    graph = build("""
        def f(x):
            y = x
            return y
    """)
    assert [label(n) for n in graph.nodes] == [
        "ENTRY", "ARGS", "STATEMENT y = x", "STATEMENT return y", "EXIT"]
    assert all(n.prev == [p] for p, n in zip(graph.nodes, graph.nodes[1:]))


def test_if_elif_else_branches_join_at_leave():
    graph = build("""
        def f(x):
            if x > 0:
                y = 1
            elif x < 0:
                y = 2
            else:
                y = 3
            return y
    """)
    assert succ(graph, "TEST x > 0") == {"STATEMENT y = 1", "ENTER if x < 0:"}
    assert succ(graph, "TEST x < 0") == {"STATEMENT y = 2", "STATEMENT y = 3"}
    assert succ(graph, "LEAVE if x < 0:") == {"LEAVE if x > 0:"}
    assert succ(graph, "STATEMENT y = 1") == {"LEAVE if x > 0:"}
    stmt = graph.fn_node.body[0]
    assert [label(n) for n in graph.entries_of(stmt)] == ["ENTER if x > 0:"]
    assert [label(n) for n in graph.exits_of(stmt)] == ["LEAVE if x > 0:"]


def test_if_without_else_falls_through_from_test():
    graph = build("""
        def f(x):
            if x:
                x = 1
    """)
    assert succ(graph, "TEST x") == {"STATEMENT x = 1", "LEAVE if x:"}


def test_while_break_continue_and_else():
    graph = build("""
        def f(x):
            while x > 0:
                if x == 5:
                    break
                if x == 3:
                    continue
                x -= 1
            else:
                x = 9
            return x
    """)
    assert succ(graph, "TEST x > 0") == {"ENTER if x == 5:", "STATEMENT x = 9"}
    assert succ(graph, "STATEMENT break") == {"LEAVE while x > 0:"}
    assert succ(graph, "STATEMENT continue") == {"TEST x > 0"}
    assert succ(graph, "STATEMENT x -= 1") == {"TEST x > 0"}
    assert succ(graph, "STATEMENT x = 9") == {"LEAVE while x > 0:"}  # else: normal exit only.
    assert succ(graph, "ENTER while x > 0:") == {"TEST x > 0"}


def test_while_true_leaves_only_by_break():
    graph = build("""
        def f(x):
            while True:
                if x:
                    break
            return x
    """)
    assert succ(graph, "TEST True") == {"ENTER if x:"}
    leave = [n for n in graph.nodes if label(n) == "LEAVE while True:"][0]
    assert {label(p) for p in leave.prev} == {"STATEMENT break"}


def test_for_has_iter_head_target_and_else_on_normal_exit():
    graph = build("""
        def f(xs):
            for x in xs:
                if x:
                    break
            else:
                x = 0
            return x
    """)
    assert succ(graph, "ENTER for x in xs:") == {"ITER xs"}
    assert succ(graph, "ITER xs") == {"FOR_HEAD for x in xs:"}
    assert succ(graph, "FOR_HEAD for x in xs:") == {"TARGET x", "STATEMENT x = 0"}
    assert succ(graph, "LEAVE if x:") == {"FOR_HEAD for x in xs:"}
    assert succ(graph, "STATEMENT break") == {"LEAVE for x in xs:"}


def test_nested_loops_continue_and_break_target_the_inner_loop():
    graph = build("""
        def f(a, b):
            for i in a:
                for j in b:
                    if j:
                        continue
                    break
                i = 0
    """)
    assert succ(graph, "STATEMENT continue") == {"FOR_HEAD for j in b:"}
    assert succ(graph, "STATEMENT break") == {"LEAVE for j in b:"}
    assert succ(graph, "LEAVE for j in b:") == {"STATEMENT i = 0"}
    assert succ(graph, "STATEMENT i = 0") == {"FOR_HEAD for i in a:"}


def test_return_inside_loop_goes_to_exit():
    graph = build("""
        def f(xs):
            for x in xs:
                return x
            return None
    """)
    assert succ(graph, "STATEMENT return x") == {"EXIT"}


def test_try_except_else():
    graph = build("""
        def f(x):
            try:
                y = g(x)
            except ValueError as e:
                y = e
            else:
                y = y + 1
            return y
    """)
    handler = "HANDLER except ValueError as e:"
    raisers = {label(p) for n in graph.nodes if label(n) == handler for p in n.prev}
    assert raisers == {"ENTER try:", "STATEMENT y = g(x)"}
    assert succ(graph, handler) == {"STATEMENT y = e"}
    assert succ(graph, "STATEMENT y = e") == {"HANDLER_END except ValueError as e:"}
    assert succ(graph, "STATEMENT y = g(x)") == {"STATEMENT y = y + 1", handler}
    assert succ(graph, "STATEMENT y = y + 1") == {"LEAVE try:"}  # Not caught by the handler.


def test_finally_is_built_for_exceptions_and_for_normal_flow():
    graph = build("""
        def f(xs):
            for x in xs:
                try:
                    if x:
                        return x
                    y = g(x)
                finally:
                    cleanup()
            return None
    """)
    stmt = graph.fn_node.body[0].body[0].finalbody[0]
    exceptional, normal = graph.entries_of(stmt)
    assert {label(p) for p in exceptional.prev} >= {"ENTER try:", "STATEMENT y = g(x)"}
    assert {label(p) for p in normal.prev} == {"STATEMENT return x", "STATEMENT y = g(x)"}
    # After the normal copy: the pending return, and the normal completion.
    assert {label(n) for n in normal.next} == {"EXIT", "LEAVE try:"}
    assert {label(n) for n in exceptional.next} == {"EXIT"}  # Re-raise leaves the function.


def test_break_through_finally_reaches_loop_exit():
    graph = build("""
        def f(x):
            while x:
                try:
                    break
                finally:
                    x = 0
            return x
    """)
    stmt = graph.fn_node.body[0].body[0].finalbody[0]
    _, normal = graph.entries_of(stmt)
    assert [label(n) for n in normal.next] == ["LEAVE while x:"]
    assert [label(p) for p in normal.prev] == ["STATEMENT break"]


def test_raise_goes_to_handler_or_exit():
    graph = build("""
        def f(x):
            try:
                raise ValueError(x)
            except ValueError:
                pass
            raise KeyError(x)
    """)
    assert succ(graph, "STATEMENT raise ValueError(x)") == {"HANDLER except ValueError:"}
    assert succ(graph, "STATEMENT raise KeyError(x)") == {"EXIT"}


def test_with_items_precede_the_body():
    graph = build("""
        def f(a, b):
            with a as x, b:
                y = x
    """)
    assert succ(graph, "ENTER with a as x, b:") == {"WITH_ITEM a as x"}
    assert succ(graph, "WITH_ITEM a as x") == {"WITH_ITEM b"}
    assert succ(graph, "WITH_ITEM b") == {"STATEMENT y = x"}


def test_nested_function_is_one_opaque_statement():
    graph = build("""
        def f(x):
            def g(y):
                if y:
                    return y
            return g
    """)
    assert [label(n) for n in graph.nodes] == [
        "ENTRY", "ARGS", "STATEMENT def g(y):", "STATEMENT return g", "EXIT"]
    assert len(list(graph.statements())) == 2


def test_lambda_graph():
    fn = parsing.parse_source("f = lambda x: x + 1").body[0].value
    graph = cfg.build(fn)
    assert [label(n) for n in graph.nodes] == ["ENTRY", "ARGS", "EXPRESSION x + 1", "EXIT"]


def test_match_cases_fall_through_on_failure():
    graph = build("""
        def f(p):
            match p:
                case [x] if x:
                    y = x
                case _:
                    y = 0
            return y
    """)
    # A failed pattern may have bound some names: the next case starts from the
    # state before it (the subject), or after the failed guard.
    assert succ(graph, "EXPRESSION p") == {"PATTERN case [x] if x:", "PATTERN case _:"}
    assert succ(graph, "TEST x") == {"STATEMENT y = x", "PATTERN case _:"}
    leave = [n for n in graph.nodes if label(n) == "LEAVE match p:"][0]
    assert {label(p) for p in leave.prev} == {"STATEMENT y = x", "STATEMENT y = 0"}  # `_`: no miss.


def test_solver_forward_and_backward_reachability():
    graph = build("""
        def f(x):
            while x:
                x -= 1
            return x
            dead = 1
    """)

    def collect(node, state):
        return state | {node.kind.name}

    def union(states):
        return frozenset().union(*states)

    forward = cfg.solve(graph, forward=True, transfer=collect, join=union,
                        initial=frozenset(), boundary=frozenset())
    dead = [n for n in graph.nodes if label(n) == "STATEMENT dead = 1"][0]
    assert forward.before[dead] == frozenset()  # Unreachable: nothing flows in.
    assert forward.before[graph.exit] >= {"ENTRY", "TEST", "LEAVE", "STATEMENT"}
    backward = cfg.solve(graph, forward=False, transfer=collect, join=union,
                         initial=frozenset(), boundary=frozenset({"END"}))
    test = [n for n in graph.nodes if n.kind is Kind.TEST][0]
    assert backward.after[test] == {"END", "EXIT", "STATEMENT", "LEAVE", "TEST"}
