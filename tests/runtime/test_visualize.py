"""DOT pictures of graphs: parsed back and checked for structure, not just non-empty."""

import re
import shutil

import numpy as np
import pytest

import runtime as rt
from transpiler import function

NODE = re.compile(r'^\s*(\w+) \[(.*)\];$')
EDGE = re.compile(r'^\s*(\w+) -> (\w+)(?: \[(.*)\])?;$')
CLUSTER = re.compile(r'^\s*subgraph (cluster_\d+) \{$')


def parse_dot(text: str) -> dict:
    """Nodes (id -> attribute text), edges, and the node ids inside each cluster."""
    nodes, edges, clusters, open_clusters = {}, [], {}, []
    lines = text.strip().splitlines()
    assert lines[0].startswith("digraph ") and lines[-1] == "}"
    for line in lines[1:-1]:
        if CLUSTER.match(line):
            open_clusters.append(CLUSTER.match(line).group(1))
            clusters[open_clusters[-1]] = set()
        elif line.strip() == "}":
            open_clusters.pop()
        elif EDGE.match(line):
            a, b, attrs = EDGE.match(line).groups()
            edges.append((a, b, attrs or ""))
        elif NODE.match(line):
            node_id, attrs = NODE.match(line).groups()
            nodes[node_id] = attrs
            for name in open_clusters:
                clusters[name].add(node_id)
    assert not open_clusters, "unbalanced braces"
    return {"nodes": nodes, "edges": edges, "clusters": clusters}


def loop_and_print(x, n):
    i = 0
    while i < n:
        x = x * 2.0
        i += 1
    if rt.reduce_sum(x) > 3.0:
        rt.print(x)
    return x + rt.constant(np.ones(2, np.float32))


@pytest.fixture(scope="module")
def concrete():
    return function(loop_and_print).get_concrete_function(rt.TensorSpec([2], rt.float32),
                                                          rt.TensorSpec([], rt.int32))


def test_every_edge_joins_declared_nodes_and_ops_carry_types(concrete):
    dot = parse_dot(rt.visualize.to_dot(concrete))
    for a, b, _ in dot["edges"]:
        assert a in dot["nodes"] and b in dot["nodes"]
    labels = " ".join(dot["nodes"].values())
    assert 'label="while_loop\\nf32[2], i32[]"' in labels
    assert 'label="%x\\nf32[2]"' in labels


def test_control_flow_bodies_are_clusters_fed_from_the_node_inputs(concrete):
    dot = parse_dot(rt.visualize.to_dot(concrete))
    assert len(dot["clusters"]) == 4  # while: cond, body; cond: then, else
    loop_id = next(i for i, attrs in dot["nodes"].items() if 'label="while_loop' in attrs)
    feeding = [(a, b) for a, b, attrs in dot["edges"] if "dotted" in attrs]
    inside = set().union(*dot["clusters"].values())
    assert feeding and all(b in inside for _, b in feeding)
    x_id = next(i for i, attrs in dot["nodes"].items() if 'label="%x\\nf32[2]"' in attrs)
    assert any(a == x_id for a, _ in feeding)  # %x feeds the loop's parameters
    assert loop_id not in inside


def test_effects_and_constants_are_styled_and_locations_are_tooltips(concrete):
    dot = parse_dot(rt.visualize.to_dot(concrete))
    prints = [attrs for attrs in dot["nodes"].values() if 'label="print' in attrs]
    assert prints and all("#b22222" in attrs for attrs in prints)
    consts = [attrs for attrs in dot["nodes"].values() if 'label="const' in attrs]
    assert consts and all("shape=note" in attrs for attrs in consts)
    assert all(re.search(r'tooltip="test_visualize\.py:\d+"', attrs) for attrs in prints)


def test_names_with_quotes_are_escaped():
    def odd(x):
        return x + 1.0
    odd.__name__ = 'say "hi"'
    text = rt.visualize.to_dot(rt.function(odd).get_concrete_function(rt.TensorSpec([], rt.float32)))
    assert text.startswith('digraph "say \\"hi\\"" {')
    parse_dot(text)


def test_render_without_graphviz_says_how_to_install_it(concrete, monkeypatch, tmp_path):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(rt.visualize.GraphvizNotFoundError, match="apt install graphviz"):
        rt.visualize.render(concrete, str(tmp_path / "g.svg"))


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz is not installed")
def test_render_writes_an_svg(concrete, tmp_path):
    path = rt.visualize.render(concrete, str(tmp_path / "g.svg"))
    assert "<svg" in open(path, encoding="utf-8").read()


def test_the_table_has_one_row_per_node(concrete):
    table = rt.visualize.format_table(concrete.graph).splitlines()
    assert table[0].split() == ["value", "op", "inputs", "type", "created", "at"]
    assert len(table) == 1 + sum(1 for _ in concrete.graph.walk())
