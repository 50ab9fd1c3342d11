"""Symbolic Keras inputs and the graphs of functional models.

``Input(shape=(5,))`` returns a ``KerasTensor``: a stand-in for a batch that records what is
done to it. Two kinds of steps are recorded, in the order they happen:

* a layer called on Keras tensors (``Dense(10)(x)``): the layer is built from the input's
  shape and the call recorded as one step. Its ``call`` runs once on the probes (below) to
  learn the output's shape, and whatever layers that call reaches (a model's own layers, when
  a model is used as a layer; a custom layer's sub-layers) run eagerly on the probes' values;
* any ``rt`` op applied to a Keras tensor or to a value computed from one (``rt.split(x, 5,
  axis=1)``, ``x[:, 0]``, ``x * 2``), as Keras 2 allowed with ``tf`` ops.

Ops are recorded the way an eager ``GradientTape`` records: each Keras tensor holds a
*probe*, a real eager batch of one sample (ones for floats, so that a formula dividing by an
input does not divide by zero; zeros for integers, always valid indices); ops run on probes
eagerly, and a recorder
registered with ``runtime.autodiff.recording`` keeps every op that a probe reaches. What such
an op returns is an ordinary eager tensor (its probe value), which this module remembers as
symbolic: layers and ``Model`` recognise it. The recorder runs from the first ``Input`` until
every ``Input`` has been used by a ``Model``.

``Model(inputs, outputs)`` keeps the steps that lead from the inputs to the outputs as a
``Graph``, and calling the model replays them on real tensors, eagerly or while tracing.
"""

from __future__ import annotations

import itertools
import threading
import weakref

import numpy as np

from runtime import nest
from runtime.autodiff import recording
from runtime.keras.layers import base as layer_base
from runtime.keras.layers.input_layer import InputLayer
from runtime.ops.array_ops import expand_dims, squeeze
from runtime.ops.dispatch import apply_op
from runtime.ops.operators import OPERATORS as _OPERATORS
from runtime.tensor import EagerTensor, Tensor, format_shape

PROBE_BATCH = 1
_ids = itertools.count()
_lock = threading.Lock()
# id(probe) -> KerasTensor, for probes that ops returned (Keras tensors' own probes too).
# Entries keep their probe alive, so an id is never reused while registered.
# Weak: a Keras tensor lives as long as the user's code or a model holds it.
_by_probe: "weakref.WeakValueDictionary[int, KerasTensor]" = weakref.WeakValueDictionary()


class KerasTensor:
    """A symbolic batch: its ``shape`` starts with ``None`` (the batch dimension)."""

    def __init__(self, shape, dtype, probe: EagerTensor, step=None, index: int = 0,
                 name: str | None = None):
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)
        self._probe = probe
        self._step = step      # the Step that made it; None for an Input
        self._index = index    # which output of that step
        self._order = next(_ids)
        self.name = name or f"keras_tensor_{self._order}"
        with _lock:
            _by_probe[id(probe)] = self

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def _read_value_for_op(self):
        return self._probe

    def numpy(self):
        raise TypeError(f"{self.name} is a symbolic Keras tensor (a stand-in for the inputs of a "
                        f"model being defined); it has no value. Build a Model from it and call "
                        f"the model on data.")

    def __array__(self, dtype=None, copy=None):
        self.numpy()

    def __bool__(self):
        raise TypeError(f"{self.name} is a symbolic Keras tensor: its truth value is unknown "
                        f"while the model is defined. Use Python control flow inside a layer's "
                        f"call (converted by transpiler.function) instead.")

    def __iter__(self):
        raise TypeError(f"{self.name} is a symbolic Keras tensor and cannot be iterated; split "
                        f"it with rt.split or rt.unstack.")

    def __repr__(self) -> str:
        return (f"<KerasTensor shape={format_shape(self.shape)}, dtype={self.dtype.name}, "
                f"name={self.name}>")


for _name, _fn in _OPERATORS.items():  # x + 1, x[:, 0], ... are recorded like rt ops
    setattr(KerasTensor, _name, _fn)
KerasTensor.__hash__ = object.__hash__


class Step:
    """One recorded step: ``layer`` or ``op`` applied to ``args``/``kwargs`` whose leaves
    may be Keras tensors."""

    def __init__(self, args, kwargs, outputs_structure, layer=None, op=None, attrs=None):
        self.layer, self.op, self.attrs = layer, op, attrs or {}
        self.args, self.kwargs = args, kwargs
        self.outputs_structure = outputs_structure  # nest of KerasTensors
        self.order = next(_ids)

    def inputs(self) -> list[KerasTensor]:
        return [leaf for leaf in nest.flatten((self.args, self.kwargs))
                if isinstance(leaf, KerasTensor)]

    def run(self, values: dict, training=None):
        """Runs the step on ``values`` (by Keras tensor id) and adds its outputs to them. A
        ``training`` given to the model replaces the one written in the layer's call, as in
        Keras 3: ``base(x, training=False)`` runs in training mode inside ``fit``."""
        resolve = lambda leaf: values[id(leaf)] if isinstance(leaf, KerasTensor) else leaf  # noqa: E731
        args = nest.map_structure(resolve, self.args)
        kwargs = nest.map_structure(resolve, self.kwargs)
        if training is not None and "training" in kwargs:
            kwargs["training"] = training
        if self.layer is not None:
            result = self.layer(*args, **kwargs)
        else:
            result = apply_op(self.op, list(args), self.attrs)
        outputs = nest.flatten(self.outputs_structure)
        results = nest.flatten(result) if len(outputs) > 1 or isinstance(result, (list, tuple)) \
            else [result]
        for tensor, value in zip(outputs, results):
            values[id(tensor)] = value


def keras_tensor_of(value) -> KerasTensor | None:
    """The Keras tensor ``value`` is or stands for (an op's result on one), else ``None``."""
    if isinstance(value, KerasTensor):
        return value
    if type(value) is EagerTensor and _by_probe:
        return _by_probe.get(id(value))
    return None


def is_symbolic(structure) -> bool:
    return any(keras_tensor_of(leaf) is not None for leaf in nest.flatten(structure))


def _from_probe(probe, step, index) -> KerasTensor:
    shape = tuple(probe.shape)
    if shape and shape[0] == PROBE_BATCH:
        shape = (None,) + shape[1:]
    return KerasTensor(shape, probe.dtype, probe, step, index)


# -- Input ---------------------------------------------------------------------------------


def Input(shape=None, batch_size=None, dtype=None, name=None, batch_shape=None,  # noqa: N802
          sparse=None, tensor=None, optional=False) -> KerasTensor:
    """A symbolic batch of samples of ``shape`` (``shape=5`` means ``(5,)``); the batch
    dimension is ``None`` unless ``batch_size`` is given."""
    if batch_shape is not None:
        full = tuple(batch_shape)
    else:
        if shape is None:
            raise ValueError("Input needs a shape (the shape of one sample, without the batch "
                             "dimension), e.g. Input(shape=(5,)).")
        full = (batch_size,) + layer_base._shape_tuple(shape)
    dtype = np.dtype(dtype or "float32")
    fill = np.ones if dtype.kind in "fc" else np.zeros
    # A dimension left unknown (the steps of sequences of any length, shape=(None, 3)) is
    # probed with one element; what layers build from is the last, known, dimension.
    probe = EagerTensor(fill((full[0] or PROBE_BATCH,) + tuple(d or 1 for d in full[1:]),
                             dtype))
    tensor = KerasTensor(full, dtype, probe, name=name)
    tensor._input_layer = InputLayer(batch_shape=full, dtype=dtype, name=name)
    _recorder.open(tensor)
    return tensor


# -- recording raw ops ---------------------------------------------------------------------


class _Recorder:
    """Offered every eager op while Keras inputs are open (see the module docstring). An input
    is open until a model uses it or nothing holds it any more, so an ``Input`` made and
    dropped does not leave every later op recorded."""

    def __init__(self):
        self._open: dict[int, weakref.ref] = {}
        self._lock = threading.RLock()  # a weak reference's callback may run inside a locked block

    def open(self, tensor: KerasTensor) -> None:
        with self._lock:
            if not self._open:
                recording.start(self)
            key = id(tensor)
            self._open[key] = weakref.ref(tensor, lambda _, key=key: self._forget([key]))

    def close(self, tensors) -> None:
        self._forget([id(tensor) for tensor in tensors])

    def _forget(self, keys) -> None:
        with self._lock:
            was_open = bool(self._open)
            for key in keys:
                self._open.pop(key, None)
            if was_open and not self._open:
                try:
                    recording.stop(self)
                except ValueError:  # started in another thread: it stops with that thread's use
                    pass

    def _record(self, op, inputs, attrs, result) -> None:
        if op.reads_variable or not _by_probe:
            return
        if not any(id(value) in _by_probe for value in inputs):
            return
        args = [_by_probe.get(id(value), value) for value in inputs]
        outputs = list(result) if isinstance(result, tuple) else [] if result is None else [result]
        step = Step(args, {}, None, op=op, attrs=dict(attrs))
        tensors = [_from_probe(value, step, i) for i, value in enumerate(outputs)]
        step.outputs_structure = tuple(tensors) if isinstance(result, tuple) else tensors[0]


_recorder = _Recorder()


def close_inputs(inputs) -> None:
    _recorder.close(inputs)


# -- layers called on Keras tensors --------------------------------------------------------


class _Probing(threading.local):
    """How many layers' calls on probes are running in this thread: the layers they call
    (a model's layers, a custom layer's sub-layers) run eagerly on the probes' values."""

    depth = 0


_probing = _Probing()


def _symbolic_call(layer, args, kwargs):
    if _probing.depth or not _by_probe or not is_symbolic((args, kwargs)):
        return layer_base._NOT_SYMBOLIC  # no Keras tensor, or inside a layer's call on probes
    args = nest.map_structure(_symbolic_or_value, args)
    kwargs = nest.map_structure(_symbolic_or_value, kwargs)
    first = args[0] if args else kwargs.get("inputs")
    if not layer.built:
        shapes = nest.map_structure(lambda t: t.shape if isinstance(t, KerasTensor) else
                                    (tuple(t.shape) if isinstance(t, Tensor) else None), first)
        if layer_base.has_own_build(layer):
            with layer_base.name_scope(layer):
                layer.build(shapes)
        layer.built = True
    probe = lambda v: v._probe if isinstance(v, KerasTensor) else v  # noqa: E731
    probe_kwargs = nest.map_structure(probe, kwargs)
    if "training" in probe_kwargs and probe_kwargs["training"] is None:
        probe_kwargs.pop("training")
    # The probe's values are thrown away: NumPy's warnings about them (a formula's log of a
    # negative probe value) would name the user's line for a value that does not exist.
    with recording.paused(), np.errstate(all="ignore"):
        layer_base.push_training(False)
        _probing.depth += 1
        try:
            with layer_base.name_scope(layer):  # the sub-layers it builds are under its name
                result = layer.call(*nest.map_structure(probe, args),
                                    **_call_kwargs(layer, probe_kwargs))
        finally:
            _probing.depth -= 1
            layer_base.pop_training()
    step = Step(args, kwargs, None, layer=layer)
    leaves = nest.flatten(result)
    tensors = [_from_probe(leaf if isinstance(leaf, EagerTensor) else EagerTensor(np.asarray(leaf)),
                           step, i) for i, leaf in enumerate(leaves)]
    step.outputs_structure = nest.pack_like(result, tensors)
    layer.__dict__.setdefault("_symbolic_call", (first, step.outputs_structure))
    return step.outputs_structure


def _symbolic_or_value(value):
    tensor = keras_tensor_of(value)
    return value if tensor is None else tensor


def _call_kwargs(layer, kwargs: dict) -> dict:
    if layer._call_takes_training:
        kwargs.setdefault("training", False)
    elif not layer._call_takes_kwargs:
        kwargs.pop("training", None)
    return kwargs


layer_base.set_symbolic_hook(_symbolic_call)


# -- the graph of a functional model -------------------------------------------------------


class Graph:
    """The steps from ``inputs`` to ``outputs``, in the order they were recorded."""

    def __init__(self, inputs, outputs):
        self.inputs = nest.map_structure(_checked_keras_tensor, inputs)
        self.outputs = nest.map_structure(_checked_keras_tensor, outputs)
        input_ids = {id(t) for t in nest.flatten(self.inputs)}
        steps: dict[int, Step] = {}
        pending = list(nest.flatten(self.outputs))
        reached = set()
        while pending:
            tensor = pending.pop()
            if id(tensor) in reached:
                continue
            reached.add(id(tensor))
            if id(tensor) in input_ids:
                continue
            if tensor._step is None:
                raise ValueError(f"the outputs of the model depend on {tensor.name}, an Input "
                                 f"that is not among the model's inputs; pass it in inputs=.")
            steps[id(tensor._step)] = tensor._step
            pending.extend(tensor._step.inputs())
        self.steps = sorted(steps.values(), key=lambda step: step.order)
        unused = [t.name for t in nest.flatten(self.inputs) if id(t) not in reached]
        if unused:
            import warnings  # noqa: PLC0415
            warnings.warn(f"model inputs {', '.join(unused)} are not used by its outputs.",
                          UserWarning, stacklevel=3)

    @property
    def layers(self) -> list:
        """The layers in Keras 3's order (``ordered``), without the inputs' ``InputLayer``s."""
        return [layer for layer in self.ordered() if not isinstance(layer, InputLayer)]

    def ordered(self) -> list:
        """Every layer, ``InputLayer``s included, as Keras 3 lists a functional model's:
        farthest from the outputs first (a layer's depth is one more than the deepest layer
        using its output; the outputs' are 0), layers of one depth in the order a depth-first
        walk from the outputs first reaches them. ``get_weights`` follows this order."""
        first_reached: dict[int, int] = {}
        finished: list = []  # nodes (steps, or Keras tensors of inputs), each after its inputs
        done: set[int] = set()
        for output in nest.flatten(self.outputs):
            stack = [(output, False)]
            while stack:
                tensor, expanded = stack.pop()
                node = tensor._step if tensor._step is not None else tensor
                if expanded:
                    if id(node) not in done:
                        done.add(id(node))
                        finished.append(node)
                    continue
                if id(node) in done:
                    continue
                first_reached.setdefault(id(_operation(node)), len(first_reached))
                stack.append((tensor, True))
                if tensor._step is not None:
                    stack.extend((parent, False) for parent in reversed(tensor._step.inputs()))
        node_depth: dict[int, int] = {}
        operation_depth: dict[int, int] = {}
        operations: dict[int, object] = {}
        for node in reversed(finished):
            operation = _operation(node)
            depth = max(node_depth.get(id(node), 0), operation_depth.get(id(operation), 0))
            operation_depth[id(operation)], operations[id(operation)] = depth, operation
            node_depth[id(node)] = depth
            if isinstance(node, Step):
                for parent in node.inputs():
                    parent_node = parent._step if parent._step is not None else parent
                    node_depth[id(parent_node)] = max(depth + 1,
                                                      node_depth.get(id(parent_node), 0))
        keys = sorted(operations, key=lambda key: (-operation_depth[key], first_reached[key]))
        return [operations[key] for key in keys if isinstance(operations[key], layer_base.Layer)]

    def __call__(self, inputs, training=None):
        flat_inputs = nest.flatten(self.inputs)
        given = [adjusted_to_input(value, tuple(tensor.shape))
                 for value, tensor in zip(_match_inputs(self.inputs, inputs), flat_inputs)]
        values = {id(tensor): value for tensor, value in zip(flat_inputs, given)}
        for step in self.steps:
            step.run(values, training)
        return nest.map_structure(lambda t: values[id(t)], self.outputs)


def adjusted_to_input(value, shape: tuple):
    """``value``, given to a model input declared with ``shape`` (batch axis first), as Keras 3
    takes it: one trailing axis of size 1 added or dropped when that gives the declared rank
    (``fit(x, y)`` with ``x`` of shape ``(n,)`` for ``Input((1,))``); a rank or a size that
    still differs from the declaration is an error, as Keras' input check raises it."""
    given = getattr(value, "shape", None)
    if given is None:
        return value
    given = tuple(given)
    if len(given) == len(shape) + 1 and given[-1] == 1:
        value = squeeze(value, axis=-1)
    elif len(given) == len(shape) - 1 and shape and shape[-1] == 1:
        value = expand_dims(value, -1)
    adjusted = tuple(getattr(value, "shape", given))
    if len(adjusted) != len(shape) or any(
            want is not None and got is not None and want != got
            for want, got in zip(shape[1:], adjusted[1:])):
        raise ValueError(f"Invalid input shape: the model expects inputs of shape "
                         f"{format_shape(shape)}, but got an input of incompatible shape "
                         f"{format_shape(given)}.")
    return value


def _operation(node):
    """What a node of the graph runs: a step's layer (or the step itself, for a raw op), an
    input's ``InputLayer``."""
    if isinstance(node, Step):
        return node.layer if node.layer is not None else node
    return getattr(node, "_input_layer", None) or node


def _match_inputs(structure, inputs) -> list:
    flat = nest.flatten(structure)
    if isinstance(structure, dict) and isinstance(inputs, dict):
        return [inputs[key] for key in sorted(structure)]
    if isinstance(inputs, dict):  # by the names given to Input(name=...), as Keras matches
        missing = [t.name for t in flat if t.name not in inputs]
        if missing:
            raise ValueError(f"the model's inputs are named {', '.join(t.name for t in flat)}; "
                             f"the dict given has no {', '.join(missing)} (it has "
                             f"{', '.join(map(str, inputs))}).")
        return [inputs[t.name] for t in flat]
    if len(flat) == 1:
        if isinstance(inputs, (list, tuple)) and len(inputs) == 1:
            return list(inputs)
        return [inputs]
    if not isinstance(inputs, (list, tuple)) or len(inputs) != len(flat):
        raise ValueError(f"the model takes {len(flat)} inputs "
                         f"({', '.join(t.name for t in flat)}), got "
                         f"{len(inputs) if isinstance(inputs, (list, tuple)) else 1}.")
    return list(nest.flatten(inputs)) if len(nest.flatten(inputs)) == len(flat) else list(inputs)


def _checked_keras_tensor(value) -> KerasTensor:
    tensor = keras_tensor_of(value)
    if tensor is None:
        raise TypeError(f"a functional Model's inputs and outputs must be Keras tensors (from "
                        f"Input and layers or ops applied to them), got {type(value).__name__}.")
    return tensor
