"""Neural-network activations and losses (``rt.nn``), with TensorFlow's names, arguments and
gradients.

Where TensorFlow's gradient differs from what the ops composing a function would give (the
cross entropies, ``relu`` and ``leaky_relu`` at 0) or a fused kernel is more stable, the
function is an op with its own rule; the others are composites.
"""

from __future__ import annotations

import numpy as np

from runtime import dtypes
from runtime.errors import InvalidArgumentError, ShapeError
from runtime.ops.array_ops import cast, expand_dims, getitem, range as range_, shape, where
from runtime.ops.dispatch import apply_op, convert_to_tensor
from runtime.ops.math_ops import (equal, exp, greater, multiply, negative, sigmoid, sign, square,
                                  subtract)
from runtime.ops.reduce_ops import reduce_sum
from runtime.ops.registry import OpDef, Promotion, register
from runtime.ops.shapes import broadcast, normalize_axis
from runtime.tensor import Tensor, format_shape


def _floating(op_name: str, x) -> Tensor:
    x = convert_to_tensor(x)
    if x.dtype.kind != "f":
        raise TypeError(f"{op_name} needs a floating-point tensor, got {x.dtype.name}. Use "
                        f"rt.cast to convert.")
    return x


def _axis(op_name: str, x: Tensor, axis) -> int:
    """``axis`` (None: the last, as in TensorFlow), checked and made non-negative when the
    rank is known."""
    axis = -1 if axis is None else int(axis)
    return axis if x.ndim is None else normalize_axis(op_name, axis, x.ndim)


def _same_shape(op_name: str, labels, logits, what: str = "the same shape as logits") -> None:
    """Raises unless the (partial) shapes can be equal."""
    if labels is None or logits is None:
        return
    if len(labels) != len(logits) or any(
            a is not None and b is not None and a != b for a, b in zip(labels, logits)):
        raise ShapeError(f"{op_name}: labels must have {what}, got labels "
                         f"{format_shape(labels)} and logits {format_shape(logits)}.")


def _labels_like(op_name: str, labels, logits: Tensor) -> Tensor:
    """Labels in the dtype of the logits: Python numbers and integer or bool values convert;
    float tensors and arrays of another width raise instead of losing precision quietly."""
    dtype = getattr(labels, "dtype", None)
    if dtype is not None and np.dtype(dtype).kind == "f" and dtype != logits.dtype:
        raise TypeError(f"{op_name}: labels ({np.dtype(dtype).name}) and logits "
                        f"({logits.dtype.name}) must have the same dtype; use rt.cast.")
    if not isinstance(labels, Tensor):
        return convert_to_tensor(labels, logits.dtype)
    return cast(labels, logits.dtype)


# Softmax kernels call the ufuncs' reduce directly: np.max and np.sum add a wrapper layer that
# costs more than the reduction on the small arrays of a training step. The sum of the exps is
# at least 1 (the largest shifted value is 0), so the log never sees 0.


def _log_softmax_array(x, axis):
    shifted = x - np.maximum.reduce(x, axis, keepdims=True)
    return shifted - np.log(np.add.reduce(np.exp(shifted), axis, keepdims=True))


# -- activations ------------------------------------------------------------------------------


def _relu(x, out=None):
    return np.maximum(x, x.dtype.type(0), out=out)


_relu.writes_out = True  # elementwise: the executor may pass a dying input as ``out``


def _relu_grad(node, dy):
    """``dy`` where the output is positive, 0 elsewhere (at 0 and NaN too), as TensorFlow's
    ReluGrad. The 0 is taken from the output (``where(positive, y, 0)`` is 0 there), so the
    result depends on it and a second derivative through this rule is zeros, not None, as in
    TensorFlow. Elementwise only, so it fuses with its neighbours."""
    y = node.outputs[0]
    positive = greater(y, 0)
    return (where(positive, dy, where(positive, y, 0)),)


def _softmax(x, axis=-1):
    exps = np.exp(x - np.maximum.reduce(x, axis, keepdims=True))
    return exps / np.add.reduce(exps, axis, keepdims=True)


def _softmax_grad(node, dy):
    y = node.outputs[0]
    return (multiply(subtract(dy, reduce_sum(multiply(dy, y), node.attrs["axis"], keepdims=True)),
                     y),)


def _log_softmax_grad(node, dy):
    axis = node.attrs["axis"]
    return (subtract(dy, multiply(reduce_sum(dy, axis, keepdims=True), exp(node.outputs[0]))),)


def _softplus_grad(node, dy):
    return (multiply(dy, sigmoid(node.inputs[0])),)


def _leaky_relu(x, alpha):
    return np.where(x > 0, x, x * x.dtype.type(alpha))


def _leaky_relu_grad(node, dy):
    """``dy`` times the slope, 1 where ``x`` is positive (as ``sign(x)``, whose gradient is 0:
    a second derivative through this rule is zeros, not None, as in TensorFlow) and
    ``alpha`` elsewhere (at 0 and NaN too)."""
    x = node.inputs[0]
    positive = greater(x, 0)
    return (multiply(dy, where(positive, sign(x), node.attrs["alpha"])),)


def _same_type(x, **attrs):
    return x.dtype, x.shape


RELU = register(OpDef("relu", _relu, _same_type, gradient=_relu_grad))
SOFTMAX = register(OpDef("softmax", _softmax, _same_type, gradient=_softmax_grad))
LOG_SOFTMAX = register(OpDef("log_softmax", _log_softmax_array, _same_type,
                             gradient=_log_softmax_grad))
SOFTPLUS = register(OpDef("softplus", lambda x: np.logaddexp(x, x.dtype.type(0)), _same_type,
                          gradient=_softplus_grad))
LEAKY_RELU = register(OpDef("leaky_relu", _leaky_relu, _same_type, gradient=_leaky_relu_grad))


def relu(x):
    """``max(x, 0)`` elementwise."""
    return apply_op(RELU, (x,))


def softmax(logits, axis=-1):
    """Normalized exponentials along ``axis`` (computed stably)."""
    logits = _floating("softmax", logits)
    return apply_op(SOFTMAX, (logits,), {"axis": _axis("softmax", logits, axis)})


def log_softmax(logits, axis=-1):
    """``logits - log(reduce_sum(exp(logits), axis, keepdims=True))``, computed stably."""
    logits = _floating("log_softmax", logits)
    return apply_op(LOG_SOFTMAX, (logits,), {"axis": _axis("log_softmax", logits, axis)})


def softplus(features):
    """``log(exp(features) + 1)`` without overflow; its gradient is ``sigmoid(features)``."""
    return apply_op(SOFTPLUS, (_floating("softplus", features),))


def leaky_relu(features, alpha=0.2):
    """``features`` where positive, ``alpha * features`` elsewhere (also at 0, so the gradient
    there is ``alpha``). Integer features become float32, as in TensorFlow."""
    features = convert_to_tensor(features)
    if features.dtype.kind in "iub":
        features = cast(features, dtypes.float32)
    features = _floating("leaky_relu", features)
    if isinstance(alpha, Tensor) or np.ndim(alpha):
        raise TypeError(f"leaky_relu: alpha must be a Python number, got {alpha!r}.")
    return apply_op(LEAKY_RELU, (features,), {"alpha": float(alpha)})


def l2_loss(t):
    """``reduce_sum(t ** 2) / 2``, a scalar."""
    t = _floating("l2_loss", t)
    return multiply(reduce_sum(square(t)), 0.5)


# -- losses -----------------------------------------------------------------------------------


def _sigmoid_xent(labels, logits):
    if labels.shape != logits.shape:
        raise InvalidArgumentError(f"labels and logits must have the same shape, got "
                                   f"{format_shape(labels.shape)} and {format_shape(logits.shape)}")
    # TensorFlow's formula, max(x, 0) - x * z + log(1 + exp(-|x|)): exp never overflows.
    positive = logits >= 0
    return (np.where(positive, logits, 0) - logits * labels
            + np.log1p(np.exp(np.where(positive, -logits, logits))))


def _sigmoid_xent_infer(labels, logits):
    _same_shape("sigmoid_cross_entropy_with_logits", labels.shape, logits.shape)
    return logits.dtype, broadcast("sigmoid_cross_entropy_with_logits", labels.shape, logits.shape)


def _sigmoid_xent_grad(node, dy):
    labels, logits = node.inputs
    return multiply(dy, negative(logits)), multiply(dy, subtract(sigmoid(logits), labels))


def _softmax_xent(labels, logits, axis):
    log_probs = _log_softmax_array(logits, axis)
    return np.add.reduce(labels * -log_probs, axis)


def _softmax_xent_infer(labels, logits, axis):
    joined = broadcast("softmax_cross_entropy_with_logits", labels.shape, logits.shape)
    return logits.dtype, None if joined is None else joined[:axis] + joined[axis + 1:]


def _softmax_xent_grad(node, dy):
    labels, logits = node.inputs
    axis = node.attrs["axis"]
    dy = expand_dims(dy, axis)
    return (multiply(dy, negative(log_softmax(logits, axis))),
            multiply(dy, subtract(softmax(logits, axis), labels)))


def _sparse_xent(labels, logits):
    if labels.shape != logits.shape[:-1]:
        raise InvalidArgumentError(f"labels must have the shape of logits without its last "
                                   f"axis, got labels {format_shape(labels.shape)} and logits "
                                   f"{format_shape(logits.shape)}")
    classes = logits.shape[-1]
    bad = (labels < 0) | (labels >= classes)
    if bad.any():
        raise InvalidArgumentError(
            f"received a label value of {labels[bad].ravel()[0]} which is outside the valid "
            f"range of [0, {classes}); labels must be class indices of the logits' last axis")
    log_probs = _log_softmax_array(logits, -1)
    return -np.take_along_axis(log_probs, labels[..., None].astype(np.intp), -1)[..., 0]


def _sparse_xent_infer(labels, logits):
    if labels.shape is None or logits.shape is None:
        return logits.dtype, labels.shape
    _same_shape("sparse_softmax_cross_entropy_with_logits", labels.shape, logits.shape[:-1],
                "the shape of logits without its last axis")
    return logits.dtype, tuple(a if a is not None else b
                               for a, b in zip(labels.shape, logits.shape[:-1]))


def _one_hot(labels, like: Tensor) -> Tensor:
    """``labels`` as one-hot rows of ``like``'s last axis, in ``like``'s dtype."""
    classes = like.shape[-1] if like.shape is not None else None
    if classes is None:
        classes = getitem(shape(like, labels.dtype), -1)
    return cast(equal(expand_dims(labels, -1), range_(0, classes, dtype=labels.dtype)), like.dtype)


def _sparse_xent_grad(node, dy):
    labels, logits = node.inputs
    return None, multiply(expand_dims(dy, -1), subtract(softmax(logits), _one_hot(labels, logits)))


SIGMOID_XENT = register(OpDef("sigmoid_cross_entropy_with_logits", _sigmoid_xent,
                              _sigmoid_xent_infer, promotion=Promotion.COMMON,
                              gradient=_sigmoid_xent_grad))
SOFTMAX_XENT = register(OpDef("softmax_cross_entropy_with_logits", _softmax_xent,
                              _softmax_xent_infer, promotion=Promotion.COMMON,
                              gradient=_softmax_xent_grad))
SPARSE_SOFTMAX_XENT = register(OpDef("sparse_softmax_cross_entropy_with_logits", _sparse_xent,
                                     _sparse_xent_infer, gradient=_sparse_xent_grad))


def sigmoid_cross_entropy_with_logits(labels=None, logits=None):
    """The cross entropy of independent binary labels (probabilities in [0, 1]) and the
    logits of their predictions, elementwise: ``max(x, 0) - x * z + log(1 + exp(-|x|))`` for
    ``x = logits``, ``z = labels`` (same shape). Its gradient is ``sigmoid(x) - z``."""
    if labels is None or logits is None:
        raise ValueError("sigmoid_cross_entropy_with_logits needs both labels= and logits=.")
    logits = _floating("sigmoid_cross_entropy_with_logits", logits)
    labels = _labels_like("sigmoid_cross_entropy_with_logits", labels, logits)
    _same_shape("sigmoid_cross_entropy_with_logits", labels.shape, logits.shape)
    return apply_op(SIGMOID_XENT, (labels, logits))


def softmax_cross_entropy_with_logits(labels, logits, axis=-1):
    """``-reduce_sum(labels * log_softmax(logits, axis), axis)``: the cross entropy of each
    distribution in ``labels`` (along ``axis``) and the softmax of ``logits``. Gradients reach
    both: ``softmax(logits) - labels`` and ``-log_softmax(logits)``."""
    logits = _floating("softmax_cross_entropy_with_logits", logits)
    labels = _labels_like("softmax_cross_entropy_with_logits", labels, logits)
    if logits.ndim == 0:
        raise ShapeError("softmax_cross_entropy_with_logits: logits must have a class axis, got "
                         "a scalar.")
    if logits.ndim is None or labels.ndim is None:
        raise ShapeError("softmax_cross_entropy_with_logits: logits and labels need a known rank "
                         "while tracing.")
    if labels.ndim != logits.ndim:
        raise ShapeError(f"softmax_cross_entropy_with_logits: labels and logits must have the "
                         f"same rank (their shapes may broadcast), got labels "
                         f"{format_shape(labels.shape)} and logits {format_shape(logits.shape)}.")
    broadcast("softmax_cross_entropy_with_logits", labels.shape, logits.shape)
    axis = normalize_axis("softmax_cross_entropy_with_logits", int(axis), logits.ndim)
    return apply_op(SOFTMAX_XENT, (labels, logits), {"axis": axis})


def sparse_softmax_cross_entropy_with_logits(labels=None, logits=None):
    """``softmax_cross_entropy_with_logits`` with each distribution given as the index of its
    class: ``labels`` are integers in ``[0, num_classes)`` of shape ``logits.shape[:-1]``. An
    index out of range raises ``InvalidArgumentError`` when the op runs."""
    if labels is None or logits is None:
        raise ValueError("sparse_softmax_cross_entropy_with_logits needs both labels= and "
                         "logits=.")
    logits = _floating("sparse_softmax_cross_entropy_with_logits", logits)
    labels = convert_to_tensor(labels)
    if labels.dtype.kind not in "iu":
        raise TypeError(f"sparse_softmax_cross_entropy_with_logits: labels must be integer class "
                        f"indices, got {labels.dtype.name}.")
    if logits.ndim == 0:
        raise ShapeError("sparse_softmax_cross_entropy_with_logits: logits must have a class "
                         "axis, got a scalar.")
    if labels.ndim is not None and logits.ndim is not None:
        _same_shape("sparse_softmax_cross_entropy_with_logits", labels.shape, logits.shape[:-1],
                    "the shape of logits without its last axis")
    return apply_op(SPARSE_SOFTMAX_XENT, (labels, logits))
