"""Compiling kernel sources with Numba: once per process, and once per machine on disk.

Each distinct kernel (same source, same argument types) is compiled once per process however
many regions use it (the layers of a model). Numba's own cache keeps the machine code across
processes; it needs the source in a real file, so each kernel is written once to
``<cache>/<sha256 of source>.py`` in a private directory: created with mode 0700, refused if
another user owns it or can write to it, files created exclusively and renamed into place.
Nothing here runs at import: Numba is imported on the first compile.
"""

from __future__ import annotations

import hashlib
import os
import stat
import sys
import tempfile
import threading
import types
from typing import Callable

import numpy as np

from runtime import config
from runtime.backends.jit.codegen import KernelSource
from runtime.backends.jit.element_rules import numba_type

_lock = threading.Lock()
_compiled: dict[tuple, "CompiledKernel"] = {}


class CompiledKernel:
    """A region's kernel: ``run(*operands)`` calls the machine code and gives back the results
    with exactly the graph's dtypes (Numba returns Python numbers for scalars)."""

    def __init__(self, source: KernelSource, dispatcher, digest: str):
        self.source = source
        self.digest = digest
        self.run = _entry(source, dispatcher)

    def __repr__(self) -> str:
        return f"kernel_{self.digest[:8]}"


def compile_kernel(source: KernelSource) -> CompiledKernel:
    """The compiled form of ``source``, compiled now unless this process already has it."""
    key = (source.text, tuple(source.arg_types))
    with _lock:
        kernel = _compiled.get(key)
        if kernel is None:
            digest = hashlib.sha256(repr(key).encode()).hexdigest()
            kernel = CompiledKernel(source, _numba_compile(source, digest), digest)
            _compiled[key] = kernel
        return kernel


def _numba_compile(source: KernelSource, digest: str):
    import numba

    from runtime.backends.jit.helpers import HELPERS

    path = _source_file(source.text, digest)
    # A registered module: Numba's disk cache finds a kernel's globals by its module name.
    module = types.ModuleType(f"eager2graph_kernel_{digest[:32]}")
    module.__file__ = path
    module.__dict__.update(HELPERS)
    sys.modules[module.__name__] = module
    exec(compile(source.text, path, "exec"), module.__dict__)
    namespace = module.__dict__
    for name in source.inner_functions:
        namespace[name] = numba.njit(cache=True, error_model="numpy")(namespace[name])
    # Arguments are read, never written: read-only constants and writable arrays both match.
    signature = tuple(
        numba.types.Array(numba.from_dtype(dtype), ndim, "C", readonly=True) if ndim
        else numba.from_dtype(dtype) for dtype, ndim in source.arg_types)
    return numba.njit([signature], cache=True, error_model="numpy", nogil=True)(namespace["kernel"])


def _entry(source: KernelSource, dispatcher) -> Callable:
    """A Python function that converts the operands for the dispatcher and its results back."""
    namespace: dict = {"dispatcher": dispatcher, "contiguous": np.ascontiguousarray, "np": np}
    params = [f"a{i}" for i in range(len(source.arg_types))]
    operands = [f"{numba_type(dtype)}({p})" if ndim == 0 else f"contiguous({p})"
                for p, (dtype, ndim) in zip(params, source.arg_types)]
    results = [f"{numba_type(dtype)}(r[{i}])" if shape == () else f"r[{i}]"
               for i, (dtype, shape) in enumerate(source.result_types)]
    returned = results[0] if len(results) == 1 else "(" + "".join(r + ", " for r in results) + ")"
    text = (f"def run({', '.join(params)}):\n"
            f"    r = dispatcher({', '.join(operands)})\n"
            f"    return {returned}\n")
    exec(compile(text, "<eager2graph kernel entry>", "exec"), namespace)
    return namespace["run"]


def _source_file(text: str, digest: str) -> str:
    directory = _private_directory(config.jit_cache_directory())
    path = os.path.join(directory, f"k_{digest[:32]}.py")
    if os.path.isfile(path):
        with open(path, encoding="utf-8") as existing:
            if existing.read() == text:
                return path  # unchanged: its modification time keeps Numba's cache valid
    handle, temporary = tempfile.mkstemp(dir=directory, suffix=".tmp")
    with os.fdopen(handle, "w", encoding="utf-8") as file:
        file.write(text)
    os.replace(temporary, path)
    return path


def _private_directory(path: str) -> str:
    os.makedirs(path, mode=0o700, exist_ok=True)
    info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        raise PermissionError(f"the kernel cache {path} is not a plain directory; remove it or "
                              f"point rt.config.set_jit_cache_directory elsewhere.")
    if hasattr(os, "getuid") and (info.st_uid != os.getuid() or info.st_mode & 0o022):
        raise PermissionError(f"the kernel cache {path} belongs to another user or others can "
                              f"write to it; remove it or point rt.config.set_jit_cache_directory "
                              f"elsewhere.")
    return path
