"""Writes ONNX nodes for the exporter: unique, readable names, constants, dtype plumbing.

The lowering rules (``onnx_rules_*``) only say which ONNX ops compute an eager2graph op; this
module keeps the bookkeeping out of them. Every value and node name in the model is unique (a
subgraph may read any value of an enclosing graph by name, so names are global), and each is
derived from the eager2graph node being lowered (``add_12``, ``floordiv_7/Where_2``), so a
model viewer or an ONNX Runtime error points back at the graph's node.
"""

from __future__ import annotations

import contextlib
from typing import Iterator, Sequence

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from runtime.errors import ExportError

# ONNX Runtime lacks kernels for many ops on narrow integers and on float16; they compute in
# a wider dtype and cast back. For + - * // % and casts that gives NumPy's bits: arithmetic
# modulo 2**bits commutes with the final wrapping cast, and float16 ops round once either way.
_WIDER = {np.dtype(np.int8): np.dtype(np.int32), np.dtype(np.int16): np.dtype(np.int32),
          np.dtype(np.uint8): np.dtype(np.int32), np.dtype(np.uint16): np.dtype(np.int32),
          np.dtype(np.uint32): np.dtype(np.int64), np.dtype(np.float16): np.dtype(np.float32)}


def compute_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype arithmetic on ``dtype`` runs in (itself, or a wider one ORT has kernels for)."""
    return _WIDER.get(np.dtype(dtype), np.dtype(dtype))


def onnx_type(dtype: np.dtype) -> int:
    dtype = np.dtype(dtype)
    if dtype.kind == "c":
        raise ExportError(f"the graph computes with complex numbers ({dtype.name}); ONNX Runtime "
                          f"has no complex arithmetic, so it cannot be exported.")
    return helper.np_dtype_to_tensor_dtype(dtype)


def value_info(name: str, dtype: np.dtype, shape, dim_prefix: str | None = None):
    """A typed value; ``shape=None`` leaves the shape out (allowed inside subgraphs), ``None``
    dimensions become symbolic (named after ``dim_prefix`` when given)."""
    if shape is None:
        return helper.make_tensor_value_info(name, onnx_type(dtype), None)
    dims = [d if d is not None else (f"{dim_prefix}_{i}" if dim_prefix else None)
            for i, d in enumerate(shape)]
    return helper.make_tensor_value_info(name, onnx_type(dtype), dims)


class Builder:
    """Collects the nodes and initializers of a model being exported."""

    def __init__(self):
        self.initializers: list[TensorProto] = []
        self._scopes: list[list] = [[]]
        self._used: set[str] = set()
        self._constants: dict[tuple, str] = {}
        self.prefix = "graph"  # names of what a rule emits: after the node it lowers

    # -- names --------------------------------------------------------------------------------

    def fresh(self, base: str, keep_text: bool = False) -> str:
        """A name not used yet; ``keep_text`` keeps spaces and punctuation (a node named by a
        message, which ONNX Runtime quotes in its error)."""
        name = base if keep_text else "".join(c if c.isalnum() or c in "_/.:" else "_"
                                              for c in base)
        candidate, suffix = name, 1
        while candidate in self._used:
            suffix += 1
            candidate = f"{name}_{suffix}"
        self._used.add(candidate)
        return candidate

    @contextlib.contextmanager
    def lowering(self, prefix: str) -> Iterator[None]:
        """Names what is emitted inside after ``prefix`` (an eager2graph node)."""
        saved, self.prefix = self.prefix, prefix
        try:
            yield
        finally:
            self.prefix = saved

    # -- nodes --------------------------------------------------------------------------------

    @property
    def nodes(self) -> list:
        return self._scopes[-1]

    @contextlib.contextmanager
    def subgraph(self) -> Iterator[list]:
        """Emits into a new list of nodes (the body of an ``If`` branch or a ``Loop``)."""
        self._scopes.append([])
        try:
            yield self._scopes[-1]
        finally:
            self._scopes.pop()

    def emit(self, op_type: str, inputs: Sequence[str], outputs: int = 1,
             name: str | None = None, **attrs) -> str | list[str]:
        """One ONNX node; returns its output name (a list when ``outputs != 1``)."""
        node_name = self.fresh(name, keep_text=True) if name \
            else self.fresh(f"{self.prefix}/{op_type}")
        base = f"{self.prefix}/{op_type.lower()}"
        out = [self.fresh(base if outputs == 1 else f"{base}.{i}") for i in range(outputs)]
        self.nodes.append(helper.make_node(op_type, list(inputs), out, name=node_name,
                                           **{k: v for k, v in attrs.items() if v is not None}))
        return out[0] if outputs == 1 else out

    def emit_named(self, op_type: str, inputs: Sequence[str], outputs: Sequence[str], **attrs):
        """A node whose output names are chosen by the caller (already made by ``fresh``)."""
        self.nodes.append(helper.make_node(op_type, list(inputs), list(outputs),
                                           name=self.fresh(f"{self.prefix}/{op_type}"), **attrs))

    # -- constants ----------------------------------------------------------------------------

    def constant(self, value, dtype=None, name: str | None = None) -> str:
        """An initializer holding ``value``; small ones are shared by all who need them."""
        array = np.asarray(value, dtype=dtype)
        key = None
        if name is None and array.size <= 16:
            key = (array.dtype.str, array.shape, array.tobytes())
            if key in self._constants:
                return self._constants[key]
        onnx_type(array.dtype)  # refuses complex values
        tensor_name = self.fresh(name or _constant_name(array))
        self.initializers.append(numpy_helper.from_array(np.array(array, order="C"), tensor_name))
        if key is not None:
            self._constants[key] = tensor_name
        return tensor_name

    def scalar(self, value, dtype) -> str:
        return self.constant(np.array(value, dtype=dtype))

    def int64s(self, values: Sequence[int]) -> str:
        """A 1-D int64 constant (axes, shapes, starts of a slice)."""
        return self.constant(np.array(list(values), dtype=np.int64))

    # -- dtypes -------------------------------------------------------------------------------

    def cast(self, name: str, source, target) -> str:
        """``name`` as ``target`` (no node when the dtypes agree)."""
        if np.dtype(source) == np.dtype(target):
            return name
        return self.emit("Cast", [name], to=onnx_type(target))

    def check(self, value: str, ok: str, message: str) -> str:
        """``value``, but the model fails when it runs with the bool scalar ``ok`` false.

        ONNX has no assert; a ``Gather`` out of bounds is an error by the specification, and
        ONNX Runtime reports it with the node's name, which is ``message``. The check's result
        feeds ``value`` (a ``Where`` choosing it either way), so it cannot be pruned."""
        index = self.emit("Cast", [self.emit("Not", [ok])], to=TensorProto.INT64)
        flag = self.emit("Gather", [self.constant(np.array([True])), index],
                         name=f"{self.prefix}: {message}")
        return self.emit("Where", [flag, value, value])


def _constant_name(array: np.ndarray) -> str:
    if array.size == 1 and array.ndim <= 1:
        item = array.reshape(()).item()
        return f"const_{array.dtype.name}_{item}".replace("-", "m").replace(".", "p")
    return f"const_{array.dtype.name}_{'x'.join(map(str, array.shape)) or 'scalar'}"


def model(graph: onnx.GraphProto, opset: int) -> onnx.ModelProto:
    made = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                             producer_name="eager2graph")
    made.ir_version = min(made.ir_version, _ir_version_for(opset))
    return made


def _ir_version_for(opset: int) -> int:
    """The newest IR version that readers supporting ``opset`` also support."""
    for entry in helper.VERSION_TABLE:  # (release, ir_version, ai.onnx opset, ...)
        if entry[2] == opset:
            return entry[1]
    return helper.VERSION_TABLE[-1][1]
