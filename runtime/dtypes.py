"""Data types: NumPy dtypes under short names, and the rules that give values a dtype.

The runtime uses ``numpy.dtype`` objects directly, so ``rt.float32 == np.float32`` holds and
no translation is needed at the kernel boundary. What this module adds:

* Python values alone: ``int`` becomes int32, ``float`` float32, ``bool`` bool (TensorFlow's
  defaults); a Python int that does not fit int32 raises instead of wrapping.
* Arithmetic promotion follows JAX's type lattice (``promote_types``), not NumPy's table:
  tensors of two dtypes combine to the lowest dtype above both, so ``int32 + float32`` is
  float32 (NumPy: float64), ``int64 + float32`` float32, ``uint8 + int8`` int16 and
  ``uint64 + int64`` float64. Every input is cast to that dtype before the kernel runs, so
  eager results, graph results and the dtypes inferred while tracing always agree.
* Python numbers are *weak* in both directions: next to a tensor they take its dtype where
  their kind allows (``int8 + 1`` is int8, ``float16 * 2.5`` float16) and otherwise the
  float of the integer's width (``int32 * 1.5`` float32, ``int64 * 1.5`` float64). A Python
  int that does not fit the dtype it takes raises OverflowError, as in NumPy 2. Symbolic
  tensors standing for Python numbers (loop counters, ``int(x)``; ``.weak``) are weak the
  same way, keep their own width next to Python numbers, and are checked when they must
  narrow (an int64 counter next to an int32 tensor raises at run time if it does not fit).
* Comparisons give bool whatever their inputs, so they compare exactly as NumPy does
  (``comparison_dtypes``); true division of integers gives float64, Python's exact answer.
"""

from __future__ import annotations

import enum
from functools import lru_cache
from typing import NamedTuple

import numpy as np

float16 = np.dtype("float16")
float32 = np.dtype("float32")
float64 = np.dtype("float64")
int8 = np.dtype("int8")
int16 = np.dtype("int16")
int32 = np.dtype("int32")
int64 = np.dtype("int64")
uint8 = np.dtype("uint8")
uint16 = np.dtype("uint16")
uint32 = np.dtype("uint32")
uint64 = np.dtype("uint64")
bool_ = np.dtype("bool")
complex64 = np.dtype("complex64")
complex128 = np.dtype("complex128")

DType = np.dtype

PYTHON_SCALARS = (bool, int, float, complex)

_SHORT_NAMES = {
    float16: "f16", float32: "f32", float64: "f64", int8: "i8", int16: "i16", int32: "i32",
    int64: "i64", uint8: "u8", uint16: "u16", uint32: "u32", uint64: "u64", bool_: "bool",
    complex64: "c64", complex128: "c128",
}
_FROM_SHORT = {short: dtype for dtype, short in _SHORT_NAMES.items()}


def as_dtype(value) -> np.dtype:
    """Returns the dtype named by ``value`` (a dtype, a NumPy type, a string or a Python type)."""
    if isinstance(value, np.dtype):
        return value
    if value is bool:
        return bool_
    if value is int:
        return int32
    if value is float:
        return float32
    if isinstance(value, str) and value in _FROM_SHORT:
        return _FROM_SHORT[value]
    try:
        return np.dtype(value)
    except TypeError:
        raise TypeError(f"{value!r} is not a dtype; use one of rt.float32, rt.float64, rt.int32, "
                        f"rt.int64, rt.bool.") from None


def short_name(dtype: np.dtype) -> str:
    """The compact name used when printing graphs (``f32``, ``i32``, ``bool``)."""
    return _SHORT_NAMES.get(dtype, dtype.name)


def default_dtype(value) -> np.dtype:
    """The dtype a Python value converts to when nothing else decides it."""
    if isinstance(value, bool):
        return bool_
    if isinstance(value, int):
        return int32
    if isinstance(value, float):
        return float32
    if isinstance(value, complex):
        return complex64
    raise TypeError(f"cannot pick a dtype for {type(value).__name__}")


def to_array(value, dtype: np.dtype | None = None) -> np.ndarray:
    """Converts a Python value, list or array to an ndarray with the runtime's default dtypes."""
    if isinstance(value, np.ndarray):
        return value if dtype is None or value.dtype == dtype else value.astype(dtype)
    if isinstance(value, np.generic):
        return np.asarray(value, dtype=dtype)
    if dtype is None:
        array = _nested_array(value)
        if array.dtype == np.int64 and not isinstance(value, np.ndarray):
            array = _narrow_python_ints(value, array)
        elif array.dtype == np.float64:
            array = array.astype(float32)
        elif array.dtype == np.complex128:
            array = array.astype(complex64)
        elif array.dtype.kind in "USO":
            raise TypeError(f"cannot convert {value!r} to a tensor: only numbers and booleans "
                            f"(and nested lists of them) can become tensors.")
        return array
    # NumPy makes an empty list float64; with no values there is nothing to refuse.
    plain = _nested_array(value)
    if dtype.kind in "iub" and plain.dtype.kind in "fc" and plain.size:
        raise TypeError(f"cannot convert {_short(value)} to a tensor of dtype {dtype.name}: "
                        f"Python floats do not become integers or booleans silently (as in "
                        f"TensorFlow). Make the tensor in a float dtype and rt.cast it (which "
                        f"truncates toward zero), or round the values first.")
    return _nested_array(value, dtype)


def _nested_array(value, dtype=None) -> np.ndarray:
    """``np.asarray``, with a clear error for lists whose rows differ in length."""
    try:
        return np.asarray(value, dtype=dtype)
    except ValueError as error:
        if "inhomogeneous" not in str(error):
            raise
        raise TypeError(f"cannot convert {_short(value)} to a tensor: its nested lists have "
                        f"different lengths (a tensor is rectangular). Pad the rows to one "
                        f"length, or keep it a Python list.") from None


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _narrow_python_ints(value, array: np.ndarray) -> np.ndarray:
    """Python ints become int32 like in TensorFlow, or stay int64 when one does not fit
    int32 (``constant(2**40)`` is int64 there too); nothing wraps around."""
    narrowed = array.astype(int32)
    return narrowed if np.array_equal(narrowed, array) else array


def is_weak(value) -> bool:
    """Python scalars and (nested) lists of them, and symbolic tensors standing for Python
    numbers: their dtype adapts to the tensors around them."""
    if _is_python_number(value) or getattr(value, "weak", False):
        return True
    return isinstance(value, (list, tuple)) and all(is_weak(item) for item in value)


def _is_python_number(value) -> bool:
    # np.float64 and np.complex128 subclass float and complex, but have a fixed width.
    return isinstance(value, PYTHON_SCALARS) and not isinstance(value, np.generic)


# -- the promotion lattice -----------------------------------------------------------------


class Weak(enum.Enum):
    """The weak types of Python numbers (and of tensors standing for them) on the lattice:
    each sits below every fixed width of its kind, so the number adapts to the tensor beside
    it. (Not strings: ``np.dtype("int64") == "int"`` holds.)"""

    INT = "i"
    FLOAT = "f"
    COMPLEX = "c"


# Each type and the types directly above it; the result of combining values is the lowest
# type above all of theirs (their join).
_ABOVE: dict = {
    bool_: (Weak.INT,),
    Weak.INT: (uint8, int8),
    uint8: (uint16, int16), uint16: (uint32, int32), uint32: (uint64, int64), uint64: (Weak.FLOAT,),
    int8: (int16,), int16: (int32,), int32: (int64,), int64: (Weak.FLOAT,),
    Weak.FLOAT: (float16, Weak.COMPLEX), float16: (float32,), float32: (float64, complex64),
    float64: (complex128,),
    Weak.COMPLEX: (complex64,), complex64: (complex128,), complex128: (),
}


def _upper_bounds(node) -> frozenset:
    bounds = {node}
    for above in _ABOVE[node]:
        bounds |= _upper_bounds(above)
    return frozenset(bounds)


_UPPER = {node: _upper_bounds(node) for node in _ABOVE}


def _join(nodes) -> object:
    common = frozenset.intersection(*(_UPPER[n] for n in nodes))
    return next(n for n in common if _UPPER[n] == common)


class WeakType(NamedTuple):
    """The type of a weak value: its lattice node and, for a tensor, its dtype."""

    node: object                 # bool_ or a Weak
    dtype: np.dtype | None       # None for Python numbers


_WEAK_NODE = {"b": bool_, "i": Weak.INT, "u": Weak.INT, "f": Weak.FLOAT, "c": Weak.COMPLEX}


def operand_type(value) -> "np.dtype | WeakType | None":
    """The promotion type of an op input: a dtype for tensors, arrays and NumPy scalars, a
    ``WeakType`` for Python numbers (and lists of them) and tensors standing for them; None
    for values that must be converted first."""
    if _is_python_number(value):
        # A Python int beyond int32 is as wide as an int64 tensor standing for it.
        wide = int64 if type(value) is int and not int_fits(value, int32) else None
        return WeakType(_WEAK_NODE[default_dtype(value).kind], wide)
    if getattr(value, "weak", False):
        return WeakType(_WEAK_NODE[value.dtype.kind], value.dtype)
    dtype = getattr(value, "dtype", None)
    if dtype is not None:
        return np.dtype(dtype)
    if isinstance(value, (list, tuple)) and is_weak(value):
        return WeakType(_WEAK_NODE[to_array(value).dtype.kind], None)
    return None


@lru_cache(maxsize=4096)
def promote_types(*types) -> tuple[np.dtype, bool]:
    """The dtype values of these ``operand_type``\\ s combine to, and whether the result is
    weak itself (every input was).

    Their join on the lattice above. A weak kind as the result becomes a dtype at least as
    wide as a Python number's default, and as wide as the weak tensors involved: an int is
    int32, or the weak int tensor's dtype if wider (an int8 loop counter plus 1 is int32, as
    the Python int would not wrap at 127); a float is float64 next to a 64-bit integer or a
    float64 weak tensor and float32 otherwise (``int32 + 1.5`` is float32, ``int64 + 1.5``
    float64); a complex likewise complex128 or complex64.
    """
    weak = [t for t in types if isinstance(t, WeakType)]
    node = _join([t.node if isinstance(t, WeakType) else t for t in types])
    all_weak = len(weak) == len(types)
    if isinstance(node, np.dtype):
        return node, all_weak
    tensors = [t.dtype for t in weak if t.dtype is not None]
    if node is Weak.INT:
        joined = _join([d for d in tensors if d.kind in "iu"] + [int32])
        return (joined if isinstance(joined, np.dtype) else int64), all_weak
    sized = tensors + [t for t in types if isinstance(t, np.dtype)]
    wide = any(d.itemsize == 8 and d.kind in "iuf" for d in sized)
    if node is Weak.FLOAT:
        base = float64 if wide else float32
    else:
        base = complex128 if wide else complex64
    return _join([d for d in tensors if d.kind == base.kind] + [base]), all_weak


def result_type(*values) -> np.dtype:
    """The dtype ``values`` combine to in arithmetic (see ``promote_types``)."""
    return promote_types(*(_type_or_array_dtype(v) for v in values))[0]


def _type_or_array_dtype(value):
    known = operand_type(value)
    return known if known is not None else to_array(value).dtype


def weak_scalar_dtype(scalar, strong_dtypes) -> np.dtype:
    """The dtype a Python scalar takes next to tensors of ``strong_dtypes``."""
    return promote_types(*map(np.dtype, strong_dtypes), operand_type(scalar))[0]


def weak_dtypes(weak_values: list, strong_dtypes: list) -> list[np.dtype]:
    """Per weak value, the dtype it takes next to tensors of ``strong_dtypes`` (all together
    when there are none: ``max(0., [1, -1])`` is float32)."""
    strong = tuple(map(np.dtype, strong_dtypes))
    if strong:
        return [promote_types(*strong, operand_type(v))[0] for v in weak_values]
    joined = promote_types(*(operand_type(v) for v in weak_values))[0]
    return [joined] * len(weak_values)


def comparison_dtypes(values: list) -> list:
    """Per input of a comparison, the dtype to convert it to (None: leave it as it is).

    A comparison's result is bool whatever its inputs' dtypes, and NumPy compares mixed
    dtypes exactly, so tensors (weak ones too) stay as they are and a Python number takes
    the dtype NumPy 2 gives it next to them (``float32 == 0.1`` compares in float32); an int
    that does not fit that dtype is compared as int64 (``int8 < 300`` is True, as in NumPy).
    """
    types = [operand_type(v) for v in values]
    python = [isinstance(t, WeakType) and not getattr(v, "weak", False)
              for v, t in zip(values, types)]
    tensors = tuple(t.dtype if isinstance(t, WeakType) else t
                    for t, is_python in zip(types, python) if t is not None and not is_python)
    if not tensors:
        return weak_dtypes(values, [])
    result = []
    for value, kind, is_python in zip(values, types, python):
        dtype = _next_to(tensors, kind.node) if is_python else None
        if dtype is not None and dtype.kind in "iu" and not _holds(dtype, value):
            dtype = int64
        result.append(dtype)
    return result


_SAMPLE = {bool_: False, Weak.INT: 0, Weak.FLOAT: 0.0, Weak.COMPLEX: 0j}


@lru_cache(maxsize=1024)
def _next_to(tensors: tuple, node) -> np.dtype:
    """NumPy 2's dtype for a Python number of this kind next to tensors of these dtypes."""
    return np.result_type(*tensors, _SAMPLE[node])


def _holds(dtype: np.dtype, value) -> bool:
    low, high = _bounds(dtype)
    if _is_python_number(value):
        return low <= value <= high
    return all(low <= v <= high for v in np.asarray(value, dtype=object).ravel())


@lru_cache(maxsize=None)
def _bounds(dtype: np.dtype) -> tuple[int, int]:
    info = np.iinfo(dtype)
    return int(info.min), int(info.max)


def python_number_dtype(value) -> np.dtype:
    """The dtype a Python number takes as a value of its own (entering a graph loop or
    branch, or returned from a graph): the default one, or int64 for an int beyond int32,
    as in TensorFlow."""
    if type(value) is int and not int_fits(value, int32):
        return int64
    return default_dtype(value)


def int_fits(value: int, dtype: np.dtype) -> bool:
    """Whether the Python int ``value`` is a value of the integer ``dtype``."""
    info = np.iinfo(dtype)
    return info.min <= value <= info.max


def float_of_width(dtype: np.dtype) -> np.dtype:
    """The float with the width of an integer or bool dtype, at least float32: what
    ``float(x)`` gives for such a tensor (float64 for 64-bit integers, else float32)."""
    return float64 if dtype.itemsize == 8 else float32


def int_of_width(dtype: np.dtype) -> np.dtype:
    """The signed integer with the width of a float dtype, at least int32: what ``int(x)``
    gives for such a tensor (int64 for float64, else int32)."""
    return int64 if dtype.itemsize == 8 else int32
