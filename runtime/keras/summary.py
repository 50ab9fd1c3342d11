"""``Model.summary()`` as Keras 3 prints it: a table drawn with box characters (one row per
layer: name and type, output shape, parameters, and for a model that is not a chain the
layers each is connected to), then the parameter counts and their memory.

Keras draws the table with the ``rich`` package; the layout here follows the same rules:
the line is ``line_length`` wide (by default 88 for a chain of layers and 108 otherwise, at
most the terminal's width less 4; a wider table is cut at the terminal's edge), the columns
split it at ``positions``, each cell keeps a space of padding either side, long text wraps at
spaces and a word too long for its cell is cut with "…".
"""

from __future__ import annotations

import shutil
from typing import NamedTuple

import numpy as np

from runtime.keras.layers.input_layer import InputLayer


def summary_text(model, line_length=None, positions=None, expand_nested: bool = False,
                 show_trainable: bool = False) -> str:
    """The summary of ``model``, lines joined by newlines (with a final one).
    ``expand_nested``: the layers of the models among its layers follow each, indented;
    ``show_trainable``: a last column says whether each layer with weights is trainable."""
    graph = model.__dict__.get("_graph")
    chain = graph is None or _is_chain(graph)
    if chain:
        header, justify = ["Layer (type)", "Output Shape", "Param #"], "<<>"
        default_length, default_positions = 88, [0.45, 0.80, 1.0]
    else:
        header, justify = ["Layer (type)", "Output Shape", "Param #", "Connected to"], "<<><"
        default_length, default_positions = 108, [0.3, 0.56, 0.74, 1.0]
    if show_trainable:
        header, justify = header + ["Trainable"], justify + "^"
        default_length += 12
        default_positions = [p * 0.9 for p in default_positions] + [1.0]
    columns = shutil.get_terminal_size().columns
    line_length = line_length or min(default_length, columns - 4)
    positions = positions or default_positions
    if positions[-1] <= 1:
        positions = [int(p * line_length) for p in positions]
    widths = [b - a for a, b in zip([0] + list(positions[:-1]), positions)]
    widths = _fitted([w + 2 for w in widths], line_length - len(widths) - 1)
    rows = _rows(model, graph, graph.ordered() if graph is not None else model.layers,
                 _Options(chain, expand_nested, show_trainable))
    # A table wider than the terminal is cut at its edge, as rich prints it.
    lines = [f'Model: "{model.name}"'] + [line[:columns] for line in
                                          _table(header, rows, widths, justify)]
    trainable, non_trainable = model.trainable_weights, model.non_trainable_weights
    optimizer = getattr(model, "optimizer", None) if getattr(model, "_compiled", None) else None
    optimizer_variables = list(optimizer.variables) if optimizer is not None \
        and getattr(optimizer, "built", False) else []
    everything = list(trainable) + list(non_trainable) + optimizer_variables
    lines += [f" Total params: {_count(everything):,} ({_memory(everything)})",
              f" Trainable params: {_count(trainable):,} ({_memory(trainable)})",
              f" Non-trainable params: {_count(non_trainable):,} ({_memory(non_trainable)})"]
    if optimizer_variables:
        lines.append(f" Optimizer params: {_count(optimizer_variables):,} "
                     f"({_memory(optimizer_variables)})")
    return "\n".join(lines) + "\n"


def _is_chain(graph) -> bool:
    """Whether a functional model is a chain: each layer called once on one tensor, no
    tensor used twice (Keras prints such a model as it prints a Sequential one)."""
    used, layers = set(), set()
    for step in graph.steps:
        inputs = step.inputs()
        if len(inputs) != 1 or id(inputs[0]) in used or id(step.layer) in layers:
            return False
        used.add(id(inputs[0]))
        layers.add(id(step.layer))
    return len(graph.outputs) == 1 if isinstance(graph.outputs, (list, tuple)) else True


class _Options(NamedTuple):
    chain: bool            # the outer model's: no "Connected to" column
    expand_nested: bool
    show_trainable: bool


def _rows(model, graph, layers, options: _Options, level: int = 0) -> list[list[str]]:
    """One row per layer of ``model``; with ``expand_nested``, a nested model's rows follow
    its own, indented by its depth ("   └ " per level)."""
    rows = []
    for layer in layers:
        rows.append(_row(model, graph, layer, options, level))
        nested = getattr(layer, "layers", None) if options.expand_nested else None
        if nested:
            rows += _rows(layer, layer.__dict__.get("_graph"), nested, options, level + 1)
    return rows


def _row(model, graph, layer, options: _Options, level: int) -> list[str]:
    built = layer.built or isinstance(layer, InputLayer)
    params = f"{layer.count_params():,}" if built else "0 (unbuilt)"
    prefix = "   " * level + "└ " if level else ""
    row = [f"{prefix}{layer.name} ({_type_name(layer)})", _output_shape(model, graph, layer),
           params]
    if not options.chain:
        # Connections are those of the outer model's graph: a nested layer has none there.
        row.append(_connections(graph, layer) if level == 0 else "-")
    if options.show_trainable:
        row.append(("Y" if layer.trainable else "N") if layer.weights else "-")
    return row


def _type_name(layer) -> str:
    """The class Keras shows: ``Model(inputs, outputs)`` makes a ``Functional`` in Keras 3."""
    name = type(layer).__name__
    return "Functional" if name == "Model" and layer.__dict__.get("_graph") is not None \
        else name


def _layer_steps(graph, layer) -> list:
    return [step for step in graph.steps if step.layer is layer]


def _output_shape(model, graph, layer) -> str:
    if isinstance(layer, InputLayer):
        return _shape_text(layer.batch_shape)
    if graph is not None:
        steps = _layer_steps(graph, layer)
        if steps:
            return _shapes_text([t.shape for t in _leaves(steps[-1].outputs_structure)])
    elif getattr(model, "_input_shape", None) is not None:  # a Sequential model's chain
        return _shapes_text([t.shape for t in _leaves(layer.output)])
    shape = layer.__dict__.get("_last_output_shape")
    return "?" if shape is None else _shape_text(shape)


def _connections(graph, layer) -> str:
    """Keras' ``name[node][tensor]`` of each tensor the layer's calls took."""
    producers = {}
    for step in graph.steps:
        node = sum(1 for other in graph.steps[:graph.steps.index(step)]
                   if other.layer is step.layer)
        for index, tensor in enumerate(_leaves(step.outputs_structure)):
            producers[id(tensor)] = f"{step.layer.name}[{node}][{index}]" \
                if step.layer is not None else f"{step.op.name}[0][{index}]"
    names = [producers.get(id(tensor), f"{_input_name(tensor)}[0][0]")
             for step in _layer_steps(graph, layer) for tensor in step.inputs()]
    return ", ".join(names) or "-"


def _input_name(tensor) -> str:
    input_layer = getattr(tensor, "_input_layer", None)
    return input_layer.name if input_layer is not None else tensor.name


def _shape_text(shape) -> str:
    return "(" + ", ".join(str(d) for d in shape) + ")"


def _shapes_text(shapes: list) -> str:
    texts = [_shape_text(s) for s in shapes]
    return texts[0] if len(texts) == 1 else "[" + ", ".join(texts) + "]"


def _leaves(structure) -> list:
    if isinstance(structure, (list, tuple)):
        return [leaf for item in structure for leaf in _leaves(item)]
    if isinstance(structure, dict):
        return [leaf for key in structure for leaf in _leaves(structure[key])]
    return [structure]


def _fitted(widths: list[int], room: int) -> list[int]:
    """The cell widths (padding included) cut to fit ``room``: the excess taken from the
    columns in turn, in equal shares rounded half to even (rich's rule)."""
    excess = sum(widths) - room
    if excess <= 0:
        return widths
    fitted, remaining = [], len(widths)
    for width in widths:
        cut = min(width, round(excess / remaining))
        fitted.append(width - cut)
        excess, remaining = excess - cut, remaining - 1
    return fitted


def _wrapped(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` characters, broken at spaces; a word longer
    than a line is cut, ending with "…"."""
    lines: list[str] = []
    for word in text.split(" "):
        if len(word) > width:
            word = word[:width - 1] + "…"
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines or [""]


def _table(header: list[str], rows: list[list[str]], widths: list[int], justify: str):
    """The table's lines: a heavy header, rows ruled apart, cells padded by one space."""
    def rule(left, fill, middle, right):
        return left + middle.join(fill * w for w in widths) + right

    def cells(values, bar):
        wrapped = [_wrapped(v, w - 2) for v, w in zip(values, widths)]
        height = max(len(lines) for lines in wrapped)
        out = []
        for i in range(height):
            parts = [f" {(lines[i] if i < len(lines) else ''):{side}{w - 2}} "
                     for lines, w, side in zip(wrapped, widths, justify)]
            out.append(bar + bar.join(parts) + bar)
        return out

    lines = [rule("┏", "━", "┳", "┓"), *cells(header, "┃"), rule("┡", "━", "╇", "┩")]
    for index, row in enumerate(rows):
        if index:
            lines.append(rule("├", "─", "┼", "┤"))
        lines += cells(row, "│")
    lines.append(rule("└", "─", "┴", "┘"))
    return lines


def _count(weights) -> int:
    return sum(int(np.prod(w.shape, dtype=np.int64)) for w in _unique(weights))


def _memory(weights) -> str:
    """Keras' ``readable_memory_size`` of the weights' bytes."""
    size = float(sum(int(np.prod(w.shape, dtype=np.int64)) * np.dtype(w.dtype).itemsize
                     for w in _unique(weights)))
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if size / 1024 < 1:
            return f"{size:.2f} {unit}"
        size /= 1024
    return f"{size:.2f} PB"


def _unique(weights) -> list:
    seen, unique = set(), []
    for weight in weights:
        if id(weight) not in seen:
            seen.add(id(weight))
            unique.append(weight)
    return unique
