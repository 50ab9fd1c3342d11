"""TensorFlow's ``tf.gradients`` and ``tf.hessians``: gradients taken from the graph being
traced (no tape), so they exist inside a ``tf.function`` only; eagerly they raise
TensorFlow's ``RuntimeError``. The backward pass is the tape's (``runtime.autodiff``) run
over every node the function has built so far."""

from __future__ import annotations

import numpy as np

from runtime import nest, tracing
from runtime.autodiff.backprop import Backward, differentiable
from runtime.ops.array_ops import convert_to_tensor, ones_like, reshape, stack, zeros_like
from runtime.tensor import Tensor


class AggregationMethod:
    """TensorFlow's ways of summing the gradients that meet at a tensor (``tf.gradients``'
    ``aggregation_method``): they schedule the same sum, so every one gives these values."""

    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2


def _graph(name: str):
    graph = tracing.current_graph()
    if graph is None:
        raise RuntimeError(f"tf.{name} is not supported when eager execution is enabled. Use "
                           f"tf.GradientTape instead, or call it inside a tf.function.")
    return graph


def _handles(graph, source) -> list:
    """The graph's tensors standing for ``source``: itself, or a variable's reads."""
    if isinstance(source, Tensor):
        return [source] if differentiable(source) else []
    if hasattr(source, "_read_value_for_op"):
        return [node.outputs[0] for node in graph.nodes
                if node.op.reads_variable and node.attrs["variable"] is source]
    raise TypeError(f"tf.gradients: xs must be tensors or variables, got "
                    f"{type(source).__name__}.")


def gradients(ys, xs, grad_ys=None, name=None, gate_gradients=False, aggregation_method=None,
              stop_gradients=None, unconnected_gradients="none") -> list:
    """The sum over ``ys`` of their gradients with respect to each of ``xs`` (a list, None
    where unconnected or with ``unconnected_gradients="zero"`` zeros); ``grad_ys`` weighs
    the ``ys`` (ones by default). ``gate_gradients`` and ``aggregation_method`` choose how
    TensorFlow schedules the sums, which changes no value."""
    graph = _graph("gradients")
    if stop_gradients is not None:
        raise NotImplementedError("tf.gradients: stop_gradients is not supported by "
                                  "eager2graph; wrap those tensors in tf.stop_gradient instead.")
    targets = [convert_to_tensor(y) for y in nest.flatten(ys)]
    seeds = [ones_like(t) for t in targets] if grad_ys is None else \
        [convert_to_tensor(g, t.dtype) for g, t in zip(nest.flatten(grad_ys), targets)]
    sources = nest.flatten(xs)
    backward = Backward(list(graph.nodes), [_handles(graph, x) for x in sources])
    results = backward.run(targets, seeds)
    if str(getattr(unconnected_gradients, "value", unconnected_gradients)) == "zero":
        results = [zeros_like(x if isinstance(x, Tensor) else x.value()) if r is None else r
                   for x, r in zip(sources, results)]
    return results


def hessians(ys, xs, name=None, gate_gradients=False, aggregation_method=None) -> list:
    """For each of ``xs``, the second derivatives of the sum of ``ys``: shape
    ``x.shape + x.shape`` (None where ``ys`` does not depend on ``x``)."""
    _graph("hessians")
    result = []
    for x in nest.flatten(xs):
        x = convert_to_tensor(x)
        if x.shape is None or None in x.shape:
            raise ValueError(f"tf.hessians needs each x of known shape, got {x.shape}.")
        (gradient,) = gradients(ys, [x])
        if gradient is None:
            result.append(None)
            continue
        flat = reshape(gradient, [-1])
        size = int(np.prod(x.shape, dtype=np.int64))
        rows = [gradients(flat[i], [x])[0] for i in range(size)]
        rows = [zeros_like(x) if row is None else row for row in rows]
        result.append(reshape(stack(rows), tuple(x.shape) * 2))
    return result
