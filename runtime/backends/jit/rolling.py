"""Rolling a chain of identical regions into one kernel with a loop.

An unrolled model (a Python ``for`` over layers, traced) repeats one region per layer: the
same kernel, each fed the previous one's result. Calling the kernel once per layer pays the
call's fixed cost every time; a chain

    r1 = kernel(x, w1, b1); r2 = kernel(r1, w2, b2); ...; rn = kernel(r{n-1}, wn, bn)

becomes one kernel that loops over the layers, with the per-layer constants stacked into
one array (``w[i]`` in the loop) and operands shared by every layer passed once. A link
holds only when a region's single result is read by the next region alone, at the same
argument position every time; the operands that differ between layers must be constants
of one type (stacked once, when the tier compiles).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from runtime.backends.jit.codegen import KernelSource
from runtime.backends.jit.regions import Region
from runtime.graph import Graph
from runtime.ops.registry import CONST


@dataclass
class Chain:
    regions: list[Region]
    source: KernelSource
    carry: int           # the argument that receives the previous region's result
    stacked: list[int]   # arguments that differ by layer (constants)


def group_chains(graph: Graph, items: list[tuple[Region, KernelSource]]) -> list:
    """``items`` (the regions of ``graph`` in program order, with their kernels) with runs of
    identical linked regions replaced by ``Chain``s."""
    readers: dict[int, set] = {}
    for node in graph.nodes:
        for value in node.inputs:
            readers.setdefault(id(value), set()).add(id(node))
    outputs = {id(v) for v in graph.outputs}
    grouped: list = []
    for region, source in items:
        last = grouped[-1] if grouped else None
        chain = last if isinstance(last, Chain) else (
            Chain([last[0]], last[1], -1, []) if last is not None else None)
        if chain is not None and _extends(chain, region, source, readers, outputs):
            if last is not chain:
                grouped[-1] = chain
            chain.regions.append(region)
        else:
            grouped.append((region, source))
    return grouped


def _extends(chain: Chain, region: Region, source: KernelSource, readers, outputs) -> bool:
    previous, first = chain.regions[-1], chain.regions[0]
    if source.text != chain.source.text or source.arg_types != chain.source.arg_types:
        return False
    if len(previous.outputs) != 1 or id(previous.outputs[0]) in outputs:
        return False
    result = previous.outputs[0]
    members = {id(node) for node in region.nodes}
    if not readers.get(id(result), set()) <= members:
        return False
    positions = [i for i, value in enumerate(region.inputs) if value is result]
    if len(positions) != 1 or (chain.carry >= 0 and positions[0] != chain.carry):
        return False
    carry = positions[0]
    stacked = []
    for position, (value, first_value) in enumerate(zip(region.inputs, first.inputs)):
        if position == carry or value is first_value:
            continue
        if value.node.op is not CONST or first_value.node.op is not CONST \
                or (value.dtype, value.shape) != (first_value.dtype, first_value.shape):
            return False
        stacked.append(position)
    chain.carry = carry
    chain.stacked = sorted(set(chain.stacked) | set(stacked))
    return True


def rolled_source(chain: Chain) -> KernelSource:
    """The kernel of the whole chain: the layer's kernel, called once per layer in a loop."""
    layer = chain.source
    params = [f"a{i}" for i in range(len(layer.arg_types))]

    def call(layer_index: str, carry: str) -> str:
        args = [carry if i == chain.carry else (f"{p}[{layer_index}]" if i in chain.stacked else p)
                for i, p in enumerate(params)]
        return f"layer({', '.join(args)})[0]"

    text = (layer.text.replace("def kernel(", "def layer(", 1) + "\n\n"
            f"def kernel({', '.join(params)}):\n"
            f"    carry = {call('0', params[chain.carry])}\n"
            f"    for index in range(1, {len(chain.regions)}):\n"
            f"        carry = {call('index', 'carry')}\n"
            f"    return (carry, )\n")
    arg_types = [(dtype, ndim + 1) if i in chain.stacked else (dtype, ndim)
                 for i, (dtype, ndim) in enumerate(layer.arg_types)]
    arg_shapes = [(len(chain.regions), *shape) if i in chain.stacked else shape
                  for i, shape in enumerate(layer.arg_shapes)]
    return KernelSource(text, arg_types, layer.result_types, inner_functions=("layer",),
                        arg_shapes=arg_shapes)


def chain_region(graph: Graph, chain: Chain) -> Region:
    """One region for the whole chain: the first region's operands, stacked constants (new
    constant nodes of ``graph``) in place of those that differ, the last region's result."""
    first = chain.regions[0]
    operands = list(first.inputs if first.operands is None else first.operands)
    for position in chain.stacked:
        stack = np.stack([r.inputs[position].node.attrs["value"] for r in chain.regions])
        constant = graph.make_constant(stack, first.inputs[position].node.location)
        graph.nodes.insert(0, constant)
        operands[position] = constant.outputs[0]
    nodes = [node for region in chain.regions for node in region.nodes]
    return Region(nodes, operands, list(chain.regions[-1].outputs))
