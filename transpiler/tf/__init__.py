"""TensorFlow 2's names on eager2graph: ``import transpiler.tf as tf`` and a TensorFlow program
runs on the runtime, its ``@tf.function``s converted by the transpiler.

This package holds names, not logic: ``tf.function`` is ``transpiler.function``, ``tf.add`` is
``rt.add`` (accepting TensorFlow's ``name=``), ``tf.data`` is ``runtime.data``. A TensorFlow
name with no equivalent raises an ``AttributeError`` that names it; the README's "TensorFlow
programs" section has the table.
"""

import logging as _logging
import types as _types

import runtime as _rt
from runtime import display as _display
from runtime import data, keras  # noqa: F401  (tf.data, tf.keras)
from transpiler import api as _api
from runtime.ops import (counting_ops as _counting_ops, ensure_shape_ops as _ensure_shape_ops,
                         folds as _folds, index_arithmetic as _index_arithmetic,
                         indexing as _indexing,
                         math_composites as _math_composites,
                         partition_ops as _partition_ops,
                         program_order as _program_order,
                         python_function_ops as _python_function_ops, scatter_ops as _scatter_ops,
                         vectorized_map as _vectorized_map)
from transpiler.tf import (autograph, bitwise, config, debugging, dtypes,  # noqa: F401
                           errors, image, linalg, math, nest, nn, random, summary, test, train)
from transpiler.tf._names import export as _export, missing as _missing

function = _api.function
optimizers = keras.optimizers

# A TensorFlow program prints tensors as TensorFlow prints them (runtime.display).
_display.set_style(_display.TENSORFLOW)

# The TensorFlow version whose API this namespace follows (its programs are checked against it).
__version__ = "2.21.0"
version = _types.SimpleNamespace(VERSION=__version__)


def get_logger() -> _logging.Logger:
    """The logger TensorFlow's messages go to (programs set its level; nothing here logs)."""
    return _logging.getLogger("tensorflow")


# TensorFlow 2's initializer names: Keras' initializers.
constant_initializer = keras.initializers.Constant
zeros_initializer = keras.initializers.Zeros
ones_initializer = keras.initializers.Ones
random_normal_initializer = keras.initializers.RandomNormal
random_uniform_initializer = keras.initializers.RandomUniform
glorot_uniform_initializer = keras.initializers.GlorotUniform

_export(globals(), _rt, """
    GradientTape IndexedSlices Module Tensor TensorArray TensorShape TensorSpec
    UnconnectedGradients Variable
    abs acos add add_n argmax argmin argsort asin atan atan2 boolean_mask
    broadcast_to case cast clip_by_global_norm clip_by_norm clip_by_value
    concat cond constant convert_to_tensor cos cosh cumsum custom_gradient divide einsum equal
    executing_eagerly exp expand_dims eye fill floor gather gather_nd
    get_static_value greater greater_equal identity is_tensor less
    less_equal linspace logical_and logical_not logical_or map_fn matmul maximum meshgrid
    minimum multiply negative newaxis norm not_equal one_hot ones ones_like pad pow
    range rank reduce_all reduce_any reduce_logsumexp reduce_max reduce_mean reduce_min
    reduce_prod reduce_sum repeat reshape reverse roll round scan scatter_nd searchsorted
    sequence_mask shape sigmoid sign sin sinh size slice sort split sqrt square squeeze stack
    stop_gradient subtract switch_case tan tanh tensor_scatter_nd_add tensor_scatter_nd_update
    tensordot tile transpose truediv truncatediv unique unstack where while_loop zeros
    zeros_like
    print=print_tensors
""")
_export(globals(), dtypes, """
    DType as_dtype bool complex64 complex128 double float16 float32 float64 half int8 int16
    int32 int64 uint8 uint16 uint32 uint64
""")
_export(globals(), _rt.math, "histogram_fixed_width scalar_mul=multiply truncatemod")
_export(globals(), _counting_ops, "unique_with_counts")
_export(globals(), _math_composites, "saturate_cast")
_export(globals(), _ensure_shape_ops, "broadcast_dynamic_shape ensure_shape shape_n")
_export(globals(), _folds, "foldl foldr")
_export(globals(), _indexing, "strided_slice")
_export(globals(), _index_arithmetic, "unravel_index")
_export(globals(), _partition_ops, "dynamic_partition dynamic_stitch")
_export(globals(), _program_order, "control_dependencies group init_scope name_scope no_op")
_export(globals(), _python_function_ops, "numpy_function py_function")
_export(globals(), _scatter_ops,
        "tensor_scatter_nd_max tensor_scatter_nd_min tensor_scatter_nd_sub")
_export(globals(), _vectorized_map, "vectorized_map")
_export(globals(), _rt.debugging, "assert_equal assert_greater assert_less assert_rank")

__getattr__ = _missing("tf")
