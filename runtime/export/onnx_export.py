"""``rt.export.onnx``: a traced graph as an ONNX model that ONNX Runtime runs.

The model's inputs are the graph's parameters (named after them; dimensions unknown while
tracing stay symbolic), its outputs the function's tensor results in order (``output_0``,
``output_1``, ...). Constants and the values of ``rt.Variable`` objects at export time are
initializers. Results are eager2graph's: integer arithmetic wraps around, ``//`` and ``%``
round like Python, extremes of slices holding NaN are NaN (see the ``onnx_rules_*`` modules).

Effects ONNX cannot express (printing, variable assignments, assertions inside a branch or
loop) are refused with an error naming the op and the line that created it;
``drop_effects=True`` leaves them out of the model instead. An assertion at the top of the
function is kept: every output depends on its check, and the model fails with its message.
Random draws are refused (``onnx_table.NOT_EXPORTED`` lists every op that does not export,
with the reason).
"""

from __future__ import annotations

try:
    import onnx
except ImportError:  # pragma: no cover - exercised in a subprocess by the tests
    raise ImportError('rt.export.onnx needs the onnx package, which is not installed. Install '
                      'the extra with: pip install "eager2graph[onnx]"') from None

import os

from runtime.errors import ExportError
from runtime.export import onnx_builder
from runtime.export.onnx_builder import Builder, value_info
from runtime.export.onnx_lowering import Lowering
from runtime.export.onnx_table import not_exported

# Opset 18 is the first with reduction axes as inputs everywhere and bitwise ops; ONNX Runtime
# has run it since version 1.14.
MIN_OPSET = 18
DEFAULT_OPSET = 18


def export(concrete_function, path: str | os.PathLike | None, opset: int | None = None, *,
           drop_effects: bool = False) -> "onnx.ModelProto":
    """Writes ``concrete_function``'s graph to ``path`` as an ONNX model and returns it.

    Args:
        concrete_function: a ``ConcreteFunction`` (``f.get_concrete_function(...)``) or a
            loaded one (``rt.load``); its optimized graph is exported.
        path: the ``.onnx`` file to write (``None``: only return the model).
        opset: the ONNX opset to target, from 18 to the newest the installed ``onnx`` knows
            (default 18, which ONNX Runtime 1.14 and later run).
        drop_effects: leave prints, variable assignments and assertions inside branches or
            loops out of the model instead of refusing them (a read of a variable after an
            assignment in the same call still sees the assigned value).

    Raises:
        ExportError: the graph holds an op or effect ONNX cannot express; the message names
            it and the user's line that created it.
    """
    graph = getattr(concrete_function, "graph", None)
    if graph is None:
        raise TypeError(f"rt.export.onnx exports a concrete function (from "
                        f"f.get_concrete_function(...) or rt.load), got {concrete_function!r}.")
    opset = _checked_opset(opset)
    builder = Builder()
    env, inputs = {}, []
    for index, param in enumerate(graph.inputs):
        name = builder.fresh(param.node.label or f"input_{index}")
        env[id(param)] = name
        inputs.append(value_info(name, param.dtype, param.shape, dim_prefix=f"{name}_dim"))
    lowering = Lowering(builder, drop_effects)
    lowering.graph(graph, env)
    results = lowering.guard_outputs([env[id(value)] for value in graph.outputs])
    outputs = []
    for index, (value, result) in enumerate(zip(graph.outputs, results)):
        if value.shape is None:
            raise ExportError(
                f"output {index} of {graph.name} has a rank unknown while tracing, and an ONNX "
                f"model must declare the rank of each output; give the function an "
                f"input_signature (or reshape the result) so that its rank is known.")
        name = builder.fresh(f"output_{index}")
        with builder.lowering("outputs"):
            builder.emit_named("Identity", [result], [name])
        outputs.append(value_info(name, value.dtype, value.shape))
    onnx_graph = onnx.helper.make_graph(builder.nodes, getattr(concrete_function, "name", "graph"),
                                        inputs, outputs, initializer=builder.initializers)
    model = onnx_builder.model(onnx_graph, opset)
    try:
        onnx.checker.check_model(model, full_check=True)
    except (onnx.checker.ValidationError, onnx.shape_inference.InferenceError) as error:
        raise ExportError(f"the ONNX model exported from {graph.name} fails ONNX's checker, a "
                          f"bug of the exporter (please report it with the function): "
                          f"{error}") from None
    if path is not None:
        onnx.save(model, os.fspath(path))
    return model


def _checked_opset(opset: int | None) -> int:
    newest = onnx.defs.onnx_opset_version()
    if opset is None:
        return DEFAULT_OPSET
    if not isinstance(opset, int) or not MIN_OPSET <= opset <= newest:
        raise ValueError(f"opset must be an int from {MIN_OPSET} to {newest} (the newest the "
                         f"installed onnx package knows), got {opset!r}.")
    return opset


__all__ = ["export", "not_exported", "MIN_OPSET", "DEFAULT_OPSET"]
