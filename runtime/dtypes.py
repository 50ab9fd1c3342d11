"""Data types: NumPy dtypes under short names, and the rules for converting Python values.

The runtime uses ``numpy.dtype`` objects directly, so ``rt.float32 == np.float32`` holds and
no translation is needed at the kernel boundary. What this module adds is the one place where
Python values get a dtype: Python ``int`` becomes int32, ``float`` becomes float32 and ``bool``
stays bool (the TensorFlow convention), while a Python scalar mixed with a tensor is *weak*:
it takes the tensor's dtype where NumPy's promotion rules allow it (``int32 + 1`` stays int32,
``float32 * 2.0`` stays float32).
"""

from __future__ import annotations

import numpy as np

float16 = np.dtype("float16")
float32 = np.dtype("float32")
float64 = np.dtype("float64")
int8 = np.dtype("int8")
int16 = np.dtype("int16")
int32 = np.dtype("int32")
int64 = np.dtype("int64")
uint8 = np.dtype("uint8")
bool_ = np.dtype("bool")
complex64 = np.dtype("complex64")
complex128 = np.dtype("complex128")

DType = np.dtype

PYTHON_SCALARS = (bool, int, float, complex)

_SHORT_NAMES = {
    float16: "f16", float32: "f32", float64: "f64", int8: "i8", int16: "i16", int32: "i32",
    int64: "i64", uint8: "u8", bool_: "bool", complex64: "c64", complex128: "c128",
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
        array = np.asarray(value)
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
    return np.asarray(value, dtype=dtype)


def _narrow_python_ints(value, array: np.ndarray) -> np.ndarray:
    """Python ints become int32 like in TensorFlow; values that do not fit raise, never wrap."""
    narrowed = array.astype(int32)
    if not np.array_equal(narrowed, array):
        raise OverflowError(f"{value!r} does not fit in int32; pass dtype=rt.int64 to keep it.")
    return narrowed


def weak_scalar_dtype(scalar, strong_dtypes) -> np.dtype:
    """The dtype a Python scalar takes next to tensors of ``strong_dtypes`` (NumPy 2 rules)."""
    if not strong_dtypes:
        return default_dtype(scalar)
    return np.result_type(*strong_dtypes, scalar)


_KIND_ORDER = "biufc"
_KIND_SAMPLE = {"b": False, "i": 0, "u": 0, "f": 0.0, "c": 0j}


def is_weak(value) -> bool:
    """Python scalars and (nested) lists of them, and symbolic tensors standing for Python
    numbers: their dtype adapts to the tensors around them."""
    if isinstance(value, PYTHON_SCALARS) or getattr(value, "weak", False):
        return True
    return isinstance(value, (list, tuple)) and all(is_weak(item) for item in value)


def weak_dtypes(weak_values: list, strong_dtypes: list) -> list[np.dtype]:
    """Dtypes for weak values: next to tensors, NumPy's weak-scalar rules (``int32 + 1`` is
    int32); alone, the widest Python kind among them at the default width (``max(0., [1, -1])``
    is float32)."""
    kinds = [default_dtype(v).kind if isinstance(v, PYTHON_SCALARS)
             else v.dtype.kind if getattr(v, "weak", False) else np.asarray(v).dtype.kind
             for v in weak_values]
    if strong_dtypes:
        return [np.result_type(*strong_dtypes, v if isinstance(v, PYTHON_SCALARS) else _KIND_SAMPLE[k])
                for v, k in zip(weak_values, kinds)]
    widest = max(kinds, key=_KIND_ORDER.index)
    return [default_dtype(_KIND_SAMPLE[widest])] * len(weak_values)
