"""Running a compile in a child process, beside the program instead of in turns with it: a
forked child (``ForkedBuild``), or, where forking is unsafe or missing, the C compiler in a
process of its own (``SpawnedBuild``: the program translates the kernels itself, then goes on
while the module builds).

A compile thread shares the interpreter's lock with the program: measured next to a training
loop, 51 ms of its Python took 685 ms while the loop's steps slowed by half. A child made by
``fork`` starts with the program's memory (the graph, the caches) in about 2 ms, does the
whole compile on another core (its kernels land in the on-disk cache) and exits; the program
only checks, now and then, whether it has (``poll``), then loads the cached kernels itself.

The child runs in a process group of its own (the terminal's Ctrl-C stays the program's),
with standard output and error closed to the terminal, none of the program's other files open
(a pipe the program's caller waits on is not held past the program's end) and warnings off
(the program repeats the load, and its warnings, itself). It reports failure by its exit status
and a line on a pipe, and ends itself at its time limit (an alarm) whether or not the program
still asks. A child still running when the program exits is killed with the compiler it runs,
unless the program ``detach``-ed it: then it finishes at the lowest priority, its work left in
the kernel cache for the next run.
"""

from __future__ import annotations

import atexit
import builtins
import math
import os
import signal
import sys
import threading
import time
import warnings
from typing import Callable

from runtime.backends.jit import compiler_process

MESSAGE_BYTES = 4000
LOWEST_PRIORITY = 19  # a detached child's niceness
_running: dict[int, "_ChildBuild"] = {}  # pid -> build, killed at exit


# Libraries whose thread pools make a fork unsafe (a lock one of their threads holds stays
# held in the child) and which warn of it: where one is imported, a thread compiles instead.
THREADED_LIBRARIES = ("jax", "torch", "tensorflow")


def forks() -> bool:
    """Whether builds can run in forked children here: Linux (macOS's system libraries are
    not safe to use after ``fork`` in a process that has threads; Windows has no ``fork``),
    in a process without the thread pools of ``THREADED_LIBRARIES``."""
    return sys.platform.startswith("linux") and hasattr(os, "fork") \
        and not any(name in sys.modules for name in THREADED_LIBRARIES)


class _ChildBuild:
    """A build running in a child process; ``poll`` says when it has ended and how:
    ``error`` (None when it succeeded). Subclasses start the child and say whether it has
    exited (``_exit_status``) and with what error (``_error``)."""

    def __init__(self, pid: int, time_limit: float):
        self.pid = pid
        self.deadline = time.monotonic() + time_limit
        self.error: Exception | None = None
        self.finished = False
        self._reaping = threading.Lock()
        _running[pid] = self

    def poll(self, timeout: float = 0.0) -> bool:
        """Whether the child has ended, waiting up to ``timeout`` seconds for it (a child past
        its time limit is killed and counts as failed)."""
        wait_until = time.monotonic() + timeout
        while True:
            with self._reaping:  # one thread reaps the child (a second waitpid would fail)
                if self.finished:
                    return True
                status = self._exit_status(block=False)
                if status is not None:
                    self._end(status)
                    return True
                if time.monotonic() > self.deadline:
                    self.kill()
                    self._exit_status(block=True)  # reaped: no process left behind
                    self._end(None)
                    return True
            if time.monotonic() >= wait_until:
                return False
            time.sleep(0.005)

    def detach(self) -> None:
        """Leaves the child to finish on its own, at the lowest priority (with the compiler
        it runs): the program no longer asks, nor kills it at exit. The child still ends at
        its time limit; ``init`` reaps it once the program has ended."""
        _running.pop(self.pid, None)
        try:
            os.setpriority(os.PRIO_PGRP, self.pid, LOWEST_PRIORITY)
        except OSError:  # ended already
            pass

    def kill(self) -> None:
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    def _end(self, status: int | None) -> None:
        if status is None:
            self.error = TimeoutError("the compile ran past its time limit and was stopped")
        elif status != 0:
            self.error = self._error(status)
        self.finished = True
        _running.pop(self.pid, None)

    def _exit_status(self, block: bool) -> int | None:
        raise NotImplementedError

    def _error(self, status: int) -> Exception:
        raise NotImplementedError


class ForkedBuild(_ChildBuild):
    """``build()`` running in a forked child process."""

    def __init__(self, build: Callable[[], None], time_limit: float):
        for earlier in list(_running.values()):  # whose program no longer asks: reaped here
            earlier.poll()
        read, write = os.pipe()
        try:
            with warnings.catch_warnings():  # Python 3.12 warns of forks in threaded processes
                warnings.simplefilter("ignore", DeprecationWarning)
                pid = os.fork()
        except OSError:  # no memory or processes to spare
            os.close(read)
            os.close(write)
            raise
        if pid == 0:
            os.close(read)
            _run_child(build, write, time_limit)
        os.close(write)
        self._pipe = read
        super().__init__(pid, time_limit)

    def _exit_status(self, block: bool) -> int | None:
        pid, status = os.waitpid(self.pid, 0 if block else os.WNOHANG)
        if not pid:
            return None
        code = os.waitstatus_to_exitcode(status)
        report = os.read(self._pipe, MESSAGE_BYTES).decode("utf-8", "replace")
        os.close(self._pipe)
        self._report = report
        return code

    def _error(self, status: int) -> Exception:
        return _rebuilt(self._report, status)


class SpawnedBuild(_ChildBuild):
    """The C compiler building one kernel module in a process of its own, started without
    ``fork`` (``compiler_process.start``: where forking is unsafe or missing). ``request``:
    what ``NotBuilt.request`` holds. The process's time limit is the compiler's own."""

    def __init__(self, request: tuple, time_limit: float):
        self._process, self._failed = compiler_process.start(*request)
        super().__init__(self._process.pid, time_limit)

    def _exit_status(self, block: bool) -> int | None:
        return self._process.wait() if block else self._process.poll()

    def _error(self, status: int) -> Exception:
        try:
            with open(self._failed, encoding="utf-8") as file:
                report = file.read(MESSAGE_BYTES)
            os.remove(self._failed)
        except OSError:
            report = ""
        return _rebuilt(report, status)


def _run_child(build: Callable[[], None], pipe: int, time_limit: float) -> None:
    """The child's whole life: never returns to the program's code."""
    code = 1
    try:
        os.setpgid(0, 0)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)  # the program may handle it
        signal.alarm(max(1, math.ceil(time_limit)))
        quiet = os.open(os.devnull, os.O_WRONLY)
        os.dup2(quiet, 1)
        os.dup2(quiet, 2)
        os.closerange(3, pipe)  # everything else the program had open
        os.closerange(pipe + 1, os.sysconf("SC_OPEN_MAX"))
        warnings.simplefilter("ignore")
        build()
        code = 0
    except BaseException as error:  # noqa: BLE001 - reported to the program, which goes on
        os.write(pipe, f"{type(error).__name__}\n{error}".encode()[:MESSAGE_BYTES])
    finally:
        os._exit(code)


def _rebuilt(report: str, status: int) -> Exception:
    """The child's error as the program sees it: the same built-in exception type (only a
    name of ``builtins`` is looked up), else a RuntimeError naming the type."""
    name, _, message = report.partition("\n")
    kind = getattr(builtins, name, None)
    if isinstance(kind, type) and issubclass(kind, Exception):
        return kind(message)
    if name:
        return RuntimeError(f"{name}: {message}")
    return RuntimeError(f"the compile's process ended with status {status}")


# A process forked from the program (multiprocessing, say) does not own the program's builds.
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_running.clear)


@atexit.register
def _kill_running() -> None:
    for build in list(_running.values()):
        build.kill()
        try:
            build._exit_status(block=True)
        except ChildProcessError:
            pass
