"""``rt.keras.Model`` (subclassed or functional) and ``rt.keras.Sequential``."""

from __future__ import annotations

import json
import warnings
import weakref

import numpy as np

from runtime import nest
from runtime.autodiff import recording
from runtime.keras import functional
from runtime.keras.registration import with_registered
from runtime.keras.compile_saving import restore_compile
from runtime.keras.layers import base as layer_base
from runtime.keras.layers.base import Layer, unique_name
from runtime.keras.layers.input_layer import InputLayer
from runtime.keras import layers as layers_module
from runtime.keras.saving import (FORMAT, functional_config, load_weights, model_config,
                                  read_model, save_model, save_weights, sequential_config)
from runtime.keras.summary import summary_text
from runtime.keras.training import Trainer
from runtime.tensor import EagerTensor
from runtime.keras.missing import missing as _missing


class Model(Trainer, Layer):
    """A layer that trains: ``compile``, ``fit``, ``evaluate``, ``predict``.

    Subclass it (layers as attributes, ``call(inputs, training=None)``), or give it
    ``Model(inputs, outputs)`` from ``Input`` and layers (the functional API).
    """

    def __init__(self, *args, **kwargs):
        inputs = kwargs.pop("inputs", args[0] if len(args) > 0 else None)
        outputs = kwargs.pop("outputs", args[1] if len(args) > 1 else None)
        if (inputs is None) != (outputs is None):
            raise ValueError("a functional Model needs both inputs= and outputs=.")
        if inputs is not None and type(self) is Model and kwargs.get("name") is None:
            kwargs["name"] = unique_name("functional")  # Keras 3's class is Functional
        Layer.__init__(self, **kwargs)
        Trainer.__init__(self)
        if inputs is not None:
            self._graph = functional.Graph(inputs, outputs)
            self._functional_layers = self._graph.layers
            functional.close_inputs(nest.flatten(self._graph.inputs))
            self.inputs = list(nest.flatten(self._graph.inputs))
            self.outputs = list(nest.flatten(self._graph.outputs))
            self.built = True
            self._call_takes_training = True

    def call(self, inputs, training=None):
        graph = self.__dict__.get("_graph")
        if graph is None:
            raise NotImplementedError(f"{type(self).__name__} must define call(self, inputs, "
                                      f"training=None), or be built with Model(inputs, outputs).")
        return graph(inputs, training)

    @property
    def input(self):
        """A functional model's input Keras tensor(s), as given to ``Model(inputs, ...)``;
        otherwise, as for any layer, those of its first call on Keras tensors."""
        graph = self.__dict__.get("_graph")
        return graph.inputs if graph is not None else Layer.input.fget(self)

    @property
    def output(self):
        graph = self.__dict__.get("_graph")
        return graph.outputs if graph is not None else Layer.output.fget(self)

    @property
    def output_names(self) -> list[str]:
        """A functional model's output names, as Keras 3 gives them: the name of the layer
        (or op) that made each output."""
        graph = self.__dict__.get("_graph")
        if graph is None:  # Keras 3's Sequential and subclassed models have none either
            raise AttributeError(f"{self.name} has no output_names: only a functional model "
                                 f"(Model(inputs, outputs)) has them.")
        return [_maker_name(tensor) for tensor in nest.flatten(graph.outputs)]

    @property
    def input_shape(self):
        """The shape of the model's input (a list of them for several), batch first."""
        return _shapes_of(self._symbolic("input_shape", "inputs"))

    @property
    def output_shape(self):
        """The shape of the model's output (a list of them for several), batch first."""
        return _shapes_of(self._symbolic("output_shape", "outputs"))

    def _symbolic(self, what: str, which: str) -> list:
        tensors = self.__dict__.get(which)
        if tensors is None:
            raise AttributeError(
                f"{self.name} has no {what}: it is a subclassed model, whose inputs are "
                f"whatever it is called on. Build it from keras.Input(...) and layers "
                f"(Model(inputs, outputs) or a Sequential starting with an Input) to have one.")
        return tensors

    @layer_base.default_build
    def build(self, input_shape=None) -> None:
        """Marks the model built, as Keras 3 does for a model without a ``build`` of its own:
        its layers make their weights when a call first reaches them, so until then it has
        none (and says so)."""
        unbuilt = [layer.name for layer in self._sublayers() if not layer.built]
        if unbuilt and not self.built and type(self).build is Model.build:  # not super().build
            warnings.warn(
                f"{self.name}.build(input_shape) marks the model built but makes no weights: "
                f"its layers {', '.join(unbuilt)} make theirs when a call reaches them, as in "
                f"Keras 3. Call the model on a batch (model(x)) to build them, or define "
                f"build() to make them yourself.", UserWarning, stacklevel=2)
        self.built = True

    def _build_for(self, inputs) -> None:
        self.built = True  # a model's layers build themselves as the call reaches them

    def _probe_call(self, input_shape):
        """Calls the model on zeros of ``input_shape`` (which builds its layers); returns the
        output, a value of no use but to build what comes after."""
        zeros = lambda s: EagerTensor(np.zeros(tuple(1 if d is None else d for d in s),  # noqa: E731
                                               self.dtype))
        shapes = _shape_structure(input_shape)
        self.built = True  # the call below builds the layers; it must not come back here
        probe = [zeros(s) for s in shapes] if isinstance(shapes, list) else zeros(shapes)
        with recording.paused(), np.errstate(all="ignore"):  # values thrown away
            output = self(probe, training=False)
        layer_base.clear_call_losses()  # the probe's activity penalties are not the model's
        return output

    @property
    def layers(self) -> list[Layer]:
        """The layers: for a functional model, its ``InputLayer``s and layers in Keras 3's order
        (see ``functional.Graph.ordered``)."""
        graph = self.__dict__.get("_graph")
        return self._sublayers() if graph is None else graph.ordered()

    def get_layer(self, name=None, index=None) -> Layer:
        """The layer called ``name``, or at ``index`` in ``layers``."""
        layers = self.layers
        if index is not None:
            if not -len(layers) <= index < len(layers):
                raise ValueError(f"{self.name} has {len(layers)} layers; index {index} is out "
                                 f"of range.")
            return layers[index]
        for layer in layers:
            if layer.name == name:
                return layer
        raise ValueError(f"{self.name} has no layer named {name!r}; its layers are "
                         f"{', '.join(layer.name for layer in layers)}.")

    def _saving_kind(self) -> str | None:
        """How ``save`` describes this model: "Functional" for ``Model(inputs, outputs)``
        whose ``call`` is the graph's, None for a subclassed model (Python code)."""
        functional_call = type(self).call is Model.call
        return "Functional" if self.__dict__.get("_graph") is not None and functional_call \
            else None

    def summary(self, line_length=None, positions=None, print_fn=None, expand_nested=False,
                show_trainable=False, layer_range=None) -> None:
        """Prints Keras 3's table of the layers and the parameter counts (``print_fn``: a
        function given the whole text instead)."""
        if layer_range is not None:
            raise NotImplementedError("summary: layer_range is not supported yet; call "
                                      "summary() without it.")
        text = summary_text(self, line_length, positions, expand_nested, show_trainable)
        if print_fn is None:
            print(text, end="")
        else:
            print_fn(text)

    save_weights = save_weights
    load_weights = load_weights
    save = save_model

    def get_config(self) -> dict:
        """A functional model's name and graph (``saving.functional_config``); a subclassed
        model's, as any layer's, its constructor's arguments."""
        config = Layer.get_config(self)
        if self._saving_kind() == "Functional":
            config.update(functional_config(self))
        return config

    @classmethod
    def from_config(cls, config: dict, custom_objects=None) -> "Model":
        """The model ``get_config`` described, with new weights."""
        if "steps" not in config:
            return super().from_config(config)
        return _functional_from_config(config, with_registered(custom_objects))

    def to_json(self, **kwargs) -> str:
        """The model's structure as JSON (``keras.models.model_from_json`` rebuilds it)."""
        return json.dumps({"format": FORMAT, **model_config(self)}, **kwargs)

    def _keras_class_name(self) -> str:
        # Keras 3's Model(inputs, outputs) is an instance of its Functional class.
        if type(self) is Model and "_graph" in self.__dict__:
            return "Functional"
        return type(self).__name__


class Sequential(Model):
    """A stack of layers, each called on the output of the one before."""

    def __init__(self, layers=None, name=None, trainable=True):
        super().__init__(name=name, trainable=trainable)
        self._sequential = []
        self._input_shape = None
        self._probe_output = None  # the last layer's output on the probe, for the next add
        self._adding = True
        for layer in layers or []:
            self.add(layer)
        self._adding = False
        self._rebuilt()

    def _rebuilt(self) -> None:
        """Keras 3 rebuilds a Sequential model with a known input shape as a functional
        model, which takes the next default functional model name, after its constructor's
        layers, each later ``add`` and a build: so do we, so that the functional models made
        after it are named as in Keras ("functional_2", ...)."""
        if self._input_shape is not None and self._sequential and not self._adding:
            unique_name("functional")

    def add(self, layer) -> None:
        """Puts ``layer`` on top. An ``Input`` (or ``InputLayer``) first gives the input
        shape, and so does a first layer that states one (``input_shape=``, or a model that
        has one)."""
        tensor = functional.keras_tensor_of(layer)
        if tensor is not None or isinstance(layer, InputLayer):
            if self._sequential:
                raise ValueError("an Input can only come first in a Sequential model; start a "
                                 "new Sequential with it.")
            if tensor is not None:
                functional.close_inputs([tensor])
            self._input_shape = tuple(tensor.shape if tensor is not None else layer.batch_shape)
            return
        if not isinstance(layer, Layer):
            raise TypeError(f"Sequential.add takes a layer, got {type(layer).__name__}.")
        layer._sequential_owner = weakref.ref(self)
        if not self._sequential and self._input_shape is None:
            self._input_shape = _stated_input_shape(layer)
        self._sequential.append(layer)
        self.built = False
        self._rebuilt()
        if self._input_shape is None:
            return
        if self._probe_output is None:
            self._probe_output = self._probe_call(self._input_shape)
            return
        # Only the new layer runs, on the output the layers before it gave the probe: a
        # Sequential of n layers is built in n layer calls, not n * (n + 1) / 2.
        with recording.paused(), np.errstate(all="ignore"), layer_base.name_scope(self):
            self._probe_output = layer(self._probe_output, training=False)
        layer_base.clear_call_losses()
        self.built = True

    def pop(self) -> Layer:
        self._probe_output = None
        return self._sequential.pop()

    def call(self, inputs, training=None):
        x = inputs
        if self._input_shape is not None:
            x = functional.adjusted_to_input(x, self._input_shape)
        for layer in self._sequential:
            x = layer(x)
        return x

    def build(self, input_shape=None) -> None:
        if input_shape is not None:
            self._input_shape = tuple(input_shape)
            self._rebuilt()
        if self._input_shape is not None and not self.built:
            self._probe_output = self._probe_call(self._input_shape)
        self.built = True

    def _build_for(self, inputs) -> None:
        # Keras 3 builds a Sequential model without an Input on the first batch's shape,
        # batch size included: that is its input_shape from then on.
        shape = getattr(inputs, "shape", None)
        if self._input_shape is None and shape is not None:
            self._input_shape = tuple(shape)
            self._rebuilt()
        self.built = True

    @property
    def layers(self) -> list[Layer]:
        return list(self._sequential)

    @property
    def inputs(self) -> list:
        """The Keras tensor its layers are called on (once its input shape is known)."""
        return [self._symbolic_chain()[0]]

    @property
    def outputs(self) -> list:
        return [self._symbolic_chain()[1]]

    def _symbolic(self, what: str, which: str) -> list:
        return self.inputs if which == "inputs" else self.outputs

    def _symbolic_chain(self) -> tuple:
        """An Input of the model's input shape and what its layers make of it, as Keras 3
        builds a Sequential model: what ``inputs``, ``outputs`` and each layer's ``output``
        are. Made when first asked for, again after layers are added or removed."""
        if self._input_shape is None:
            raise AttributeError(
                f"{self.name} has no inputs or outputs yet: its input shape is unknown. Start "
                f"it with keras.Input(shape=...), or call it on data first.")
        chain = self.__dict__.get("_symbolic_chain_of")
        if chain is None or chain[2] != [id(layer) for layer in self._sequential]:
            inputs = functional.Input(batch_shape=self._input_shape)
            functional.close_inputs([inputs])
            outputs = inputs
            for layer in self._sequential:
                outputs = layer(outputs)
            chain = self._symbolic_chain_of = (inputs, outputs,
                                               [id(layer) for layer in self._sequential])
        return chain

    def _saving_kind(self) -> str | None:
        return "Sequential" if type(self).call is Sequential.call else None

    def get_config(self) -> dict:
        """Keras 3's: the name, ``trainable``, dtype, ``layers`` (an ``InputLayer`` first when
        the input shape is known) and ``build_input_shape``."""
        return {**Layer.get_config(self), **sequential_config(self)}

    @classmethod
    def from_config(cls, config: dict, custom_objects=None) -> "Sequential":
        """The model ``get_config`` described, with new weights."""
        custom_objects = with_registered(custom_objects)
        model = cls(name=config["name"], trainable=config.get("trainable", True))
        for entry in config["layers"]:
            model.add(_deserialize(entry, custom_objects))
        shape = config.get("build_input_shape")
        if shape is not None and not model.built:
            model.build(tuple(shape))
        return model


def _shapes_of(tensors: list):
    shapes = [tuple(tensor.shape) for tensor in tensors]
    return shapes[0] if len(shapes) == 1 else shapes


def load_model(filepath, custom_objects=None, compile=True, safe_mode=True):  # noqa: A002
    """The model ``model.save`` wrote to ``filepath``, with its weights, and (``compile=True``)
    compiled as it was saved, its optimizer's variables restored."""
    config, arrays, optimizer_state = read_model(filepath)
    custom_objects = with_registered(custom_objects)
    model = model_from_config(config, custom_objects)
    weights = model.weights
    if len(arrays) != len(weights):
        raise ValueError(f"{filepath} holds {len(arrays)} weights, the rebuilt model has "
                         f"{len(weights)}.")
    for variable, array in zip(weights, arrays):
        variable.assign(array.astype(variable.dtype))
    if compile and config.get("compile_config") is not None:
        restore_compile(model, config["compile_config"], optimizer_state, custom_objects)
    return model


def model_from_json(json_string: str, custom_objects=None):
    """The model ``to_json`` described, with new weights."""
    return model_from_config(json.loads(json_string), custom_objects)


def clone_model(model, input_tensors=None, clone_function=None, **kwargs):
    """A new Sequential or functional model of the same structure with new layers (and so
    new initial weights), as Keras' ``clone_model``."""
    if input_tensors is not None or clone_function is not None:
        raise NotImplementedError("clone_model: input_tensors and clone_function are not "
                                  "supported yet by rt.keras.")
    return model_from_json(model.to_json())  # through JSON: the form load_model reads


def model_from_config(config: dict, custom_objects=None):
    """The model (or layer) a ``{"class_name": ..., "config": ...}`` dict describes, as
    ``model_config`` and ``to_json`` write it, with new weights."""
    return _deserialize(config, with_registered(custom_objects))


def _deserialize(entry: dict, custom_objects: dict):
    name = entry["class_name"]
    model_class = {"Sequential": Sequential, "Functional": Model}.get(name)
    if model_class is not None:
        return model_class.from_config(entry["config"], custom_objects)
    cls = custom_objects.get(name) or getattr(layers_module, name, None)
    if cls is None:
        raise ValueError(f"unknown layer class {name!r}: pass it to load_model in "
                         f"custom_objects={{{name!r}: {name}}}.")
    return cls.from_config({k: tuple(v) if isinstance(v, list) else v
                            for k, v in entry["config"].items()})


def _functional_from_config(config: dict, custom_objects: dict) -> Model:
    layers = [_deserialize(entry, custom_objects) for entry in config["layers"]]
    # Keras inputs record every eager op until a Model takes them: a failure below must close
    # them, or recording would go on after load_model raised.
    inputs = [functional.Input(batch_shape=tuple(i["shape"]), dtype=i["dtype"], name=i["name"])
              for i in config["inputs"]]
    try:
        return _functional_model(config, layers, inputs)
    except BaseException:
        functional.close_inputs(inputs)
        raise


def _functional_model(config: dict, layers: list, inputs: list) -> Model:
    outputs: list[list] = []

    def decode(value):
        if isinstance(value, dict) and set(value) == {"input"}:
            return inputs[value["input"]]
        if isinstance(value, dict) and set(value) == {"step", "output"}:
            return outputs[value["step"]][value["output"]]
        if isinstance(value, list):
            return [decode(v) for v in value]
        if isinstance(value, dict):
            return {k: decode(v) for k, v in value.items()}
        return value

    for step in config["steps"]:
        result = layers[step["layer"]](*decode(step["args"]), **decode(step["kwargs"]))
        outputs.append(nest.flatten(result))
    results = [decode(ref) for ref in config["outputs"]]
    return Model(inputs=inputs if len(inputs) > 1 else inputs[0],
                 outputs=results[0] if config["single_output"] else results,
                 name=config["name"], trainable=config.get("trainable", True))


def _stated_input_shape(layer: Layer):
    """The input shape ``layer`` states before any call, as Keras 3's Sequential reads it:
    ``input_shape=`` given to it, or a model's own (one input, known)."""
    if layer._batch_input_shape is not None:
        return layer._batch_input_shape
    if not isinstance(layer, Model):
        return None
    try:
        shape = layer.input_shape
    except AttributeError:  # a subclassed model, or a Sequential of no known input shape
        return None
    return shape if isinstance(shape, tuple) else None


def _maker_name(tensor) -> str:
    """The name of the layer or op that made a functional model's output ``tensor`` (the
    ``InputLayer``'s for an input given back as an output)."""
    step = tensor._step
    if step is None:
        return tensor._input_layer.name
    return step.layer.name if step.layer is not None else step.op.name


def _shape_structure(shape):
    """A shape as a tuple, or a list of shapes as a list of tuples."""
    if isinstance(shape, (list, tuple)) and shape and isinstance(shape[0], (list, tuple)):
        return [tuple(s) for s in shape]
    return tuple(shape)


__getattr__ = _missing("keras.models")
