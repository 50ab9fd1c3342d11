"""``tf.nn``: activations, losses, convolutions and pooling on the runtime."""

import runtime as _rt
from transpiler.tf._names import export as _export, missing as _missing

_export(globals(), _rt.math, "in_top_k")
_export(globals(), _rt.nn, "lrn=local_response_normalization")
_export(globals(), _rt.nn, """
    avg_pool avg_pool1d avg_pool2d batch_normalization bias_add compute_average_loss conv1d
    conv2d conv2d_transpose depthwise_conv2d dropout elu embedding_lookup gelu l2_loss
    l2_normalize leaky_relu local_response_normalization log_softmax max_pool max_pool1d
    max_pool2d moments relu relu6 selu sigmoid sigmoid_cross_entropy_with_logits silu softmax
    softmax_cross_entropy_with_logits softplus softsign sparse_softmax_cross_entropy_with_logits
    swish tanh top_k weighted_cross_entropy_with_logits
""")

__getattr__ = _missing("tf.nn")
