"""``Dataset.save`` and ``Dataset.load``: a dataset's elements written to a directory, and a
dataset read back from one (a pipeline's preprocessing done once, its results reused).

The files are eager2graph's own, not TensorFlow's snapshot format, which neither reads for the
other: ``dataset.json`` holds the element's structure (tuples and dicts of components, each
with its dtype and shape) and the number of elements; ``elements.npz`` each component's values
stacked into one array, padded with zeros to the largest size when the elements' shapes
differ (a last smaller batch, sequences), with each element's shape beside it. The loaded
dataset slices the arrays (and cuts the padding off), so a graph loop can iterate it too.
Nothing is unpickled.
"""

from __future__ import annotations

import json
import os
import zipfile
from typing import Any

import numpy as np

from runtime.data import structure
from runtime.data.node import INFINITE_CARDINALITY, Node
from runtime.data.sources import TensorSlices
from runtime.data.transformations import Map
from runtime.ops.array_ops import getitem
from runtime.tensor import TensorSpec

FORMAT = "eager2graph-dataset-1"
_SPEC_FILE, _ELEMENTS_FILE = "dataset.json", "elements.npz"


def save(node: Node, path, compression: str | None = None) -> None:
    """Writes every element of the dataset ``node`` (a finite one) under the directory
    ``path``; ``compression`` (TensorFlow's ``"GZIP"`` or ``"SNAPPY"``) compresses the
    arrays."""
    if node.cardinality() == INFINITE_CARDINALITY:
        raise ValueError("Dataset.save: the dataset is infinite (a repeat() without a count?); "
                         "take(n) of it first.")
    spec = node.spec()
    for leaf in structure.flatten(spec):
        if not isinstance(leaf, TensorSpec):
            raise TypeError(f"Dataset.save writes tensors; this dataset's elements hold a "
                            f"{type(leaf).__name__} (a dataset of datasets, from window()?). "
                            f"Turn each into a tensor first, e.g. with flat_map(lambda w: "
                            f"w.batch(n)).")
    leaves = structure.flatten(spec)
    columns: list[list[np.ndarray]] = [[] for _ in leaves]
    for element in node.iterate():
        for column, value in zip(columns, structure.flatten(element)):
            column.append(np.asarray(value))
    arrays, padded = {}, []
    for j, (column, leaf) in enumerate(zip(columns, leaves)):
        if len({array.ndim for array in column}) > 1:
            raise ValueError(f"Dataset.save: component {j} of the elements has different "
                             f"ranks from element to element; give it one rank (reshape it).")
        if column:
            shapes = np.array([array.shape for array in column], np.int64).reshape(
                len(column), column[0].ndim)
            largest = tuple(shapes.max(axis=0))
        else:  # no elements: the spec's sizes, unknown ones as 0
            shapes = np.zeros((0, 0 if leaf.shape is None else len(leaf.shape)), np.int64)
            largest = tuple(0 if d is None else d for d in (leaf.shape or ()))
        padded.append(bool((shapes != shapes[:1]).any()))
        stack = np.zeros((len(column),) + largest, leaf.dtype)
        for i, array in enumerate(column):
            stack[(i,) + tuple(map(slice, array.shape))] = array
        arrays[f"component{j}"] = stack
        if padded[-1]:
            arrays[f"shapes{j}"] = shapes
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, _SPEC_FILE), "w") as file:
        json.dump({"format": FORMAT, "padded": padded, "spec": _encoded(spec)}, file)
    write = np.savez if compression is None else np.savez_compressed
    with open(os.path.join(path, _ELEMENTS_FILE), "wb") as file:
        write(file, **arrays)


def load(path, element_spec=None) -> Node:
    """The dataset ``save`` wrote under ``path``. ``element_spec``, if given, must describe
    the same structure and dtypes as the saved one."""
    spec_path = os.path.join(path, _SPEC_FILE)
    if not os.path.exists(spec_path):
        raise FileNotFoundError(f"Dataset.load: {path} holds no {_SPEC_FILE}; it is not a "
                                f"directory Dataset.save wrote here (TensorFlow's own saved "
                                f"datasets cannot be read).")
    try:
        with open(spec_path) as file:
            saved = json.load(file)
        if not isinstance(saved, dict) or saved.get("format") != FORMAT:
            raise ValueError(f"Dataset.load: {spec_path} is not of format {FORMAT!r}. Save the "
                             f"dataset again.")
        spec = _decoded(saved["spec"])
        padded = [bool(p) for p in saved["padded"]]
        with np.load(os.path.join(path, _ELEMENTS_FILE), allow_pickle=False) as arrays:
            columns = tuple(arrays[f"component{j}"] for j in range(len(padded)))
            shapes = tuple(arrays[f"shapes{j}"] for j, cut in enumerate(padded) if cut)
    except (KeyError, TypeError, AttributeError, ValueError, OSError, EOFError,
            zipfile.BadZipFile) as error:
        raise ValueError(f"Dataset.load: the saved dataset under {path} is damaged or was not "
                         f"written by Dataset.save ({type(error).__name__}: {error}). Save the "
                         f"dataset again.") from None
    if len(padded) != len(structure.flatten(spec)) or any(
            column.dtype != leaf.dtype for column, leaf in zip(columns, structure.flatten(spec))):
        raise ValueError(f"Dataset.load: the arrays under {path} do not match its "
                         f"{_SPEC_FILE}; the directory is damaged. Save the dataset again.")
    if element_spec is not None and _description(element_spec) != _description(spec):
        raise ValueError(f"Dataset.load: element_spec {element_spec} does not describe the "
                         f"saved elements, {spec}.")
    if not any(padded):
        return TensorSlices(structure.pack_like(spec, list(columns)))

    # Per padded component, the axes whose size varies; the others keep their static size.
    varying = [(sizes != sizes[0]).any(axis=0) for sizes in shapes]

    def cut(values: tuple, sizes: tuple):
        pieces = iter(zip(sizes, varying))
        return structure.pack_like(spec, [_cut(value, *next(pieces)) if was_padded else value
                                          for value, was_padded in zip(values, padded)])

    return Map(TensorSlices((columns, shapes)), cut)


def _cut(value, shape, varying):
    """``value`` without its padding: its first ``shape[k]`` entries along each axis ``k``
    whose size ``varying`` says differs from element to element."""
    return getitem(value, tuple(slice(None, shape[k]) if varies else slice(None)
                                for k, varies in enumerate(varying)))


def _encoded(spec) -> Any:
    if isinstance(spec, dict):
        if not all(isinstance(key, str) for key in spec):
            raise TypeError(f"Dataset.save: the element's dict keys must be strings, got "
                            f"{sorted(map(repr, spec))}.")
        return {"dict": {key: _encoded(value) for key, value in spec.items()}}
    if isinstance(spec, tuple):
        return {"tuple": [_encoded(item) for item in spec]}
    return {"shape": None if spec.shape is None else list(spec.shape), "dtype": spec.dtype.name}


def _decoded(record) -> Any:
    if "dict" in record:
        return {key: _decoded(value) for key, value in record["dict"].items()}
    if "tuple" in record:
        return tuple(_decoded(item) for item in record["tuple"])
    dtype = np.dtype(record["dtype"])
    if dtype.kind not in "biufc":  # numbers and bools only: nothing that would unpickle
        raise ValueError(f"the element dtype {dtype} is not one a dataset saves")
    return TensorSpec(record["shape"], dtype)


def _description(spec) -> tuple:
    return structure.describe(spec), [np.dtype(leaf.dtype).name
                                      for leaf in structure.flatten(spec)]
