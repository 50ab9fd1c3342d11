"""``rt.nn``: neural-network helpers."""

from runtime.ops.activation_ops import elu, gelu, relu6, selu, silu, softsign, swish
from runtime.ops.conv_ops import conv1d, conv2d
from runtime.ops.dropout_ops import dropout
from runtime.ops.math_ops import sigmoid, tanh
from runtime.ops.math_composites import zero_fraction
from runtime.ops.nn_composites import (avg_pool, avg_pool1d, compute_average_loss,
                                       conv1d_transpose, conv2d_transpose, crelu,
                                       depthwise_conv2d, local_response_normalization,
                                       log_poisson_loss, max_pool, max_pool1d,
                                       max_pool_with_argmax, separable_conv2d,
                                       weighted_cross_entropy_with_logits)
from runtime.ops.nn_ops import (l2_loss, leaky_relu, log_softmax, relu,
                                sigmoid_cross_entropy_with_logits, softmax,
                                softmax_cross_entropy_with_logits, softplus,
                                sparse_softmax_cross_entropy_with_logits)
from runtime.ops.normalization_ops import (batch_normalization, bias_add, embedding_lookup,
                                           l2_normalize, moments, normalize_moments,
                                           sufficient_statistics, weighted_moments)
from runtime.ops.pool_ops import avg_pool2d, max_pool2d
from runtime.ops.rearrange_ops import depth_to_space, space_to_batch, space_to_depth
from runtime.ops.sort_ops import top_k  # TensorFlow has it in tf.nn and tf.math

__all__ = ["avg_pool", "avg_pool1d", "avg_pool2d", "batch_normalization", "bias_add",
           "compute_average_loss", "conv1d", "conv1d_transpose", "conv2d", "conv2d_transpose",
           "crelu", "depth_to_space", "depthwise_conv2d", "dropout", "elu", "embedding_lookup",
           "gelu", "l2_loss", "l2_normalize", "leaky_relu", "local_response_normalization",
           "log_poisson_loss", "log_softmax", "max_pool", "max_pool1d", "max_pool2d",
           "max_pool_with_argmax", "moments",
           "normalize_moments", "relu", "relu6", "selu", "separable_conv2d", "sigmoid",
           "sigmoid_cross_entropy_with_logits", "silu", "softmax",
           "softmax_cross_entropy_with_logits", "softplus", "softsign", "space_to_batch",
           "space_to_depth", "sparse_softmax_cross_entropy_with_logits",
           "sufficient_statistics", "swish", "tanh", "top_k", "weighted_cross_entropy_with_logits",
           "weighted_moments", "zero_fraction"]
