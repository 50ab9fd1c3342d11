"""``rt.nn``: neural-network helpers."""

from runtime.ops.math_ops import sigmoid, tanh
from runtime.ops.nn_ops import (l2_loss, leaky_relu, log_softmax, relu,
                                sigmoid_cross_entropy_with_logits, softmax,
                                softmax_cross_entropy_with_logits, softplus,
                                sparse_softmax_cross_entropy_with_logits)

__all__ = ["l2_loss", "leaky_relu", "log_softmax", "relu", "sigmoid",
           "sigmoid_cross_entropy_with_logits", "softmax", "softmax_cross_entropy_with_logits",
           "softplus", "sparse_softmax_cross_entropy_with_logits", "tanh"]
