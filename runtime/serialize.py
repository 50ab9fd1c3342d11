"""Graphs on disk: ``rt.save(concrete_function, path)`` and ``rt.load(path)``.

One zip file holds three members:

* ``manifest.json``: the format name, its version, and the SHA-256 of the two others;
* ``graph.json``: the graph (nodes by op name, typed outputs, attributes in a small tagged
  JSON encoding, subgraphs, source locations), the signature and the output structure;
* ``arrays.npz``: constants and variable values, read with ``allow_pickle=False``.

Loading never unpickles, imports or evaluates anything from the file: ops are looked up by
name in the runtime's own registry, attribute tags come from a fixed list, and every problem
(truncated or corrupt file, wrong checksum, newer version, unknown op or tag, pickled arrays)
raises ``SavedGraphError`` saying what is wrong. The loaded function needs none of the code
that built the graph.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile

import numpy as np

from runtime.concrete_function import ConcreteFunction
from runtime.errors import SavedGraphError
from runtime.graph import Graph, Node
from runtime.ops.indexing import _Input
from runtime.ops.io_ops import _Slot
from runtime.ops.registry import PLACEHOLDER, get_op
from runtime.source_location import Location
from runtime.tensor import SymbolicTensor
from runtime.trace_keys import IdentityKey, is_container_key, is_tensor_key
from runtime.variables import Variable

FORMAT = "eager2graph-graph"
VERSION = 1
_LITERALS = {"int": int, "float": float, "bool": bool, "str": str, "NoneType": type(None)}
_CONTAINERS = {"tuple": tuple, "list": list, "dict": dict}


def save(concrete: ConcreteFunction, path: str) -> None:
    """Writes ``concrete`` (its optimized graph, signature and variable values) to ``path``."""
    encoder = _Encoder()
    body = {"name": concrete.name, "params": concrete.param_names,
            "key": [encoder.key(part, name) for part, name in zip(concrete.key, concrete.param_names)],
            "graph": encoder.graph(concrete.graph),
            "outputs": encoder.structure(concrete.structured_outputs),
            "variables": len(encoder.variables)}
    graph_bytes = json.dumps(body, sort_keys=True).encode()
    arrays = dict(encoder.arrays)
    arrays.update({f"variable{i}": v.numpy() for i, v in enumerate(encoder.variables)})
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    array_bytes = buffer.getvalue()
    manifest = {"format": FORMAT, "version": VERSION,
                "sha256": hashlib.sha256(graph_bytes + array_bytes).hexdigest()}
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("manifest.json", json.dumps(manifest))
        archive.writestr("graph.json", graph_bytes)
        archive.writestr("arrays.npz", array_bytes)


def load(path: str) -> ConcreteFunction:
    """The function saved at ``path``, ready to call; its variables are ``.variables``."""
    manifest, graph_bytes, array_bytes = _read_members(path)
    if manifest.get("format") != FORMAT:
        raise SavedGraphError(f"{path} is not an eager2graph graph (its manifest names the format "
                              f"{manifest.get('format')!r}).")
    version = manifest.get("version")
    if not isinstance(version, int) or version > VERSION:
        raise SavedGraphError(f"{path} uses format version {version!r}, newer than this eager2graph "
                              f"reads ({VERSION}); upgrade eager2graph to load it.")
    if hashlib.sha256(graph_bytes + array_bytes).hexdigest() != manifest.get("sha256"):
        raise SavedGraphError(f"{path} does not match its checksum: the file is corrupt or was "
                              f"changed after it was saved. Save the function again.")
    try:
        body = json.loads(graph_bytes)
    except ValueError as error:
        raise SavedGraphError(f"{path} has a graph description that is not JSON ({error}).") from None
    try:
        with np.load(io.BytesIO(array_bytes), allow_pickle=False) as stored:
            arrays = {name: stored[name] for name in stored.files}
    except (ValueError, OSError, zipfile.BadZipFile) as error:
        raise SavedGraphError(f"{path} holds arrays that cannot be read safely ({error}); arrays "
                              f"must not be pickled objects.") from None
    try:
        return _Decoder(arrays, path).function(body)
    except (KeyError, TypeError, IndexError, ValueError, RecursionError) as error:
        if isinstance(error, SavedGraphError):
            raise
        raise SavedGraphError(f"{path} has a malformed graph description ({type(error).__name__}: "
                              f"{error}).") from None


def _read_members(path: str) -> tuple[dict, bytes, bytes]:
    try:
        with zipfile.ZipFile(path) as archive:
            manifest = json.loads(archive.read("manifest.json"))
            return manifest, archive.read("graph.json"), archive.read("arrays.npz")
    except FileNotFoundError:
        raise
    except (zipfile.BadZipFile, KeyError, ValueError, EOFError, OSError) as error:
        raise SavedGraphError(f"{path} is not a complete eager2graph graph file ({error}); it may "
                              f"be truncated or of another kind.") from None


class _Encoder:
    def __init__(self):
        self.arrays: dict[str, np.ndarray] = {}
        self.variables: list[Variable] = []
        self.ids: dict[int, list] = {}  # id(SymbolicTensor) -> [node id, output index]

    def graph(self, graph: Graph) -> dict:
        for value in graph.inputs:
            self.ids[id(value)] = [value.node.id, 0]
        return {"name": graph.name,
                "inputs": [{"id": v.node.id, "label": v.node.label, "type": _type(v)}
                           for v in graph.inputs],
                "nodes": [self.node(node) for node in graph.nodes],
                "outputs": [self.ids[id(v)] for v in graph.outputs]}

    def node(self, node: Node) -> dict:
        encoded = {"id": node.id, "op": node.op.name,
                   "inputs": [self.ids[id(v)] for v in node.inputs],
                   "attrs": {k: self.attr(v, node) for k, v in node.attrs.items()},
                   "types": [_type(v) for v in node.outputs],
                   "location": [node.location.filename, node.location.lineno,
                                node.location.function_name] if node.location else None,
                   "subgraphs": {k: self.graph(g) for k, g in node.subgraphs.items()}}
        for index, value in enumerate(node.outputs):
            self.ids[id(value)] = [node.id, index]
        return encoded

    def attr(self, value, node: Node):
        if value is None or isinstance(value, (bool, int, str)):
            return value
        if isinstance(value, float):
            return {"float": repr(value)}
        if isinstance(value, np.dtype):
            return {"dtype": value.str}
        if isinstance(value, np.ndarray):
            name = f"array{len(self.arrays)}"
            self.arrays[name] = value
            return {"array": name}
        if isinstance(value, (tuple, list)):
            return {type(value).__name__: [self.attr(v, node) for v in value]}
        if isinstance(value, slice):
            return {"slice": [self.attr(v, node) for v in (value.start, value.stop, value.step)]}
        if value is Ellipsis:
            return {"ellipsis": True}
        if isinstance(value, _Input):
            return {"input": value.index}
        if isinstance(value, _Slot):
            return {"slot": value.index}
        if isinstance(value, Variable):
            if not any(v is value for v in self.variables):
                self.variables.append(value)
            return {"variable": next(i for i, v in enumerate(self.variables) if v is value)}
        raise TypeError(f"cannot save the attribute {value!r} of the {node.op.name} op created at "
                        f"{node.location_text()}: its type {type(value).__name__} has no saved form.")

    def key(self, part, name: str):
        if is_tensor_key(part):
            return {"tensor": [part[0].str, None if part[1] is None else list(part[1])]}
        if isinstance(part, IdentityKey):
            raise TypeError(f"cannot save this function: argument '{name}' was traced as a Python "
                            f"object compared by identity. Trace it with tensors and numbers.")
        if is_container_key(part):
            kind = part[0].__name__ if part[0] in (tuple, list, dict) else "tuple"
            items = ([[k, self.key(sub, name)] for k, sub in part[1]] if part[0] is dict
                     else [self.key(sub, name) for sub in part[1]])
            return {"container": [kind, items]}
        return {"literal": [type(part[1]).__name__, part[1]]}

    def structure(self, value):
        if isinstance(value, SymbolicTensor):
            return {"output": None}
        if isinstance(value, (tuple, list)):
            return {type(value).__name__ if type(value) in (tuple, list) else "tuple":
                    [self.structure(v) for v in value]}
        if isinstance(value, dict):
            return {"dict": [[k, self.structure(v)] for k, v in value.items()]}
        if value is None or isinstance(value, (bool, int, str)):
            return {"value": value}
        if isinstance(value, float):
            return {"float": repr(value)}
        raise TypeError(f"cannot save a function that returns {type(value).__name__} values.")


def _type(value) -> list:
    return [value.dtype.str, None if value.shape is None else list(value.shape)]


class _Decoder:
    def __init__(self, arrays: dict, path: str):
        self.arrays, self.path = arrays, path
        self.values: dict[tuple, SymbolicTensor] = {}
        self.variables: list[Variable] = []

    def function(self, body: dict) -> ConcreteFunction:
        self.variables = [Variable(self.array(f"variable{i}")) for i in range(body["variables"])]
        graph = self.graph(body["graph"], None)
        graph.lint()
        key = tuple(self.key(part) for part in body["key"])
        params = list(body["params"])
        outputs = iter(graph.outputs)
        structure = self.structure(body["outputs"], outputs)
        concrete = ConcreteFunction(body["name"], graph, key, params, structure,
                                    _positional_binder(body["name"], params), [])
        concrete.variables = self.variables
        return concrete

    def graph(self, encoded: dict, parent: Graph | None) -> Graph:
        graph = Graph(encoded["name"], parent)
        for spec in encoded["inputs"]:
            placeholder = graph.add_placeholder(*self.type(spec["type"]), spec["label"])
            placeholder.node.id = spec["id"]
            self.values[(spec["id"], 0)] = placeholder
        for spec in encoded["nodes"]:
            op = self.op(spec["op"])
            subgraphs = {k: self.graph(g, graph) for k, g in spec["subgraphs"].items()}
            location = Location(*spec["location"]) if spec["location"] else None
            node = Node(graph, op, [self.values[tuple(ref)] for ref in spec["inputs"]],
                        {k: self.attr(v) for k, v in spec["attrs"].items()},
                        [self.type(t) for t in spec["types"]], subgraphs, location)
            node.id = spec["id"]
            graph.nodes.append(node)
            for index, value in enumerate(node.outputs):
                self.values[(spec["id"], index)] = value
        graph.outputs = [self.values[tuple(ref)] for ref in encoded["outputs"]]
        return graph

    def op(self, name: str):
        try:
            op = get_op(name)
        except KeyError:
            op = None
        if op is None or op is PLACEHOLDER:
            raise SavedGraphError(f"{self.path} uses the op {name!r}, which this eager2graph does "
                                  f"not have; the file may come from a newer version.")
        return op

    def type(self, encoded: list) -> tuple:
        return np.dtype(self.dtype(encoded[0])), None if encoded[1] is None else tuple(encoded[1])

    def dtype(self, text: str) -> np.dtype:
        dtype = np.dtype(text)
        if dtype.hasobject:
            raise SavedGraphError(f"{self.path} declares the dtype {text!r}; object arrays are "
                                  f"not allowed in a saved graph.")
        return dtype

    def array(self, name: str) -> np.ndarray:
        try:
            return self.arrays[name]
        except KeyError:
            raise SavedGraphError(f"{self.path} refers to an array {name!r} it does not contain.") from None

    def attr(self, value):
        if value is None or isinstance(value, (bool, int, str)):
            return value
        if isinstance(value, dict) and len(value) == 1:
            (tag, content), = value.items()
            decode = _ATTR_TAGS.get(tag)
            if decode is not None:
                return decode(self, content)
        raise SavedGraphError(f"{self.path} has an attribute {value!r} of an unknown kind; the "
                              f"file may come from a newer eager2graph.")

    def key(self, part: dict):
        (tag, content), = part.items()
        if tag == "tensor":
            return (self.dtype(content[0]), None if content[1] is None else tuple(content[1]))
        if tag == "literal":
            kind = _LITERALS[content[0]]
            return (kind, content[1] if kind is not float else float(content[1]))
        kind, items = _CONTAINERS[content[0]], content[1]
        if kind is dict:
            return (dict, tuple((k, self.key(sub)) for k, sub in items))
        return (kind, tuple(self.key(sub) for sub in items))

    def structure(self, encoded: dict, outputs):
        (tag, content), = encoded.items()
        if tag == "output":
            return next(outputs)
        if tag in ("tuple", "list"):
            return _CONTAINERS[tag](self.structure(v, outputs) for v in content)
        if tag == "dict":
            return {k: self.structure(v, outputs) for k, v in content}
        if tag == "float":
            return float(content)
        return content


_ATTR_TAGS = {
    "float": lambda d, c: float(c),
    "dtype": lambda d, c: d.dtype(c),
    "array": lambda d, c: _read_only(d.array(c)),
    "tuple": lambda d, c: tuple(d.attr(v) for v in c),
    "list": lambda d, c: [d.attr(v) for v in c],
    "slice": lambda d, c: slice(*[d.attr(v) for v in c]),
    "ellipsis": lambda d, c: Ellipsis,
    "input": lambda d, c: _Input(int(c)),
    "slot": lambda d, c: _Slot(int(c)),
    "variable": lambda d, c: d.variables[int(c)],
}


def _read_only(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


def _positional_binder(name: str, params: list[str]):
    """Arguments by position or by parameter name, as the saved signature lists them."""
    def bind(args: tuple, kwargs: dict) -> tuple:
        values = list(args)
        for param in params[len(args):]:
            if param not in kwargs:
                raise TypeError(f"{name}() is missing the argument '{param}'.")
            values.append(kwargs.pop(param))
        if kwargs or len(values) != len(params):
            raise TypeError(f"{name}() takes the arguments ({', '.join(params)}).")
        return tuple(values)
    return bind

