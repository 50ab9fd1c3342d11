"""``rt.math``: elementwise math, reductions and their TensorFlow names."""

from runtime.ops.counting_ops import (bincount, confusion_matrix, histogram_fixed_width,
                                      in_top_k)
from runtime.ops.index_arithmetic import invert_permutation
from runtime.ops.math_composites import (add_n, count_nonzero, divide_no_nan, floormod,
                                         is_non_decreasing, is_strictly_increasing,
                                         multiply_no_nan, polyval, reciprocal, reciprocal_no_nan,
                                         reduce_euclidean_norm, reduce_std, reduce_variance, rsqrt,
                                         squared_difference, xdivy, xlog1py, xlogy,
                                         zero_fraction)
from runtime.ops.math_ops import (abs, add, ceil, cos, divide, equal, exp, floor, floordiv,  # noqa: A004
                                  greater, greater_equal, less, less_equal, log, log1p,
                                  logical_and, logical_not, logical_or, logical_xor, maximum,
                                  minimum, mod, multiply, negative, not_equal, pow, round,
                                  sigmoid, sign, sin, sqrt, square, subtract, tan, tanh)
from runtime.ops.reduce_ops import (argmax, argmin, reduce_all, reduce_any, reduce_logsumexp,
                                    reduce_max, reduce_mean, reduce_min, reduce_prod, reduce_sum)
from runtime.ops.normalization_ops import l2_normalize
from runtime.ops.scan_ops import cumprod, cumsum, cumulative_logsumexp
from runtime.ops.segment_ops import (segment_max, segment_mean, segment_min, segment_prod,
                                     segment_sum, unsorted_segment_max, unsorted_segment_mean,
                                     unsorted_segment_min, unsorted_segment_prod,
                                     unsorted_segment_sqrt_n, unsorted_segment_sum)
from runtime.ops.sort_ops import top_k
from runtime.ops.special_function_ops import (bessel_i0, bessel_i0e, bessel_i1, bessel_i1e,
                                              digamma, erfc, erfinv, lgamma, ndtri, polygamma)
from runtime.ops.special_math_ops import (acos, acosh, asin, asinh, atan, atan2, atanh, cosh, erf,
                                          expm1, is_finite, is_inf, is_nan, log_sigmoid, rint,
                                          sinh, truncatediv, truncatemod)

__all__ = [name for name in dir() if not name.startswith("_")]
