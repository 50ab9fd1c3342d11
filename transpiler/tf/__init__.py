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
from runtime import (control_flow as _control_flow, display as _display, tracing as _tracing,
                     variables as _variables)
from runtime import data, keras  # noqa: F401  (tf.data, tf.keras)
from transpiler import api as _api
from runtime.ops import (counting_ops as _counting_ops, ensure_shape_ops as _ensure_shape_ops,
                         io_ops as _io_ops, layout_ops as _layout_ops,
                         folds as _folds, gradient_wrappers as _gradient_wrappers,
                         index_arithmetic as _index_arithmetic,
                         indexing as _indexing,
                         math_composites as _math_composites,
                         partition_ops as _partition_ops,
                         program_order as _program_order,
                         python_function_ops as _python_function_ops,
                         rearrange_ops as _rearrange_ops, scatter_ops as _scatter_ops,
                         symbolic_gradients as _symbolic_gradients,
                         vectorized_map as _vectorized_map)
from transpiler.tf import (autograph, bitwise, config, debugging, distribute,  # noqa: F401
                           dtypes, errors, image, linalg, math, nest, nn, random, summary, test,
                           train)
from transpiler.tf._names import export as _export, missing as _missing

# TensorFlow 2's top-level names for Keras' modules.
optimizers, losses, metrics, initializers = (keras.optimizers, keras.losses, keras.metrics,
                                             keras.initializers)


class TensorArray(_rt.TensorArray):
    """``rt.TensorArray`` with TensorFlow's default ``clear_after_read=True``: an eager read
    clears the element (the runtime's own arrays, read again by its loops, keep theirs)."""

    __slots__ = ()
    _clears_by_default = True


def function(func=None, input_signature=None, autograph=True, jit_compile=None,
             reduce_retracing=False, experimental_implements=None,
             experimental_autograph_options=None, experimental_attributes=None,
             experimental_relax_shapes=None, experimental_compile=None,
             experimental_follow_type_hints=None):
    """``tf.function`` with TensorFlow's arguments: ``transpiler.function``, or with
    ``autograph=False`` ``rt.function`` (Python control flow on tensors then raises, as in
    TensorFlow). The deprecated ``experimental_relax_shapes`` and ``experimental_compile``
    are ``reduce_retracing`` and ``jit_compile``; ``experimental_implements`` and
    ``experimental_attributes`` only name the graph for TensorFlow's tools. (No annotations
    here: ``bool`` is ``tf.bool`` in this module.)"""
    if experimental_autograph_options is not None or experimental_follow_type_hints:
        raise NotImplementedError(
            "tf.function: experimental_autograph_options and experimental_follow_type_hints "
            "are not supported by eager2graph; leave them out (every call is converted, and "
            "arguments retrace by their dtype and shape).")
    make = _api.function if autograph else _rt.function
    return make(func, input_signature=input_signature,
                reduce_retracing=True if reduce_retracing or experimental_relax_shapes else False,
                jit_compile=jit_compile if experimental_compile is None else experimental_compile)


# A TensorFlow program prints tensors as TensorFlow prints them (runtime.display).
_display.set_style(_display.TENSORFLOW)

# The TensorFlow version whose API this namespace follows (its programs are checked against it).
__version__ = "2.21.0"
version = _types.SimpleNamespace(VERSION=__version__)


def get_logger() -> _logging.Logger:
    """The logger TensorFlow's messages go to (programs set its level; nothing here logs)."""
    return _logging.getLogger("tensorflow")


_no_gradient_op_types: set[str] = set()


def no_gradient(op_type: str) -> None:
    """Declares that ops of type ``op_type`` have no gradient. TensorFlow accepts this only
    for an op type no gradient is registered for, that is an op of a custom kernel library
    (its own ops have theirs), which eager2graph cannot load: so nothing changes here, but the
    declaration is checked as TensorFlow checks it (a name, declared once), since programs
    make it at import time."""
    if not isinstance(op_type, str):
        raise TypeError(f"tf.no_gradient takes the op type's name (a string), got "
                        f"{type(op_type).__name__}.")
    if op_type in _no_gradient_op_types:
        raise KeyError(f"tf.no_gradient({op_type!r}) was called before: an op type's gradient "
                       f"is declared once. Remove the second call.")
    _no_gradient_op_types.add(op_type)


# TensorFlow 2's initializer names: Keras' initializers.
constant_initializer = keras.initializers.Constant
zeros_initializer = keras.initializers.Zeros
ones_initializer = keras.initializers.Ones
random_normal_initializer = keras.initializers.RandomNormal
random_uniform_initializer = keras.initializers.RandomUniform
glorot_uniform_initializer = keras.initializers.GlorotUniform

_export(globals(), _rt, """
    GradientTape IndexedSlices Module Tensor TensorShape TensorSpec
    UnconnectedGradients Variable abs add add_n argmax argmin argsort boolean_mask broadcast_to
    case cast clip_by_global_norm clip_by_norm clip_by_value concat cond constant
    convert_to_tensor cumsum custom_gradient divide einsum equal executing_eagerly expand_dims eye
    fill gather gather_nd get_static_value greater greater_equal identity is_tensor less
    less_equal linspace logical_and logical_not logical_or map_fn matmul maximum meshgrid minimum
    multiply negative newaxis norm not_equal one_hot ones ones_like pad pow range rank reduce_all
    reduce_any reduce_max reduce_mean reduce_min reduce_prod reduce_sum repeat reshape reverse
    roll round scan scatter_nd searchsorted sequence_mask shape sign size slice sort split square
    squeeze stack stop_gradient subtract switch_case tensor_scatter_nd_add
    tensor_scatter_nd_update tensordot tile transpose truediv truncatediv unique unstack where
    while_loop zeros zeros_like
    print=print_tensors
""")
# TensorFlow has these kernels for floating-point and complex dtypes only (an integer
# tensor raises, where the runtime computes in floats).
_export(globals(), _rt, """
    acos asin atan atan2 cos cosh exp floor reduce_logsumexp sigmoid sin sinh sqrt tan tanh
""", floating_only=True)
_export(globals(), dtypes, """
    DType as_dtype bool complex64 complex128 double float16 float32 float64 half int8 int16
    int32 int64 uint8 uint16 uint32 uint64
""")
_export(globals(), _rt.math, "histogram_fixed_width scalar_mul=multiply truncatemod")
_export(globals(), _rt.math, "acosh asinh atanh realdiv=divide", floating_only=True)
_export(globals(), _counting_ops, "histogram_fixed_width_bins unique_with_counts")
_export(globals(), _math_composites, "saturate_cast")
_export(globals(), _ensure_shape_ops,
        "broadcast_dynamic_shape broadcast_static_shape ensure_shape shape_n")
_export(globals(), _folds, "foldl foldr")
_export(globals(), _indexing, "strided_slice")
_export(globals(), _index_arithmetic, "unravel_index")
_export(globals(), _partition_ops, "dynamic_partition dynamic_stitch")
_export(globals(), _program_order, """
    control_dependencies device get_current_name_scope group guarantee_const identity_n
    init_scope name_scope no_op tuple
""")
_export(globals(), _io_ops, "timestamp")
_export(globals(), _layout_ops, "parallel_stack")
_export(globals(), _rearrange_ops,
        "batch_to_space reverse_sequence space_to_batch space_to_batch_nd")
_export(globals(), _tracing, "inside_function=is_tracing")
_export(globals(), _control_flow, "is_symbolic_tensor=is_symbolic")
_export(globals(), _gradient_wrappers, "grad_pass_through recompute_grad")
_export(globals(), _symbolic_gradients, "AggregationMethod gradients hessians")
_export(globals(), _variables, "VariableAggregation VariableSynchronization")
_export(globals(), _python_function_ops, "numpy_function py_function")
_export(globals(), _scatter_ops,
        "tensor_scatter_nd_max tensor_scatter_nd_min tensor_scatter_nd_sub")
_export(globals(), _vectorized_map, "vectorized_map")
_export(globals(), _rt.debugging,
        "Assert assert_equal assert_greater assert_less assert_rank", kernel_errors=False)

__getattr__ = _missing("tf")
