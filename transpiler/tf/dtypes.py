"""``tf.dtypes``: TensorFlow's dtype objects (``tf.float32.min``, ``.is_floating``,
``.as_numpy_dtype``), ``as_dtype`` and ``cast``.

The runtime's dtypes are NumPy's. TensorFlow programs also print a dtype and ask it about
itself, so ``tf.float32`` is a ``DType``: it equals and hashes like its NumPy dtype
(``x.dtype == tf.float32``, dict keys, ``np.zeros(3, tf.float32)`` all work) and answers
TensorFlow's questions. With this module imported (and TensorFlow's display style on), an
eager tensor's ``x.dtype`` is one too (``runtime.tensor.show_dtypes_as``; a symbolic tensor's,
inside a traced function, stays NumPy's); ``tf.as_dtype`` turns any dtype into one.
"""

from __future__ import annotations

import numpy as np

import runtime as _rt
from runtime import tensor as _tensor
from runtime.ops import math_composites as _math_composites
from transpiler.tf._names import export as _export, missing as _missing

_export(globals(), _rt, "cast")
_export(globals(), _math_composites, "saturate_cast")

# TensorFlow's DataType enum numbers (``as_datatype_enum``), which some programs print or key by.
_ENUMS = {"float32": 1, "float64": 2, "int32": 3, "uint8": 4, "int16": 5, "int8": 6,
          "complex64": 8, "int64": 9, "bool": 10, "uint16": 17, "complex128": 18, "float16": 19,
          "uint32": 22, "uint64": 23}


class _DTypeMeta(type):
    # ``isinstance(x.dtype, tf.DType)`` holds for a tensor's NumPy dtype too, as it does in
    # TensorFlow for its tensors' dtypes.
    def __instancecheck__(cls, value) -> bool:
        return type.__instancecheck__(cls, value) or (
            isinstance(value, np.dtype) and value.name in _ENUMS)


class DType(metaclass=_DTypeMeta):
    """One of TensorFlow's dtypes: a NumPy dtype with TensorFlow's attributes."""

    __slots__ = ("_dtype",)

    def __init__(self, dtype: np.dtype):
        self._dtype = dtype

    @property
    def dtype(self) -> np.dtype:
        """The NumPy dtype (NumPy reads this attribute: ``np.dtype(tf.float32)``)."""
        return self._dtype

    @property
    def __numpy_dtype__(self) -> np.dtype:
        # What NumPy 2 asks first when a dtype is given (before ``dtype``).
        return self._dtype

    @property
    def name(self) -> str:
        return self._dtype.name

    # NumPy's attributes that the runtime reads most, without __getattr__'s detour.
    kind = property(lambda self: self._dtype.kind)
    itemsize = property(lambda self: self._dtype.itemsize)
    type = property(lambda self: self._dtype.type)

    @property
    def as_numpy_dtype(self) -> type:
        return self._dtype.type

    @property
    def as_datatype_enum(self) -> int:
        return _ENUMS[self._dtype.name]

    @property
    def size(self) -> int:
        return self._dtype.itemsize

    @property
    def is_floating(self) -> bool:
        return self._dtype.kind == "f"

    @property
    def is_integer(self) -> bool:
        return self._dtype.kind in "iu"

    @property
    def is_unsigned(self) -> bool:
        return self._dtype.kind == "u"

    @property
    def is_complex(self) -> bool:
        return self._dtype.kind == "c"

    @property
    def is_bool(self) -> bool:
        return self._dtype.kind == "b"

    @property
    def is_numeric(self) -> bool:
        return self._dtype.kind in "iufc"

    is_quantized = False
    is_numpy_compatible = True

    @property
    def base_dtype(self) -> DType:
        return self

    @property
    def real_dtype(self) -> DType:
        """float32 for complex64, float64 for complex128, the dtype itself otherwise."""
        if self.is_complex:
            return as_dtype(np.finfo(self._dtype).dtype)
        return self

    @property
    def min(self):
        """The smallest value of the dtype (the most negative float, not the smallest positive)."""
        return self._limit("minimum", lambda info: info.min)

    @property
    def max(self):
        return self._limit("maximum", lambda info: info.max)

    @property
    def limits(self) -> tuple:
        """(min, max); for bool (0, True), as in TensorFlow."""
        if self.is_bool:
            return 0, True
        return self.min, self.max

    def _limit(self, which: str, pick):
        if self.is_floating:
            return pick(np.finfo(self._dtype))
        if self.is_integer:
            return pick(np.iinfo(self._dtype))
        raise TypeError(f"Cannot find {which} value of {self}: only float and integer dtypes "
                        f"have one.")

    def is_compatible_with(self, other) -> bool:
        return self == other

    def __eq__(self, other) -> bool:
        try:
            return self._dtype == _rt.as_dtype(other)
        except TypeError:
            return NotImplemented

    def __ne__(self, other) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self) -> int:
        return hash(self._dtype)

    def __getattr__(self, name: str):
        # NumPy's own attributes (kind, itemsize, type, char, ...), for code that expects a
        # numpy.dtype.
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self._dtype, name)

    def __repr__(self) -> str:
        return f"tf.{self._dtype.name}"

    def __str__(self) -> str:
        return f"<dtype: {self._dtype.name!r}>"

    def __reduce__(self):
        return as_dtype, (self._dtype.name,)


_DTYPES = {name: DType(np.dtype(name)) for name in _ENUMS}
_tensor.show_dtypes_as({dtype.dtype: dtype for dtype in _DTYPES.values()})


def as_dtype(type_value) -> DType:
    """The DType named by ``type_value``: a DType, a NumPy dtype or type, a name (``"float32"``,
    ``"double"``), or ``float``/``bool`` (float32 and bool, as in TensorFlow)."""
    if type(type_value) is DType:
        return type_value
    if isinstance(type_value, str):
        type_value = _ALIASES.get(type_value, type_value)
    dtype = _rt.as_dtype(type_value)
    if dtype.name not in _DTYPES:
        raise TypeError(f"{type_value!r} is not a dtype TensorFlow has; use one of "
                        f"{', '.join('tf.' + name for name in _DTYPES)}.")
    return _DTYPES[dtype.name]


_ALIASES = {"double": "float64", "half": "float16"}
globals().update(_DTYPES)
globals().update({alias: _DTYPES[name] for alias, name in _ALIASES.items()})

__getattr__ = _missing("tf.dtypes")
