"""eager2graph runtime: eager tensors, graph tracing, control flow and cached graph functions.

    import runtime as rt

    @rt.function
    def f(x, y):
        return rt.matmul(x, y) + 1.0

The runtime knows nothing about Python source; ``transpiler`` builds on it to rewrite Python
control flow (``if``/``while``/``for`` on tensors) into ``rt.cond`` and ``rt.while_loop``.
"""

__version__ = "0.1.0"  # the distribution's version: keep pyproject.toml's in step (a test checks)

import importlib as _importlib

from runtime import config, data, display, errors, export, nest, optimizers
from runtime.autodiff import control_flow as _control_flow_gradients  # registers the rules
from runtime.autodiff.custom_gradient import custom_gradient
from runtime.autodiff.tape import GradientTape, UnconnectedGradients
from runtime.control_flow import cond, while_loop
from runtime.dtypes import (bool_ as bool, complex64, complex128, float16, float32, float64,  # noqa: A001
                            int8, int16, int32, int64, uint8, DType, as_dtype)
from runtime.function import Function, function
from runtime.functional_ops import case, map_fn, scan, switch_case
from runtime.concrete_function import ConcreteFunction
from runtime.graph import Graph, Node
from runtime.module import Module
from runtime.introspection import executing_eagerly, get_static_value, is_tensor
from runtime.ops import debugging, linalg, math, nn, random
from runtime.ops.array_ops import (cast, clip_by_value, concat, constant, convert_to_tensor,
                                   expand_dims, fill, getitem, identity, ones,
                                   ones_like, range, rank, reshape, shape, size, squeeze, stack,
                                   transpose, unstack, where, zeros, zeros_like)
from runtime.ops.broadcast_ops import broadcast_to
from runtime.ops.indexed_slices import IndexedSlices
from runtime.ops.gradient_ops import stop_gradient
from runtime.ops.io_ops import assert_, print, print_tensors  # noqa: A004
from runtime.ops.einsum_ops import einsum, tensordot
from runtime.ops.linalg_ops import matmul
from runtime.ops.norm_ops import clip_by_global_norm, clip_by_norm, norm
from runtime.ops.math_ops import (abs, add, ceil, cos, divide, equal, exp, floor, floordiv,  # noqa: A004
                                  greater, greater_equal, less, less_equal, log, log1p, logical_and,
                                  logical_not, logical_or, logical_xor, maximum, minimum, mod,
                                  multiply, negative, not_equal, pow, round, sigmoid, sign, sin,
                                  sqrt, square, subtract, tan, tanh)
from runtime.ops.operators import install as _install_operators
from runtime.ops.reduce_ops import (argmax, argmin, reduce_all, reduce_any, reduce_max,
                                    reduce_mean, reduce_min, reduce_prod, reduce_sum)
from runtime.ops.reduce_ops import reduce_logsumexp
from runtime.ops.layout_ops import (boolean_mask, eye, linspace, meshgrid, newaxis, one_hot, repeat,
                                    reverse, roll, sequence_mask, slice, split,  # noqa: A004
                                    tile)
from runtime.ops.math_composites import add_n
from runtime.ops.pad_ops import pad
from runtime.ops.scan_ops import cumsum
from runtime.ops.scatter_ops import (gather, gather_nd, scatter_nd, tensor_scatter_nd_add,
                                     tensor_scatter_nd_update)
from runtime.ops.sort_ops import argsort, searchsorted, sort, unique
from runtime.ops.special_math_ops import acos, asin, atan, atan2, cosh, sinh, truncatediv
from runtime.tensor import EagerTensor, SymbolicTensor, Tensor, TensorShape, TensorSpec
from runtime.tensor_array import TensorArray
from runtime.variables import Variable
from runtime.serialize import load, save

_install_operators(Tensor, Variable)

truediv = divide

# Imported when first used (``rt.keras``, ``rt.visualize``, ``from runtime import keras``): a
# program that never uses them starts about 20 ms sooner (15% of ``import runtime``).
_ON_FIRST_USE = ("keras", "visualize")


def __getattr__(name: str):
    if name in _ON_FIRST_USE:
        return _importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'runtime' has no attribute {name!r}")


__all__ = [name for name in dir() if not name.startswith("_")] + list(_ON_FIRST_USE)
