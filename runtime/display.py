"""How eager tensors and variables show as text: eager2graph's style, or TensorFlow's.

eager2graph's (the default): ``Tensor([1.  2.5], shape=(2,), dtype=float32)`` for both ``str``
and ``repr``. TensorFlow's, which ``import transpiler.tf`` selects so that a TensorFlow
program prints what it prints under TensorFlow: ``tf.Tensor(...)`` for ``str`` (``print``),
``<tf.Tensor: shape=(2,), dtype=float32, numpy=array([1. , 2.5], dtype=float32)>`` for
``repr`` (a list of tensors), ``<tf.Variable 'v:0' shape=(2,) ...>`` for variables. Like NumPy's
print options, the style is one setting for the process.
"""

from __future__ import annotations

import numpy as np

RT = "rt"
TENSORFLOW = "tensorflow"
STYLES = (RT, TENSORFLOW)
_style = RT


def set_style(style: str) -> None:
    """``"rt"`` (eager2graph's) or ``"tensorflow"`` (TensorFlow's) text for tensors."""
    global _style
    if style not in STYLES:
        raise ValueError(f"set_style takes one of {', '.join(map(repr, STYLES))}, got {style!r}.")
    _style = style


def style() -> str:
    """The style tensors show in: ``"rt"`` or ``"tensorflow"``."""
    return _style


def tensor_str(value: np.ndarray, shape: str) -> str:
    """What ``print(tensor)`` shows (``shape`` already written as text)."""
    body = str(value[()]) if value.ndim == 0 else np.array2string(value, separator=" ",
                                                                    threshold=1000)
    if _style == RT:
        return f"Tensor({body}, shape={shape}, dtype={value.dtype.name})"
    opening = "tf.Tensor(\n" if "\n" in body else "tf.Tensor("
    return f"{opening}{body}, shape={shape}, dtype={value.dtype.name})"


def tensor_repr(value: np.ndarray, shape: str) -> str:
    """What ``repr(tensor)`` shows (a tensor in a list or a debugger)."""
    if _style == RT:
        return tensor_str(value, shape)
    return f"<tf.Tensor: shape={shape}, dtype={value.dtype.name}, numpy={_numpy_text(value)}>"


def variable_repr(name: str, named: bool, value: np.ndarray | None, shape: str,
                  dtype: np.dtype) -> str:
    """What a variable shows as; ``named``: whether its name was given (TensorFlow calls an
    unnamed one ``Variable``)."""
    if _style == RT:
        if value is None:
            return f"<rt.Variable {name!r} shape={shape} dtype={dtype.name}, not initialized yet>"
        return (f"<rt.Variable {name!r} shape={shape} dtype={dtype.name}, "
                f"numpy={np.array2string(value)}>")
    shown = f"{name if named else 'Variable'}:0"
    numpy = "<uninitialized>" if value is None else _numpy_text(value)
    return f"<tf.Variable {shown!r} shape={shape} dtype={dtype.name}, numpy={numpy}>"


def _numpy_text(value: np.ndarray) -> str:
    """The ``numpy=`` part of TensorFlow's text: a scalar's value, an array's repr (on lines
    of its own when it takes several)."""
    if value.ndim == 0:
        return str(value[()])
    text = repr(value)
    return "\n" + text if "\n" in text else text
