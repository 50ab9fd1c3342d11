"""Compiling kernel sources: once per process, and once per machine on disk.

A kernel is built by the machine's C compiler when it can take it (``c_source``, ``c_build``;
``rt.config.set_jit_compiler``), else by Numba.

Each distinct kernel (same source, same argument types) is compiled once per process however
many regions use it (the layers of a model). Numba's own cache keeps the machine code across
processes; it needs the source in a real file, so each kernel is written once to
``<cache>/<sha256 of source>.py`` in a private directory: created with mode 0700, refused if
another user owns it or can write to it, files created exclusively and renamed into place.
Nothing here runs at import: Numba is imported on the first compile.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import subprocess
import sys
import tempfile
import threading
import types
import warnings
from typing import Callable

import numpy as np

from runtime import config
from runtime.private_directory import private_directory
from runtime.backends.jit import c_prelude, c_source
from runtime.backends.jit.c_build import load_built, load_module, module_name, toolchain
from runtime.backends.jit.c_source import Untranslatable, kernel_function, module_source
from runtime.backends.jit.codegen import KernelSource
from runtime.backends.jit.element_rules import numba_type
from runtime.errors import CompileWarning

_lock = threading.Lock()
_compiled: dict[tuple, "CompiledKernel"] = {}
_c_failure: Exception | None = None  # the C build that failed in this process, if one did
_caches_with_modules: set[str] = set()  # kernel cache directories seen to hold a module


class CompiledKernel:
    """A region's kernel: ``run(*operands)`` calls the machine code and gives back the results
    with exactly the graph's dtypes (both compilers return Python numbers for scalars).
    ``compiler``: "c" or "numba"."""

    def __init__(self, source: KernelSource, dispatcher, digest: str, compiler: str):
        self.source = source
        self.digest = digest
        self.compiler = compiler
        self.run = _entry(source, dispatcher)

    def __repr__(self) -> str:
        return f"kernel_{self.digest[:8]}"


class NotTaken(Exception):
    """No compiler allowed here takes the kernel: its region stays on the NumPy plan (a
    choice, not a failure, so no warning)."""


def compile_kernels(sources: list[KernelSource], numba: bool = True,
                    exact: bool = False, build: bool = True, quick: bool = False) -> list:
    """The compiled form of each source, or the exception that kept it from compiling (the
    caller decides what to do with it): those the C compiler takes are built together, in
    one module (see ``rt.config.set_jit_compiler``), the others by Numba, unless ``numba`` is
    False (then ``NotTaken``), or ``exact`` and the kernel calls NumPy's loops, which only C
    kernels run. Kernels this process already has are not compiled again; with ``build``
    False, C modules must be on disk already (else ``NotBuilt``); ``quick``: C builds at the
    optimization of builds a running program waits for (``c_build.OPTIMIZATION``)."""
    with _lock:
        outcomes: list = [None] * len(sources)
        if config.jit_compiler() != "numba":
            _c_compile_all(sources, outcomes, build, quick)
        for index, source in enumerate(sources):
            if outcomes[index] is None:
                try:
                    outcomes[index] = _numba_kernel(source, numba, exact)
                except Exception as error:  # noqa: BLE001 - handed to the caller
                    outcomes[index] = error
        return outcomes


def cache_has_modules() -> bool:
    """Whether the kernel cache holds any C module with its index, or a module's build lock
    (a build under way in another process, or done: see ``c_build``); an empty or new cache
    cannot hold a function's kernels, so nothing need look for them. Asked at every trace, so
    a directory seen to hold one is remembered (modules are not removed)."""
    directory = config.jit_cache_directory()
    if directory not in _caches_with_modules:
        try:
            with os.scandir(directory) as entries:
                if not any(entry.name.startswith("eager2graph_batch_")
                           or entry.name.endswith(".lock") for entry in entries):
                    return False
        except OSError:
            return False
        _caches_with_modules.add(directory)
    return True


def c_failure() -> Exception | None:
    """The C build that failed in this process, if one did (later kernels go to Numba)."""
    return _c_failure


def _c_key(source: KernelSource, quick: bool) -> tuple:
    # C code has every shape written in; Numba's reads operands' shapes when it runs.
    return ("c", source.text, tuple(source.arg_types), tuple(source.arg_shapes), quick)


def _c_compile_all(sources: list[KernelSource], outcomes: list, build: bool,
                   quick: bool) -> None:
    """Fills ``outcomes`` with the kernels C builds (one module for all new ones); leaves
    None where Numba is to try."""
    global _c_failure
    chain = toolchain(quick)
    if _c_failure is not None and config.jit_compiler() != "c":
        return  # a build failed in this process: the next would fail too, at a cost
    if chain is None:
        if config.jit_compiler() == "c":
            outcomes[:] = [NotTaken("rt.config.set_jit_compiler('c') needs a C compiler (cc, "
                                    "gcc or clang, or $CC) and Python's headers, and this "
                                    "machine lacks one")] * len(sources)
        return
    new: dict[tuple, list[int]] = {}  # key -> positions of sources with that kernel
    for index, source in enumerate(sources):
        key = _c_key(source, quick)
        if key in _compiled:
            outcomes[index] = _compiled[key]
        else:
            new.setdefault(key, []).append(index)
    if new:
        try:
            module, held = _c_module({key: sources[places[0]] for key, places in new.items()},
                                     build, chain)
        except (RuntimeError, OSError, ImportError, subprocess.SubprocessError) as error:
            if config.jit_compiler() == "c" or isinstance(error, PermissionError):
                for positions in new.values():
                    for index in positions:
                        outcomes[index] = error
                return
            _c_failure = error
            warnings.warn(f"the C compiler failed to build kernels ({type(error).__name__}: "
                          f"{str(error).splitlines()[0][:300]}); in this process Numba builds "
                          f"them instead, with the same results. Please report this.",
                          CompileWarning, stacklevel=4)
            return  # Numba compiles them
        new = {key: new[key] for key in held}
        functions = [f"kernel{number}" for number in range(len(held))]
        for (key, positions), name in zip(new.items(), functions):
            source = sources[positions[0]]
            kernel = CompiledKernel(source, getattr(module, name),
                                    hashlib.sha256(repr(key).encode()).hexdigest(), "c")
            _compiled[key] = kernel
            for index in positions:
                outcomes[index] = kernel
    if config.jit_compiler() == "c":
        for index, outcome in enumerate(outcomes):
            if outcome is None:
                outcomes[index] = NotTaken("the C compiler does not take this kernel, and "
                                           "rt.config.set_jit_compiler('c') leaves out Numba")


def _c_module(kernels: dict[tuple, KernelSource], build: bool, chain) -> tuple:
    """The module of the kernels C takes of ``kernels`` (key -> source), and their keys in
    the order of its functions ``kernel0``, ``kernel1``, ... A batch built before is found by
    its index file, without translating it again (half of the work this process does for a
    warm cache); ``build`` False raises ``NotBuilt`` rather than run the compiler."""
    directory = _private_directory(config.jit_cache_directory())
    keys = list(kernels)
    index = os.path.join(directory, f"eager2graph_batch_{_batch_digest(keys, chain)}.txt")
    found = _read_index(index, keys)
    if found is not None:
        name, held = found
        module = load_built(name, directory)
        if module is not None:
            return module, held
    functions: dict[str, str] = {}
    held = []
    for key, source in kernels.items():
        try:
            functions[f"kernel{len(held)}"] = kernel_function(source, f"kernel{len(held)}")
        except Untranslatable:
            continue
        held.append(key)
    if not held:
        return None, held
    text = module_source(functions, "MODULE_NAME")
    name = module_name(text, chain)
    module = load_module(text.replace("MODULE_NAME", name), name, directory, chain, build)
    _write_index(index, name, [keys.index(key) for key in held])
    return module, held


def _batch_digest(keys: list, chain) -> str:
    text = repr((keys, chain.fingerprint, _translator_fingerprint()))
    return hashlib.sha256(text.encode()).hexdigest()[:40]


@functools.cache
def _translator_fingerprint() -> str:
    """The C writer's own code: an index made by another version names another module."""
    digest = hashlib.sha256()
    for module in (c_source, c_prelude):
        with open(module.__file__, "rb") as file:
            digest.update(file.read())
    return digest.hexdigest()


def _read_index(path: str, keys: list):
    """(module name, keys of its functions in order) from a batch's index file, or None
    when there is none or it is not one (only names and numbers are read from it)."""
    try:
        with open(path, encoding="ascii") as file:
            name, positions = file.read(4096).split("\n")[:2]
        held = [keys[int(p)] for p in positions.split()]
    except (OSError, ValueError, IndexError, UnicodeDecodeError):
        return None
    if not re.fullmatch(r"eager2graph_c_[0-9a-f]{40}", name) or not held:
        return None
    return name, held


def _write_index(path: str, name: str, positions: list[int]) -> None:
    handle, temporary = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
    with os.fdopen(handle, "w", encoding="ascii") as file:
        file.write(name + "\n" + " ".join(map(str, positions)) + "\n")
    os.replace(temporary, path)


def _numba_kernel(source: KernelSource, numba: bool, exact: bool) -> CompiledKernel:
    if not numba:
        raise NotTaken("the C compiler does not take this kernel, and the background tier "
                       "does not use Numba, whose compile would hold the interpreter")
    if exact and source.numpy_loops:
        raise NotTaken("the C compiler does not take this kernel, and Numba's exp, log, sin "
                       "and the like may round differently from NumPy's")
    key = (source.text, tuple(source.arg_types))
    kernel = _compiled.get(key)
    if kernel is None:
        digest = hashlib.sha256(repr(key).encode()).hexdigest()
        kernel = CompiledKernel(source, _numba_compile(source, digest), digest, "numba")
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
    return private_directory(path, "kernel cache", "rt.config.set_jit_cache_directory")
