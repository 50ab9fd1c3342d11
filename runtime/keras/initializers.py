"""``rt.keras.initializers``: the initial values of weights, as tensors (as Keras 3's).

A seeded initializer gives the same values on every call (as Keras' do); an unseeded one
draws from ``rt.random``'s global generator, so ``rt.random.set_seed`` makes it repeat.
"""

from __future__ import annotations

import math

import numpy as np

from runtime import dtypes
from runtime.ops import random as random_ops
from runtime.ops.dispatch import constant as _tensor_of
from runtime.tensor import Tensor
from runtime.keras.missing import missing as _missing

# The standard deviation of a standard normal truncated to [-2, 2]: dividing by it gives
# the truncated draw the variance asked for.
_TRUNCATED_STDDEV = 0.87962566103423978


class Initializer:
    """Base class: ``initializer(shape, dtype=None)`` returns the initial value as a tensor;
    a subclass here gives its values as an array (``_values``), a user's subclass may
    override ``__call__`` as in Keras."""

    def __call__(self, shape, dtype=None) -> Tensor:
        return _tensor_of(self._values(tuple(shape), dtype))

    def _values(self, shape: tuple, dtype=None) -> np.ndarray:
        raise NotImplementedError(f"{type(self).__name__} gives no values: an Initializer "
                                  f"subclass defines __call__(shape, dtype=None).")

    def get_config(self) -> dict:
        return {}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.get_config()})"


class Zeros(Initializer):
    def _values(self, shape, dtype=None):
        return np.zeros(shape, _dtype(dtype))


class Ones(Initializer):
    def _values(self, shape, dtype=None):
        return np.ones(shape, _dtype(dtype))


class Constant(Initializer):
    def __init__(self, value=0.0):
        self.value = value

    def _values(self, shape, dtype=None):
        return np.broadcast_to(np.asarray(self.value, _dtype(dtype)), shape).copy()

    def get_config(self):
        return {"value": self.value}


class Identity(Initializer):
    def __init__(self, gain=1.0):
        self.gain = gain

    def _values(self, shape, dtype=None):
        if len(shape) != 2:
            raise ValueError(f"Identity initializes 2-D weights only, got shape {tuple(shape)}.")
        return (self.gain * np.eye(*shape)).astype(_dtype(dtype))


class _Random(Initializer):
    def __init__(self, seed=None):
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise TypeError(f"{type(self).__name__}: seed must be an int or None, got {seed!r}.")
        self.seed = seed

    def _uniform(self, shape, low, high, dtype):
        if self.seed is not None:
            return np.random.default_rng(self.seed).uniform(low, high, shape).astype(dtype)
        return random_ops.uniform(shape, low, high, dtype=dtype)._value

    def _normal(self, shape, stddev, dtype, mean=0.0):
        if self.seed is not None:
            return (mean + stddev * np.random.default_rng(self.seed).standard_normal(shape)
                    ).astype(dtype)
        return random_ops.normal(shape, mean, stddev, dtype=dtype)._value

    def _truncated(self, shape, stddev, dtype, mean=0.0):
        if self.seed is None:
            return random_ops.truncated_normal(shape, mean, stddev, dtype=dtype)._value
        rng = np.random.default_rng(self.seed)
        draw = rng.standard_normal(shape)
        outside = np.abs(draw) > 2
        while outside.any():  # redraw what falls outside two standard deviations
            draw[outside] = rng.standard_normal(int(outside.sum()))
            outside = np.abs(draw) > 2
        return (mean + stddev * draw).astype(dtype)

    def get_config(self):
        return {"seed": self.seed}


class RandomUniform(_Random):
    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        super().__init__(seed)
        self.minval, self.maxval = minval, maxval

    def _values(self, shape, dtype=None):
        return self._uniform(shape, self.minval, self.maxval, _dtype(dtype))


class RandomNormal(_Random):
    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        super().__init__(seed)
        self.mean, self.stddev = mean, stddev

    def _values(self, shape, dtype=None):
        return self._normal(shape, self.stddev, _dtype(dtype), self.mean)


class TruncatedNormal(_Random):
    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        super().__init__(seed)
        self.mean, self.stddev = mean, stddev

    def _values(self, shape, dtype=None):
        return self._truncated(shape, self.stddev, _dtype(dtype), self.mean)


class Orthogonal(_Random):
    """A matrix with orthonormal rows or columns (times ``gain``): the Q of a QR decomposition
    of a normal draw, signs fixed by R's diagonal (the recurrent kernels' default). Shapes of
    more than two dimensions are flattened to (product of all but the last, last)."""

    def __init__(self, gain=1.0, seed=None):
        super().__init__(seed)
        self.gain = gain

    def _values(self, shape, dtype=None):
        shape = tuple(shape)
        if len(shape) < 2:
            raise ValueError(f"Orthogonal initializes weights of two or more dimensions, got "
                             f"shape {shape}.")
        rows, cols = int(np.prod(shape[:-1])), shape[-1]
        draw = self._normal((max(rows, cols), min(rows, cols)), 1.0, np.float64)
        q, r = np.linalg.qr(draw)
        q = q * np.sign(np.diag(r))
        if rows < cols:
            q = q.T
        return (self.gain * q).reshape(shape).astype(_dtype(dtype))

    def get_config(self):
        return {"gain": self.gain, "seed": self.seed}


class VarianceScaling(_Random):
    """Values of variance ``scale / n``, ``n`` the fan-in, the fan-out or their mean
    (``mode``), from a truncated normal, a normal or a uniform (``distribution``)."""

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None):
        super().__init__(seed)
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError(f"mode must be 'fan_in', 'fan_out' or 'fan_avg', got {mode!r}.")
        if distribution not in ("truncated_normal", "untruncated_normal", "uniform"):
            raise ValueError(f"distribution must be 'truncated_normal', 'untruncated_normal' "
                             f"or 'uniform', got {distribution!r}.")
        self.scale, self.mode, self.distribution = scale, mode, distribution

    def _values(self, shape, dtype=None):
        dtype = _dtype(dtype)
        fan_in, fan_out = fans(shape)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2}[self.mode]
        variance = self.scale / max(1.0, n)
        if self.distribution == "uniform":
            limit = math.sqrt(3.0 * variance)
            return self._uniform(shape, -limit, limit, dtype)
        if self.distribution == "untruncated_normal":
            return self._normal(shape, math.sqrt(variance), dtype)
        return self._truncated(shape, math.sqrt(variance) / _TRUNCATED_STDDEV, dtype)

    def get_config(self):
        return {"scale": self.scale, "mode": self.mode, "distribution": self.distribution,
                "seed": self.seed}


class GlorotUniform(VarianceScaling):
    """Uniform in ``[-limit, limit]``, ``limit = sqrt(6 / (fan_in + fan_out))``."""

    def __init__(self, seed=None):
        super().__init__(1.0, "fan_avg", "uniform", seed)


class GlorotNormal(VarianceScaling):
    def __init__(self, seed=None):
        super().__init__(1.0, "fan_avg", "truncated_normal", seed)


class HeNormal(VarianceScaling):
    """Truncated normal of standard deviation ``sqrt(2 / fan_in)``."""

    def __init__(self, seed=None):
        super().__init__(2.0, "fan_in", "truncated_normal", seed)


class HeUniform(VarianceScaling):
    def __init__(self, seed=None):
        super().__init__(2.0, "fan_in", "uniform", seed)


class LecunNormal(VarianceScaling):
    def __init__(self, seed=None):
        super().__init__(1.0, "fan_in", "truncated_normal", seed)


class LecunUniform(VarianceScaling):
    def __init__(self, seed=None):
        super().__init__(1.0, "fan_in", "uniform", seed)


def fans(shape) -> tuple[float, float]:
    """(fan_in, fan_out) of a weight shape: a kernel's last two axes are (in, out) and the
    axes before them its receptive field."""
    shape = tuple(shape)
    if len(shape) == 0:
        return 1.0, 1.0
    if len(shape) == 1:
        return float(shape[0]), float(shape[0])
    receptive = float(np.prod(shape[:-2])) if len(shape) > 2 else 1.0
    return shape[-2] * receptive, shape[-1] * receptive


def _dtype(dtype):
    return np.dtype(np.float32) if dtype is None else dtypes.as_dtype(dtype)


_BY_NAME = {"zeros": Zeros, "ones": Ones, "constant": Constant, "identity": Identity,
            "random_uniform": RandomUniform, "random_normal": RandomNormal,
            "truncated_normal": TruncatedNormal, "variance_scaling": VarianceScaling,
            "glorot_uniform": GlorotUniform, "glorot_normal": GlorotNormal,
            "he_normal": HeNormal, "he_uniform": HeUniform, "lecun_normal": LecunNormal,
            "lecun_uniform": LecunUniform, "uniform": RandomUniform, "normal": RandomNormal,
            "orthogonal": Orthogonal}


# Keras 3's lowercase spellings of the classes (``initializers.he_normal(seed=1)``).
zeros, ones, constant, identity = Zeros, Ones, Constant, Identity
random_uniform, random_normal, truncated_normal = RandomUniform, RandomNormal, TruncatedNormal
variance_scaling, orthogonal = VarianceScaling, Orthogonal
glorot_uniform, glorot_normal = GlorotUniform, GlorotNormal
he_normal, he_uniform = HeNormal, HeUniform
lecun_normal, lecun_uniform = LecunNormal, LecunUniform
IdentityInitializer, OrthogonalInitializer = Identity, Orthogonal


def get(identifier):
    """An initializer from a name (``"glorot_uniform"``, ``"he_normal"``, ``"zeros"``, ...),
    a class, an instance or a function ``(shape, dtype) -> array``."""
    if identifier is None:
        return None
    if isinstance(identifier, str):
        key = identifier if identifier in _BY_NAME else \
            "".join("_" + c.lower() if c.isupper() else c for c in identifier).lstrip("_")
        if key not in _BY_NAME:
            raise ValueError(f"unknown initializer {identifier!r}; known: "
                             f"{', '.join(sorted(_BY_NAME))}.")
        return _BY_NAME[key]()
    if isinstance(identifier, type) and issubclass(identifier, Initializer):
        return identifier()
    if callable(identifier):
        return identifier
    raise TypeError(f"an initializer is a name, an Initializer or a function, got "
                    f"{type(identifier).__name__}.")


__getattr__ = _missing("keras.initializers")
