"""Graphs on disk: ``rt.save(concrete_function, path)`` and ``rt.load(path)``.

A saved function is one zip file (conventionally ``*.e2g``): a single file is what users copy,
attach and version, and a zip gives members, compression and a length-checked structure from
the standard library. It holds

* ``manifest.json``: ``{"format": "eager2graph-graph", "version": 1, "sha256": ...}``, the
  checksum taken over the two other members (see ``archive.checksum``);
* ``graph.json``: the function's name, parameter names, argument key (tensors by dtype and
  shape, Python values by value), output structure, variables (name, trainable) and the
  optimized graph: inputs, nodes in program order (op name, inputs as ``[node id, output
  index]``, control inputs, attributes in a tagged encoding, output types, source location,
  subgraphs recursively) and outputs;
* ``arrays.npz``: constants (``constant<i>``) and the variables' values at save time
  (``variable<i>``), parsed header first (``npz``), never with pickles.

The checksum only catches accidents: anyone can rewrite a file and sign it again, so loading
treats the file as hostile. It never unpickles, imports or evaluates anything from it: ops are
looked up by name in the runtime's own registry, attribute tags and kinds come from fixed
tables (``values``, ``attributes``), every op's type rule runs again on what the file declares
(``typecheck``), and everything the executor compiles into source is validated first. Sizes
are checked before anything is inflated or allocated (``limits``), locations are kept as data
(the files they name are never read), and the caller may bound how long a call loops. Every
problem (truncated or foreign file, wrong checksum, newer version, unknown op, tag or
attribute, pickled arrays, sizes over the limits, types the ops do not compute, malformed
description) raises ``SavedGraphError`` saying what is wrong.
"""

from __future__ import annotations

import json
import os

import numpy as np

from runtime.concrete_function import ConcreteFunction
from runtime.errors import SavedGraphError
from runtime.function import Function
from runtime.serialize.archive import read_archive, write_archive
from runtime.serialize.graphs import GraphDecoder, encode_graph
from runtime.executor import LoopLimit
from runtime.serialize.limits import (DEFAULT_MAX_ARRAY_BYTES, DEFAULT_MAX_GRAPH_BYTES, SizeLimits,
                                      loop_limit)
from runtime.serialize.loaded import LoadedFunction
from runtime.serialize.signature import (decode_key, decode_structure, encode_key,
                                         encode_structure, tensor_types)
from runtime.serialize.typecheck import check_arguments
from runtime.serialize.values import Reader, Writer
from runtime.variables import Variable

__all__ = ["LoadedFunction", "load", "save"]


def save(function: ConcreteFunction, path: str | os.PathLike) -> None:
    """Writes ``function`` (its optimized graph, signature and current variable values) to
    ``path``. A Function with an input_signature may be passed for its one concrete function."""
    if isinstance(function, Function) and function.input_signature is not None:
        function = function.get_concrete_function()
    if not isinstance(function, ConcreteFunction):
        raise TypeError(f"rt.save takes a concrete function, got {type(function).__name__}. Use "
                        f"f.get_concrete_function(*tensor_specs) to pick the graph to save.")
    writer = Writer()
    params = function.param_names[:len(function.key)]  # later ones keep their defaults
    body = {"name": function.name, "params": params,
            "key": [encode_key(part, name) for part, name in zip(function.key, params)],
            "outputs": encode_structure(function.structured_outputs),
            "graph": encode_graph(function.graph, writer)}
    body["variables"] = [{"name": v.name, "trainable": v.trainable} for v in writer.variables]
    arrays = dict(writer.arrays)
    arrays.update({f"variable{i}": np.asarray(v.numpy()) for i, v in enumerate(writer.variables)})
    write_archive(os.fspath(path), json.dumps(body, allow_nan=False).encode(), arrays)


def load(path: str | os.PathLike, *, max_graph_bytes: int = DEFAULT_MAX_GRAPH_BYTES,
         max_array_bytes: int = DEFAULT_MAX_ARRAY_BYTES, max_loop_iterations: int | None = None,
         loop_time_limit: float | None = None) -> LoadedFunction:
    """The function saved at ``path``, ready to call, with new variables holding the saved
    values (``.variables``); it needs none of the code that built it.

    A file from someone else is safe to load within these limits (``SavedGraphError`` beyond):

    Args:
        max_graph_bytes: the most bytes the graph description may take once inflated (16 MiB
            by default, about 60,000 nodes).
        max_array_bytes: the most bytes the arrays (constants and variable values) may take
            together once inflated, and the largest tensor whose shape the graph fixes
            (1 GiB by default). Raise it to load bigger models you trust.
        max_loop_iterations: the most loop iterations one call may run, all ``while_loop``s
            together (None: no limit). A call past it raises ``rt.errors.LoopLimitError``.
        loop_time_limit: the most seconds one call may spend before a loop iteration (None:
            no limit; checked at each iteration, so it stops a loop that never ends even in
            a worker thread, not one long op). Either limit keeps the function on the NumPy
            plan, whose loops check them.
    """
    path = os.fspath(path)
    limits = SizeLimits(max_graph_bytes, max_array_bytes)
    bounds = loop_limit(max_loop_iterations, loop_time_limit)
    graph_bytes, arrays = read_archive(path, limits)
    try:
        body = json.loads(graph_bytes)
    except (ValueError, RecursionError) as error:
        raise SavedGraphError(f"{path} has a graph description that is not JSON ({error}); the "
                              f"file is damaged. Save the function again.") from None
    try:
        return _decode(body, Reader(path, arrays), limits, bounds)
    except SavedGraphError:
        raise
    except (KeyError, TypeError, IndexError, ValueError, AttributeError, AssertionError,
            OverflowError, RecursionError) as error:
        raise SavedGraphError(f"{path} has a malformed graph description ({type(error).__name__}: "
                              f"{error}); it was not written by eager2graph or was changed. Save "
                              f"the function again.") from None


def _decode(body: dict, reader: Reader, limits: SizeLimits,
            bounds: LoopLimit | None) -> LoadedFunction:
    reader.variables = [_variable(spec, reader.array(f"variable{i}"))
                        for i, spec in enumerate(body["variables"])]
    graph = GraphDecoder(reader, limits.max_array_bytes).graph(body["graph"], None)
    graph.lint()
    key = tuple(decode_key(part, reader) for part in body["key"])
    check_arguments(tensor_types(key), graph)
    params = body["params"]
    if len(params) != len(key) or not all(type(name) is str for name in params):
        raise ValueError(f"the parameters {params!r} do not match the {len(key)} saved arguments")
    structure = decode_structure(body["outputs"], reader, graph.outputs)
    name = body["name"]
    if type(name) is not str:
        raise ValueError(f"the function name {name!r} is not a string")
    return LoadedFunction(name, graph, key, params, structure, reader.variables, bounds)


def _variable(spec: dict, value) -> Variable:
    name, trainable = spec["name"], spec["trainable"]
    if type(name) is not str or type(trainable) is not bool:
        raise ValueError(f"the variable description {spec!r} is not a name and a trainable flag")
    return Variable(value, name=name, trainable=trainable)
