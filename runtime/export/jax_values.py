"""Values while a graph is turned into JAX: known (NumPy arrays) or traced (JAX arrays).

JAX traces the exported function with abstract values, but much of a graph is known while it
traces: constants, variables' values, shapes (JAX's shapes are concrete), and whatever is
computed from those alone. Such values stay NumPy arrays and ops on them run their own NumPy
kernel, so they give exactly the graph's result, and ops that need a known operand (a shape,
the bounds of ``range``) get one. Everything else is a JAX array.
"""

from __future__ import annotations

import numpy as np

import jax
import jax.numpy as jnp
from jax import lax

from runtime.export.jax_errors import refuse

X64_HINT = ('enable 64-bit types in JAX before creating any array: '
            'jax.config.update("jax_enable_x64", True) at the start of the program, or the '
            'environment variable JAX_ENABLE_X64=1')

# Ops on known values run their NumPy kernel while JAX traces when the result has at most
# this many elements; larger results are left to XLA rather than embedded as constants.
FOLD_LIMIT = 1 << 16


def is_known(value) -> bool:
    return isinstance(value, np.ndarray)


def is_wide(dtype: np.dtype) -> bool:
    """A dtype JAX keeps only with ``jax_enable_x64`` (it narrows it to 32 bits otherwise)."""
    return np.dtype(dtype).itemsize == 8 or np.dtype(dtype) == np.complex128


def require_x64(node, dtype: np.dtype, role: str = "a value") -> None:
    """Refuses ``node`` when JAX would narrow ``dtype`` (64-bit types are off)."""
    if is_wide(dtype) and not jax.config.jax_enable_x64:
        raise refuse(node, f"it computes {role} of dtype {np.dtype(dtype).name}, which JAX "
                           f"narrows to 32 bits unless 64-bit types are enabled; {X64_HINT}.")


def to_jax(value, dtype: np.dtype, node):
    """``value`` as a JAX array of exactly ``dtype`` (``node`` uses it)."""
    require_x64(node, dtype, "with an input")
    if isinstance(value, np.ndarray):
        return jnp.asarray(value, dtype=dtype)
    if value.dtype != dtype:
        return lax.convert_element_type(value, dtype)
    return value


def known(node, value, what: str) -> np.ndarray:
    """``value``, which must be known while JAX traces: ``what`` the op needs it for."""
    if is_known(value):
        return value
    raise refuse(node, f"{what} is computed from the function's inputs, so the result's shape "
                       f"is known only when the graph runs, and JAX needs every shape while it "
                       f"traces. Compute it from shapes and constants only, or give the "
                       f"function an input_signature with the shapes it depends on.")


def foldable(node) -> bool:
    """Whether ``node`` may run its NumPy kernel on known inputs while JAX traces."""
    if node.effect or node.op.stateful or node.subgraphs:
        return False
    if node.op.kernel is None and node.op.bind is None:
        return False
    for out in node.outputs:
        if out.shape is not None and None not in out.shape \
                and int(np.prod(out.shape, dtype=np.int64)) > FOLD_LIMIT:
            return False
    return True


def fold(node, arrays):
    """The outputs of ``node``'s NumPy kernel on known ``arrays`` (a list), or None when the
    kernel raises: the op then fails when it runs, which the caller emits instead."""
    kernel = node.op.bound_kernel(node.attrs, [(a.dtype, a.shape) for a in arrays])
    try:
        with np.errstate(all="ignore"):
            result = kernel(*arrays)
    except Exception:  # noqa: BLE001 - any kernel error: the op raises when it runs
        return None
    results = result if len(node.outputs) != 1 else (result,)
    return [np.asarray(r, dtype=out.dtype) for r, out in zip(results, node.outputs)]
