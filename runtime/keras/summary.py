"""``Model.summary()``: one row per layer (name, type, output shape, parameters)."""

from __future__ import annotations

import numpy as np

from runtime.tensor import format_shape


def summary_text(model) -> str:
    graph = model.__dict__.get("_graph")
    rows = []
    if graph is not None:
        for step in graph.steps:
            outputs = [t.shape for t in _leaves(step.outputs_structure)]
            shape = format_shape(outputs[0]) if len(outputs) == 1 else \
                ", ".join(format_shape(s) for s in outputs)
            if step.layer is not None:
                layer = step.layer
                rows.append((f"{layer.name} ({type(layer).__name__})", shape,
                             layer.count_params()))
            else:
                rows.append((f"{step.op.name} (op)", shape, 0))
    else:
        for layer in model.layers:
            shape = getattr(layer, "_output_shape", None)
            rows.append((f"{layer.name} ({type(layer).__name__})",
                         format_shape(shape) if shape is not None else "?",
                         layer.count_params()))
    widths = (34, 26, 12)
    rule = "─" * sum(widths)
    lines = [f'Model: "{model.name}"', rule,
             f"{'Layer (type)':<{widths[0]}}{'Output Shape':<{widths[1]}}{'Param #':>{widths[2]}}",
             "═" * sum(widths)]
    for name, shape, params in rows:
        lines.append(f"{name:<{widths[0]}}{shape:<{widths[1]}}{params:>{widths[2]},}")
    lines.append(rule)
    total = sum(_size(w) for w in model.weights)
    trainable = sum(_size(w) for w in model.trainable_weights)
    lines += [f" Total params: {total:,} ({_bytes(model.weights)})",
              f" Trainable params: {trainable:,}",
              f" Non-trainable params: {total - trainable:,}", rule]
    return "\n".join(lines)


def _leaves(structure):
    if isinstance(structure, (list, tuple)):
        return [leaf for item in structure for leaf in _leaves(item)]
    return [structure]


def _size(weight) -> int:
    return int(np.prod(weight.shape, dtype=np.int64))


def _bytes(weights) -> str:
    count = sum(_size(w) * np.dtype(w.dtype).itemsize for w in weights)
    for unit in ("B", "KB", "MB", "GB"):
        if count < 1024 or unit == "GB":
            return f"{count:.2f} {unit}"
        count /= 1024
