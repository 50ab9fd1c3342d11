"""``save_weights`` / ``load_weights``: the weights as a NumPy ``.npz`` archive.

The archive holds one array per weight, in ``model.weights`` order (``weight_0000``, ...), and
their names (``names``, an array of strings). Loading never unpickles (``allow_pickle=False``):
a weights file cannot run code. The file is written at the path given, whatever its suffix.
"""

from __future__ import annotations

import os

import numpy as np


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
