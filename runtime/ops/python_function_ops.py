"""Python functions called from graphs: TensorFlow's ``py_function`` and ``numpy_function``.

The op's kernel calls the user's function when the op runs: at once eagerly, on every call of
a graph (a ``tf.data`` map's too). ``py_function`` passes eager tensors, ``numpy_function``
NumPy arrays (copies, which the function may change). The function runs eagerly even while
another function is being traced, and gradient tapes do not see its ops.

A Python function may do anything, so the op is an effect: never folded, merged or pruned, and
run in program order. Its outputs have the dtypes ``Tout`` names and shapes known only when it
runs (``ensure_shape`` states them). Gradients: TensorFlow differentiates ``py_function``
through the ops its function ran, which no tape here records, so asking for one is an error
that says so; ``numpy_function`` has none, as in TensorFlow (a tape warns that the gradient
stops there). The exporters refuse both (an ONNX model or a JAX function cannot hold Python
code), and the compiled tier leaves them on the NumPy plan.
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from runtime import dtypes, tracing
from runtime.autodiff import recording
from runtime.errors import InvalidArgumentError
from runtime.ops.dispatch import apply_op
from runtime.ops.registry import NOT_DIFFERENTIABLE, OpDef, register
from runtime.tensor import EagerTensor, Tensor


def _name_of(func: Callable) -> str:
    return getattr(func, "__qualname__", None) or repr(func)


def _result_array(op_name: str, func: Callable, position: int, value, dtype: np.dtype,
                  cast_arrays: bool) -> np.ndarray:
    """One returned value as an array of ``dtype``: tensors (and for ``numpy_function``, NumPy
    arrays) must have it already; Python numbers and lists are converted to it."""
    if isinstance(value, Tensor):
        array = np.asarray(value.numpy())
    elif isinstance(value, (np.ndarray, np.generic)):
        array = np.asarray(value)
        if cast_arrays:
            array = array.astype(dtype, copy=False)
    else:
        try:
            return dtypes.to_array(value, dtype)
        except (TypeError, ValueError, OverflowError) as error:
            raise InvalidArgumentError(
                f"{op_name}: result {position} of {_name_of(func)} cannot become a {dtype.name} "
                f"tensor, the dtype Tout gives it: {error}") from None
    if array.dtype != dtype:
        raise InvalidArgumentError(
            f"{op_name}: result {position} of {_name_of(func)} has dtype {array.dtype.name}, but "
            f"Tout says {dtype.name}. Return values of dtype {dtype.name} (cast them in the "
            f"function), or change Tout.")
    return array


def _kernel(op_name: str, to_argument: Callable, cast_arrays: bool) -> Callable:
    def kernel(*arrays, func, out_dtypes):
        with tracing.eager_scope(), recording.paused():
            try:
                returned = func(*[to_argument(array) for array in arrays])
            except Exception as error:  # the user's error, named, with its traceback chained
                raise InvalidArgumentError(f"{op_name}: {_name_of(func)} raised "
                                           f"{type(error).__name__}: {error}") from error
        values = list(returned) if isinstance(returned, (list, tuple)) else [returned]
        if not out_dtypes:
            return ()
        if len(values) != len(out_dtypes):
            raise InvalidArgumentError(
                f"{op_name}: {_name_of(func)} returned {len(values)} value(s), but Tout names "
                f"{len(out_dtypes)} dtype(s); return one value per dtype of Tout.")
        return tuple(_result_array(op_name, func, position, value, dtype, cast_arrays)
                     for position, (value, dtype) in enumerate(zip(values, out_dtypes)))
    return kernel


def _bind(kernel: Callable) -> Callable:
    """The plan's kernel: one output is the array itself, not a tuple of one."""
    def bind(attrs, input_types):
        if len(attrs["out_dtypes"]) == 1:
            return lambda *arrays: kernel(*arrays, **attrs)[0]
        return lambda *arrays: kernel(*arrays, **attrs)
    return bind


def _infer(*inputs, func, out_dtypes):
    return [(dtype, None) for dtype in out_dtypes]


def _op(name: str, to_argument: Callable, cast_arrays: bool, gradient) -> OpDef:
    kernel = _kernel(name, to_argument, cast_arrays)
    return register(OpDef(name, kernel, _infer, bind=_bind(kernel), effect=True,
                          num_outputs=None, gradient=gradient))


PY_FUNCTION = _op("py_function", EagerTensor, cast_arrays=True, gradient=None)
NUMPY_FUNCTION = _op("numpy_function", np.array, cast_arrays=False,  # np.array copies
                     gradient=NOT_DIFFERENTIABLE)


def _call(op: OpDef, func: Callable, inp: Sequence, Tout):
    if not callable(func):
        raise TypeError(f"{op.name}: func must be callable, got {type(func).__name__}.")
    if not isinstance(inp, (list, tuple)):
        raise TypeError(f"{op.name}: inp must be a list of tensors (the function's arguments), "
                        f"got {type(inp).__name__}; write [x] for one argument.")
    if Tout is None:
        raise TypeError(f"{op.name}: Tout must be a dtype or a list of dtypes (an empty list "
                        f"for a function that returns nothing).")
    single = not isinstance(Tout, (list, tuple))
    out_dtypes = tuple(dtypes.as_dtype(dtype) for dtype in ([Tout] if single else Tout))
    results = apply_op(op, list(inp), {"func": func, "out_dtypes": out_dtypes})
    return results[0] if single else list(results)


def py_function(func: Callable, inp: Sequence, Tout, name=None):
    """``func(*inp)`` when the op runs, given eager tensors; its results become tensors of the
    dtypes ``Tout`` names (one dtype: one tensor; a list: a list). Tensors returned must have
    those dtypes; NumPy arrays are cast to them and Python numbers converted. ``name`` is
    accepted and ignored."""
    return _call(PY_FUNCTION, func, inp, Tout)


def numpy_function(func: Callable, inp: Sequence, Tout, stateful: bool = True, name=None):
    """``func(*inp)`` when the op runs, given NumPy arrays; its results must be arrays of the
    dtypes ``Tout`` names (Python numbers are converted). The op always runs where it is
    written, as with ``stateful=True``: ``stateful=False`` lets TensorFlow skip or merge
    calls, which changes no result here. ``name`` is accepted and ignored."""
    return _call(NUMPY_FUNCTION, func, inp, Tout)
