"""``Dataset.from_generator``: elements a Python generator yields, checked against a signature.

Each iteration calls ``generator(*args)`` anew (``args`` as NumPy values, as TensorFlow
passes them) and converts every yielded element to the signature as TensorFlow does: the
structure must match (a tuple for a tuple of specs, a dict with the same keys for a dict), each
component is converted with ``np.asarray(value).astype(dtype)`` (so ``1.5`` becomes ``1`` for
an int32 spec, as there), and its shape must be compatible with the spec's.

A graph loop cannot run Python for each element (TensorFlow calls the generator through
``tf.numpy_function``, which this runtime does not have), so the dataset has no graph form.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator

import numpy as np

from runtime import dtypes, nest
from runtime.data import structure
from runtime.data.node import UNKNOWN_CARDINALITY, Node
from runtime.data.plan import Plan, cannot_stage
from runtime.errors import InvalidArgumentError
from runtime.ops.dispatch import convert_to_tensor
from runtime.tensor import EagerTensor, Tensor, TensorSpec, format_shape, shape_is_subtype


class _Mismatch(Exception):
    """The yielded element does not have the signature's structure."""


def signature(output_signature, output_types, output_shapes) -> Any:
    """The element spec ``from_generator`` was given: ``output_signature``, or the older
    ``output_types`` (with ``output_shapes``, unknown shapes without)."""
    if output_signature is not None:
        if output_types is not None or output_shapes is not None:
            raise TypeError("Dataset.from_generator: output_types and output_shapes cannot be "
                            "given together with output_signature; give output_signature "
                            "alone.")
        for leaf in structure.flatten(output_signature):
            if not isinstance(leaf, TensorSpec):
                example = f"tf.{leaf.name}" if hasattr(leaf, "name") else "tf.float32"
                raise TypeError(f"Dataset.from_generator: output_signature must be a structure "
                                f"of tf.TensorSpec, but holds {leaf!r}. Write "
                                f"tf.TensorSpec(shape=(), dtype={example}) for a scalar.")
        return output_signature
    if output_types is None:
        raise TypeError("Dataset.from_generator needs the elements' types: give "
                        "output_signature (e.g. tf.TensorSpec(shape=(), dtype=tf.int32)), or "
                        "output_types.")
    types = structure.flatten(output_types)
    shapes = [None] * len(types) if output_shapes is None else _shapes(output_types,
                                                                         output_shapes)
    return structure.pack_like(output_types, [
        TensorSpec(None if shape is None else tuple(shape), dtypes.as_dtype(dtype))
        for dtype, shape in zip(types, shapes)])


def _shapes(output_types, output_shapes) -> list:
    """One shape per leaf of ``output_types`` (a shape is a tuple, not structure)."""
    try:
        return _leaves_up_to(output_types, output_shapes)
    except _Mismatch:
        raise TypeError(f"Dataset.from_generator: output_shapes {output_shapes!r} does not have "
                        f"the structure of output_types {structure.describe(output_types)}; "
                        f"give one shape per type.") from None


def _leaves_up_to(layout, value) -> list:
    """``value``'s parts at the leaves of ``layout`` (its structure must hold ``layout``'s)."""
    if isinstance(layout, dict):
        if not isinstance(value, dict) or set(value) != set(layout):
            raise _Mismatch
        return [leaf for key in nest.sorted_keys(layout)
                for leaf in _leaves_up_to(layout[key], value[key])]
    if isinstance(layout, tuple):
        if not isinstance(value, tuple) or len(value) != len(layout):
            raise _Mismatch
        return [leaf for part, item in zip(layout, value) for leaf in _leaves_up_to(part, item)]
    return [value]


def _converted(value, spec: TensorSpec) -> EagerTensor:
    """One yielded component as a tensor of ``spec``, or an error saying what was yielded."""
    try:
        array = np.asarray(value.numpy() if isinstance(value, Tensor) else value)
        array = array.astype(spec.dtype)
    except (TypeError, ValueError):
        raise InvalidArgumentError(
            f"Dataset.from_generator: the generator yielded {value!r}, which cannot be "
            f"converted to {spec.dtype.name} as the signature says. Yield numbers or arrays "
            f"(or fix the signature's dtype).") from None
    if not shape_is_subtype(array.shape, spec.shape):
        raise InvalidArgumentError(
            f"Dataset.from_generator: the generator yielded an element of shape "
            f"{format_shape(array.shape)} where the signature expects shape "
            f"{format_shape(spec.shape)}. Yield elements of that shape, or use None in the "
            f"signature for a dimension that varies.")
    return EagerTensor(array)


def conformed(element, spec) -> Any:
    """A yielded element as tensors of the signature ``spec``."""
    try:
        values = _leaves_up_to(spec, element)
    except _Mismatch:
        raise InvalidArgumentError(
            f"Dataset.from_generator: the generator yielded {element!r}, which does not have "
            f"the signature's structure {structure.describe(spec)}. Yield a tuple (not a list) "
            f"where the signature has a tuple, and a dict with the same keys where it has a "
            f"dict.") from None
    return structure.pack_like(spec, [_converted(v, s)
                                      for v, s in zip(values, structure.flatten(spec))])


def generator_args(args) -> tuple:
    """``args`` as the generator receives them in TensorFlow: NumPy values (scalars as NumPy
    scalars, strings as bytes)."""
    if args is None:
        return ()
    values = []
    for arg in args:
        if isinstance(arg, str):
            values.append(arg.encode())
            continue
        array = convert_to_tensor(arg).numpy()
        values.append(array[()] if array.ndim == 0 else array)
    return tuple(values)


class FromGenerator(Node):
    label = "from_generator"

    def __init__(self, generator: Callable, spec, args: tuple):
        if not callable(generator):
            raise TypeError(f"Dataset.from_generator: generator must be a callable that returns "
                            f"an iterator (a generator function), got "
                            f"{type(generator).__name__}. Pass the function itself "
                            f"(from_generator(gen, ...)), not gen().")
        self.generator, self.element_spec, self.args = generator, spec, args

    def iterate(self) -> Iterator[Any]:
        for element in self.generator(*self.args):
            yield conformed(element, self.element_spec)

    def cardinality(self) -> int:
        return UNKNOWN_CARDINALITY

    def spec(self):
        return self.element_spec

    def holds_symbolic(self) -> bool:
        return False

    def plan(self) -> Plan:
        raise cannot_stage(
            "from_generator runs Python code for each element, which a graph cannot call",
            "Iterate over the dataset in Python, outside the traced function (call the "
            "traced function on each element or batch), or, if the data fits in memory, make "
            "the dataset with from_tensor_slices(np.array(list(generator()))).")
