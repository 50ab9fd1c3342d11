"""Activations, losses and matrix products in JAX, with the formulas of the graph's kernels.

Each rule writes the kernel's own formula (the same shifts for stability), so results agree
to rounding. Matrix products ask XLA for full precision (``Precision.HIGHEST``): on GPUs and
TPUs its default rounds float32 operands to bfloat16 or TF32, which is not the graph's answer.
Sparse labels out of range raise when the call runs, as in the graph.
"""

from __future__ import annotations

import numpy as np

import jax.numpy as jnp
from jax import lax

from runtime.export.jax_arrays import kernel_message
from runtime.export.jax_checks import check
from runtime.export.jax_math import operands, out_dtype
from runtime.export.jax_values import to_jax
from runtime.ops import linalg_ops, nn_ops


def log_softmax(x, axis):
    shifted = x - jnp.max(x, axis=axis, keepdims=True)
    return shifted - jnp.log(jnp.sum(jnp.exp(shifted), axis=axis, keepdims=True))


def _softmax(node, x):
    (x,) = operands(node, (x,))
    axis = node.attrs["axis"]
    exps = jnp.exp(x - jnp.max(x, axis=axis, keepdims=True))
    return exps / jnp.sum(exps, axis=axis, keepdims=True)


def _log_softmax(node, x):
    (x,) = operands(node, (x,))
    return log_softmax(x, node.attrs["axis"])


def _relu(node, x):
    (x,) = operands(node, (x,))
    return jnp.maximum(x, jnp.zeros((), x.dtype))


def _softplus(node, x):
    (x,) = operands(node, (x,))
    return jnp.logaddexp(x, jnp.zeros((), x.dtype))


def _leaky_relu(node, x):
    (x,) = operands(node, (x,))
    return jnp.where(x > 0, x, x * jnp.asarray(node.attrs["alpha"], x.dtype))


def _sigmoid_xent(node, labels, logits):
    labels, logits = operands(node, (labels, logits))
    positive = logits >= 0
    zero = jnp.zeros((), logits.dtype)
    return (jnp.where(positive, logits, zero) - logits * labels
            + jnp.log1p(jnp.exp(jnp.where(positive, -logits, logits))))


def _softmax_xent(node, labels, logits):
    labels, logits = operands(node, (labels, logits))
    axis = node.attrs["axis"]
    return jnp.sum(labels * -log_softmax(logits, axis), axis=axis)


def _sparse_xent(node, labels, logits):
    labels = to_jax(labels, labels.dtype, node)
    (logits,) = operands(node, (logits,))
    classes = logits.shape[-1]
    check(node, (labels >= 0) & (labels < classes),
          lambda values: kernel_message(nn_ops.SPARSE_SOFTMAX_XENT, values,
                                        np.zeros(values.shape + (classes,), np.float32)),
          labels)
    log_probs = log_softmax(logits, -1)
    picked = jnp.take_along_axis(log_probs, jnp.clip(labels, 0, classes - 1)[..., None], -1)
    return -picked[..., 0]


def _matmul(node, x, y):
    x, y = operands(node, (x, y))
    if x.dtype == np.bool_:  # NumPy: any(a and b) along the inner axis
        counts = jnp.matmul(x.astype(np.int32), y.astype(np.int32))
        return counts > 0
    return jnp.matmul(x, y, precision=lax.Precision.HIGHEST,
                      preferred_element_type=out_dtype(node))


LOWERINGS = {
    nn_ops.RELU: _relu,
    nn_ops.SOFTMAX: _softmax,
    nn_ops.LOG_SOFTMAX: _log_softmax,
    nn_ops.SOFTPLUS: _softplus,
    nn_ops.LEAKY_RELU: _leaky_relu,
    nn_ops.SIGMOID_XENT: _sigmoid_xent,
    nn_ops.SOFTMAX_XENT: _softmax_xent,
    nn_ops.SPARSE_SOFTMAX_XENT: _sparse_xent,
    linalg_ops.MATMUL: _matmul,
}
