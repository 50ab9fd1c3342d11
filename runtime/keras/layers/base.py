"""``rt.keras.layers.Layer``: a module that creates its weights on its first call.

Keras' contract: ``__init__`` stores settings, ``build(input_shape)`` creates the weights
with ``add_weight`` (once, on the first call, when the input's shape is known), ``call``
computes. Sub-layers and weights are found from the attributes in the order they were set
(Keras' order, which ``get_weights``/``set_weights`` rely on), not sorted like ``rt.Module``.

``training`` flows down: a layer called without ``training=`` inside a call that had one
receives the outer value, so ``model(x, training=True)`` reaches a ``Dropout`` deep inside.
A layer called on symbolic Keras inputs (``Input``) is recorded into a functional graph
instead of running (see ``runtime.keras.functional``).

A layer called while a function is traced (``fit``'s training step, a ``tf.function``) runs
its ``call`` through ``runtime.conversion``, as Keras runs it through AutoGraph: with the
transpiler imported, a Python ``if`` on a tensor in ``call`` becomes graph control flow.
Eager calls run ``call`` as written (a tensor's truth value is known there).
"""

from __future__ import annotations

import contextlib
import inspect
import itertools
import re
import threading
import weakref
from collections import defaultdict

import numpy as np

from runtime import conversion, display, nest, tracing
from runtime.keras import constraints, initializers, masks, regularizers
from runtime.module import Module
from runtime.ops.array_ops import cast, constant, shape as shape_of
from runtime.tensor import Tensor
from runtime.variables import Variable

_name_counts: dict[str, itertools.count] = defaultdict(itertools.count)
_name_lock = threading.Lock()


class _CallContext(threading.local):
    def __init__(self):
        self.training: list = []
        self.scopes: list = []  # the layers whose call or build is running, outermost first


_context = _CallContext()


@contextlib.contextmanager
def name_scope(owner):
    """Keras 3's name scope: the variables ``owner`` (a layer or a metric) and the layers it
    calls make while it runs have paths under its name, ``sequential/dense/kernel``. A layer
    already innermost (its build inside its call) is not entered twice."""
    scopes = _context.scopes
    if scopes and scopes[-1] is owner:
        yield
        return
    scopes.append(owner)
    try:
        yield
    finally:
        scopes.pop()


def default_build(build):
    """Marks ``build`` as one that makes no weights (Keras' default, ``Layer.build`` and a
    subclassed ``Model``'s): a layer whose ``build`` it is builds on its first call, and
    nothing calls that ``build`` for it."""
    build.makes_no_weights = True
    return build


def has_own_build(layer) -> bool:
    """Whether ``layer``'s class defines a ``build`` that makes its weights."""
    return not getattr(type(layer).build, "makes_no_weights", False)


class KerasVariable(Variable):
    """A Keras 3 variable: its own name (``kernel``), ``path``, the names of the layers it was
    made in and its own (``sequential/dense/kernel``), and, in TensorFlow's style, Keras'
    text (``<Variable path=dense/kernel, shape=(3, 2), dtype=float32, value=[...]>``)."""

    def __init__(self, initial_value, name: str, owner, **kwargs):
        with name_scope(owner):
            self.path = "/".join(scope.name for scope in _context.scopes) + "/" + name
        super().__init__(initial_value, name=name, tensorflow_naming=False, **kwargs)

    def __repr__(self) -> str:
        if display.style() != display.TENSORFLOW or self._value is None:
            return super().__repr__()
        value = self._value.item() if self._value.ndim == 0 else self._value
        return (f"<Variable path={self.path}, shape={self.shape}, dtype={self.dtype.name}, "
                f"value={value}>")


def snake_case(name: str) -> str:
    """Keras' default layer name for a class: ``Dense`` -> ``dense``, ``Conv2D`` -> ``conv2d``,
    ``MaxPooling2D`` -> ``max_pooling2d``."""
    name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", re.sub(r"\W+", "", name))
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()


def unique_name(base: str) -> str:
    """``base``, then ``base_1``, ``base_2``... as Keras names layers of one kind."""
    with _name_lock:
        n = next(_name_counts[base])
    return base if n == 0 else f"{base}_{n}"


class Layer(Module):
    """Base class of Keras layers and models."""

    def __init__(self, trainable: bool = True, name: str | None = None, dtype=None,
                 input_shape=None, batch_input_shape=None, input_dim=None,
                 activity_regularizer=None, **kwargs):
        if kwargs:
            raise TypeError(f"{type(self).__name__}: unexpected keyword argument(s) "
                            f"{', '.join(sorted(kwargs))}.")
        object.__setattr__(self, "_own_weights", [])
        object.__setattr__(self, "_weight_regularizers", [])
        object.__setattr__(self, "_call_losses", [])
        self.activity_regularizer = regularizers.get(activity_regularizer)
        self._name = name or unique_name(snake_case(type(self).__name__))
        self.trainable = trainable
        self.built = False
        self.dtype = np.dtype(dtype or "float32")
        if input_dim is not None and input_shape is None:
            input_shape = (input_dim,)
        if input_shape is not None:
            batch_input_shape = (None,) + _shape_tuple(input_shape)
        self._batch_input_shape = tuple(batch_input_shape) if batch_input_shape else None
        self._call_takes_training = "training" in _parameters(self.call)
        self._call_takes_mask = "mask" in _parameters(self.call)
        self._makes_masks = type(self).compute_mask is not Layer.compute_mask
        self._call_takes_kwargs = any(p.kind is p.VAR_KEYWORD
                                      for p in _parameters(self.call).values())

    @property
    def trainable(self) -> bool:
        return self._trainable

    @trainable.setter
    def trainable(self, value: bool) -> None:
        """As in Keras 3, freezing (or unfreezing) a layer does the same to its sub-layers: a
        ``BatchNormalization`` inside a frozen model runs in inference mode."""
        object.__setattr__(self, "_trainable", bool(value))
        for layer in self._sublayers():
            layer.trainable = value

    # -- weights -----------------------------------------------------------------------------

    def _kernel_and_bias_options(self, kernel_initializer, bias_initializer, kernel_regularizer,
                                 bias_regularizer, kernel_constraint, bias_constraint) -> None:
        """The six options of a layer with a kernel and a bias (Dense, the convolutions,
        EinsumDense), as Keras reads them: names or objects, made objects here."""
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)

    def add_weight(self, name=None, shape=(), dtype=None, initializer=None, trainable=True,
                   regularizer=None, constraint=None, **kwargs) -> Variable:
        """A new variable of this layer, initialized by ``initializer`` (a name, an
        initializer or a function; ``glorot_uniform`` for floats by default)."""
        dtype = np.dtype(dtype or self.dtype)
        shape = _shape_tuple(shape)
        if initializer is None:
            initializer = "glorot_uniform" if dtype.kind == "f" else "zeros"
        # Weights are created on the first call, which may happen while a training step is
        # traced: the value and the variable must outlive that trace, so both are made
        # outside it.
        with tracing.eager_scope():
            value = initializers.get(initializer)(shape, dtype=dtype)
            value = np.asarray(value.numpy() if isinstance(value, Tensor) else value, dtype)
            # Keras 3's name: the weight's own ("kernel"); its layers' are in its path.
            variable = KerasVariable(value, name or unique_name("variable"), self,
                                     trainable=trainable,
                                     constraint=constraints.get(constraint))
        variable._keras_weight = True  # see _weights_of_its_own
        self._own_weights.append(variable)
        if regularizer is not None:
            self._weight_regularizers.append((variable, regularizers.get(regularizer)))
        return variable

    # -- losses ------------------------------------------------------------------------------

    def add_loss(self, loss) -> None:
        """Adds ``loss`` (a scalar tensor computed in ``call``) to ``self.losses`` until the
        next call of the outermost layer; ``fit`` adds it to the loss it minimizes."""
        self._call_losses.append(loss)
        _layers_with_call_losses.add(self)

    @property
    def losses(self) -> list:
        """This layer's and its sub-layers' extra losses: what ``add_loss`` and the activity
        regularizers added during the last call, then each regularized trainable weight's
        penalty (computed now, from the weight's value)."""
        found = []
        for layer in [self] + self._all_sublayers():
            found.extend(layer._call_losses)
            if layer._weight_regularizers and layer.trainable:
                found.extend(regularizer(variable)
                             for variable, regularizer in layer._weight_regularizers
                             if variable.trainable)
        return found

    def _all_sublayers(self) -> list["Layer"]:
        found, seen = [], {id(self)}
        pending = list(self._sublayers())
        while pending:
            layer = pending.pop(0)
            if id(layer) not in seen:
                seen.add(id(layer))
                found.append(layer)
                pending.extend(layer._sublayers())
        return found

    def _all_weights(self) -> list[Variable]:
        found = self._weights_of_its_own()
        seen = {id(weight) for weight in found}
        for layer in self._sublayers():
            for weight in layer._all_weights():
                if id(weight) not in seen:
                    seen.add(id(weight))
                    found.append(weight)
        return found

    def _weights_of_its_own(self) -> list[Variable]:
        """The variables this layer made (``add_weight``) or holds as attributes, trainable
        ones first, as Keras 3 lists a layer's own weights (``get_weights`` follows). Of its
        attributes, only Keras weights (some layer's ``add_weight``) count: Keras 3 does not
        track a raw ``tf.Variable``, so ``fit`` leaves one unchanged."""
        found, seen = [], set()
        for weight in itertools.chain(self._own_weights, (
                value for value in self._tracked_values()
                if isinstance(value, Variable) and getattr(value, "_keras_weight", False))):
            if id(weight) not in seen:
                seen.add(id(weight))
                found.append(weight)
        return sorted(found, key=lambda weight: not weight.trainable)  # stable

    def _tracked_values(self):
        for key, value in list(self.__dict__.items()):
            if key in _UNTRACKED:
                continue
            yield from nest.flatten(value) if isinstance(value, (list, tuple, dict)) else (value,)

    def _sublayers(self) -> list["Layer"]:
        found, seen = [], {id(self)}
        for value in self._tracked_values():
            if isinstance(value, Layer) and id(value) not in seen:
                seen.add(id(value))
                found.append(value)
        return found

    @property
    def weights(self) -> list[Variable]:
        return self._all_weights()

    @property
    def trainable_weights(self) -> list[Variable]:
        if not self.trainable:
            return []
        own = [w for w in self._weights_of_its_own() if w.trainable]
        seen = {id(w) for w in own}
        for layer in self._sublayers():
            for weight in layer.trainable_weights:
                if id(weight) not in seen:
                    seen.add(id(weight))
                    own.append(weight)
        return own

    @property
    def non_trainable_weights(self) -> list[Variable]:
        trainable = {id(w) for w in self.trainable_weights}
        return [w for w in self.weights if id(w) not in trainable]

    variables = weights
    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights

    @property
    def layers(self) -> list["Layer"]:
        return self._sublayers()

    def get_weights(self) -> list[np.ndarray]:
        return [np.array(w.numpy()) for w in self.weights]

    def set_weights(self, weights) -> None:
        mine = self.weights
        weights = list(weights)
        if not mine and weights:
            raise ValueError(f"{self.name}.set_weights: the layer has no weights yet (it is not "
                             f"built), got {len(weights)} arrays. Build it first: call it on "
                             f"data, or layer.build(input_shape).")
        if len(weights) != len(mine):
            raise ValueError(f"{self.name}.set_weights: expected {len(mine)} arrays (one per "
                             f"weight: {', '.join(w.name for w in mine)}), got {len(weights)}.")
        for variable, value in zip(mine, weights):
            value = np.asarray(value)
            if value.shape != variable.shape:
                raise ValueError(f"{self.name}.set_weights: weight {variable.name!r} has shape "
                                 f"{variable.shape}, the array given has shape {value.shape}.")
            variable.assign(value.astype(variable.dtype))

    def count_params(self) -> int:
        return int(sum(np.prod(w.shape, dtype=np.int64) for w in self.weights))

    # -- calling -----------------------------------------------------------------------------

    @default_build
    def build(self, input_shape) -> None:
        self.built = True

    def call(self, inputs, *args, **kwargs):
        return inputs

    def __call__(self, *args, **kwargs):
        from_graph = _functional_call(self, args, kwargs)
        if from_graph is not _NOT_SYMBOLIC:
            return from_graph
        if args:  # NumPy arrays and Python lists become tensors, as in Keras
            args = (nest.map_structure(self._as_input, args[0]),) + tuple(args[1:])
        inputs = args[0] if args else kwargs.get("inputs")
        if not self.built:
            with name_scope(self):
                self._build_for(inputs)
        masking = self._makes_masks or masks.active() or kwargs.get("mask") is not None
        if masking:
            mask = kwargs.get("mask")
            if mask is None:
                mask = masks.input_mask(inputs)
                if mask is not None and self._call_takes_mask:
                    kwargs["mask"] = mask
        if not _context.training:  # the outermost call: the last call's losses and masks go
            if _layers_with_call_losses:
                clear_call_losses()
            if masking:  # but for those of this call's arguments (a value beside the query)
                masks.clear(keep=nest.flatten((args, kwargs)))
        explicit = kwargs.get("training", None)
        if explicit is None:
            inherited = _context.training[-1] if _context.training else None
            if self._call_takes_training and inherited is not None:
                kwargs["training"] = inherited
            elif not self._call_takes_training and not self._call_takes_kwargs:
                kwargs.pop("training", None)
        elif not self._call_takes_training and not self._call_takes_kwargs:
            kwargs.pop("training")
        _context.training.append(kwargs.get("training", explicit if explicit is not None
                                             else (_context.training[-1]
                                                   if _context.training else None)))
        call = self.call
        if tracing.is_tracing():
            call = conversion.converted(call)
        try:
            with name_scope(self):
                result = call(*args, **kwargs)
        finally:
            _context.training.pop()
        if self.activity_regularizer is not None:
            self._add_activity_losses(result)
        if masking:
            masks.set_masks(result, self.compute_mask(inputs, mask))
        shape = getattr(result, "shape", None)
        if shape is not None:  # summary() shows the last call's (a subclassed model's layers)
            self._last_output_shape = tuple(shape)
        return result

    def _add_activity_losses(self, result) -> None:
        # Divided by the batch size, as Keras 3 does: the penalty's strength does not change
        # with the batch size.
        for output in nest.flatten(result):
            if isinstance(output, Tensor):
                loss = self.activity_regularizer(output)
                if output.shape is None or len(output.shape):
                    loss = loss / cast(shape_of(output)[0], loss.dtype)
                self.add_loss(loss)

    def _as_input(self, value):
        if isinstance(value, (np.ndarray, np.generic, float)):
            array = np.asarray(value)
            return constant(array.astype(self.dtype) if array.dtype.kind == "f" else array)
        return value

    def _build_for(self, inputs) -> None:
        shapes = nest.map_structure(lambda t: tuple(t.shape) if hasattr(t, "shape") else None,
                                    inputs) if inputs is not None else None
        if has_own_build(self):
            self.build(shapes)
        self.built = True

    # Layers that pass a mask on unchanged (Dense, Dropout, normalization...) say so.
    supports_masking = False

    def compute_mask(self, inputs, mask=None):
        """The mask of this layer's output, from its input's: the same mask when the layer
        ``supports_masking`` (it works step by step), else none."""
        return mask if self.supports_masking else None

    def compute_output_shape(self, input_shape):
        raise NotImplementedError(f"{type(self).__name__} does not compute output shapes "
                                  f"without calling it.")

    def get_config(self) -> dict:
        """The constructor's arguments that ``type(self)(**config)`` rebuilds this layer from
        (``model.save``); a subclass with arguments of its own adds them."""
        config = {"name": self.name, "trainable": self.trainable, "dtype": self.dtype.name}
        for key in ("activity_regularizer", "kernel_regularizer", "bias_regularizer"):
            if getattr(self, key, None) is not None:
                config[key] = regularizers.serialize(getattr(self, key))
        return config

    @classmethod
    def from_config(cls, config: dict) -> "Layer":
        config = {key: regularizers.deserialize(value) if key.endswith("_regularizer") else value
                  for key, value in config.items()}
        return cls(**config)

    def __setattr__(self, name, value):
        object.__setattr__(self, name, value)

    # -- the Keras tensors of its first call on them (functional models) ----------------------

    @property
    def input(self):
        """The Keras tensor(s) this layer was first called on, defining a model."""
        return self._first_symbolic_call("input")[0]

    @property
    def output(self):
        """The Keras tensor(s) this layer's first call on Keras tensors gave: with
        ``Model(model.inputs, model.layers[-2].output)`` a model ends at this layer."""
        return self._first_symbolic_call("output")[1]

    def _first_symbolic_call(self, what: str) -> tuple:
        record = self.__dict__.get("_symbolic_call")
        if record is None:
            owner = self.__dict__.get("_sequential_owner")
            if owner is not None and owner() is not None:
                owner()._symbolic_chain()  # a Sequential model calls its layers on them
                record = self.__dict__.get("_symbolic_call")
        if record is None:
            raise AttributeError(
                f"layer {self.name!r} has no {what}: it was never called on Keras tensors. "
                f"Call it on keras.Input(...) (or put it in a model that starts with one).")
        return record

    def __repr__(self) -> str:
        if display.style() == display.TENSORFLOW:  # Keras 3's text
            return f"<{self._keras_class_name()} name={self.name}, built={self.built}>"
        return f"<rt.keras {type(self).__name__} {self.name!r}>"

    def _keras_class_name(self) -> str:
        return type(self).__name__


# Attributes that hold other models' layers (the functional graph) or bookkeeping, not
# sub-layers owned by this one.
_UNTRACKED = frozenset({"_own_weights", "_weight_regularizers", "_call_losses", "_graph",
                        "_probe_output", "_symbolic_call", "_sequential_owner",
                        "_symbolic_chain_of",
                        "_inbound", "_compiled", "_compile_args", "_history",
                        "_train_functions", "_test_functions", "_predict_functions"})
_NOT_SYMBOLIC = object()
# Layers whose _call_losses are not empty: the outermost call empties theirs (Keras' losses
# belong to the last call) without visiting every layer of the model.
_layers_with_call_losses: "weakref.WeakSet[Layer]" = weakref.WeakSet()


def clear_call_losses() -> None:
    for layer in list(_layers_with_call_losses):
        layer._call_losses.clear()
    _layers_with_call_losses.clear()


def _functional_call(layer, args, kwargs):
    # Imported here would be a late import; the functional module installs the hook instead.
    if _symbolic_hook is None:
        return _NOT_SYMBOLIC
    return _symbolic_hook(layer, args, kwargs)


_symbolic_hook = None


def set_symbolic_hook(hook) -> None:
    global _symbolic_hook
    _symbolic_hook = hook


def push_training(training):
    _context.training.append(training)


def pop_training():
    _context.training.pop()


def current_training():
    return _context.training[-1] if _context.training else None


def _parameters(fn) -> dict:
    try:
        return dict(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return {}


def _shape_tuple(shape) -> tuple:
    if shape is None:
        return ()
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return tuple(None if d is None else int(d) for d in shape)
