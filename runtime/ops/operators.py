"""Python operators on tensors and variables, as a table from dunder name to op."""

from __future__ import annotations

from runtime import dtypes
from runtime.ops import array_ops, linalg_ops, math_ops
from runtime.ops.dispatch import apply_op
from runtime.tensor import SymbolicTensor, Tensor


def _convertible(value) -> bool:
    return isinstance(value, (Tensor, dtypes.PYTHON_SCALARS, list)) or hasattr(value, "dtype") \
        or hasattr(value, "_read_value_for_op")


def _binary(fn, reflected: bool = False):
    def method(self, other):
        if not _convertible(other):
            return NotImplemented
        return fn(other, self) if reflected else fn(self, other)
    method.__name__ = fn.__name__
    return method


def _times(reflected: bool):
    """``*``: a Python list times an integer scalar is a repetition in Python (``[0.0] * n``),
    which a symbolic tensor cannot stand for, so that is an error rather than a product with a
    one-element tensor; any other list multiplies elementwise, as in NumPy."""
    multiply = _binary(math_ops.multiply, reflected)

    def method(self, other):
        if isinstance(other, list) and isinstance(self, SymbolicTensor) and self.shape == () \
                and self.dtype.kind in "iub":
            self.repeat_count(other)
        return multiply(self, other)
    method.__name__ = "multiply"
    return method


def _equality(fn, if_none: bool):
    def method(self, other):
        if other is None:
            return if_none
        if not _convertible(other):
            return NotImplemented
        return fn(self, other)
    return method


def _invert(x):
    return math_ops.logical_not(x) if x.dtype == dtypes.bool_ else apply_op(math_ops.INVERT, (x,))


def _bitwise(logical, bitwise):
    """``&``, ``|``, ``^``: logical on bools, bitwise on integers."""
    def fn(x, y):
        dtype = getattr(x, "dtype", None) if isinstance(x, Tensor) else getattr(y, "dtype", None)
        if dtype == dtypes.bool_:
            return logical(x, y)
        return apply_op(bitwise, (x, y))
    fn.__name__ = logical.__name__
    return fn


_AND = _bitwise(math_ops.logical_and, math_ops.BITWISE_AND)
_OR = _bitwise(math_ops.logical_or, math_ops.BITWISE_OR)
_XOR = _bitwise(math_ops.logical_xor, math_ops.BITWISE_XOR)

OPERATORS = {
    "__add__": _binary(math_ops.add), "__radd__": _binary(math_ops.add, True),
    "__sub__": _binary(math_ops.subtract), "__rsub__": _binary(math_ops.subtract, True),
    "__mul__": _times(False), "__rmul__": _times(True),
    "__truediv__": _binary(math_ops.divide), "__rtruediv__": _binary(math_ops.divide, True),
    "__floordiv__": _binary(math_ops.floordiv), "__rfloordiv__": _binary(math_ops.floordiv, True),
    "__mod__": _binary(math_ops.mod), "__rmod__": _binary(math_ops.mod, True),
    "__pow__": _binary(math_ops.pow), "__rpow__": _binary(math_ops.pow, True),
    "__matmul__": _binary(linalg_ops.matmul), "__rmatmul__": _binary(linalg_ops.matmul, True),
    "__and__": _binary(_AND), "__rand__": _binary(_AND, True),
    "__or__": _binary(_OR), "__ror__": _binary(_OR, True),
    "__xor__": _binary(_XOR), "__rxor__": _binary(_XOR, True),
    "__lt__": _binary(math_ops.less), "__le__": _binary(math_ops.less_equal),
    "__gt__": _binary(math_ops.greater), "__ge__": _binary(math_ops.greater_equal),
    "__eq__": _equality(math_ops.equal, if_none=False),
    "__ne__": _equality(math_ops.not_equal, if_none=True),
    "__neg__": math_ops.negative, "__pos__": lambda x: x, "__abs__": math_ops.abs,
    "__invert__": _invert,
    "__getitem__": array_ops.getitem,
}


def _read_then(fn):
    def method(self, *args):
        return fn(self.value(), *args)
    method.__name__ = getattr(fn, "__name__", "operator")
    return method


def install(tensor_class: type, variable_class: type) -> None:
    """Attaches the operator table to tensors, and (reading first) to variables."""
    # ``ndarray @ variable`` then calls the variable's ``__rmatmul__`` (which a gradient tape
    # records), as for a tensor, instead of NumPy converting the variable with ``__array__``.
    variable_class.__array_priority__ = tensor_class.__array_priority__
    for name, fn in OPERATORS.items():
        setattr(tensor_class, name, fn)
        if name not in variable_class.__dict__:  # its own __getitem__ remembers the slice
            setattr(variable_class, name, _read_then(fn))
