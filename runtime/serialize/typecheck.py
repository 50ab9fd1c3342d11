"""The types a loaded graph declares, checked against what its ops compute.

The plan (and the compiled tier) trust a node's declared dtypes and shapes: they choose
scalar fast paths, in-place writes and kernels by them. A file could declare a ``multiply``
of two float32[2] values to give int32[7]; so each op's own type rule runs again on the
loaded inputs and attributes, control flow is checked against its branches and bodies, and a
declared type must be the computed one (or less specific: an unknown dimension where the rule
knows it). Tensors whose computed shape is fully known must fit in ``max_array_bytes``, so a
``fill`` or ``eye`` of a forged shape is refused before it could be allocated.
"""

from __future__ import annotations

import functools
import inspect
import math
from typing import Callable, Iterable

from runtime.graph import Graph, Node
from runtime.ops.dispatch import infer_types
from runtime.ops.registry import COND, CONST, WHILE_LOOP
from runtime.tensor import SymbolicTensor, format_type

Type = tuple  # (dtype, shape or None)


def check_node(node: Node, max_array_bytes: int) -> None:
    """Raises ValueError when ``node`` declares types its op does not compute."""
    if node.op is CONST:
        return  # its type is its array's (checked when decoded)
    if node.op is COND:
        _check_cond(node)
    elif node.op is WHILE_LOOP:
        _check_loop(node)
    else:
        computed = _computed(node)
        for value, (dtype, shape) in zip(node.outputs, computed):
            _require(node, (dtype, shape), value, "output")
            if shape is not None and None not in shape \
                    and math.prod(shape) * dtype.itemsize > max_array_bytes:
                raise ValueError(f"the {node.op.name} node {node.id} makes a tensor of "
                                 f"{format_type(dtype, shape)}, larger than max_array_bytes "
                                 f"({max_array_bytes} bytes)")


def check_arguments(arguments: Iterable[Type], graph: Graph) -> None:
    """The graph's parameters take the tensors the saved signature accepts."""
    arguments = list(arguments)
    if len(arguments) != len(graph.inputs):
        raise ValueError(f"the signature has {len(arguments)} tensors but the graph "
                         f"{len(graph.inputs)} parameters")
    for argument, parameter in zip(arguments, graph.inputs):
        if not _fits(argument, parameter):
            raise ValueError(f"the signature passes {format_type(*argument)} to the parameter "
                             f"{parameter.name} of {format_type(parameter.dtype, parameter.shape)}")


def _computed(node: Node) -> list[Type]:
    op = node.op
    if op.infer is None:  # made by a backend for itself, never by tracing: not loadable
        raise ValueError(f"the op {op.name} cannot appear in a saved graph")
    signature = _kernel_signature(op.kernel)
    try:
        if signature is not None:
            signature.bind(*node.inputs, **node.attrs)
        computed = infer_types(op, node.inputs, node.attrs)
    except Exception as error:  # noqa: BLE001 - any failure of the rule on forged input
        raise ValueError(f"the {op.name} node {node.id} has inputs or attributes its op does "
                         f"not take ({type(error).__name__}: {error})") from None
    if len(computed) != len(node.outputs):
        raise ValueError(f"the {op.name} node {node.id} declares {len(node.outputs)} outputs "
                         f"but its op makes {len(computed)}")
    return computed


@functools.lru_cache(maxsize=None)
def _kernel_signature(kernel: Callable | None) -> inspect.Signature | None:
    """The parameters of a kernel written in Python (NumPy's ufuncs take any keywords)."""
    return inspect.signature(kernel) if inspect.isfunction(kernel) else None


def _check_cond(node: Node) -> None:
    for key, branch in node.subgraphs.items():
        _pass_in(node, node.inputs[1:], branch.inputs)
        for value, result in zip(node.outputs, branch.outputs):
            _require(node, _type(result), value, f"output of its {key} branch")


def _check_loop(node: Node) -> None:
    num_vars = node.attrs["num_vars"]
    first_capture = num_vars + (node.attrs["maximum_iterations"] == "input")
    cond, body = node.subgraphs["cond"], node.subgraphs["body"]
    initial = node.inputs[:num_vars]
    for sub in (cond, body):
        _pass_in(node, initial + node.inputs[first_capture:], sub.inputs)
        _pass_in(node, body.outputs, sub.inputs[:num_vars])
    for value, start, result in zip(node.outputs, initial, body.outputs):
        _require(node, _type(start), value, "loop variable")
        _require(node, _type(result), value, "loop variable")


def _pass_in(node: Node, values: list[SymbolicTensor], parameters: list[SymbolicTensor]) -> None:
    for value, parameter in zip(values, parameters):
        _require(node, _type(value), parameter, "subgraph parameter")


def _require(node: Node, computed: Type, declared: SymbolicTensor, what: str) -> None:
    if not _fits(computed, declared):
        raise ValueError(
            f"the {node.op.name} node {node.id} declares the {what} {declared.name} as "
            f"{format_type(declared.dtype, declared.shape)}, but it is "
            f"{format_type(*computed)}")


def _fits(computed: Type, declared: SymbolicTensor) -> bool:
    """Same dtype, and the declared shape is the computed one or less specific."""
    dtype, shape = computed
    if dtype != declared.dtype:
        return False
    if declared.shape is None:
        return True
    return shape is not None and len(shape) == len(declared.shape) and all(
        want is None or want == have for have, want in zip(shape, declared.shape))


def _type(value: SymbolicTensor) -> Type:
    return value.dtype, value.shape
