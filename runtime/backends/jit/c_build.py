"""Building a kernel's C module with the machine's C compiler, and loading it.

The compiler runs as a child process, so the interpreter's lock stays free while it works
(Numba compiles in this process and holds the lock much of the time): calls go on at full
speed meanwhile, on another core. A module is built once per machine: it is kept as
``<cache>/eager2graph_c_<sha256>.so`` in the kernel cache's private directory, keyed by its C
text and by what it was built against (Python's version, NumPy's, the compiler and its flags,
the processor), written to a temporary name and renamed into place. Floating-point flags keep
NumPy's bits: no fused multiply-adds, no reassociation, wrapping signed integers.

The compiler runs in ``compiler_process``, which also keeps two processes from building the
same module at once (a build lock) and can run it in a process of its own that the program
does not wait for (``NotBuilt.request``: see ``runtime.tiering``).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.machinery
import importlib.util
import os
import platform
import shutil
import sys
import sysconfig
from dataclasses import dataclass
from types import ModuleType

import numpy as np

from runtime import config
from runtime.backends.jit import compiler_process
from runtime.backends.jit.c_prelude import LOOP_SLOTS
from runtime.backends.jit.numpy_blas import numpy_gemm

FLAGS = ("-march=native", "-std=gnu11", "-fPIC", "-shared", "-fno-fast-math",
         "-ffp-contract=off", "-fwrapv", "-fno-strict-aliasing", "-fno-math-errno", "-w")
# -O2, not -O3: GCC 12 at -O3 (the vectorizer's dynamic cost model) with AVX2 vectorized a
# select over rows of six doubles wrongly. The vectorizer's cheap cost model, not -O2's very
# cheap one: it vectorizes loops whose trip count is not a multiple of the vector's width
# (short rows: W1's 10x10 integer products 44 -> 19 us, W7 and W8 13% faster) for 2-5% more
# compile time. ``quick``: -O1 with the vectorizer, for builds a running program waits for
# (the default tier's): a third less compile time (W7's module 0.33 s of CPU against 0.49 s),
# the same speed where kernels spend their time in NumPy's loops and BLAS, 15-25% slower on
# W1's integer products; and the kernels that only call their loop nests unoptimized
# (c_prelude's PLUMBING): W7's module 0.44-0.55 -> 0.27-0.28 s of CPU, W8's 0.58-0.62 ->
# 0.33-0.36 s, for 3% of W7's call and 5% of W8's. A quick build at -O2 (the plumbing still
# unoptimized) was measured too: W1's call 21% faster, W4-W8 within 2%, for 6-18% more compile
# time; what a quick build is for (kernels that arrive early) decides for -O1.
_VECTORIZE = ("-ftree-vectorize", "-fvect-cost-model=cheap")
OPTIMIZATION = {False: ("-O2", *_VECTORIZE),
                True: ("-O1", *_VECTORIZE, "-DEAGER2GRAPH_QUICK_BUILD")}


@dataclass(frozen=True)
class Toolchain:
    """A C compiler, the headers a kernel module includes, and how much it optimizes."""

    compiler: str
    includes: tuple
    quick: bool = False

    @property
    def flags(self) -> tuple:
        return (*OPTIMIZATION[self.quick], *FLAGS)

    @property
    def fingerprint(self) -> str:
        return "|".join([self.compiler, *self.flags, sys.version, np.__version__, sys.platform,
                         sysconfig.get_config_var("EXT_SUFFIX") or "", _processor()])


@functools.cache
def toolchain(quick: bool = False) -> Toolchain | None:
    """The C compiler (``$CC``, else ``cc``, ``gcc`` or ``clang``) with Python's and NumPy's
    headers, or None where one is missing (then kernels are compiled by Numba); ``quick``:
    at the optimization of builds a running program waits for."""
    if sys.platform == "win32":
        return None  # MSVC's command line differs; Numba compiles there
    candidates = [os.environ.get("CC", "").split(" ")[0], "cc", "gcc", "clang"]
    compiler = next((found for name in candidates if name and (found := shutil.which(name))), None)
    python_include = sysconfig.get_paths().get("include", "")
    if compiler is None or not os.path.isfile(os.path.join(python_include, "Python.h")):
        return None
    return Toolchain(compiler, (python_include, np.get_include()), quick)


def builds_with_c() -> bool:
    """Whether kernels go to the C compiler first (the setting allows it and the machine has
    one, with Python's headers)."""
    return config.jit_compiler() != "numba" and toolchain() is not None


@functools.cache
def _processor() -> str:
    """What ``-march=native`` builds for: a cache shared by machines with other processors
    (a home directory on a network) must not hand them instructions they lack."""
    found = {}
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as info:
            for line in info:
                key = line.split(":", 1)[0].strip()
                if key in ("model name", "flags", "Features"):
                    found.setdefault(key, line.strip())
    except OSError:
        pass
    return " ".join(found.values()) or platform.machine() + " " + platform.processor()


def module_name(c_text: str, chain: Toolchain) -> str:
    digest = hashlib.sha256((chain.fingerprint + "\n" + c_text).encode()).hexdigest()
    return f"eager2graph_c_{digest[:40]}"


class NotBuilt(Exception):
    """The module is not on disk, and the caller asked not to build it (the program itself
    loads what a child process built: see ``runtime.tiering``). ``elsewhere``: another
    process is building it now; ``request``: what ``compiler_process.start`` takes to build
    it, (C text, module path, compiler command)."""

    def __init__(self, message: str, elsewhere: bool, request: tuple):
        super().__init__(message)
        self.elsewhere, self.request = elsewhere, request


def load_module(c_text: str, name: str, directory: str, chain: Toolchain,
                build: bool = True) -> ModuleType:
    """The module ``name`` (whose C text is ``c_text``): from ``directory`` when built
    before, else built now (after waiting for another process building it; unless ``build``
    is False: ``NotBuilt``). Raises ``RuntimeError`` with the compiler's message if the build
    fails."""
    module = load_built(name, directory)
    if module is not None:
        return module
    path = os.path.join(directory, f"{name}.so")
    if not build:
        raise NotBuilt(f"the kernel module {name} is not built",
                       compiler_process.building_elsewhere(path),
                       (c_text, path, compile_command(chain)))
    with compiler_process.build_lock(path):
        module = load_built(name, directory)  # built by the process this one waited for
        if module is None:
            _build(c_text, path, chain)
            module = _load(name, path)
            _prepare(module)
    return module


def load_built(name: str, directory: str) -> ModuleType | None:
    """The module ``name`` from ``directory``, or None when it is not there or damaged (a
    disk that filled up, say: it is removed, to be built again)."""
    path = os.path.join(directory, f"{name}.so")
    if not os.path.isfile(path):
        return None
    try:
        module = _load(name, path)
    except ImportError:
        os.remove(path)
        return None
    _prepare(module)
    return module


def _prepare(module: ModuleType) -> None:
    """Hands a loaded module NumPy's gemm and loops."""
    gemm = numpy_gemm()
    if gemm is not None:
        module.set_gemm(gemm.addresses["s"], gemm.addresses["d"])
    _set_loops(module)


def _set_loops(module: ModuleType) -> None:
    """Hands the module NumPy's loops (see ``c_prelude.LOOP_SLOTS``) and checks that each
    gives what the ufunc gives, bit for bit, on values across its range: a NumPy that chose
    another loop than its table lists would otherwise change results unseen."""
    ufuncs = [getattr(np, name) for name, _ in LOOP_SLOTS]
    if not all(isinstance(ufunc, np.ufunc) for ufunc in ufuncs):
        raise RuntimeError("NumPy lacks one of the ufuncs kernels call")
    module.set_loops(tuple((ufunc, np.dtype(dtype).num)
                           for ufunc, (_, dtype) in zip(ufuncs, LOOP_SLOTS)))
    for slot, (ufunc, (name, dtype)) in enumerate(zip(ufuncs, LOOP_SLOTS)):
        probe = _probe(dtype)
        with np.errstate(all="ignore"):
            expected = ufunc(probe)
        if module.run_loop(slot, probe).tobytes() != expected.tobytes():
            raise RuntimeError(f"the loop NumPy's table lists for {name} of {dtype} gives "
                               f"other results than np.{name}")


@functools.cache
def _probe(dtype: str) -> np.ndarray:
    """Values across a float function's range, its edges and special values included."""
    magnitudes = np.logspace(-40, 40, 161)
    values = np.concatenate([np.linspace(-20, 20, 401), magnitudes, -magnitudes,
                             np.random.default_rng(0).standard_normal(256) * 100,
                             [0.0, -0.0, np.inf, -np.inf, np.nan, 88.72, 709.78, 1e30, -1e30]])
    with np.errstate(over="ignore"):
        return values.astype(dtype)


def _load(name: str, path: str) -> ModuleType:
    loader = importlib.machinery.ExtensionFileLoader(name, path)
    spec = importlib.util.spec_from_file_location(name, path, loader=loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def _build(c_text: str, path: str, chain: Toolchain) -> None:
    compiler_process.compile_module(c_text, path, compile_command(chain))


def compile_command(chain: Toolchain) -> list[str]:
    """The compiler with its flags and include directories (the source and ``-o`` target
    come after)."""
    command = [chain.compiler, *chain.flags, *(f"-I{include}" for include in chain.includes)]
    if sys.platform == "darwin":
        command[1:1] = ["-undefined", "dynamic_lookup"]
    return command
