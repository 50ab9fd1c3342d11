"""``rt.keras.ops``: Keras 3's backend-agnostic ops (NumPy's names and arguments) on the runtime.

Keras' rules, where they differ from TensorFlow's, are kept: functions that only make sense on
real numbers (``sqrt``, ``exp``, ``mean``, ...) compute integers and bools in Keras' float
dtype (``float32``) instead of refusing them, while the activations (``softmax``,
``sigmoid``, ...) refuse them as Keras does on TensorFlow; ``axis=None`` means every axis
(``argmax`` flattens first); ``argmax``/``argmin`` give int32, ``arange`` int32 for Python
ints and float32 for floats. Mixed dtypes promote as Keras (and JAX) promote them, which is
the runtime's own promotion. Names Keras has and this module lacks raise an ``AttributeError``
that says so.
"""

from __future__ import annotations

import builtins as _builtins
import functools as _functools
from typing import Callable as _Callable

import numpy as _np

import runtime as _rt
from runtime.keras.missing import missing as _missing
from runtime.ops.tensorflow_rules import floating_only as _floating_only

_FLOATX = _np.dtype("float32")


def _as_tensor(x):
    return x if _rt.is_tensor(x) else _rt.convert_to_tensor(x)


def _in_floats(function: _Callable) -> _Callable:
    """``function`` with an integer or bool first argument cast to float32 first, as Keras
    computes the ops that are only defined on real numbers (``ops.sqrt(4)`` is 2.0)."""
    @_functools.wraps(function)
    def computed_in_floats(x, *args, **kwargs):
        x = _as_tensor(x)
        if _np.dtype(x.dtype).kind in "iub":
            x = _rt.cast(x, _FLOATX)
        return function(x, *args, **kwargs)
    return computed_in_floats


def convert_to_tensor(x, dtype=None, sparse=None, ragged=None):
    """A tensor of ``x``; Python floats become float32 and Python ints int32, as in Keras."""
    tensor = _as_tensor(x)
    return tensor if dtype is None else _rt.cast(tensor, dtype)


def convert_to_numpy(x) -> _np.ndarray:
    return _np.asarray(_as_tensor(x).numpy())


def cast(x, dtype):
    return _rt.cast(_as_tensor(x), dtype)


# -- elementwise ---------------------------------------------------------------------------

add, subtract, multiply = _rt.add, _rt.subtract, _rt.multiply
maximum, minimum, negative, square = _rt.maximum, _rt.minimum, _rt.negative, _rt.square
equal, not_equal, greater, greater_equal = _rt.equal, _rt.not_equal, _rt.greater, _rt.greater_equal
less, less_equal = _rt.less, _rt.less_equal
logical_and, logical_or, logical_not = _rt.logical_and, _rt.logical_or, _rt.logical_not
abs = absolute = _rt.abs  # noqa: A001
sign, floor_divide, mod = _rt.sign, _rt.floordiv, _rt.mod
power = _rt.pow
where = _rt.where

sqrt, exp, log, log1p, expm1 = map(_in_floats, (_rt.sqrt, _rt.exp, _rt.math.log, _rt.math.log1p,
                                                _rt.math.expm1))
sin, cos, tan, sinh, cosh, tanh = map(_in_floats, (_rt.sin, _rt.cos, _rt.tan, _rt.sinh, _rt.cosh,
                                                   _rt.tanh))
arcsin, arccos, arctan = map(_in_floats, (_rt.asin, _rt.acos, _rt.atan))
isnan, isinf, isfinite = map(_in_floats, (_rt.math.is_nan, _rt.math.is_inf, _rt.math.is_finite))
floor, ceil = map(_in_floats, (_rt.floor, _rt.math.ceil))
reciprocal = _in_floats(_rt.math.reciprocal)
rsqrt, erf, log_sigmoid = map(_in_floats, (_rt.math.rsqrt, _rt.math.erf, _rt.math.log_sigmoid))
logical_xor = _rt.math.logical_xor


def divide(x1, x2):
    """True division; integers divide in float32, as Keras divides them."""
    x1, x2 = _as_tensor(x1), _as_tensor(x2)
    if _np.dtype(x1.dtype).kind in "iub" and _np.dtype(x2.dtype).kind in "iub":
        x1, x2 = _rt.cast(x1, _FLOATX), _rt.cast(x2, _FLOATX)
    return _rt.divide(x1, x2)


true_divide = divide


def round(x, decimals=0):  # noqa: A001
    if decimals == 0:
        return _rt.round(x)
    scale = 10.0 ** decimals
    return _rt.round(x * scale) / scale


def clip(x, x_min, x_max):
    return _rt.clip_by_value(x, x_min, x_max)


def isclose(x1, x2, rtol=1e-5, atol=1e-8, equal_nan=False):
    """``|x1 - x2| <= atol + rtol * |x2|``, elementwise (NumPy's rule, which Keras follows)."""
    x1, x2 = _as_tensor(x1), _as_tensor(x2)
    close = _rt.less_equal(_rt.abs(_rt.subtract(x1, x2)),
                           _rt.add(atol, _rt.multiply(rtol, _rt.abs(x2))))
    if equal_nan:
        close = _rt.logical_or(close, _rt.logical_and(_rt.math.is_nan(x1), _rt.math.is_nan(x2)))
    return close


# -- reductions ----------------------------------------------------------------------------

def _axis(axis):
    return list(axis) if isinstance(axis, tuple) else axis


def sum(x, axis=None, keepdims=False):  # noqa: A001
    return _rt.reduce_sum(x, axis=_axis(axis), keepdims=keepdims)


def prod(x, axis=None, keepdims=False, dtype=None):
    return _rt.reduce_prod(x if dtype is None else cast(x, dtype), axis=_axis(axis),
                           keepdims=keepdims)


def max(x, axis=None, keepdims=False, initial=None):  # noqa: A001
    result = _rt.reduce_max(x, axis=_axis(axis), keepdims=keepdims)
    return result if initial is None else _rt.maximum(result, initial)


def min(x, axis=None, keepdims=False, initial=None):  # noqa: A001
    result = _rt.reduce_min(x, axis=_axis(axis), keepdims=keepdims)
    return result if initial is None else _rt.minimum(result, initial)


def any(x, axis=None, keepdims=False):  # noqa: A001
    return _rt.reduce_any(_rt.cast(x, bool), axis=_axis(axis), keepdims=keepdims)


def all(x, axis=None, keepdims=False):  # noqa: A001
    return _rt.reduce_all(_rt.cast(x, bool), axis=_axis(axis), keepdims=keepdims)


@_in_floats
def mean(x, axis=None, keepdims=False):
    return _rt.reduce_mean(x, axis=_axis(axis), keepdims=keepdims)


@_in_floats
def var(x, axis=None, keepdims=False):
    return _rt.math.reduce_variance(x, axis=_axis(axis), keepdims=keepdims)


@_in_floats
def std(x, axis=None, keepdims=False):
    return _rt.math.reduce_std(x, axis=_axis(axis), keepdims=keepdims)


@_in_floats
def logsumexp(x, axis=None, keepdims=False):
    return _rt.reduce_logsumexp(x, axis=_axis(axis), keepdims=keepdims)


def _arg(reduce: _Callable, x, axis, keepdims):
    """``reduce`` (argmax or argmin) as Keras gives it: int32, over the flattened tensor when
    ``axis`` is None."""
    x = _as_tensor(x)
    flat = axis is None
    result = reduce(_rt.reshape(x, [-1]) if flat else x, axis=0 if flat else axis,
                    output_type=_np.int32)
    if keepdims:
        result = _rt.reshape(result, [1] * len(x.shape)) if flat else \
            _rt.expand_dims(result, axis)
    return result


def argmax(x, axis=None, keepdims=False):
    return _arg(_rt.argmax, x, axis, keepdims)


def argmin(x, axis=None, keepdims=False):
    return _arg(_rt.argmin, x, axis, keepdims)


def cumsum(x, axis=None, dtype=None):
    x = _as_tensor(x) if dtype is None else cast(x, dtype)
    return _rt.cumsum(_rt.reshape(x, [-1]), axis=0) if axis is None else _rt.cumsum(x, axis=axis)


def cumprod(x, axis=None, dtype=None):
    x = _as_tensor(x) if dtype is None else cast(x, dtype)
    return _rt.math.cumprod(_rt.reshape(x, [-1]), axis=0) if axis is None else \
        _rt.math.cumprod(x, axis=axis)


@_in_floats
def average(x, axis=None, weights=None):
    """The mean over ``axis``, each value counted ``weights`` times when given."""
    if weights is None:
        return _rt.reduce_mean(x, axis=_axis(axis))
    weights = _rt.cast(weights, x.dtype)
    if axis is not None and len(weights.shape) == 1 and len(x.shape) > 1:
        shape = [1] * len(x.shape)
        shape[axis] = -1
        weights = _rt.reshape(weights, shape)
    weights = _rt.broadcast_to(weights, _rt.shape(x))
    return _rt.divide(_rt.reduce_sum(_rt.multiply(x, weights), axis=_axis(axis)),
                      _rt.reduce_sum(weights, axis=_axis(axis)))


@_in_floats
def moments(x, axes, keepdims=False, synchronized=False):
    """The mean and the variance over ``axes``."""
    mean_ = _rt.reduce_mean(x, axis=list(axes), keepdims=True)
    variance = _rt.reduce_mean(_rt.square(_rt.subtract(x, mean_)), axis=list(axes),
                               keepdims=keepdims)
    return (mean_ if keepdims else _rt.squeeze(mean_, axis=list(axes))), variance


def count_nonzero(x, axis=None):
    """An int32 count, as Keras gives it."""
    return _rt.cast(_rt.math.count_nonzero(x, axis=_axis(axis)), _np.int32)


def top_k(x, k, sorted=True):  # noqa: A002
    """The ``k`` largest values along the last axis and their int32 indices (``.values``,
    ``.indices``)."""
    return _rt.math.top_k(x, k)


@_in_floats
def norm(x, ord=None, axis=None, keepdims=False):
    """The vector 2-norm over ``axis`` (every axis when None), or the norm ``ord`` names."""
    return _rt.norm(x, ord="euclidean" if ord is None else ord, axis=_axis(axis),
                    keepdims=keepdims)


# -- shapes and creation -------------------------------------------------------------------

reshape, transpose, squeeze, expand_dims = _rt.reshape, _rt.transpose, _rt.squeeze, _rt.expand_dims
stack, tile, broadcast_to, matmul = _rt.stack, _rt.tile, _rt.broadcast_to, _rt.matmul
einsum, tensordot, zeros_like, ones_like = _rt.einsum, _rt.tensordot, _rt.zeros_like, _rt.ones_like
stop_gradient, cond, while_loop = _rt.stop_gradient, _rt.cond, _rt.while_loop
sort, argsort = _rt.sort, _rt.argsort



def shape(x) -> tuple:
    """The shape as a tuple: ints where the size is known now, and for a size known only when
    a graph runs a scalar tensor of it (as Keras gives on TensorFlow), so that
    ``ops.reshape(x, (ops.shape(x)[0], -1))`` works in a traced call."""
    x = _as_tensor(x)
    static = tuple(x.shape)
    if None not in static:
        return static
    dynamic = _rt.shape(x)
    return tuple(dynamic[i] if size is None else size for i, size in enumerate(static))


def concatenate(xs, axis=0):
    return _rt.concat(list(xs), axis=axis)


def split(x, indices_or_sections, axis=0):
    """Into that many equal parts (an int), or at those indices (a list), as NumPy splits."""
    if isinstance(indices_or_sections, int):
        return _rt.split(x, indices_or_sections, axis=axis)
    size = _as_tensor(x).shape[axis]
    bounds = [0, *indices_or_sections, size]
    return _rt.split(x, [end - start for start, end in zip(bounds, bounds[1:])], axis=axis)


def unstack(x, num=None, axis=0):
    return _rt.unstack(x, num=num, axis=axis)


def flip(x, axis=None):
    x = _as_tensor(x)
    axes = list(range(len(x.shape))) if axis is None else \
        list(axis) if isinstance(axis, (tuple, list)) else [axis]
    return _rt.reverse(x, axes)


def repeat(x, repeats, axis=None):
    return _rt.repeat(x, repeats, axis=axis)


def take(x, indices, axis=None):
    x = _as_tensor(x)
    return _rt.gather(_rt.reshape(x, [-1]) if axis is None else x, indices,
                      axis=0 if axis is None else axis)


def outer(x1, x2):
    """Every product of an element of ``x1`` and one of ``x2`` (both flattened)."""
    return _rt.multiply(_rt.reshape(x1, [-1, 1]), _rt.reshape(x2, [1, -1]))


def pad(x, pad_width, mode="constant", constant_values=None):
    """``x`` with ``pad_width`` (one ``(before, after)`` pair per axis) added around it."""
    return _rt.pad(x, [list(pair) for pair in pad_width], mode=mode.upper(),
                   constant_values=0 if constant_values is None else constant_values)


def slice(inputs, start_indices, shape):  # noqa: A001
    return _rt.slice(inputs, start_indices, shape)


def diag(x, k=0):
    """The diagonal matrix of a vector, or the diagonal of a matrix (``k == 0`` only)."""
    if k != 0:
        raise ValueError("keras.ops.diag with an offset k is not supported by eager2graph yet; "
                         "use k=0.")
    x = _as_tensor(x)
    return _rt.linalg.diag(x) if len(x.shape) == 1 else _rt.linalg.diag_part(x)


def trace(x, offset=0, axis1=0, axis2=1):
    x = _as_tensor(x)
    if offset != 0 or (axis1, axis2) not in ((0, 1), (-2, -1)) or len(x.shape) != 2:
        raise ValueError("keras.ops.trace is supported by eager2graph for matrices with "
                         "offset=0 only.")
    return _rt.linalg.trace(x)


def zeros(shape, dtype=None):
    return _rt.zeros(shape, dtype=dtype or _FLOATX)


def ones(shape, dtype=None):
    return _rt.ones(shape, dtype=dtype or _FLOATX)


def full(shape, fill_value, dtype=None):
    """Keras' float dtype unless ``dtype`` says otherwise (``full((2,), 7)`` is float32)."""
    return _rt.fill(shape, _rt.cast(fill_value, dtype or _FLOATX))


def full_like(x, fill_value, dtype=None):
    x = _as_tensor(x)
    return _rt.fill(_rt.shape(x), _rt.cast(fill_value, dtype or x.dtype))


def eye(N, M=None, k=0, dtype=None):  # noqa: N803 (NumPy's names)
    if k != 0:
        raise ValueError("keras.ops.eye with a diagonal offset k is not supported by eager2graph "
                         "yet; build the matrix with keras.ops.eye(N, M) and shift it with "
                         "keras.ops.pad and slicing.")
    return _rt.eye(N, M, dtype=dtype or _FLOATX)


def arange(start, stop=None, step=1, dtype=None):
    """int32 for Python ints, float32 as soon as one bound or the step is a float."""
    if dtype is None:
        values = [v for v in (start, stop, step) if v is not None]
        dtype = _FLOATX if _builtins.any(isinstance(v, float) for v in values) else _np.int32
    return _rt.range(start, stop, step, dtype=dtype)


def linspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    if not endpoint:
        raise ValueError("keras.ops.linspace with endpoint=False is not supported by "
                         "eager2graph yet; pass stop - (stop - start) / num with "
                         "endpoint=True instead.")
    values = _rt.linspace(_rt.cast(start, _FLOATX), _rt.cast(stop, _FLOATX), num, axis=axis)
    return values if dtype is None else _rt.cast(values, dtype)


def one_hot(x, num_classes, axis=-1, dtype=None):
    return _rt.one_hot(x, num_classes, axis=axis, dtype=dtype or _FLOATX)


def tril(x, k=0):
    return _triangle(x, lower=True, k=k)


def triu(x, k=0):
    return _triangle(x, lower=False, k=k)


def _triangle(x, lower: bool, k: int):
    """The lower (or upper) triangle of the last two axes from diagonal ``k`` on, zeros
    elsewhere, as NumPy's tril and triu give it."""
    x = _as_tensor(x)
    rows, columns = x.shape[-2], x.shape[-1]
    offset = _np.arange(columns)[None, :] - _np.arange(rows)[:, None]
    keep = offset <= k if lower else offset >= k
    return _rt.where(_rt.constant(keep), x, _rt.zeros_like(x))


def dot(x1, x2):
    x1, x2 = _as_tensor(x1), _as_tensor(x2)
    if len(x1.shape) == 0 or len(x2.shape) == 0:
        return _rt.multiply(x1, x2)
    return _rt.tensordot(x1, x2, axes=[[len(x1.shape) - 1], [_builtins.max(len(x2.shape) - 2, 0)]])


# -- neural network ops --------------------------------------------------------------------

# Keras computes these in the tensor's own dtype: on TensorFlow, integers are refused.
relu, relu6 = _rt.nn.relu, _rt.nn.relu6
sigmoid, softplus, silu, elu, selu = map(_floating_only, (_rt.sigmoid, _rt.nn.softplus,
                                                          _rt.nn.silu, _rt.nn.elu, _rt.nn.selu))
swish = silu


@_floating_only
def softmax(x, axis=-1):
    return _rt.nn.softmax(x, axis=axis)


@_floating_only
def log_softmax(x, axis=-1):
    return _rt.nn.log_softmax(x, axis=axis)


def gelu(x, approximate=True):
    return _rt.nn.gelu(x, approximate=approximate)


@_in_floats
def leaky_relu(x, negative_slope=0.2):
    return _rt.nn.leaky_relu(x, alpha=negative_slope)


__getattr__ = _missing("keras.ops")
