"""``save_weights`` / ``load_weights``: the weights as a NumPy ``.npz`` archive; ``model.save``
/ ``load_model``: a zip archive of the model's structure (``config.json``) and its weights
(``model.weights.npz``).

The weights archive holds one array per weight, in ``model.weights`` order (``weight_0000``,
...), and their names (``names``, an array of strings). Nothing is ever unpickled
(``allow_pickle=False``) and the structure is JSON: a saved model cannot run code when loaded.
So only what JSON describes is saved: ``Sequential`` models and functional models made of
layers (of ``rt.keras`` or given to ``load_model`` in ``custom_objects``) and of such models,
each rebuilt from its ``get_config()``. Subclassed models, ``Lambda`` layers and raw ops on
Keras inputs are code; for them ``save`` says so, and ``save_weights`` plus the code that
builds the model do the job.
A compiled model's compile arguments and optimizer variables are saved too
(``runtime.keras.compile_saving``): ``load_model`` returns it compiled, its optimizer where
training left it.
"""

from __future__ import annotations

import io
import json
import os
import zipfile

import numpy as np

from runtime import nest
from runtime.serialize.limits import DEFAULT_MAX_ARRAY_BYTES
from runtime.keras import compile_saving
from runtime.keras.functional import KerasTensor
from runtime.keras.registration import (get_custom_objects,  # noqa: F401  (keras.saving's)
                                        register_keras_serializable)


# What a loaded file may inflate to: a hostile archive declares members of any size.
_MAX_CONFIG_BYTES = 64 * 2**20
_MAX_ARRAY_BYTES = DEFAULT_MAX_ARRAY_BYTES


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
    arrays = [array for key, array in _npz_arrays(path, path).items()
              if key.startswith("weight_")]
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


FORMAT = "rt.keras model 2"


def save_model(model, filepath, overwrite=True, **kwargs) -> None:
    """Writes ``model``'s structure and weights to ``filepath`` (a zip archive)."""
    path = os.fspath(filepath)
    if not overwrite and os.path.exists(path):
        raise FileExistsError(f"{path} exists and overwrite=False.")
    config = {"format": FORMAT, **model_config(model),
              "compile_config": compile_saving.compile_config(model)}
    directory = os.path.dirname(path)
    if directory:
        os.makedirs(directory, exist_ok=True)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("config.json", json.dumps(config, indent=1))
        archive.writestr("model.weights.npz", _npz_bytes(
            {f"weight_{i:04d}": np.asarray(w.numpy()) for i, w in enumerate(model.weights)}))
        if config["compile_config"] is not None:
            archive.writestr("optimizer.npz",
                             _npz_bytes(compile_saving.optimizer_state(model)))


def _npz_bytes(arrays: dict) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def read_model(filepath) -> tuple[dict, list, dict | None]:
    """The structure (``config.json``), weights and optimizer variables (None when the model
    was saved uncompiled) a ``save`` wrote to ``filepath``."""
    path = os.fspath(filepath)
    if not zipfile.is_zipfile(path):
        raise ValueError(f"{path} is not a model saved by rt.keras' model.save (a zip archive of "
                         f"config.json and model.weights.npz).")
    with zipfile.ZipFile(path) as archive:
        if "config.json" not in archive.namelist():
            raise ValueError(f"{path} holds no config.json: it is not a model saved by "
                             f"model.save (a weights archive? read it with load_weights).")
        config = json.loads(_member(archive, "config.json", _MAX_CONFIG_BYTES, path))
        arrays = [array for key, array in _npz_arrays(io.BytesIO(_member(
            archive, "model.weights.npz", _MAX_ARRAY_BYTES, path)), path).items()
            if key.startswith("weight_")]
        optimizer = _npz_arrays(io.BytesIO(_member(archive, "optimizer.npz", _MAX_ARRAY_BYTES,
                                                   path)), path) \
            if "optimizer.npz" in archive.namelist() else None
    if config.get("format") != FORMAT:
        raise ValueError(f"{path}: unknown format {config.get('format')!r} (expected {FORMAT!r}); "
                         f"save the model again with this version of rt.keras.")
    return config, arrays, optimizer


def _member(archive: zipfile.ZipFile, name: str, limit: int, path: str) -> bytes:
    """The member ``name`` of a saved model, inflated only when its size is within ``limit``
    (zipfile reads no more than the size a member declares)."""
    if archive.getinfo(name).file_size > limit:
        raise ValueError(f"{path}: its {name} would inflate to more than {limit} bytes, more "
                         f"than any model rt.keras saves; the file is damaged or not a model.")
    return archive.read(name)


def _npz_arrays(source, path: str) -> dict:
    """The arrays of an ``.npz`` archive (a file name or a file object) by name, in the order
    of their names; its members' sizes are checked before NumPy inflates them."""
    with zipfile.ZipFile(source) as archive:
        if sum(info.file_size for info in archive.infolist()) > _MAX_ARRAY_BYTES:
            raise ValueError(f"{path}: its weights would inflate to more than "
                             f"{_MAX_ARRAY_BYTES} bytes; the file is damaged or not saved by "
                             f"rt.keras.")
    if hasattr(source, "seek"):
        source.seek(0)
    with np.load(source, allow_pickle=False) as npz:
        return {key: npz[key] for key in sorted(npz.files)}


def model_config(model) -> dict:
    """``{"class_name": "Sequential" or "Functional", "config": model.get_config()}``: the
    structure ``save`` writes as ``config.json`` (without the weights), as Keras serializes a
    model, and what ``keras.models.model_from_config`` reads."""
    kind = model._saving_kind()
    if kind is None:
        raise NotImplementedError(
            f"{model.name}: model.save stores Sequential and functional models; a subclassed "
            f"model ({type(model).__name__}) is Python code. Save its weights with "
            f"save_weights and rebuild it in code before load_weights.")
    return {"class_name": kind, "config": model.get_config()}


def layer_config(layer) -> dict:
    """``{"class_name": ..., "config": layer.get_config()}``; a model used as a layer is
    described by its structure (``model_config``)."""
    if getattr(layer, "_saving_kind", None) is not None:
        return model_config(layer)
    return {"class_name": type(layer).__name__, "config": layer.get_config()}


def sequential_config(model) -> dict:
    """A Sequential model's layers as Keras 3 lists them in its config: an ``InputLayer``
    first when the input shape is known (also given as ``build_input_shape``)."""
    layers = [layer_config(layer) for layer in model.layers]
    shape = model._input_shape
    if shape is None:
        return {"layers": layers}
    first = {"class_name": "InputLayer", "config": {"batch_shape": list(shape)}}
    return {"layers": [first] + layers, "build_input_shape": list(shape)}


def functional_config(model) -> dict:
    """A functional model's graph: its inputs, its layers, the steps that call them (each
    argument a reference to an input or to an earlier step's output) and its outputs."""
    graph = model._graph
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
            layers.append(layer_config(step.layer))
        encode = lambda v: refs[id(v)] if isinstance(v, KerasTensor) else v  # noqa: E731
        steps.append({"layer": ids[id(step.layer)], "args": nest.map_structure(encode, step.args),
                      "kwargs": nest.map_structure(encode, step.kwargs)})
        for index, tensor in enumerate(nest.flatten(step.outputs_structure)):
            refs[id(tensor)] = {"step": number, "output": index}
    return {"inputs": [{"shape": list(t.shape), "dtype": t.dtype.name, "name": t.name}
                       for t in inputs],
            "layers": layers, "steps": steps,
            "outputs": [refs[id(t)] for t in nest.flatten(graph.outputs)],
            "single_output": not isinstance(graph.outputs, (list, tuple, dict))}
