"""``tf.nn``: activations, losses, convolutions and pooling on the runtime."""

import runtime as _rt
from transpiler.tf._names import export as _export, missing as _missing

_export(globals(), _rt.math, "in_top_k")
_export(globals(), _rt.nn, "lrn=local_response_normalization")
_export(globals(), _rt.nn, """
    avg_pool avg_pool1d avg_pool2d batch_normalization bias_add compute_average_loss conv1d
    conv1d_transpose conv2d conv2d_transpose depth_to_space depthwise_conv2d dropout
    embedding_lookup gelu l2_loss l2_normalize leaky_relu local_response_normalization max_pool
    max_pool1d max_pool2d max_pool_with_argmax moments normalize_moments relu relu6
    separable_conv2d sigmoid_cross_entropy_with_logits softmax_cross_entropy_with_logits
    space_to_batch space_to_depth sparse_softmax_cross_entropy_with_logits
    sufficient_statistics top_k weighted_cross_entropy_with_logits weighted_moments
    zero_fraction
""")
_export(globals(), _rt.nn, "crelu log_poisson_loss", floating_only=True)
# TensorFlow has these kernels for floating-point and complex dtypes only.
_export(globals(), _rt.nn, """
    elu log_softmax selu sigmoid silu softmax softplus softsign swish tanh
""", floating_only=True)

__getattr__ = _missing("tf.nn")
