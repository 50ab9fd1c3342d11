"""Scalar functions the generated kernels call where Python's semantics (which Numba follows)
and NumPy's differ. Imported only when something is compiled: it imports Numba."""

from __future__ import annotations

import llvmlite.binding as llvm
import numba
import numpy as np

from runtime.backends.jit.numpy_blas import numpy_gemm
from runtime.ops.linalg_ops import COLUMN_BLOCKS, ONE_CALL, blas_blocks, block_stop

_jit = numba.njit(cache=True, error_model="numpy", inline="always")


# Numba marks signed 64-bit + - * as never overflowing (LLVM's nsw), and LLVM then folds code
# after an overflow as if it had not happened ((a + 1) > a is always true). NumPy wraps around.
# Through uint64 the same bits come out, with no such promise: these wrap, as NumPy's int64 do.


@_jit
def wrapping_add(a, b):
    return np.int64(np.uint64(a) + np.uint64(b))


@_jit
def wrapping_sub(a, b):
    return np.int64(np.uint64(a) - np.uint64(b))


@_jit
def wrapping_mul(a, b):
    return np.int64(np.uint64(a) * np.uint64(b))


@_jit
def wrapping_neg(a):
    return np.int64(np.uint64(0) - np.uint64(a))


@_jit
def wrapping_abs(a):
    """NumPy's abs: ``abs(MIN) == MIN``."""
    return wrapping_neg(a) if a < 0 else np.int64(a)


# A zero divisor raises, as the plan does (runtime.numpy_warnings): Python's error, which the
# plan running the kernel reports with the op (runtime.executor).
@_jit
def int_floordiv(a, b):
    """NumPy's signed integer ``//``: ``MIN // -1`` wraps to MIN."""
    if b == 0:
        raise ZeroDivisionError("integer division by zero")
    if b == -1:
        return wrapping_neg(a)
    return np.int64(a // b)


@_jit
def uint_floordiv(a, b):
    """NumPy's unsigned ``//``."""
    if b == 0:
        raise ZeroDivisionError("integer division by zero")
    return a // b


@_jit
def int_mod(a, b):
    """NumPy's integer ``%`` (0 for ``MIN % -1``)."""
    if b == 0:
        raise ZeroDivisionError("integer division by zero")
    if b < 0 and b == -1:
        return a - a
    return a % b


@_jit
def float_maximum(a, b):
    """NumPy's maximum: NaN wins (Python's ``max`` would drop it), and of two equal values
    the second (``maximum(0.0, -0.0)`` is -0.0)."""
    if a > b or a != a:
        return a
    return b


@_jit
def float_minimum(a, b):
    """NumPy's minimum: NaN wins, and of two equal values the second."""
    if a < b or a != a:
        return a
    return b


@_jit
def float_power(a, b):
    """NumPy's power with a scalar exponent, which takes sqrt for 0.5 (so -inf ** 0.5 is NaN
    and -0.0 ** 0.5 is -0.0, where C's pow gives inf and 0.0)."""
    if b == 0.5:
        return np.sqrt(a)
    return a ** b


@_jit
def truncated_mean(total, count):
    """The runtime's integer mean: the int64 total divided toward zero (as TensorFlow)."""
    quotient = wrapping_abs(total) // count
    return wrapping_neg(quotient) if total < 0 else quotient


@_jit
def _pairwise_block(values, start, count):
    """NumPy's sum of at most 128 terms: below 8 one after another, else 8 interleaved
    partial sums combined in pairs, then the remainder."""
    if count < 8:
        total = values.dtype.type(-0.0)
        for i in range(start, start + count):
            total += values[i]
        return total
    r0, r1, r2, r3 = values[start], values[start + 1], values[start + 2], values[start + 3]
    r4, r5, r6, r7 = values[start + 4], values[start + 5], values[start + 6], values[start + 7]
    end, i = start + count - count % 8, start + 8
    while i < end:
        r0 += values[i]
        r1 += values[i + 1]
        r2 += values[i + 2]
        r3 += values[i + 3]
        r4 += values[i + 4]
        r5 += values[i + 5]
        r6 += values[i + 6]
        r7 += values[i + 7]
        i += 8
    total = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < start + count:
        total += values[i]
        i += 1
    return total


@numba.njit(cache=True, error_model="numpy")
def pairwise_sum(values, start, count):
    """NumPy's float sum of ``values[start:start + count]``, in NumPy's order (so with the
    plan's bits): blocks of up to 128 terms (``_pairwise_block``), and beyond that the two
    halves, split at a multiple of 8, summed separately and added. The halving is walked with
    an explicit stack (recursion does not survive Numba's disk cache)."""
    if count <= 128:
        return _pairwise_block(values, start, count)
    starts, counts = np.empty(64, np.int64), np.empty(64, np.int64)
    left_done, left_sums = np.zeros(64, np.bool_), np.empty(64, values.dtype)
    depth, starts[0], counts[0], left_done[0] = 0, start, count, False
    while True:
        if counts[depth] > 128:  # descend into the left half
            half = counts[depth] // 2
            half -= half % 8
            starts[depth + 1], counts[depth + 1] = starts[depth], half
            left_done[depth + 1] = False
            depth += 1
            continue
        value = _pairwise_block(values, starts[depth], counts[depth])
        while True:  # hand the value up until a parent still needs its right half
            if depth == 0:
                return value
            depth -= 1
            if left_done[depth]:
                value = left_sums[depth] + value
                continue
            half = counts[depth] // 2
            half -= half % 8
            left_sums[depth], left_done[depth] = value, True
            starts[depth + 1], counts[depth + 1] = starts[depth] + half, counts[depth] - half
            left_done[depth + 1] = False
            depth += 1
            break


# -- float matmuls through NumPy's own BLAS (see numpy_blas) ----------------------------------

_GEMM = numpy_gemm()
_INDEX = np.int64 if _GEMM is None or _GEMM.index_bits == 64 else np.int32
_ROW_MAJOR, _NO_TRANSPOSE, _TRANSPOSE = 101, 111, 112  # CBLAS' enumerations


def _cblas_gemm(kind: str, scalar):
    """``cblas_?gemm`` as a function kernels call by name (Numba's disk cache keeps names,
    not addresses, which change from process to process)."""
    name = f"eager2graph_cblas_{kind}gemm_{_GEMM.abi}"
    llvm.add_symbol(name, _GEMM.addresses[kind])
    index, pointer = numba.from_dtype(np.dtype(_INDEX)), numba.types.intp
    return numba.types.ExternalFunction(name, numba.types.void(
        numba.types.intc, numba.types.intc, numba.types.intc, index, index, index, scalar,
        pointer, index, pointer, index, scalar, pointer, index))


@_jit
def _blas_operand(x):
    """(an array BLAS reads as it is, its transpose flag, its leading dimension): C and F
    arrays as they are (a transposed view is F), others copied."""
    if x.flags.c_contiguous:
        return np.ascontiguousarray(x), _NO_TRANSPOSE, x.shape[1]
    if x.flags.f_contiguous:
        return np.ascontiguousarray(x.T), _TRANSPOSE, x.shape[0]
    copy = np.ascontiguousarray(x)
    return copy, _NO_TRANSPOSE, x.shape[1]


_blas_blocks, _block_stop = _jit(blas_blocks), _jit(block_stop)


def _numpy_gemm_helper(gemm, dtype):
    """``a @ b`` for 2-D float arrays by ``gemm``, in the blocks the plan's matmul uses."""
    one, zero, size = dtype.type(1), dtype.type(0), dtype.itemsize

    def numpy_gemm_matmul(a, b):
        m, k, n = a.shape[0], a.shape[1], b.shape[1]
        if m == 0 or n == 0 or k == 0:
            return np.zeros((m, n), dtype)
        out = np.empty((m, n), dtype)
        x, transpose_x, ldx = _blas_operand(a)
        y, transpose_y, ldy = _blas_operand(b)
        # elements from one row of a to the next, and from one column of b to the next
        row_step = ldx if transpose_x == _NO_TRANSPOSE else 1
        column_step = 1 if transpose_y == _NO_TRANSPOSE else ldy
        split, block = _blas_blocks(m, k, n)
        by_rows = split != COLUMN_BLOCKS
        total = m if by_rows else n
        if split == ONE_CALL:
            block = m
        start = 0
        while start < total:
            stop = _block_stop(start, block, total)
            if by_rows:
                rows, columns, a_at, b_at, out_at = stop - start, n, start * row_step, 0, start * n
            else:
                rows, columns, a_at, b_at, out_at = m, stop - start, 0, start * column_step, start
            gemm(_ROW_MAJOR, transpose_x, transpose_y, _INDEX(rows), _INDEX(columns), _INDEX(k),
                 one, x.ctypes.data + a_at * size, _INDEX(ldx), y.ctypes.data + b_at * size,
                 _INDEX(ldy), zero, out.ctypes.data + out_at * size, _INDEX(n))
            start = stop
        return out
    # Called, not inlined: a kernel of 16 Dense layers compiles in 8-12 s instead of 18-21.
    return numba.njit(cache=True, error_model="numpy")(numpy_gemm_matmul)


# Named by ABI: the kernel writer writes these names only when ``numpy_gemm()`` found one.
BLAS_HELPERS = {} if _GEMM is None else {
    f"numpy_sgemm_{_GEMM.abi}": _numpy_gemm_helper(_cblas_gemm("s", numba.types.float32),
                                                   np.dtype(np.float32)),
    f"numpy_dgemm_{_GEMM.abi}": _numpy_gemm_helper(_cblas_gemm("d", numba.types.float64),
                                                   np.dtype(np.float64)),
}


HELPERS = {"np": np, **BLAS_HELPERS, "int_floordiv": int_floordiv, "uint_floordiv": uint_floordiv,
           "int_mod": int_mod,
           "float_maximum": float_maximum, "float_minimum": float_minimum,
           "float_power": float_power, "truncated_mean": truncated_mean,
           "wrapping_add": wrapping_add, "wrapping_sub": wrapping_sub,
           "wrapping_mul": wrapping_mul, "wrapping_neg": wrapping_neg,
           "wrapping_abs": wrapping_abs, "pairwise_sum": pairwise_sum}
