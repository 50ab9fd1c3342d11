"""NumPy's own BLAS, found for the compiled tier's float matmuls.

A kernel that calls the ``gemm`` NumPy's matmul calls gives NumPy's bits, and faster than the
BLAS Numba reaches through SciPy (a 20x784 @ 784x64 float32 matmul: 28 us against 57-85 us
on the same machine). NumPy's wheels bundle OpenBLAS in ``numpy.libs`` (Linux, Windows) or
``numpy/.dylibs`` (macOS), with 64-bit integer arguments (ILP64) and prefixed symbol names.
Where none is found (NumPy built against MKL or a system BLAS), kernels use ``np.dot``.
Nothing here imports Numba: the kernel writer asks which form to write.
"""

from __future__ import annotations

import ctypes
import functools
import glob
import os
from dataclasses import dataclass

import numpy as np

# (symbol pattern, bits of the integer arguments), most specific first.
_SYMBOLS = (("scipy_cblas_{}gemm64_", 64), ("cblas_{}gemm64_", 64),
            ("scipy_cblas_{}gemm", 32), ("cblas_{}gemm", 32))


@dataclass(frozen=True)
class Gemm:
    """The row-major ``cblas_?gemm`` functions of NumPy's BLAS."""

    addresses: dict  # "s" / "d" -> the function's address
    index_bits: int  # the width of its integer arguments

    @property
    def abi(self) -> str:
        """Part of the helpers' names, so that kernels written for one ABI never run with
        another (the name is in the kernel's source, which keys its disk cache)."""
        return "ilp64" if self.index_bits == 64 else "lp64"


@functools.cache
def numpy_gemm() -> Gemm | None:
    """NumPy's bundled BLAS, or None when NumPy has none this module recognizes."""
    for path in _bundled_libraries():
        try:
            library = ctypes.CDLL(path)
        except OSError:
            continue
        for pattern, bits in _SYMBOLS:
            functions = {kind: getattr(library, pattern.format(kind), None) for kind in "sd"}
            if all(f is not None for f in functions.values()):
                return Gemm({kind: ctypes.cast(f, ctypes.c_void_p).value
                             for kind, f in functions.items()}, bits)
    return None


def _bundled_libraries() -> list[str]:
    package = os.path.dirname(np.__file__)
    places = [os.path.join(package, os.pardir, "numpy.libs"), os.path.join(package, ".dylibs")]
    return sorted(path for place in places for path in glob.glob(os.path.join(place, "*openblas*")))
