"""``jit_compile=None``: start on the NumPy plan, move to the compiled tier when a function
proves hot, without making the program slower by more than a twentieth.

A concrete function times one call in 64 to estimate the time it has spent on the NumPy plan.
Once that has paid for the switch (``switch_cost``: what the switch costs the program) and the
process has run for ``WORTH_IT`` times that cost, the compile starts while calls go on running
the plan: whatever the program does next, the switch costs it at most a twentieth of its time
(``config.set_jit_auto_compile`` sets a fixed number of calls instead, or turns it off).

With a C compiler on Linux, a forked child process does the whole compile (partitioning,
writing and translating the kernels, the C compiler) on another core and leaves the modules
in the kernel cache (``runtime.forked_build``); calls ask now and then whether it has ended,
and the one that finds it has loads the modules (without translating them again: tens of
milliseconds). A first child only looks for the kernels in the cache (none does when the
cache holds no module at all); when they are not there, building them is costed too, and a
later child builds them. The cost counts that load, and the child's work as far as it slows
the program: all of it when the machine has no core to spare (its load average leaves less
than one and a half free), ``CONTENTION`` of it otherwise. Without ``fork``, a daemon thread
compiles, taking turns with the calls. Kernels C does not take stay on the plan, since Numba
would compile them in this process, holding the lock for seconds; without a C compiler, Numba
compiles everything, in the thread, and the switch is costed as the import of Numba plus a
second of compiling or loading kernels.

When the kernels are ready the function swaps its executable (one attribute write, atomic
for the interpreter); if the tier finds nothing worth compiling, or fails, the function stays
on the plan and stops counting, and ``jit_report`` says why.

The swap comes at a call that depends on timing, so it must not be seen: the tier compiles
here only what gives the plan's bits exactly (``JIT_EXACT``). A function's result for the same
inputs is then the same before and after, and a program's results the same run to run.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import Callable

from runtime import config
from runtime.backends.jit import JIT_EXACT
from runtime.backends.jit.c_build import BUILD_TIMEOUT_SECONDS, NotBuilt, builds_with_c
from runtime.backends.jit.kernels import c_failure, cache_has_modules
from runtime.forked_build import ForkedBuild, forks
from runtime.graph import Graph


SAMPLE_EVERY = 64  # one call in this many is timed
POLL_EVERY = 16  # while a child builds, one call in this many asks whether it has ended
CHILDREN = 3  # children started at most for one function (see BackgroundCompile._compile)
WORTH_IT = 20  # the switch may cost at most 1/20 of the process's time before it
# Estimates of this machine class (2 cores). With C: this process's part of the switch per
# node of the graph and per function (loading the modules a child built: partitioning,
# writing the kernels and the plan around them, W7 42-48 ms for 264 nodes, the MLP of
# examples/end_to_end.py 37 ms for 112), and the C compiler's, one module per
# function (W7 0.8-1.1 s, W8 0.7 s cold), which takes the other core or, on a busy machine,
# time from the program. With Numba: its import, then loading or compiling the kernels of one
# function (about 0.05 s each from the disk cache, 0.5-2 s each cold).
C_LOAD_SECONDS = 0.015  # the fork, loading the modules, first uses (MLP 16-32-4: 37 ms in all)
C_SECONDS_PER_NODE = 1.8e-4
THREAD_SECONDS_PER_NODE = 2.5e-4  # without fork: a thread writes and translates the kernels
C_BUILD_SECONDS = 0.15
C_BUILD_SECONDS_PER_NODE = 2.5e-3
# The program's slowdown while the compiler runs on the other core, as a share of the
# compiler's time (a training loop's steps took 15-30% longer on this machine).
CONTENTION = 0.3
NUMBA_IMPORT_SECONDS = 0.7
KERNELS_SECONDS = 1.0


def switch_cost(graph: Graph, cold: bool = False) -> float:
    """Seconds the move of ``graph`` to the compiled tier is expected to cost the program:
    its work in this process, and the child's (its Python, about twice the load's, and when
    the kernels are not in the cache, ``cold``, the compiler's): all of that on a busy
    machine, ``CONTENTION`` of it with a core to spare."""
    if builds_with_c():
        nodes = sum(1 for _ in graph.walk())
        build = C_BUILD_SECONDS + C_BUILD_SECONDS_PER_NODE * nodes
        if not forks():  # a thread: its whole compile takes turns with the calls
            return THREAD_SECONDS_PER_NODE * nodes + build
        load = C_LOAD_SECONDS + C_SECONDS_PER_NODE * nodes
        child = 2 * load + (build if cold else 0.0)
        return load + child * (CONTENTION if spare_core() else 1.0)
    return KERNELS_SECONDS + (0.0 if "numba" in sys.modules else NUMBA_IMPORT_SECONDS)


def spare_core() -> bool:
    """Whether the machine has a core for the C compiler besides the program's own: the
    other work (the load average less about one for the program) leaves at least one and a
    half cores."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]
    except OSError:  # no load average on this system
        return False
    return cores >= 2 and load - 1.0 <= cores - 1.5


class BackgroundCompile:
    """The call counter and the compile (child process or thread) of one concrete function."""

    def __init__(self, graph: Graph, name: str, plan_run: Callable,
                 install: Callable[[object], None]):
        self.graph, self.name = graph, name
        self.plan_run, self.install = plan_run, install
        self.calls = 0
        self.spent = 0.0  # seconds on the plan, estimated from the timed calls
        # Kernels not built yet: a build, which costs more (see switch_cost). A first child
        # looks for them in the cache, unless the cache holds no module at all.
        self.cold = not cache_has_modules()
        self.cost = switch_cost(graph, self.cold)
        self.error: BaseException | None = None
        self.reasons: list[str] = []  # why the tier left ops on the plan, when it compiled none
        self.outcome = "waiting"
        self.done = threading.Event()
        self._lock = threading.Lock()
        self._child: ForkedBuild | None = None
        self._children = 0
        self._polling = threading.Lock()  # held by the thread asking whether the child ended

    def run(self, *arrays):
        """The NumPy plan, counting calls until the compile starts."""
        self.calls += 1
        if self._child is not None and self.calls % POLL_EVERY == 0:
            self._collect()
        threshold = config._jit_auto_compile_after
        if threshold == config.AUTO:
            if self.calls % SAMPLE_EVERY == 0:
                return self._timed(arrays)
        elif threshold is not None and self.calls >= threshold:
            self.start()
        return self.plan_run(*arrays)

    def _timed(self, arrays):
        began = time.perf_counter()
        results = self.plan_run(*arrays)
        self.spent += SAMPLE_EVERY * (time.perf_counter() - began)
        if self.spent >= self.cost and time.process_time() >= WORTH_IT * self.cost:
            self.start()
        return results

    def start(self) -> None:
        with self._lock:
            if self.outcome != "waiting":
                return
            self.outcome = "compiling"
        if builds_with_c() and forks() and self._fork():
            return
        threading.Thread(target=self._compile, daemon=True,
                         name=f"eager2graph compile {self.name}").start()

    def _fork(self) -> bool:
        """Starts a child that builds the kernels; False if the system refuses one."""
        try:
            self._child = ForkedBuild(self._build, BUILD_TIMEOUT_SECONDS + 60)
        except OSError:  # no memory or processes to spare: the thread compiles
            return False
        self._children += 1
        return True

    def _build(self) -> bool:
        """The child's work: the kernels built into the cache (an error if C failed). The
        first child only looks for them (False: not built), since building them may cost
        the program more than loading them (see ``switch_cost``)."""
        try:
            JIT_EXACT.compile(self.graph, self.name, numba=False, build=self.cold)
        except NotBuilt:
            return False
        failure = c_failure()
        if failure is not None:
            raise failure
        return True

    def _collect(self, timeout: float = 0.0) -> None:
        """Once the child has ended: the kernels it built, loaded here (a few tens of
        milliseconds, in the calling thread: a thread would take several times as long
        sharing the lock with the calls), or its error. One thread asks at a time; the
        others go on (waiting up to ``timeout`` for their turn)."""
        if timeout > 0:
            acquired = self._polling.acquire(timeout=timeout)
        else:
            acquired = self._polling.acquire(blocking=False)
        if not acquired:
            return
        try:
            child = self._child
            if child is None or not child.poll(timeout):
                return
            self._child = None
        finally:
            self._polling.release()
        if child.declined:  # not built: back to counting, at the cost of a build
            self.cold, self.cost = True, switch_cost(self.graph, cold=True)
            with self._lock:
                self.outcome = "waiting"
        elif child.error is None:
            self._compile(build=False)
        else:
            self._finish(child.error)

    def wait(self, timeout: float | None = None) -> bool:
        """Starts the compile if it has not started and waits for its end (at most
        ``timeout`` seconds); True when it has ended, whatever its outcome."""
        self.start()
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self.done.is_set():
            left = 1.0 if deadline is None else min(1.0, deadline - time.monotonic())
            if left <= 0:
                return False
            self.start()  # again when the first child found the kernels not built
            if self._child is not None:
                self._collect(left)
            else:  # a thread compiles, or another thread loads what the child built
                self.done.wait(min(left, 0.05))
        return True

    def _compile(self, build: bool = True) -> None:
        try:
            executable = JIT_EXACT.compile(self.graph, self.name, numba=not builds_with_c(),
                                           build=build)
        except NotBuilt:  # the child built another batch: a kernel came meanwhile
            if self._children >= CHILDREN or not self._fork():
                self._finish(RuntimeError(
                    f"after {self._children} builds in child processes the kernels it needs "
                    f"were still not in the cache (other functions' kernels compiled at the "
                    f"same time change what a build holds); jit_compile=True builds them at "
                    f"once"))
        except Exception as error:  # noqa: BLE001 - the plan keeps running; the report says why
            self._finish(error)
        else:
            self.outcome = "compiled" if executable.kernels else "nothing to compile"
            self.reasons = sorted({reason for _, reason in executable.refused})
            self.install(executable if executable.kernels else None)
            self.done.set()

    def _finish(self, error: BaseException) -> None:
        self.error, self.outcome = error, "failed"
        self.install(None)
        self.done.set()

    def describe(self) -> str:
        if self.outcome == "waiting":
            threshold = config.jit_auto_compile_after()
            if threshold is None:
                return ("runs on the NumPy plan: background compiles are off "
                        "(rt.config.set_jit_auto_compile(None)).")
            if threshold == config.AUTO:
                return (f"runs on the NumPy plan; the compiled tier takes over in the background "
                        f"once the time spent on the plan ({self.spent:.2g} s so far) has paid "
                        f"for the switch's expected cost ({self.cost:.2g} s"
                        + (", building its kernels, which the cache does not hold"
                           if self.cold and builds_with_c() else "")
                        + f") and the process has run {WORTH_IT} times as long.")
            return (f"runs on the NumPy plan; the compiled tier takes over in the background "
                    f"after {threshold} calls ({self.calls} so far).")
        if self.outcome == "compiling":
            return "runs on the NumPy plan while the compiled tier compiles in the background."
        if self.outcome == "failed":
            return (f"runs on the NumPy plan: the compiled tier failed with "
                    f"{type(self.error).__name__}: {self.error}")
        reasons = "".join(f"\n  {reason}" for reason in self.reasons[:3])
        return ("runs on the NumPy plan: the compiled tier found nothing worth compiling"
                + (f"; what it left on the plan, and why:{reasons}" if reasons else "."))
