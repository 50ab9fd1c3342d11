"""``rt.GradientTape``: records what a computation did so its gradient can be computed.

Eagerly, the tape keeps one record per op whose inputs depend on something it watches (a
watched tensor, or a trainable variable read while it records). Inside a traced function,
the graph being built already is the record: the tape remembers which span of the graph's
nodes ran while it recorded, and ``gradient`` adds the backward ops to that graph.
"""

from __future__ import annotations

import enum
import math
from contextlib import contextmanager
from typing import Any

import numpy as np

from runtime import nest, tracing
from runtime.autodiff import recording
from runtime.autodiff.backprop import Backward, differentiable
from runtime.errors import GradientError, GradientWarning
from runtime.graph import node_id_mark
from runtime.ops.array_ops import (constant, convert_to_tensor, ones_like, reshape,
                                   shape as shape_of, stack, zeros_like)
from runtime.ops.broadcast_ops import broadcast_to
from runtime.ops.dispatch import constant_in_graph
from runtime.source_location import warn_at_user_code
from runtime.tensor import EagerTensor, SymbolicTensor, Tensor, format_shape


class UnconnectedGradients(enum.Enum):
    """What ``gradient`` gives for a source the target does not depend on."""

    NONE = "none"
    ZERO = "zero"


class _Record:
    """One op that ran eagerly while a tape recorded (the eager counterpart of a graph node)."""

    __slots__ = ("op", "inputs", "attrs", "outputs", "location")

    def __init__(self, op, inputs, attrs: dict, outputs: list):
        self.op, self.inputs, self.attrs, self.outputs = op, inputs, attrs, outputs
        self.location = None


class GradientTape:
    """Records operations for automatic differentiation (TensorFlow's ``tf.GradientTape``).

        with rt.GradientTape() as tape:
            loss = rt.reduce_sum(w * x)
        dw = tape.gradient(loss, w)

    Trainable variables read inside the ``with`` block are watched automatically; tensors need
    ``tape.watch(x)``. A tape gives one set of gradients unless created with
    ``persistent=True``. Tapes nest: a tape around another records its gradient computation,
    which gives higher derivatives.
    """

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True):
        self._persistent = bool(persistent)
        self._watch_accessed = bool(watch_accessed_variables)
        self._graph = None            # the graph traced when the tape was entered (None: eager)
        self._entered = False
        self._recording = False
        self._used = False
        self._records: list[_Record] = []
        self._spans: list[list] = []  # in a trace: [first, last] node ids recorded
        self._reaching: dict[int, Tensor] = {}   # watched tensors and (eagerly) what they made
        self._variables: dict[int, Any] = {}      # explicitly watched variables
        self._accessed: dict[int, Any] = {}       # variables whose reads are gradient sources
        self._reads: dict[int, list] = {}         # eagerly: id(variable) -> its recorded reads

    # -- recording --------------------------------------------------------------------------

    def __enter__(self) -> "GradientTape":
        if self._entered:
            raise RuntimeError("this GradientTape is already recording; a tape can be entered "
                               "once at a time.")
        graph = tracing.current_graph()
        if self._spans and graph is not self._graph or self._records and graph is not None:
            raise RuntimeError("a GradientTape must be used within one function: it recorded "
                               "somewhere else before. Create a new tape here.")
        self._graph = graph
        self._entered = True
        self._start()
        return self

    def __exit__(self, *exc_info) -> None:
        self._stop()
        self._entered = False

    def _start(self) -> None:
        self._recording = True
        if self._graph is None:
            recording.start(self)
        else:
            self._spans.append([node_id_mark(), None])

    def _stop(self) -> None:
        if not self._recording:
            return
        self._recording = False
        if self._graph is None:
            recording.stop(self)
        else:
            self._spans[-1][1] = node_id_mark()

    @contextmanager
    def stop_recording(self):
        """Ops in this block are not recorded (for example a metric computed next to the loss)."""
        if not self._recording:
            raise RuntimeError("stop_recording() needs a tape that is recording: use it inside "
                               "the tape's `with` block.")
        self._stop()
        try:
            yield
        finally:
            self._start()

    def reset(self) -> None:
        """Forgets everything recorded so far (the tape keeps recording if it was)."""
        was_recording = self._recording
        self._stop()
        self.__init__(self._persistent, self._watch_accessed)
        if was_recording:
            self._graph = tracing.current_graph()
            self._entered = True
            self._start()

    def watch(self, tensor) -> None:
        """Makes the tape trace gradients to ``tensor`` (a tensor, a variable, or a nested
        structure of them)."""
        for leaf in nest.flatten(tensor):
            if isinstance(leaf, Tensor):
                leaf = self._in_graph(leaf)
                self._reaching[id(leaf)] = leaf
            elif hasattr(leaf, "trainable") and hasattr(leaf, "_read_value_for_op"):
                self._variables[id(leaf)] = leaf
                self._accessed[id(leaf)] = leaf
            else:
                raise TypeError(f"GradientTape.watch: cannot watch {type(leaf).__name__} "
                                f"{leaf!r}; pass tensors or rt.Variables (convert a Python "
                                f"number with rt.constant first).")

    def _in_graph(self, value: Tensor) -> Tensor:
        """What stands for ``value`` in the graph the tape records: the constant node of an
        eager tensor (a constant made while tracing), the parameter capturing a value of an
        enclosing graph (a tape opened in a loop body or a branch)."""
        if self._graph is None or tracing.current_graph() is None:
            return value
        if type(value) is EagerTensor:
            return constant_in_graph(self._graph, value._value, key_object=value)
        if type(value) is SymbolicTensor and value.graph is not self._graph:
            try:
                return self._graph.capture(value)
            except ValueError:
                return value  # not from an enclosing graph: no path to the records
        return value

    def watched_variables(self) -> tuple:
        """The variables this tape watches: those passed to ``watch`` and the trainable ones
        read while it recorded (in the order first seen)."""
        if self._graph is not None:
            for node in self._recorded_nodes():
                if node.op.reads_variable:
                    self._watches(node.attrs["variable"])
        return tuple(self._accessed.values())

    def _watches(self, variable) -> bool:
        if id(variable) in self._variables or (self._watch_accessed and variable.trainable):
            self._accessed.setdefault(id(variable), variable)
            return True
        return False

    def _record(self, op, inputs, attrs: dict, result) -> None:
        """Called for every eager op while the tape records (see ``recording``)."""
        outputs = [] if result is None else list(result) if isinstance(result, tuple) else [result]
        if op.reads_variable:
            variable = attrs["variable"]
            if self._watches(variable):
                self._reads.setdefault(id(variable), []).append(outputs[0])
                self._reaching[id(outputs[0])] = outputs[0]
            return
        if not any(id(value) in self._reaching for value in inputs):
            return
        self._records.append(_Record(op, list(inputs), attrs, outputs))
        for value in outputs:
            self._reaching[id(value)] = value

    # -- what was recorded --------------------------------------------------------------------

    def _recorded_nodes(self) -> list:
        spans = [(first, math.inf if last is None else last) for first, last in self._spans]
        if len(spans) == 1:  # one ``with`` block, the usual case: no any() per node
            (first, last), = spans
            return [node for node in self._graph.nodes if first < node.id < last]
        return [node for node in self._graph.nodes
                if any(first < node.id < last for first, last in spans)]

    def _snapshot(self) -> tuple[list, dict, dict]:
        """The records, the values that depend on what is watched, and each watched
        variable's reads."""
        if self._graph is None:
            return list(self._records), dict(self._reaching), self._reads
        nodes = self._recorded_nodes()
        reaching = dict(self._reaching)
        reads: dict[int, list] = {}
        for node in nodes:
            if node.op.reads_variable:
                if self._watches(node.attrs["variable"]):
                    reads.setdefault(id(node.attrs["variable"]), []).append(node.outputs[0])
                    reaching[id(node.outputs[0])] = node.outputs[0]
            elif any(id(value) in reaching for value in node.inputs):
                reaching.update((id(value), value) for value in node.outputs)
        return nodes, reaching, reads

    # -- gradients ----------------------------------------------------------------------------

    def gradient(self, target, sources, output_gradients=None,
                 unconnected_gradients=UnconnectedGradients.NONE):
        """The gradient of ``target`` (a tensor or a structure of them, summed) with respect
        to each of ``sources``, in the structure of ``sources``. ``output_gradients`` weighs
        the targets (default ones). A source the target does not depend on, or an integer
        one, gives None (zeros with ``unconnected_gradients="zero"``). The gradient of a
        source used only through gathers along axis 0 is an ``IndexedSlices`` (its rows), as
        in TensorFlow; ops and ``rt.convert_to_tensor`` take it as the dense gradient."""
        self._claim_use("gradient")
        try:
            flat = self._gradients(target, nest.flatten(sources), output_gradients,
                                   UnconnectedGradients(unconnected_gradients), keep_rows=True)
        finally:
            self._release_if_spent()
        return nest.pack_like(sources, flat)

    def jacobian(self, target, sources, unconnected_gradients=UnconnectedGradients.NONE,
                 parallel_iterations=None, experimental_use_pfor=True):
        """For each source, the derivative of every element of ``target`` with respect to
        every element of it: shape ``target.shape + source.shape``. Meant for small targets
        (one backward pass per element of the target; TensorFlow's ``parallel_iterations``
        and ``experimental_use_pfor`` choose how it vectorizes them, and change nothing
        here)."""
        self._claim_use("jacobian")
        try:
            target = convert_to_tensor(target)
            if target.shape is None or None in target.shape:
                raise ValueError(f"GradientTape.jacobian needs a target of known shape while "
                                 f"tracing, got {format_shape(target.shape)}.")
            flat_sources = nest.flatten(sources)
            count = int(np.prod(target.shape, dtype=np.int64))
            rows = []
            for index in range(count):
                seed = np.zeros(count, target.dtype)
                seed[index] = 1
                rows.append(self._gradients(target, flat_sources,
                                            constant(seed.reshape(target.shape)),
                                            UnconnectedGradients(unconnected_gradients)))
            result = [None if rows and rows[0][i] is None else
                      _jacobian_of(target, source, [row[i] for row in rows])
                      for i, source in enumerate(flat_sources)]
        finally:
            self._release_if_spent()
        return nest.pack_like(sources, result)

    def batch_jacobian(self, target, source, unconnected_gradients=UnconnectedGradients.NONE,
                       parallel_iterations=None, experimental_use_pfor=True):
        """For each example ``b`` of a batch, the jacobian of ``target[b]`` with respect to
        ``source[b]``: shape ``target.shape + source.shape[1:]``, assuming (as TensorFlow
        does) that example ``b`` of the target depends on example ``b`` of the source only.
        One backward pass per element of one example of the target."""
        self._claim_use("batch_jacobian")
        try:
            target = convert_to_tensor(target)
            if target.shape is None or None in target.shape[1:] or len(target.shape) < 1:
                raise ValueError(f"GradientTape.batch_jacobian needs a target with a batch "
                                 f"dimension and known other dimensions while tracing, got "
                                 f"{format_shape(target.shape)}.")
            example = tuple(target.shape[1:])
            count = int(np.prod(example, dtype=np.int64))
            rows = []
            for index in range(count):  # element `index` of every example at once
                one_hot = np.zeros(count, target.dtype)
                one_hot[index] = 1
                seed = broadcast_to(constant(one_hot.reshape((1,) + example)), shape_of(target))
                rows.append(self._gradients(target, [source], seed,
                                            UnconnectedGradients(unconnected_gradients))[0])
        finally:
            self._release_if_spent()
        if rows and rows[0] is None:
            return None
        value = _value_of(source)
        rows = [zeros_like(value) if row is None else row for row in rows]
        stacked = stack(rows, axis=1)  # (batch, elements of one example, source example...)
        return reshape(stacked, (-1,) + example + tuple(value.shape[1:]))

    def _claim_use(self, method: str) -> None:
        if self._used and not self._persistent:
            raise RuntimeError(
                f"GradientTape.{method} can only be called once on a non-persistent tape: its "
                f"record is released after the first call. Create the tape with "
                f"rt.GradientTape(persistent=True) to compute several gradients.")
        self._used = True
        if self._graph is not None and tracing.current_graph() is None:
            raise RuntimeError(
                f"GradientTape.{method}: this tape recorded inside a traced function, whose "
                f"values exist only while it is traced. Call {method} inside that function.")

    def _release_if_spent(self) -> None:
        if not self._persistent and not self._recording:
            self._records, self._reads = [], {}
            self._reaching = {}

    def _gradients(self, target, flat_sources: list, output_gradients, unconnected,
                   keep_rows: bool = False) -> list:
        targets = [t for t in nest.flatten(target)]
        seeds = _seeds(targets, output_gradients)
        records, reaching, reads = self._snapshot()
        handles = [self._handles(source, reaching, reads, records) for source in flat_sources]
        backward = Backward(records, handles, keep_rows)
        results = backward.run([t if isinstance(t, Tensor) else None for t in targets], seeds)
        for index, (source, result) in enumerate(zip(flat_sources, results)):
            if result is None and handles[index] and backward.stops:
                _warn_stopped(backward, handles[index], index, len(flat_sources))
        if unconnected is UnconnectedGradients.ZERO:
            results = [zeros_like(_value_of(source)) if result is None else result
                       for source, result in zip(flat_sources, results)]
        return results

    def _handles(self, source, reaching: dict, reads: dict, records: list) -> list:
        """The tensors standing for ``source`` in the record (a variable: each of its reads);
        ``records``: the snapshot's (in a trace, the recorded nodes)."""
        if isinstance(source, Tensor):
            source = self._in_graph(source)
            return [source] if id(source) in reaching and differentiable(source) else []
        if hasattr(source, "_read_value_for_op") and hasattr(source, "trainable"):
            if self._graph is not None:
                self._check_reads_outside_loops(source, records)
            return list(reads.get(id(source), [])) if differentiable(source) else []
        raise TypeError(f"GradientTape.gradient: sources must be tensors or rt.Variables (or "
                        f"structures of them), got {type(source).__name__} {source!r}.")

    def _check_reads_outside_loops(self, variable, nodes: list) -> None:
        """A variable read inside a cond or loop (of the recorded ``nodes``) that also
        assigns it stays inside (the reads see the assignments); a gradient cannot reach such
        a read."""
        for node in nodes:
            for sub in node.subgraphs.values():
                if any(inner.op.reads_variable and inner.attrs["variable"] is variable
                       for inner in sub.walk()):
                    raise GradientError(
                        f"cannot compute the gradient with respect to the variable "
                        f"{variable.name!r}: it is read inside the {node.op.name} created at "
                        f"{node.location_text()}, which also assigns it. Read the variable "
                        f"once before the loop or conditional and use that value inside.")


def _value_of(source):
    return source if isinstance(source, Tensor) else source.value()


def _seeds(targets: list, output_gradients) -> list:
    if output_gradients is None:
        return [ones_like(t) if isinstance(t, Tensor) and differentiable(t) else None
                for t in targets]
    given = nest.flatten(output_gradients)
    if len(given) != len(targets):
        raise ValueError(f"GradientTape.gradient: output_gradients has {len(given)} tensors for "
                         f"{len(targets)} targets; give one per target (or None).")
    return [None if g is None else convert_to_tensor(g, t.dtype if not isinstance(g, Tensor) else None)
            for g, t in zip(given, targets)]


def _jacobian_of(target: Tensor, source, rows: list) -> Tensor:
    rows = [zeros_like(_value_of(source)) if row is None else row for row in rows]
    source_shape = tuple(_value_of(source).shape)
    return reshape(stack(rows), tuple(target.shape) + source_shape)


def _warn_stopped(backward: Backward, handles: list, index: int, count: int) -> None:
    """Warns that a float source got no gradient although the target depends on it."""
    reached = {id(h) for h in handles}
    for record in backward.records:
        if any(id(v) in reached for v in record.inputs):
            reached.update(id(v) for v in record.outputs)
    stop = next((r for r in backward.stops if any(id(v) in reached for v in r.inputs)), None)
    if stop is None:
        return
    where = f" (created at {stop.location})" if getattr(stop, "location", None) else ""
    name = "the source" if count == 1 else f"source {index}"
    warn_at_user_code(
        f"the gradient with respect to {name} is None although the target depends on it: every "
        f"path from it passes {stop.op.name}{where}, which carries no gradient (integer values "
        f"and ops such as round or argmax have none). Keep the computation in floating point, "
        f"or use a differentiable op.", GradientWarning)
