"""``save_weights`` / ``load_weights``: the weights as a NumPy ``.npz`` archive; ``model.save``
/ ``load_model``: a zip archive of the model's structure (``config.json``) and its weights
(``model.weights.npz``).

The weights archive holds one array per weight, in ``model.weights`` order (``weight_0000``,
...), and their names (``names``, an array of strings). Nothing is ever unpickled
(``allow_pickle=False``) and the structure is JSON: a saved model cannot run code when loaded.
So only what JSON describes is saved: ``Sequential`` models and functional models made of
layers (of ``rt.keras`` or given to ``load_model`` in ``custom_objects``), each rebuilt from
its ``get_config()``. Subclassed models, ``Lambda`` layers and raw ops on Keras inputs are code;
for them ``save`` says so, and ``save_weights`` plus the code that builds the model do the job.
The optimizer is not saved: ``load_model`` returns an uncompiled model.
"""

from __future__ import annotations

import io
import json
import os
import zipfile

import numpy as np

from runtime import nest


def save_weights(model, filepath, overwrite=True) -> None:
    path = os.fspath(filepath)
    if not overwrite and os.path.exists(path):
        raise FileExistsError(f"{path} exists and overwrite=False.")
    weights = model.weights
    arrays = {f"weight_{i:04d}": np.asarray(w.numpy()) for i, w in enumerate(weights)}
    arrays["names"] = np.array([w.name for w in weights], dtype=str)
    directory = os.path.dirname(path)
    if directory:
        os.makedirs(directory, exist_ok=True)
    with open(path, "wb") as file:  # a file object: np.savez adds no ".npz" to the name
        np.savez(file, **arrays)


def load_weights(model, filepath, skip_mismatch=False) -> None:
    path = os.fspath(filepath)
    with np.load(path, allow_pickle=False) as archive:
        keys = sorted(k for k in archive.files if k.startswith("weight_"))
        arrays = [archive[k] for k in keys]
    weights = model.weights
    if not weights and arrays:
        raise ValueError(f"{model.name} has no weights yet: build it (call it on data, or give "
                         f"it an input shape) before load_weights.")
    if len(arrays) != len(weights):
        raise ValueError(f"{path} holds {len(arrays)} weights, {model.name} has {len(weights)}.")
    for variable, array in zip(weights, arrays):
        if array.shape != variable.shape:
            if skip_mismatch:
                continue
            raise ValueError(f"{path}: weight {variable.name!r} has shape {variable.shape}, the "
                             f"file holds shape {array.shape}.")
        variable.assign(array.astype(variable.dtype))


FORMAT = "rt.keras model 1"


def save_model(model, filepath, overwrite=True, **kwargs) -> None:
    """Writes ``model``'s structure and weights to ``filepath`` (a zip archive)."""
    path = os.fspath(filepath)
    if not overwrite and os.path.exists(path):
        raise FileExistsError(f"{path} exists and overwrite=False.")
    config = {"format": FORMAT, **_model_config(model)}
    weights = io.BytesIO()
    np.savez(weights, **{f"weight_{i:04d}": np.asarray(w.numpy())
                         for i, w in enumerate(model.weights)})
    directory = os.path.dirname(path)
    if directory:
        os.makedirs(directory, exist_ok=True)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("config.json", json.dumps(config, indent=1))
        archive.writestr("model.weights.npz", weights.getvalue())


def load_model(filepath, custom_objects=None, compile=True, safe_mode=True):  # noqa: A002
    """The model ``save`` wrote to ``filepath``, with its weights (not compiled)."""
    path = os.fspath(filepath)
    if not zipfile.is_zipfile(path):
        raise ValueError(f"{path} is not a model saved by rt.keras' model.save (a zip archive of "
                         f"config.json and model.weights.npz).")
    with zipfile.ZipFile(path) as archive:
        config = json.loads(archive.read("config.json"))
        with np.load(io.BytesIO(archive.read("model.weights.npz")), allow_pickle=False) as npz:
            arrays = [npz[k] for k in sorted(npz.files)]
    if config.get("format") != FORMAT:
        raise ValueError(f"{path}: unknown format {config.get('format')!r} (expected {FORMAT!r}).")
    model = _model_from_config(config, dict(custom_objects or {}))
    weights = model.weights
    if len(arrays) != len(weights):
        raise ValueError(f"{path} holds {len(arrays)} weights, the rebuilt model has "
                         f"{len(weights)}.")
    for variable, array in zip(weights, arrays):
        variable.assign(array.astype(variable.dtype))
    return model


def _model_config(model) -> dict:
    from runtime.keras import functional  # noqa: PLC0415 - models imports this module
    from runtime.keras.models import Model, Sequential  # noqa: PLC0415
    if isinstance(model, Sequential):
        shape = model._input_shape
        return {"class_name": "Sequential", "name": model.name,
                "input_shape": None if shape is None else list(shape),
                "layers": [_layer_config(layer) for layer in model.layers]}
    graph = model.__dict__.get("_graph")
    if type(model) is not Model or graph is None:
        raise NotImplementedError(
            f"{model.name}: model.save stores Sequential and functional models; a subclassed "
            f"model ({type(model).__name__}) is Python code. Save its weights with "
            f"save_weights and rebuild it in code before load_weights.")
    layers, ids, steps = [], {}, []
    inputs = nest.flatten(graph.inputs)
    refs = {id(t): {"input": i} for i, t in enumerate(inputs)}
    for number, step in enumerate(graph.steps):
        if step.layer is None:
            raise NotImplementedError(
                f"{model.name}: model.save stores models made of layers; this one applies "
                f"{step.op.name} to a Keras tensor directly (a raw op, Python code). Wrap it in a "
                f"layer, or save the weights with save_weights.")
        if id(step.layer) not in ids:
            ids[id(step.layer)] = len(layers)
            layers.append(_layer_config(step.layer))
        encode = lambda v: refs[id(v)] if isinstance(v, functional.KerasTensor) else v  # noqa: E731
        steps.append({"layer": ids[id(step.layer)], "args": nest.map_structure(encode, step.args),
                      "kwargs": nest.map_structure(encode, step.kwargs)})
        for index, tensor in enumerate(nest.flatten(step.outputs_structure)):
            refs[id(tensor)] = {"step": number, "output": index}
    return {"class_name": "Functional", "name": model.name,
            "inputs": [{"shape": list(t.shape), "dtype": t.dtype.name, "name": t.name}
                       for t in inputs],
            "layers": layers, "steps": steps,
            "outputs": [refs[id(t)] for t in nest.flatten(graph.outputs)],
            "single_output": not isinstance(graph.outputs, (list, tuple, dict))}


def _layer_config(layer) -> dict:
    return {"class_name": type(layer).__name__, "config": layer.get_config()}


def _model_from_config(config: dict, custom_objects: dict):
    from runtime.keras import functional, layers as layers_module  # noqa: PLC0415
    from runtime.keras.models import Model, Sequential  # noqa: PLC0415

    def layer(entry):
        name = entry["class_name"]
        cls = custom_objects.get(name) or getattr(layers_module, name, None)
        if cls is None:
            raise ValueError(f"unknown layer class {name!r}: pass it to load_model in "
                             f"custom_objects={{{name!r}: {name}}}.")
        return cls.from_config(_tuples(entry["config"]))

    if config["class_name"] == "Sequential":
        model = Sequential(name=config["name"])
        if config["input_shape"] is not None:
            model.add(functional.Input(batch_shape=tuple(config["input_shape"])))
        for entry in config["layers"]:
            model.add(layer(entry))
        return model
    inputs = [functional.Input(batch_shape=tuple(i["shape"]), dtype=i["dtype"], name=i["name"])
              for i in config["inputs"]]
    layers = [layer(entry) for entry in config["layers"]]
    outputs: list[list] = []

    def decode(value):
        if isinstance(value, dict) and set(value) == {"input"}:
            return inputs[value["input"]]
        if isinstance(value, dict) and set(value) == {"step", "output"}:
            return outputs[value["step"]][value["output"]]
        return value

    for step in config["steps"]:
        args = _decode_structure(step["args"], decode)
        kwargs = {k: _decode_structure(v, decode) for k, v in step["kwargs"].items()}
        outputs.append(nest.flatten(layers[step["layer"]](*args, **kwargs)))
    results = [decode(ref) for ref in config["outputs"]]
    return Model(inputs=inputs if len(inputs) > 1 else inputs[0],
                 outputs=results[0] if config["single_output"] else results, name=config["name"])


def _decode_structure(value, decode):
    if isinstance(value, dict) and (set(value) in ({"input"}, {"step", "output"})):
        return decode(value)
    if isinstance(value, list):
        return [_decode_structure(v, decode) for v in value]
    if isinstance(value, dict):
        return {k: _decode_structure(v, decode) for k, v in value.items()}
    return value


def _tuples(config: dict) -> dict:
    """JSON's lists back to the tuples layers' shapes and sizes are given as."""
    return {k: tuple(v) if isinstance(v, list) else v for k, v in config.items()}
