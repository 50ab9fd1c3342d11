"""``@rt.custom_gradient``: a function that says what its own gradient is.

The decorated function returns ``(y, grad_fn)``. Its ops are not differentiated; instead a
``custom_gradient`` marker stands for ``y`` (see ``runtime.ops.gradient_ops``), whose
gradient rule calls ``grad_fn(dy)``. That is how a numerically unstable gradient is replaced
by a stable formula (``log1pexp``), or a gradient clipped or scaled.
"""

from __future__ import annotations

import functools
import inspect
from typing import Callable

import numpy as np

from runtime import nest, tracing
from runtime.autodiff import recording
from runtime.graph import node_id_mark
from runtime.ops.array_ops import convert_to_tensor, zeros_like
from runtime.ops.gradient_ops import CUSTOM_GRADIENT
from runtime.ops.dispatch import constant_in_graph
from runtime.source_location import user_location
from runtime.tensor import EagerTensor, SymbolicTensor, Tensor


class _ReadCollector:
    """Records next to the tapes while the user's function runs eagerly: keeps the variables
    it reads, whose gradients ``grad_fn`` returns."""

    def __init__(self):
        self.reads: list = []

    def _record(self, op, inputs, attrs, result) -> None:
        if op.reads_variable:
            self.reads.append((attrs["variable"], result))


class _Rule:
    """The gradient rule of one call: calls ``grad_fn`` and checks what it returns.

    ``tensor_positions`` are the indices of the tensor arguments among all ``num_arguments``
    argument values (nested structures flattened); only those get a gradient."""

    def __init__(self, grad_fn: Callable, name: str, num_arguments: int,
                 tensor_positions: list[int], variables: list):
        self.grad_fn, self.name = grad_fn, name
        self.num_arguments, self.tensor_positions = num_arguments, tensor_positions
        self.variables = variables

    def __repr__(self) -> str:  # how printed graphs show the attribute
        return f"<gradient of {self.name}>"

    def __call__(self, node, output_grads) -> list:
        results = node.outputs
        dys = [zeros_like(out) if g is None else g for g, out in zip(output_grads, results)]
        if self.variables:
            if "variables" not in inspect.signature(self.grad_fn).parameters:
                raise TypeError(
                    f"the gradient function of {self.name} must accept a `variables` keyword "
                    f"argument: {self.name} reads the variables "
                    f"{', '.join(repr(v.name) for v in self.variables)}, whose gradients it has to "
                    f"return as well: `def grad(dy, variables=None): return dx, [dv, ...]`.")
            input_grads, variable_grads = self.grad_fn(*dys, variables=self.variables)
        else:
            input_grads, variable_grads = self.grad_fn(*dys), []
        input_grads = list(input_grads) if isinstance(input_grads, (list, tuple)) else [input_grads]
        variable_grads = list(variable_grads or [])
        if len(variable_grads) != len(self.variables):
            raise ValueError(
                f"the gradient function of {self.name} returned {len(variable_grads)} variable "
                f"gradient(s), but {self.name} reads {len(self.variables)} trainable variable(s); "
                f"return one per variable, in the order of its `variables` argument.")
        return [None] * len(results) + self._tensor_gradients(input_grads) + variable_grads

    def _tensor_gradients(self, input_grads: list) -> list:
        """The gradients of the tensor arguments. As in TensorFlow, ``grad_fn`` may return one
        per argument (what it returns for a Python number is dropped: a number has no
        gradient); one per tensor argument is accepted too."""
        if len(input_grads) == self.num_arguments:
            return [input_grads[position] for position in self.tensor_positions]
        if len(input_grads) == len(self.tensor_positions):
            return input_grads
        tensors = len(self.tensor_positions)
        raise ValueError(
            f"the gradient function of {self.name} returned {len(input_grads)} gradient(s), but "
            f"{self.name} was called with {self.num_arguments} argument value(s) (items of "
            f"nested lists, tuples and dicts count one each), {tensors} of them tensors. Return "
            f"one gradient per argument value, in order, as TensorFlow does (None for those "
            f"that are not tensors: they get no gradient), or one per tensor argument.")


def custom_gradient(f: Callable) -> Callable:
    """Decorates ``f(*args) -> (y, grad_fn)``: gradients of ``y`` with respect to the tensor
    arguments are ``grad_fn(dy)``, which returns one per argument, in order, as in TensorFlow
    (arguments that are not tensors, such as Python numbers, get none, so ``None`` will do
    for them), or one per tensor argument. If ``f`` reads trainable variables,
    ``grad_fn(dy, variables=...)`` returns ``(arg_grads, var_grads)``."""
    name = getattr(f, "__name__", "the function")

    @functools.wraps(f)
    def decorated(*args, **kwargs):
        graph = tracing.current_graph()
        if graph is None and not recording.active:
            return f(*args, **kwargs)[0]  # no tape records: only the value matters
        # The tapes record the function's own ops, as TensorFlow's do: its results are
        # replaced by the marker's below, so no gradient flows through those ops, but values
        # they made (which grad_fn may use) stay connected to the arguments, and an outer tape
        # over a gradient computation differentiates grad_fn's ops (a second derivative).
        collector = _ReadCollector()
        recording.start(collector)
        try:
            mark = node_id_mark()
            result, grad_fn = f(*args, **kwargs)
        finally:
            recording.stop(collector)
        results = [convert_to_tensor(leaf) for leaf in nest.flatten(result)]
        values = nest.flatten((args, kwargs))
        positions = [index for index, leaf in enumerate(values)
                     if isinstance(leaf, Tensor) or _is_variable(leaf)]
        if graph is None:
            reads = collector.reads
        else:
            reads = [(node.attrs["variable"], node.outputs[0]) for node in graph.nodes
                     if node.id > mark and node.op.reads_variable]
        # A variable passed as an argument is an argument, as in TensorFlow: its value (read
        # here, where tapes see the read) gets the argument's gradient; grad_fn's `variables`
        # are those read inside that are not arguments.
        arguments = [values[index] for index in positions]
        passed = {id(leaf) for leaf in arguments if _is_variable(leaf)}
        arguments = [leaf._read_value_for_op() if _is_variable(leaf) else leaf
                     for leaf in arguments]
        variables, read_values = _trainable_reads(
            [(variable, value) for variable, value in reads if id(variable) not in passed])
        rule = _Rule(grad_fn, name, len(values), positions, variables)
        attrs = {"num_outputs": len(results), "rule": rule}
        inputs = results + arguments + read_values
        if graph is None:
            outputs = [EagerTensor(np.asarray(value.numpy())) for value in results]
            recording.record(CUSTOM_GRADIENT, inputs, attrs,
                             outputs[0] if len(outputs) == 1 else tuple(outputs))
        else:
            symbols = [_in_graph(value, graph) for value in inputs]
            outputs = graph.add_node(CUSTOM_GRADIENT, symbols, attrs,
                                     [(v.dtype, v.shape) for v in symbols[:len(results)]],
                                     location=user_location()).outputs
        return nest.pack_like(result, outputs)
    return decorated


def _is_variable(value) -> bool:
    return not isinstance(value, Tensor) and getattr(value, "_read_value_for_op", None) is not None


def _in_graph(value: Tensor, graph):
    if isinstance(value, SymbolicTensor):
        return graph.capture(value)
    return constant_in_graph(graph, np.asarray(value.numpy()), key_object=value)


def _trainable_reads(reads: list) -> tuple[list, list]:
    """The trainable variables read (each once: its first read) and the values read."""
    variables, values, seen = [], [], set()
    for variable, value in reads:
        if variable.trainable and id(variable) not in seen:
            seen.add(id(variable))
            variables.append(variable)
            values.append(value)
    return variables, values
