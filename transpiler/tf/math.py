"""``tf.math``: TensorFlow's elementwise math, reductions, segment reductions and counting on
the runtime."""

import types as _types

import runtime as _rt
from transpiler.tf._names import export as _export, missing as _missing

_export(globals(), _rt.math, """
    abs add add_n argmax argmin bincount confusion_matrix count_nonzero cumprod cumsum divide
    divide_no_nan equal floordiv floormod greater greater_equal in_top_k invert_permutation
    is_non_decreasing is_strictly_increasing l2_normalize less less_equal logical_and logical_not
    logical_or logical_xor maximum minimum mod multiply multiply_no_nan negative not_equal polyval
    pow reciprocal reciprocal_no_nan reduce_all reduce_any reduce_euclidean_norm reduce_max
    reduce_mean reduce_min reduce_prod reduce_std reduce_sum reduce_variance round segment_max
    segment_mean segment_min segment_prod segment_sum sign square squared_difference subtract
    polygamma top_k truncatediv unsorted_segment_max unsorted_segment_mean unsorted_segment_min
    unsorted_segment_prod unsorted_segment_sqrt_n unsorted_segment_sum xlog1py xlogy zero_fraction
    accumulate_n=add_n scalar_mul=multiply truediv=divide
""")
# TensorFlow has these kernels for floating-point and complex dtypes only.
_export(globals(), _rt.math, """
    acos acosh asin asinh atan atan2 atanh bessel_i0 bessel_i0e bessel_i1 bessel_i1e ceil cos
    cosh cumulative_logsumexp digamma erf erfc erfinv exp expm1 floor is_finite is_inf is_nan
    lgamma log log1p log_sigmoid ndtri reduce_logsumexp rint rsqrt sigmoid sin sinh sqrt tan tanh
    xdivy
""", floating_only=True)
_export(globals(), _rt.nn, "log_softmax softmax softplus softsign", floating_only=True)

# tf.math.special: the special functions TensorFlow files there too.
special = _types.ModuleType("transpiler.tf.math.special", "``tf.math.special``.")
_export(vars(special), _rt.math, "bessel_i0 bessel_i0e bessel_i1 bessel_i1e",
        floating_only=True)
special.__getattr__ = _missing("tf.math.special")

__getattr__ = _missing("tf.math")
