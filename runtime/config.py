"""Global switches (one place, no environment variables read elsewhere), and the devices and
thread settings TensorFlow's ``tf.config`` has."""

from __future__ import annotations

import os
from typing import NamedTuple

_run_functions_eagerly = False


def run_functions_eagerly(run_eagerly: bool) -> None:
    """When True, ``rt.function``s call their Python body every time instead of a graph.

    Use it to debug: Python ``print`` and breakpoints then run on every call.
    """
    global _run_functions_eagerly
    _run_functions_eagerly = bool(run_eagerly)


def functions_run_eagerly() -> bool:
    """Whether traced functions run their Python eagerly (``run_functions_eagerly``)."""
    return _run_functions_eagerly


def _default_cache(name: str) -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "eager2graph", name)


_jit_cache_directory: str | None = None


def set_jit_cache_directory(path: str | None) -> None:
    """Where the compiled tier keeps kernels across processes (None: the default,
    ``$XDG_CACHE_HOME/eager2graph/kernels`` or ``~/.cache/eager2graph/kernels``)."""
    global _jit_cache_directory
    _jit_cache_directory = None if path is None else str(path)


def jit_cache_directory() -> str:
    """Where the compiled tier keeps its compiled kernels between runs."""
    if _jit_cache_directory is not None:
        return _jit_cache_directory
    return _default_cache("kernels")


# EAGER2GRAPH_CODE_CACHE=0 (or off, false, no) in the environment turns the code cache off;
# any other value is its directory.
_code_cache_setting = os.environ.get("EAGER2GRAPH_CODE_CACHE", "").strip()
_code_cache_directory: str | None | bool = \
    False if _code_cache_setting.lower() in ("0", "off", "false", "no") else \
    (_code_cache_setting or None)


def set_code_cache_directory(path: str | None | bool) -> None:
    """Where converted functions and compiled plans are kept between runs, so that a script's
    first calls convert and compile only on its first run (``runtime.code_cache``). None: the
    default, ``$XDG_CACHE_HOME/eager2graph/code`` or ``~/.cache/eager2graph/code``; False: no
    cache (everything is made anew in each process)."""
    global _code_cache_directory
    if path is True:
        raise ValueError("set_code_cache_directory takes a directory, None (the default "
                         "directory) or False (no cache), not True.")
    _code_cache_directory = path if path is None or path is False else str(path)


def code_cache_directory() -> str | None:
    """The code cache's directory, or None when it is off."""
    if _code_cache_directory is False:
        return None
    return _code_cache_directory or _default_cache("code")


AUTO = "auto"
JIT_COMPILERS = ("auto", "c", "numba")
_jit_compiler = AUTO


def set_jit_compiler(name: str) -> None:
    """Which compiler builds the compiled tier's kernels. ``"auto"`` (the default): the
    machine's C compiler when it has one with Python's headers (a kernel builds in a fraction
    of a second, in a child process), else Numba; kernels C cannot take go to Numba. ``"c"``
    or ``"numba"``: only that one (a kernel it cannot take stays on the NumPy plan)."""
    global _jit_compiler
    if name not in JIT_COMPILERS:
        raise ValueError(f"the compiled tier's compiler must be one of {', '.join(JIT_COMPILERS)}; "
                         f"got {name!r}.")
    _jit_compiler = name


def jit_compiler() -> str:
    """The compiler of the compiled tier's kernels: ``"auto"``, ``"c"`` or ``"numba"``."""
    return _jit_compiler


_jit_auto_compile_after: int | str | None = AUTO


def set_jit_auto_compile(after_calls: int | str | None) -> None:
    """When a concrete function of ``jit_compile=None`` (the default) starts compiling the
    compiled tier in the background. ``"auto"`` (the default): once the time it has spent on
    the NumPy plan is twenty times what the switch is expected to cost (importing Numba,
    compiling or loading kernels), so that a short script never pays for a switch it cannot
    earn back. An int: after that many calls. None: never (a service that must not spawn
    threads)."""
    global _jit_auto_compile_after
    if after_calls != AUTO and after_calls is not None and (
            not isinstance(after_calls, int) or isinstance(after_calls, bool) or after_calls < 1):
        raise ValueError(f"after_calls must be a positive int, 'auto' or None, got "
                         f"{after_calls!r}.")
    _jit_auto_compile_after = after_calls


def jit_auto_compile_after() -> int | str | None:
    """When functions move to the compiled tier: ``"auto"``, after a number of calls, or
    None (never automatically)."""
    return _jit_auto_compile_after


# Off with EAGER2GRAPH_TRACEBACK_FILTERING=0 in the environment, or set_traceback_filtering(False).
_traceback_filtering = os.environ.get("EAGER2GRAPH_TRACEBACK_FILTERING", "1").strip().lower() \
    not in ("0", "false", "no", "off")


def set_traceback_filtering(enabled: bool) -> None:
    """When True (the default), an exception leaving a traced or converted function shows only
    the user's frames, generated code mapped back to the user's lines. False shows every frame
    of eager2graph and of the generated code, for debugging eager2graph itself."""
    global _traceback_filtering
    _traceback_filtering = bool(enabled)


def traceback_filtering() -> bool:
    """Whether errors leaving traced functions show only the user's frames."""
    return _traceback_filtering


# -- devices, as TensorFlow's tf.config lists them ----------------------------------------------


class PhysicalDevice(NamedTuple):
    """A device the runtime computes on (TensorFlow's ``tf.config.PhysicalDevice``)."""

    name: str
    device_type: str


class LogicalDevice(NamedTuple):
    """A device as ops are placed on it (TensorFlow's ``tf.config.LogicalDevice``)."""

    name: str
    device_type: str


_CPU = PhysicalDevice("/physical_device:CPU:0", "CPU")


def list_physical_devices(device_type: str | None = None) -> list[PhysicalDevice]:
    """The devices of ``device_type`` (all when None). The runtime computes with NumPy on the
    CPU, so there is one CPU and no GPU or TPU: ``list_physical_devices("GPU")`` is empty."""
    return [_CPU] if device_type in (None, "CPU") else []


def list_logical_devices(device_type: str | None = None) -> list[LogicalDevice]:
    """The logical devices of ``device_type`` (all when None): the CPU."""
    return [LogicalDevice("/device:CPU:0", "CPU")] if device_type in (None, "CPU") else []


def get_visible_devices(device_type: str | None = None) -> list[PhysicalDevice]:
    """The devices the runtime may use: all of them, the CPU."""
    return list_physical_devices(device_type)


def set_visible_devices(devices, device_type: str | None = None) -> None:
    """Accepted when the CPU stays visible (hiding GPUs, the usual call, hides nothing here);
    the CPU is the only device and cannot be hidden."""
    devices = [devices] if isinstance(devices, PhysicalDevice) else list(devices)
    unknown = [device for device in devices if device != _CPU]
    if unknown:
        raise ValueError(f"set_visible_devices: {unknown[0]!r} is not a device of this process; "
                         f"list_physical_devices() gives them (the CPU only).")
    if device_type in (None, "CPU") and not devices:
        raise ValueError("set_visible_devices: eager2graph computes on the CPU, which cannot be "
                         "hidden; pass device_type='GPU' to hide GPUs (there are none).")


def set_memory_growth(device: PhysicalDevice, enable: bool) -> None:
    """Refused as TensorFlow refuses it for a CPU, the only device here: memory growth is a
    GPU setting. (A loop over ``list_physical_devices("GPU")`` calls it for no device.)"""
    if device != _CPU:
        raise ValueError(f"set_memory_growth: {device!r} is not a device of this process.")
    raise ValueError("Cannot set memory growth on non-GPU and non-Pluggable devices (eager2graph "
                     "runs on the CPU only).")


# Thread counts TensorFlow's programs set; NumPy's and BLAS's threads are not changed by them.
_op_parallelism = {"intra": 0, "inter": 0}


def set_intra_op_parallelism_threads(num_threads: int) -> None:
    """Accepted and remembered, with no effect: kernels are NumPy's, whose BLAS picks its own
    threads (the README's "Threads" section says how to limit them)."""
    _op_parallelism["intra"] = int(num_threads)


def get_intra_op_parallelism_threads() -> int:
    """What ``set_intra_op_parallelism_threads`` was given (0, TensorFlow's "let the system
    choose", when it was not called)."""
    return _op_parallelism["intra"]


def set_inter_op_parallelism_threads(num_threads: int) -> None:
    """Accepted and remembered, with no effect: a graph's ops run one after another."""
    _op_parallelism["inter"] = int(num_threads)


def get_inter_op_parallelism_threads() -> int:
    """What ``set_inter_op_parallelism_threads`` was given (0 when it was not called)."""
    return _op_parallelism["inter"]
