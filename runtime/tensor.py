"""Tensors: eager ones hold a NumPy array, symbolic ones stand for a value inside a traced graph.

Both share the ``Tensor`` base class so user code (and ``isinstance`` checks) cannot tell them
apart; every op accepts either, computing at once for eager inputs and adding a graph node for
symbolic ones. Python operators are attached to ``Tensor`` by ``runtime.ops.operators``.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Iterable, Sequence

import numpy as np

from runtime import display, dtypes
from runtime.autodiff import recording
from runtime.errors import OperatorNotAllowedInGraphError

Shape = tuple  # tuple[int | None, ...]; ``None`` for a dimension unknown while tracing


class ShapeTuple(tuple):
    """What ``Tensor.shape`` gives: the shape as a tuple (``None`` for a size unknown while
    tracing), which also answers TensorFlow's ``TensorShape`` questions (``as_list()``,
    ``rank``, ``ndims``, ``dims``, ``is_fully_defined()``, ``num_elements()``, equality with a
    list). It prints, hashes and compares with tuples as the tuple it is (its ``repr`` in
    TensorFlow's display style is TensorFlow's, ``TensorShape([2, 3])``); a slice is one too.
    An unknown rank is ``None``, not a ShapeTuple."""

    __slots__ = ()

    def __repr__(self) -> str:
        if display.style() == display.TENSORFLOW:
            return f"TensorShape({[d if d is None else int(d) for d in self]})"
        return tuple.__repr__(self)

    def __str__(self) -> str:
        return tuple.__repr__(self)

    @property
    def rank(self) -> int:
        return len(self)

    ndims = rank

    @property
    def dims(self) -> list:
        return list(self)

    def as_list(self) -> list:
        """The sizes as a list (``None`` for the unknown ones)."""
        return list(self)

    def is_fully_defined(self) -> bool:
        return None not in self

    def num_elements(self) -> int | None:
        """The number of elements, or ``None`` when a size is unknown."""
        return int(np.prod(self, dtype=np.int64)) if None not in self else None

    def is_compatible_with(self, other) -> bool:
        """Whether some array could have both shapes (unknown sizes match anything)."""
        return TensorShape(self).is_compatible_with(other)

    def merge_with(self, other) -> "TensorShape":
        return TensorShape(self).merge_with(other)

    def concatenate(self, other) -> "TensorShape":
        return TensorShape(self).concatenate(other)

    def __getitem__(self, key):
        item = tuple.__getitem__(self, key)
        return ShapeTuple(item) if type(key) is slice else item

    def __eq__(self, other):
        if type(other) is list:  # TensorFlow's shapes equal the list of their sizes
            other = tuple(other)
        return tuple.__eq__(self, other)

    def __ne__(self, other):
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = tuple.__hash__

    def __reduce__(self):  # pickles (and copies) as a plain tuple
        return tuple, (tuple(self),)


# What an eager tensor's dtype shows as in TensorFlow's display style, by NumPy dtype:
# transpiler.tf registers its DType objects, which print as TensorFlow's (``<dtype:
# 'float32'>``) and answer its questions (``is_floating``) while equalling, hashing and
# converting (``np.dtype(d)``) as their NumPy dtypes, so that code comparing dtypes or handing
# them to NumPy works with either. A symbolic tensor's stays NumPy's: the graph's own code
# (lint, the passes, saving) tests for ``np.dtype`` instances.
_TENSORFLOW_DTYPES: dict = {}


def show_dtypes_as(tensorflow_dtypes: dict) -> None:
    """Registers ``{numpy dtype: object}``: what an eager ``tensor.dtype`` gives in
    TensorFlow's style."""
    _TENSORFLOW_DTYPES.update(tensorflow_dtypes)


def _shown_dtype(dtype: np.dtype):
    if display.style() == display.TENSORFLOW:
        return _TENSORFLOW_DTYPES.get(dtype, dtype)
    return dtype


def format_shape(shape: Shape | None) -> str:
    if shape is None:
        return "<unknown rank>"
    return "(" + ", ".join("None" if d is None else str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def format_type(dtype: np.dtype, shape: Shape | None) -> str:
    """Compact type used in printed graphs: ``f32[2,?]``."""
    if shape is None:
        return f"{dtypes.short_name(dtype)}[*]"
    return f"{dtypes.short_name(dtype)}[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


class Tensor:
    """A multi-dimensional array of one dtype: eager (has a value) or symbolic (inside a graph)."""

    __slots__ = ()
    # Makes ``ndarray + tensor`` call ``Tensor.__radd__`` instead of converting the tensor.
    __array_priority__ = 100
    __hash__ = None  # ``==`` is elementwise, so tensors cannot be dict keys (use id()).

    @property
    def dtype(self) -> np.dtype:
        raise NotImplementedError

    @property
    def shape(self) -> Shape:
        raise NotImplementedError

    @property
    def ndim(self) -> int | None:
        return None if self.shape is None else len(self.shape)

    def get_shape(self) -> Shape:
        return self.shape

    # A slice of a variable (``v[1:3]``) writes back into it, as in TensorFlow:
    # ``v[1:3].assign(x)``. Other tensors have nothing to assign to.
    def assign(self, value):
        return self._slice_owner("assign")._assign_slice(self._sliced_from[1], value, "assign")

    def assign_add(self, delta):
        return self._slice_owner("assign_add")._assign_slice(self._sliced_from[1], delta, "add")

    def assign_sub(self, delta):
        return self._slice_owner("assign_sub")._assign_slice(self._sliced_from[1], delta, "sub")

    def _slice_owner(self, method: str):
        sliced_from = getattr(self, "_sliced_from", None)
        if sliced_from is None:
            raise AttributeError(
                f"a tensor has no {method}: tensors are immutable. Only a variable, or a slice "
                f"taken from one (v[1:3].{method}(...)), can be assigned; make a new tensor "
                f"instead (rt.tensor_scatter_nd_update updates some of its elements).")
        return sliced_from[0]


class EagerTensor(Tensor):
    """A tensor with a concrete NumPy value. Treat it as immutable."""

    # _sliced_from: (variable, key) for a slice of a variable's value (see Tensor.assign).
    __slots__ = ("_value", "_sliced_from")

    def __init__(self, value: np.ndarray):
        self._value = value

    @property
    def dtype(self) -> np.dtype:
        """The NumPy dtype (TensorFlow's DType in TensorFlow's style: see show_dtypes_as)."""
        return _shown_dtype(self._value.dtype)

    @property
    def shape(self) -> ShapeTuple:
        return ShapeTuple(self._value.shape)

    def numpy(self) -> np.ndarray | np.generic:
        """The value as a NumPy array, or a NumPy scalar (``np.float32(2.5)``) for a scalar,
        as TensorFlow gives it."""
        value = self._value
        return value[()] if value.ndim == 0 else value

    def __array__(self, dtype=None, copy=None):
        if dtype is not None and dtype != self._value.dtype:
            return self._value.astype(dtype)
        return self._value.copy() if copy else self._value

    def __repr__(self) -> str:
        return display.tensor_repr(self._value, format_shape(self.shape))

    def __str__(self) -> str:
        return display.tensor_str(self._value, format_shape(self.shape))

    def _scalar(self, what: str):
        if self._value.ndim != 0:
            raise TypeError(
                f"{what} of a tensor with shape {format_shape(self.shape)} is ambiguous: only a "
                f"scalar (shape ()) tensor converts to a Python value. Reduce it first, e.g. with "
                f"rt.reduce_any(...) or rt.reduce_all(...).")
        return self._value[()]

    def __bool__(self) -> bool:
        return bool(self._scalar("the truth value"))

    def __int__(self) -> int:
        return int(self._scalar("int()"))

    def __float__(self) -> float:
        return float(self._scalar("float()"))

    def __complex__(self) -> complex:
        return complex(self._scalar("complex()"))

    def __index__(self) -> int:
        if self.dtype.kind not in "iub":
            raise TypeError(f"only integer tensors can be used as an index, got {self.dtype.name}.")
        return int(self._scalar("using as an index"))

    def __len__(self) -> int:
        if self._value.ndim == 0:
            raise TypeError("len() of a scalar tensor is not defined.")
        return self._value.shape[0]

    def __iter__(self):
        if self._value.ndim == 0:
            raise TypeError("iteration over a scalar tensor is not defined.")
        if recording.active:
            # A gradient tape must see each row taken from this tensor (``__getitem__`` is
            # the getitem op, attached by runtime.ops.operators).
            return (self[i] for i in range(self._value.shape[0]))
        # Rows of a vector are NumPy scalars; a tensor holds an array (0-d here).
        return (EagerTensor(np.asarray(row)) for row in self._value)

    def __format__(self, spec: str) -> str:
        if self._value.ndim == 0:
            return format(self._value[()], spec)
        if display.style() == display.TENSORFLOW:
            return format(self._value, spec)  # f"{x}": the values alone, as TensorFlow shows
        return format(str(self), spec)


class SymbolicTensor(Tensor):
    """An output of a graph node: known dtype, possibly partial shape, no value until run."""

    __slots__ = ("graph", "node", "index", "_dtype", "_shape", "weak", "_sliced_from")

    def __init__(self, graph, node, index: int, dtype: np.dtype, shape: Shape | None):
        self.graph = graph
        self.node = node
        self.index = index
        # Always a NumPy dtype inside (a type rule may hand on a tensor's shown dtype).
        self._dtype = dtype if isinstance(dtype, np.dtype) else np.dtype(dtype)
        # Made a ShapeTuple once here, not on every read of ``shape`` (tracing, the passes and
        # the plan read it many times per value).
        self._shape = shape if shape is None or type(shape) is ShapeTuple else ShapeTuple(shape)
        # Stands for a Python number (a loop counter of converted code): next to a tensor it
        # takes that tensor's dtype, as the number would.
        self.weak = False

    # Read by attrgetter, in C: no Python frame per read. NumPy's dtype in every style: the
    # graph's own code (lint, passes, saving) reads it (see show_dtypes_as).
    dtype = property(attrgetter("_dtype"), doc="The dtype (a np.dtype).")
    shape = property(attrgetter("_shape"),
                     doc="The shape as a ShapeTuple (None for a size unknown while tracing), or "
                         "None when the rank is unknown.")

    @property
    def name(self) -> str:
        """The printed name of this value, e.g. ``%7`` or ``%x``."""
        return self.node.value_name(self.index)

    def __repr__(self) -> str:
        return (f"<SymbolicTensor {self.name} shape={format_shape(self._shape)} "
                f"dtype={self._dtype.name}>")

    def _not_allowed(self, what: str, fix: str):
        raise OperatorNotAllowedInGraphError(
            f"{what} a symbolic tensor ({self.name}: {format_type(self._dtype, self._shape)}, "
            f"{self._origin()}) is not allowed while tracing a graph: its value is only known "
            f"when the graph runs. {fix}")

    def _origin(self) -> str:
        """Where the tensor comes from, for errors: the user's line that made it, or what a
        graph's input stands for (a loop's counter has no line of its own)."""
        node = self.node
        if node.location is not None or not any(v is self for v in node.graph.inputs):
            return f"from {node.location_text()}"
        if node.graph.parent is not None:
            return "a variable of a graph loop or branch, such as a loop's counter"
        return "an argument of the function being traced"

    def __bool__(self):
        self._not_allowed(
            "Using as a Python bool",
            "Functions converted with transpiler.function turn if/while/and/or/not on tensors into "
            "graph control flow (code they call that is not converted, such as library code, "
            "does not get that); otherwise use rt.cond / rt.while_loop explicitly.")

    def __iter__(self):
        self._not_allowed(
            "Iterating over",
            "Functions converted with transpiler.function turn a `for` statement over a tensor "
            "into a graph loop, also over zip() or enumerate() of tensors (comprehensions, "
            "generator expressions, sum() and unpacking are not converted: write a `for` "
            "statement; a zip() of a tensor and a Python list is not either: make the list a "
            "tensor with rt.constant); otherwise use rt.while_loop with an index.")

    def __len__(self) -> int:
        if self._shape is None or not self._shape or self._shape[0] is None:
            self._not_allowed("Taking len() of",
                              "Use rt.shape(x)[0] to get the length as a tensor.")
        return self._shape[0]

    def __index__(self):
        # Python asks for __index__ wherever it needs an int: range(n), seq[n], (0,) * n,
        # slices, np.zeros(n). The expression that asked is added where the error leaves the
        # function (source_location), so the message names what the user wrote.
        self._not_allowed(
            "Using as a Python index (an int: a position, a count or a size)",
            "Use ops that take tensors instead: x[n] or rt.gather(x, n) to index, rt.range(n) "
            "for a range of values (a `for` over range(n) in a function converted with "
            "transpiler.function becomes a graph loop), rt.fill([n], value) for n copies of "
            "a value. A Python list cannot be indexed by a tensor (a graph loop's counter is "
            "one): keep the values in a tensor (rt.tensor_scatter_nd_update sets an element) or "
            "an rt.TensorArray (ta = ta.write(i, value)).")

    def repeat_count(self, items: list):
        """``items * n`` with this tensor as ``n``: Python repeats the list ``n`` times, so it
        needs ``n``'s value."""
        value = items[0] if len(items) == 1 else None
        if isinstance(value, (bool, int, float)):
            made = f"rt.fill([n], {value!r})"
            if value == 0 or value == 1:
                made += f" or rt.{'zeros' if value == 0 else 'ones'}([n])"
            fix = f"To make a tensor of n copies of {value!r}, use {made}"
        else:
            fix = ("To make a tensor of n equal values, use rt.fill([n], value), or rt.zeros([n]) "
                   "/ rt.ones([n])")
        self._not_allowed(
            "Repeating a Python list by",
            f"`[...] * n` needs n as a Python int. {fix}; to repeat a tensor n times along an "
            f"axis, use rt.tile.")

    def __int__(self):
        self._not_allowed("Converting to int",
                          "Use rt.cast(x, rt.int32) to convert inside the graph.")

    def __float__(self):
        self._not_allowed("Converting to float",
                          "Use rt.cast(x, rt.float32) to convert inside the graph.")

    def numpy(self):
        self._not_allowed("Calling .numpy() on",
                          "Return the tensor from the function and call .numpy() on the result.")

    def __array__(self, dtype=None, copy=None):
        self._not_allowed("Converting to a NumPy array",
                          "Use rt ops inside traced functions instead of NumPy functions.")


class TensorSpec:
    """Describes tensors by dtype and shape; ``None`` dims (or ``shape=None``) match any size."""

    __slots__ = ("shape", "dtype", "name")

    def __init__(self, shape: Sequence[int | None] | None, dtype=dtypes.float32, name: str | None = None):
        self.shape = None if shape is None else ShapeTuple(_checked_shape(shape))
        self.dtype = dtypes.as_dtype(dtype)
        self.name = name

    @classmethod
    def from_value(cls, value) -> "TensorSpec":
        if isinstance(value, TensorSpec):
            return value
        if isinstance(value, Tensor):
            return cls(value.shape, value.dtype)
        array = dtypes.to_array(value)
        return cls(array.shape, array.dtype)

    @classmethod
    def from_tensor(cls, tensor, name: str | None = None) -> "TensorSpec":
        """TensorFlow's spelling: the spec of ``tensor`` (a tensor, a variable or an array),
        named ``name``."""
        spec = cls.from_value(tensor)
        return cls(spec.shape, spec.dtype, name)

    def is_compatible_with(self, other) -> bool:
        """True if every tensor ``other`` describes (a spec or a value) is also described by self."""
        other = other if isinstance(other, TensorSpec) else TensorSpec.from_value(other)
        if other.dtype != self.dtype:
            return False
        return shape_is_subtype(other.shape, self.shape)

    def most_specific_common_supertype(self, other: "TensorSpec") -> "TensorSpec | None":
        if other.dtype != self.dtype:
            return None
        return TensorSpec(join_shapes(self.shape, other.shape), self.dtype, self.name)

    def __eq__(self, other) -> bool:
        return isinstance(other, TensorSpec) and (self.shape, self.dtype) == (other.shape, other.dtype)

    def __hash__(self) -> int:
        return hash((self.shape, self.dtype))

    def __repr__(self) -> str:
        if display.style() == display.TENSORFLOW:
            return (f"TensorSpec(shape={format_shape(self.shape)}, dtype=tf.{self.dtype.name}, "
                    f"name={self.name!r})")
        name = "" if self.name is None else f", name={self.name!r}"
        return f"TensorSpec(shape={format_shape(self.shape)}, dtype={self.dtype.name}{name})"


def _checked_shape(shape) -> Shape:
    """A TensorSpec's shape as a tuple of ints and ``None``; -1 means ``None``, as in
    TensorFlow. Anything else is refused rather than rounded or reinterpreted."""
    if type(shape) is tuple and all(type(dim) is int and dim >= 0 for dim in shape):
        return shape  # an array's own shape: the common case, checked cheaply
    if isinstance(shape, (str, bytes)) or not isinstance(shape, Iterable):
        raise TypeError(f"TensorSpec shape must be a list or tuple of sizes (ints, or None for "
                        f"any size), or None for any rank; got {type(shape).__name__} {shape!r}.")
    dims = []
    for dim in shape:
        if dim is None or (isinstance(dim, (int, np.integer)) and not isinstance(dim, bool)
                           and dim == -1):
            dims.append(None)
        elif isinstance(dim, (int, np.integer)) and not isinstance(dim, bool) and dim >= 0:
            dims.append(int(dim))
        else:
            raise TypeError(f"TensorSpec shape {shape!r} has the size {dim!r}; each size must be "
                            f"a non-negative int, or None (or -1) for any size.")
    return tuple(dims)


def shape_is_subtype(shape: Shape | None, of: Shape | None) -> bool:
    """True if every array of ``shape`` also has shape ``of`` (where ``None`` means any)."""
    if of is None:
        return True
    if shape is None or len(shape) != len(of):
        return False
    return all(b is None or a == b for a, b in zip(shape, of))


def join_shapes(a: Shape | None, b: Shape | None) -> Shape | None:
    """The most specific shape describing both: differing dims become ``None``."""
    if a is None or b is None or len(a) != len(b):
        return None
    return tuple(x if x == y else None for x, y in zip(a, b))


def shapes_compatible(a: Shape | None, b: Shape | None) -> bool:
    """True if some array could have both shapes."""
    if a is None or b is None:
        return True
    return len(a) == len(b) and all(x is None or y is None or x == y for x, y in zip(a, b))


def is_tensor_like(value) -> bool:
    return isinstance(value, (Tensor, np.ndarray, np.generic))


def collect_symbolic(values: Iterable) -> list[SymbolicTensor]:
    return [value for value in values if type(value) is SymbolicTensor]


class TensorShape:
    """TensorFlow's ``TensorShape``: a possibly partial shape (``None`` for an unknown size,
    ``TensorShape(None)`` for an unknown rank). ``Tensor.shape`` is a tuple (a ``ShapeTuple``,
    which answers the same questions for a known rank); ``rt.TensorShape(x.shape)`` gives this
    view, which compares equal to the tuple it was made from."""

    __slots__ = ("_dims",)

    def __init__(self, dims: Iterable[int | None] | "TensorShape" | None):
        if isinstance(dims, TensorShape):
            dims = dims._dims
        elif isinstance(dims, (int, np.integer)):
            dims = (dims,)
        self._dims = None if dims is None else _checked_shape(tuple(
            None if d is None else int(d) for d in dims))

    @property
    def rank(self) -> int | None:
        return None if self._dims is None else len(self._dims)

    ndims = rank

    @property
    def dims(self) -> list | None:
        return None if self._dims is None else list(self._dims)

    def as_list(self) -> list:
        """The sizes as a list; an unknown rank has none, and raises ``ValueError``."""
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def is_fully_defined(self) -> bool:
        return self._dims is not None and None not in self._dims

    def num_elements(self) -> int | None:
        return int(np.prod(self._dims, dtype=np.int64)) if self.is_fully_defined() else None

    def is_compatible_with(self, other) -> bool:
        """Whether some array could have both shapes (unknown sizes match anything)."""
        return shapes_compatible(self._dims, TensorShape(other)._dims)

    def merge_with(self, other) -> "TensorShape":
        """The shape with the sizes known in either; raises ``ValueError`` if incompatible."""
        other = TensorShape(other)
        if not self.is_compatible_with(other):
            raise ValueError(f"the shapes {self} and {other} are not compatible.")
        if self._dims is None or other._dims is None:
            return other if self._dims is None else self
        return TensorShape([a if a is not None else b for a, b in zip(self._dims, other._dims)])

    def concatenate(self, other) -> "TensorShape":
        other = TensorShape(other)
        if self._dims is None or other._dims is None:
            return TensorShape(None)
        return TensorShape(self._dims + other._dims)

    def __len__(self) -> int:
        if self._dims is None:
            raise ValueError("the length of an unknown TensorShape (unknown rank) is not "
                             "defined.")
        return len(self._dims)

    def __iter__(self):
        return iter(self.as_list())

    def __getitem__(self, key):
        if self._dims is None:
            return TensorShape(None) if isinstance(key, slice) else None
        item = self._dims[key]
        return TensorShape(item) if isinstance(key, slice) else item

    def __eq__(self, other) -> bool:
        try:
            other = TensorShape(other)
        except (TypeError, ValueError):
            return NotImplemented
        return self._dims == other._dims

    def __hash__(self) -> int:
        return hash(self._dims)

    def __repr__(self) -> str:
        return "TensorShape(None)" if self._dims is None else f"TensorShape({list(self._dims)})"

    def __str__(self) -> str:
        return "<unknown>" if self._dims is None else format_shape(self._dims)
