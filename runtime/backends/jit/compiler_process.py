"""Building one kernel module with the C compiler: in this process, or in a process of its own
that the program starts and does not wait for.

One process builds a module at a time: a builder holds ``<module>.lock`` (an advisory file
lock, released by the system when the builder ends, however it ends), and a process that
needs the same module meanwhile waits for it and then finds it built, instead of compiling it
again (a run that starts while the build the last run left behind still compiles, or test
workers). The module is written to a temporary name and renamed into place.

Run as a script (``python -S compiler_process.py <request>``, see ``start``), it builds the
module a request file describes and exits: the program goes on meanwhile, and where it cannot
``fork`` (macOS, or JAX's, PyTorch's or TensorFlow's thread pools in the process) the compiler
still runs beside it, not in a thread that would take turns with its calls for the
interpreter's lock. This module imports only the standard library, so that the script starts
in a few milliseconds.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from typing import Iterator

try:
    import fcntl
except ImportError:  # Windows, where Numba compiles: nothing to lock
    fcntl = None

BUILD_TIMEOUT_SECONDS = 300
LOCK_POLL_SECONDS = 0.01  # how often a process waiting for another's build asks again
FAILED_SUFFIX = ".failed"  # a script's error, for the program to read


def lock_path(module_path: str) -> str:
    return os.path.splitext(module_path)[0] + ".lock"


def build(c_text: str, module_path: str, command: list[str]) -> None:
    """Builds ``module_path`` from ``c_text`` under its build lock, unless it exists (built
    by the process this one waited for)."""
    with build_lock(module_path):
        if not os.path.isfile(module_path):
            compile_module(c_text, module_path, command)


def compile_module(c_text: str, module_path: str, command: list[str]) -> None:
    """Compiles ``c_text`` into ``module_path`` with ``command`` (the compiler and its flags;
    the source and ``-o`` target are appended). Raises ``RuntimeError`` with the compiler's
    message if it fails."""
    with tempfile.TemporaryDirectory(dir=os.path.dirname(module_path)) as work:
        source = os.path.join(work, "kernel.c")
        with open(source, "w", encoding="utf-8") as file:
            file.write(c_text)
        built = os.path.join(work, "kernel.so")
        finished = subprocess.run([*command, source, "-o", built], capture_output=True,
                                  text=True, timeout=BUILD_TIMEOUT_SECONDS, check=False)
        if finished.returncode != 0:
            raise RuntimeError(f"the C compiler failed on a kernel ({command[0]}, exit code "
                               f"{finished.returncode}): {finished.stderr.strip()[:2000]}")
        os.replace(built, module_path)


@contextmanager
def build_lock(module_path: str) -> Iterator[None]:
    """Holds the module's build lock, after waiting for a process building it now (at most a
    build's time limit: then this process builds it too)."""
    if fcntl is None:
        yield
        return
    handle = os.open(lock_path(module_path), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        deadline = time.monotonic() + BUILD_TIMEOUT_SECONDS
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    break
                time.sleep(LOCK_POLL_SECONDS)
        yield
    finally:
        os.close(handle)  # which releases the lock


def building_elsewhere(module_path: str) -> bool:
    """Whether another process holds the module's build lock."""
    if fcntl is None:
        return False
    try:
        handle = os.open(lock_path(module_path), os.O_RDONLY)
    except OSError:  # no build of it ever started here
        return False
    try:
        fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(handle)


def start(c_text: str, module_path: str, command: list[str]) -> tuple[subprocess.Popen, str]:
    """Starts a process that builds the module (``build``) and returns it at once, with the
    path where it leaves its error if it fails. It holds none of the program's files, runs
    in a session of its own (the terminal's Ctrl-C stays the program's) and outlives the
    program if need be."""
    handle, request = tempfile.mkstemp(dir=os.path.dirname(module_path), suffix=".request")
    with os.fdopen(handle, "w", encoding="utf-8") as file:
        json.dump({"source": c_text, "module": module_path, "command": command}, file)
    try:
        process = subprocess.Popen([sys.executable, "-S", os.path.abspath(__file__), request],
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, start_new_session=True)
    except OSError:  # no process to spare: the caller builds another way
        os.remove(request)
        raise
    return process, request + FAILED_SUFFIX


def _main(request: str) -> int:
    try:
        with open(request, encoding="utf-8") as file:
            order = json.load(file)
        os.remove(request)
        build(order["source"], order["module"], order["command"])
        return 0
    except Exception as error:  # noqa: BLE001 - reported to the program through the file
        with open(request + FAILED_SUFFIX, "w", encoding="utf-8") as file:
            file.write(f"{type(error).__name__}\n{error}")
        return 1


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1]))
