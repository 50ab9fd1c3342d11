"""``rt.export.jax``: a concrete function's graph as a pure function on JAX arrays.

    exported = rt.export.jax(fn.get_concrete_function(rt.TensorSpec([None, 784], rt.float32)))
    logits = jax.jit(exported)(images)

What the exported function is:

* Arguments: one per parameter of the traced function that holds tensors, in the
  parameter order, with the same nesting (a list of tensors is a list of arrays). Parameters
  that were Python values when the function was traced are fixed (they are part of the trace)
  and are not arguments. Each array must have the traced dtype exactly and a shape the
  traced shape allows (``None`` dims are free); Python numbers are converted.
* Results: the graph's output structure, with JAX arrays for its tensors.
* Semantics: the graph's, op by op: NumPy's integer ``//`` and ``%`` (by zero: 0), wrap-around,
  dtypes (int32 stays int32), the graph's reductions and casts; float results agree to
  rounding (XLA may fuse or reorder float operations). Values the graph checks when it runs
  (indices in range, ``rt.assert_``, values converted to a Python number's dtype, matrices
  that ``inv``, ``solve`` or ``cholesky`` cannot factor) are checked by host callbacks that
  make the call raise, as the graph raises. ``rt.print`` prints the graph's text through an
  ordered host callback.
* Variables: read as constants, their values when ``export`` was called (a snapshot: later
  assignments are not seen; export again after training). Assigning a variable is refused.
* 64-bit dtypes (int64, float64, and the float64 that dividing integers gives) need JAX's
  64-bit mode: ``jax.config.update("jax_enable_x64", True)`` at the start of the program (or
  ``JAX_ENABLE_X64=1``). Without it JAX narrows them to 32 bits, so ``export`` and calls
  refuse such graphs with an ``rt.errors.ExportError`` that says so; 32-bit graphs need nothing.
* Derivatives: ``jax.grad``, ``jax.jvp`` and ``jax.vmap`` work through the ops and ``cond``;
  a ``while_loop`` with ``maximum_iterations`` (an int) is a ``lax.scan`` that ``jax.grad``
  differentiates; one without is a ``lax.while_loop``, which only forward mode can
  differentiate (JAX's ``jax.grad`` raises a ``ValueError`` saying so): set
  ``maximum_iterations`` (``rt.while_loop(..., maximum_iterations=N)`` or
  ``transpiler.set_loop_options(maximum_iterations=N)``) to get reverse mode.
* Devices: the function is plain JAX, so ``jax.jit`` runs it on any backend JAX has and shards
  it across devices with ``jax.sharding`` (a batch split over devices gives the same results).

Ops that cannot keep these semantics (random draws, variable assignments, TensorArrays) are
refused when ``export`` is called with an ``ExportError`` naming the op and the user's line
(``jax_table.NOT_EXPORTED`` lists them with the reasons).
"""

from __future__ import annotations

import inspect
from typing import Any, Callable

import numpy as np

INSTALL_HINT = 'pip install "eager2graph[jax]"'

# This module is imported by rt.export.jax when it is first called (runtime.export), so
# ``import runtime`` never needs JAX; without it, that call raises this ImportError.
try:
    import jax
except ImportError as error:
    raise ImportError(f"rt.export.jax needs JAX, which is not installed; {INSTALL_HINT} "
                      f"installs it.") from error

from runtime import nest  # noqa: E402
from runtime.export.jax_errors import refuse  # noqa: E402
from runtime.export.jax_interpreter import Interpreter  # noqa: E402
from runtime.export.jax_table import NOT_EXPORTED  # noqa: E402
from runtime.export.jax_values import require_x64, to_jax  # noqa: E402
from runtime.tensor import SymbolicTensor, format_shape  # noqa: E402
from runtime.trace_keys import is_tensor_key  # noqa: E402
from runtime.variables import READ  # noqa: E402


def export(concrete_function) -> Callable:
    """``concrete_function``'s graph as a pure function on JAX arrays that ``jax.jit``
    compiles (see the module docstring for the arguments, results and semantics).

    Raises:
        ImportError: JAX is not installed.
        TypeError: ``concrete_function`` is not a concrete function.
        ExportError: an op cannot be exported (named with the user's line), or the graph
            needs 64-bit types and ``jax_enable_x64`` is off.
    """
    graph = getattr(concrete_function, "graph", None)
    if graph is None or not hasattr(concrete_function, "structured_outputs"):
        raise TypeError(
            f"rt.export.jax needs a concrete function (one trace of a function), got "
            f"{concrete_function!r}. Get one with fn.get_concrete_function(*args) or with "
            f"TensorSpecs: fn.get_concrete_function(rt.TensorSpec([None, 3], rt.float32)).")
    snapshots = {}
    for node in graph.walk():
        if node.op in NOT_EXPORTED:
            raise refuse(node, NOT_EXPORTED[node.op])
        if node.op is READ:
            variable = node.attrs["variable"]
            snapshots[id(variable)] = np.array(variable._value)
    for value in list(graph.inputs) + list(graph.outputs):
        require_x64(value.node, value.dtype, "an argument or result")
    parameters = [(name, part) for name, part in zip(concrete_function.param_names,
                                                     concrete_function.key) if _holds_tensors(part)]
    function = _make_function(concrete_function, parameters, Interpreter(snapshots))
    specs = [jax.ShapeDtypeStruct(v.shape, v.dtype) for v in graph.inputs
             if v.shape is not None and None not in v.shape]
    if len(specs) == len(graph.inputs):
        # Traces once now, so that whatever cannot be exported is reported by export.
        jax.eval_shape(lambda *leaves: function(*_pack_leaves(parameters, leaves)), *specs)
    return function


def _make_function(concrete_function, parameters, interpreter) -> Callable:
    graph = concrete_function.graph
    structure = concrete_function.structured_outputs
    placeholders = list(graph.inputs)

    def exported(*args):
        if len(args) != len(parameters):
            raise TypeError(
                f"the exported {concrete_function.name} takes {len(parameters)} arguments "
                f"({', '.join(name for name, _ in parameters)}), got {len(args)}.")
        leaves: list = []
        for (name, part), arg in zip(parameters, args):
            _collect(name, part, arg, leaves)
        values = [_checked_input(name, leaf, placeholder)
                  for (name, leaf), placeholder in zip(leaves, placeholders)]
        outputs = interpreter.run(graph, values)
        return _pack_outputs(structure, outputs, graph)

    exported.__name__ = exported.__qualname__ = concrete_function.name
    exported.__doc__ = (f"{concrete_function.name} exported from eager2graph: arguments "
                        f"{concrete_function.signature}, as JAX arrays.")
    exported.__signature__ = inspect.Signature(
        [inspect.Parameter(name, inspect.Parameter.POSITIONAL_ONLY) for name, _ in parameters])
    return exported


def _holds_tensors(part) -> bool:
    if is_tensor_key(part):
        return True
    if type(part) is tuple and len(part) == 2 and isinstance(part[0], type) \
            and issubclass(part[0], (tuple, list, dict)) and type(part[1]) is tuple:
        items = [sub for _, sub in part[1]] if issubclass(part[0], dict) else part[1]
        return any(_holds_tensors(sub) for sub in items)
    return False


def _collect(name: str, part, arg, leaves: list) -> None:
    """Appends ``(name, leaf)`` for the tensor leaves of ``arg``, walked like its key."""
    if is_tensor_key(part):
        leaves.append((name, arg))
        return
    if not _holds_tensors(part):
        return
    kind, items = part
    if issubclass(kind, dict):
        for key, sub in items:
            _collect(f"{name}[{key!r}]", sub, arg[key], leaves)
        return
    if len(arg) != len(items):
        raise TypeError(f"argument {name} must have {len(items)} items, as when the function "
                        f"was traced, got {len(arg)}.")
    for index, (sub, item) in enumerate(zip(items, arg)):
        _collect(f"{name}[{index}]", sub, item, leaves)


def _pack_leaves(parameters, leaves) -> list:
    """Arguments of ``parameters``'s structure holding ``leaves`` (for the trace at export)."""
    iterator = iter(leaves)

    def build(part):
        if is_tensor_key(part):
            return next(iterator)
        kind, items = part
        if issubclass(kind, dict):
            return {key: build(sub) for key, sub in items if _holds_tensors(sub)}
        return [build(sub) if _holds_tensors(sub) else None for sub in items]
    return [build(part) for _, part in parameters]


def _checked_input(name: str, value, placeholder: SymbolicTensor):
    dtype, shape = placeholder.dtype, placeholder.shape
    if isinstance(value, (bool, int, float, complex)):
        value = np.asarray(value, dtype)
    if not hasattr(value, "dtype") or not hasattr(value, "shape"):
        value = np.asarray(value)
    if np.dtype(value.dtype) != dtype:
        raise TypeError(f"argument {name} of the exported function must have dtype "
                        f"{dtype.name}, as when the function was traced, got "
                        f"{np.dtype(value.dtype).name}; convert it (e.g. x.astype("
                        f"jnp.{dtype.name})) or export a trace for that dtype.")
    if shape is not None and (len(value.shape) != len(shape) or any(
            d is not None and d != v for d, v in zip(shape, value.shape))):
        raise TypeError(f"argument {name} of the exported function must have shape "
                        f"{format_shape(shape)}, as when the function was traced, got "
                        f"{format_shape(tuple(value.shape))}.")
    return value if not isinstance(value, np.ndarray) else jax.numpy.asarray(value)


def _pack_outputs(structure: Any, outputs: list, graph):
    arrays = iter(to_jax(value, out.dtype, out.node) for value, out in zip(outputs, graph.outputs))
    if isinstance(structure, SymbolicTensor):
        return next(arrays)
    return nest.pack_like(structure, [next(arrays) if isinstance(leaf, SymbolicTensor) else leaf
                                      for leaf in nest.flatten(structure)])
