"""``rt.keras.constraints``: projections that optimizers apply to a weight after each update.

A layer given ``kernel_constraint=`` / ``bias_constraint=`` makes its weight an
``rt.Variable`` with that ``constraint``; every optimizer, after applying the gradients,
assigns ``constraint(variable)`` to each updated variable that has one, as Keras does. The
norm constraints measure norms along ``axis`` (0 by default: for a ``Dense`` kernel, the
weights going into each unit).
"""

from __future__ import annotations

from runtime.keras.missing import missing as _missing
from runtime.ops.array_ops import cast, convert_to_tensor
from runtime.ops.math_ops import greater_equal, sqrt, square
from runtime.ops.array_ops import clip_by_value
from runtime.ops.reduce_ops import reduce_sum

EPSILON = 1e-7  # Keras' backend epsilon: keeps an all-zero column from dividing by zero


class Constraint:
    """Base class: ``constraint(w)`` is the value ``w`` is replaced with (``w`` itself
    here)."""

    def __call__(self, w):
        return w

    def get_config(self) -> dict:
        return {}

    @classmethod
    def from_config(cls, config: dict) -> "Constraint":
        return cls(**config)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.get_config()})"


def _norms(w, axis):
    """The Euclidean norm of ``w`` along ``axis``, kept as an axis of length 1."""
    return sqrt(reduce_sum(square(w), axis=axis, keepdims=True))


def _rescaled(w, norms, desired):
    """``w`` scaled so that its norms along the axis become ``desired``."""
    return w * (desired / (EPSILON + norms))


class MaxNorm(Constraint):
    """Scales down the slices of ``w`` along ``axis`` whose norm exceeds ``max_value``."""

    def __init__(self, max_value=2, axis=0):
        self.max_value, self.axis = max_value, axis

    def __call__(self, w):
        w = convert_to_tensor(w)
        norms = _norms(w, self.axis)
        return _rescaled(w, norms, clip_by_value(norms, 0.0, self.max_value))

    def get_config(self) -> dict:
        return {"max_value": self.max_value, "axis": self.axis}


class MinMaxNorm(Constraint):
    """Moves each slice's norm along ``axis`` toward [``min_value``, ``max_value``]: ``rate``
    1.0 puts it inside at once, a smaller rate goes that fraction of the way."""

    def __init__(self, min_value=0.0, max_value=1.0, rate=1.0, axis=0):
        self.min_value, self.max_value, self.rate, self.axis = min_value, max_value, rate, axis

    def __call__(self, w):
        w = convert_to_tensor(w)
        norms = _norms(w, self.axis)
        clipped = clip_by_value(norms, self.min_value, self.max_value)
        return _rescaled(w, norms, self.rate * clipped + (1.0 - self.rate) * norms)

    def get_config(self) -> dict:
        return {"min_value": self.min_value, "max_value": self.max_value, "rate": self.rate,
                "axis": self.axis}


class NonNeg(Constraint):
    """Sets the negative entries of ``w`` to zero."""

    def __call__(self, w):
        w = convert_to_tensor(w)
        return w * cast(greater_equal(w, 0.0), w.dtype)


class UnitNorm(Constraint):
    """Scales each slice of ``w`` along ``axis`` to norm 1."""

    def __init__(self, axis=0):
        self.axis = axis

    def __call__(self, w):
        w = convert_to_tensor(w)
        return w / (EPSILON + _norms(w, self.axis))

    def get_config(self) -> dict:
        return {"axis": self.axis}


max_norm, min_max_norm, non_neg, unit_norm = MaxNorm, MinMaxNorm, NonNeg, UnitNorm
_CLASSES = {"Constraint": Constraint, "MaxNorm": MaxNorm, "MinMaxNorm": MinMaxNorm,
            "NonNeg": NonNeg, "UnitNorm": UnitNorm}
_BY_NAME = {**_CLASSES, "max_norm": MaxNorm, "min_max_norm": MinMaxNorm, "non_neg": NonNeg,
            "unit_norm": UnitNorm}


def serialize(constraint) -> dict | None:
    """``{"module", "class_name", "config", "registered_name"}``, as Keras 3 writes it."""
    if constraint is None:
        return None
    if not isinstance(constraint, Constraint):
        raise NotImplementedError(f"a constraint given as a function ({constraint!r}) cannot be "
                                  f"serialized; use a keras.constraints class (or a subclass of "
                                  f"Constraint with get_config).")
    return {"module": "keras.constraints", "class_name": type(constraint).__name__,
            "config": constraint.get_config(), "registered_name": None}


def deserialize(config, custom_objects=None) -> Constraint | None:
    """The constraint ``serialize`` described, or the one a name gives (``"NonNeg"``,
    ``"max_norm"``)."""
    if config is None:
        return None
    if isinstance(config, str):
        return get(config)
    classes = {**_CLASSES, **(custom_objects or {})}
    name = config.get("class_name")
    if name not in classes:
        raise ValueError(f"unknown constraint class {name!r}; give it in custom_objects, or use "
                         f"one of {', '.join(sorted(_CLASSES))}.")
    return classes[name].from_config(config.get("config", {}))


def get(identifier):
    """A constraint from ``None``, a name (``"max_norm"``, ``"NonNeg"``, ... with Keras'
    defaults), a ``serialize`` dict, a constraint or any function of one tensor."""
    if identifier is None or isinstance(identifier, Constraint):
        return identifier
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str) and identifier in _BY_NAME:
        return _BY_NAME[identifier]()
    if isinstance(identifier, type) and issubclass(identifier, Constraint):
        return identifier()
    if callable(identifier) and not isinstance(identifier, str):
        return identifier
    raise ValueError(f"Could not interpret constraint identifier: {identifier!r}. Give None, "
                     f"one of {', '.join(sorted(_BY_NAME))}, a Constraint or a function of "
                     f"the weight.")


__all__ = ["Constraint", "MaxNorm", "MinMaxNorm", "NonNeg", "UnitNorm", "deserialize", "get",
           "max_norm", "min_max_norm", "non_neg", "serialize", "unit_norm"]


__getattr__ = _missing("keras.constraints")
