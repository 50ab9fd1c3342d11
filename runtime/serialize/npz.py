"""The arrays of a saved graph, read from their ``.npz`` bytes without trusting them.

``np.load`` would allocate whatever shape a ``.npy`` header declares before reading a byte of
data (a header claiming ``(10**12,)`` float64s asks for 7 TiB), and returns members that are
not arrays as raw bytes. Here each member's header is parsed first, its dtype must hold
numbers, booleans or fixed-size strings (so nothing is ever unpickled), its size must fit in
what remains of the caller's byte budget, and exactly that many bytes are read: never more.
"""

from __future__ import annotations

import io
import math
import zipfile

import numpy as np
from numpy.lib import format as npy

from runtime.errors import SavedGraphError
from runtime.serialize.limits import SizeLimits, read_at_most, too_large

# Numbers, booleans and fixed-size strings: never objects, records or raw bytes.
ARRAY_KINDS = "biufcSU"
_HEADER_BYTES = 10_000  # what NumPy itself accepts by default for a header


def read_arrays(path: str, data: bytes, limits: SizeLimits) -> dict[str, np.ndarray]:
    """The read-only arrays of the ``.npz`` bytes ``data``, together at most
    ``limits.max_array_bytes``."""
    budget = limits.max_array_bytes
    arrays: dict[str, np.ndarray] = {}
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        for info in archive.infolist():
            name = info.filename.removesuffix(".npy")
            if name == info.filename or name in arrays:
                raise SavedGraphError(f"{path} holds the array member {info.filename!r}, which "
                                      f"is repeated or not a .npy array; the file is damaged.")
            with archive.open(info) as stream:
                arrays[name] = _read_array(path, name, stream, budget, limits)
            budget -= arrays[name].nbytes
    return arrays


def _read_array(path: str, name: str, stream, budget: int, limits: SizeLimits) -> np.ndarray:
    shape, fortran_order, dtype = _header(path, name, stream)
    if dtype.kind not in ARRAY_KINDS:
        raise SavedGraphError(f"{path} holds the array {name!r} of dtype {dtype}; saved arrays "
                              f"must hold numbers, never pickled objects (booleans and "
                              f"fixed-size strings are accepted too).")
    if any(type(dim) is not int or dim < 0 for dim in shape):
        raise SavedGraphError(f"{path} declares the array {name!r} with the shape {shape!r}, "
                              f"which is not a shape; the file is damaged.")
    size = math.prod(shape) * dtype.itemsize
    if size > budget:
        total = size + limits.max_array_bytes - budget
        raise too_large(path, f"declares the array {name!r} of shape {shape} and dtype {dtype}, "
                              f"which with the arrays before it takes {total} bytes",
                        limits.max_array_bytes, "max_array_bytes")
    data = read_at_most(stream, size + 1)
    if len(data) != size:
        raise SavedGraphError(f"{path} holds the array {name!r} whose data does not match the "
                              f"shape {shape} of its header; the file is damaged.")
    array = np.frombuffer(data, dtype)  # read-only: the bytes object cannot change
    return array.reshape(shape[::-1]).T if fortran_order else array.reshape(shape)


def _header(path: str, name: str, stream) -> tuple[tuple, bool, np.dtype]:
    """The header's shape, order and dtype; raises SavedGraphError if it is not a header."""
    try:
        version = npy.read_magic(stream)
        if version == (1, 0):
            return npy.read_array_header_1_0(stream, max_header_size=_HEADER_BYTES)
        if version == (2, 0):
            return npy.read_array_header_2_0(stream, max_header_size=_HEADER_BYTES)
        raise ValueError(f"the .npy format version {version} is not one NumPy writes for arrays "
                         f"of numbers")
    except (ValueError, TypeError, SyntaxError, EOFError) as error:
        raise SavedGraphError(f"{path} holds the member {name!r}, which is not a NumPy array "
                              f"({error}); saved arrays must hold numbers, never pickled "
                              f"objects.") from None
