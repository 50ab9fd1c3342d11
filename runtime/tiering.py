"""``jit_compile=None``: start on the NumPy plan, move to the compiled tier when a function
proves hot, without making the program slower by more than a twentieth.

A concrete function times one call in 64 to estimate the time it has spent on the NumPy plan.
The switch starts once that time has paid for the switch's expected cost (``switch_cost``) and
that cost is at most a twentieth (``WORTH_IT``) of the program's time by when it is paid:
whatever the program does next, the switch costs it at most a twentieth of its time
(``config.set_jit_auto_compile`` sets a fixed number of calls instead, or turns it off).

With a C compiler:

* When the kernel cache may hold the function's kernels (it holds modules), the program looks
  for them itself, in the calling thread, and loads them: about 10 ms (``load_seconds``), so
  a warm cache switches within the first second of a run.
* Otherwise, or when they are not there, a forked child process builds them (partitioning,
  writing and translating the kernels, the C compiler) on another core and leaves the modules
  in the kernel cache (``runtime.forked_build``); calls ask now and then whether it has ended,
  and the one that finds it has loads the modules. The child's work costs the program only as
  far as it slows it down: ``CONTENTION`` of it with a core to spare, all of it without one
  (the load average leaves less than one and a half cores). The cost is paid when the kernels
  arrive, a build's time later (``build_seconds``), so the program's time by then counts.
  When another process is building them (the last run's build left behind, still running:
  it holds the module's build lock, see ``compiler_process``), a child waits for that build
  at once.
* A program that ends while a function that spent longer on the plan than its kernels take to
  build still waits to pay for it leaves the build behind (``leave_builds_behind``), as it does
  a child still building: the child finishes after the program, at the lowest priority, and the
  next run of the program finds the kernels in the cache.

Where ``fork`` is unsafe or missing (macOS; JAX, PyTorch or TensorFlow imported, whose thread
pools a child would inherit), the program partitions and translates the kernels itself, in the
calling thread, as it does for a warm cache, and the C compiler builds the module in a process
of its own (``SpawnedBuild``): no thread takes turns with the calls. Kernels C does not take
stay on the plan, since Numba would compile them in this process, holding the lock for
seconds; without a C compiler, Numba compiles everything, in a daemon thread, and the switch is
costed as the import of Numba plus a second of compiling or loading kernels.

When the kernels are ready the function swaps its executable (one attribute write, atomic
for the interpreter); if the tier finds nothing worth compiling, or fails, the function stays
on the plan and stops counting, and ``jit_report`` says why.

The swap comes at a call that depends on timing, so it must not be seen: the tier compiles
here only what gives the plan's bits exactly (``JIT_EXACT``). A function's result for the same
inputs is then the same before and after, and a program's results the same run to run.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
import time
import weakref
from dataclasses import dataclass
from typing import Callable

from runtime import config
from runtime.backends.jit import JIT_EXACT
from runtime.backends.jit.c_build import NotBuilt, builds_with_c
from runtime.backends.jit.compiler_process import BUILD_TIMEOUT_SECONDS
from runtime.backends.jit.kernels import c_failure, cache_has_modules
from runtime.forked_build import ForkedBuild, SpawnedBuild, forks
from runtime.graph import Graph


SAMPLE_EVERY = 64  # one call in this many is timed
POLL_EVERY = 16  # while a child builds, one call in this many asks whether it has ended
CHILDREN = 3  # children started at most for one function (see BackgroundCompile._not_built)
WORTH_IT = 20  # the switch may cost at most 1/20 of the process's time when it is paid
CHILD_SECONDS = BUILD_TIMEOUT_SECONDS + 60  # a child's time limit
# Estimates of this machine class (2 cores), measured in new processes. With C: loading a
# function's modules from the cache (partitioning the graph, writing the kernels and the plan
# around them, the first module's load; the MLP of examples/end_to_end.py, 112 nodes, 10-11
# ms, W8's 157 nodes 11-13 ms, W7's 264 nodes 12-13 ms), and building them at the quick
# optimization (c_build.OPTIMIZATION): the C compiler, mostly a fixed cost of Python's and
# NumPy's headers and the kernels' shared code (W8's and W7's modules 0.32 and 0.29 s of the
# compiler's CPU; 0.44 and 0.45 s of wall time for the whole build on a busy machine). With
# Numba: its import, then loading or compiling the kernels of one function (about 0.05 s
# each from the disk cache, 0.5-2 s each cold).
C_LOAD_SECONDS = 0.006
C_SECONDS_PER_NODE = 2.5e-5
FORK_SECONDS = 0.003  # the fork, and asking whether the child has ended
SPAWN_SECONDS = 0.02  # without fork: starting the compiler's process (Python without site)
C_BUILD_SECONDS = 0.25
C_BUILD_SECONDS_PER_NODE = 3e-4
# How much a build on another core slows the program, as a share of the build's time (the
# cores share caches and memory): 10,000 plan steps of W7 took 1.3% longer (median of five,
# one run 10%) while GCC ran on the other core of this machine; this leaves a margin.
CONTENTION = 0.05
NUMBA_IMPORT_SECONDS = 0.7
KERNELS_SECONDS = 1.0


@dataclass(frozen=True)
class SwitchCost:
    """What the move to the compiled tier is expected to cost the program (``seconds``), and
    how long after it starts that cost is paid in full (``ahead``: the program runs on
    meanwhile)."""

    seconds: float
    ahead: float = 0.0

    def pays(self, spent: float) -> bool:
        """Whether the switch is worth starting now, after ``spent`` seconds on the plan."""
        return spent >= self.seconds and \
            time.process_time() + self.ahead >= WORTH_IT * self.seconds


def _nodes(graph: Graph) -> int:
    return sum(1 for _ in graph.walk())


def load_seconds(graph: Graph) -> float:
    """Seconds this process takes to load ``graph``'s kernels from the cache."""
    return C_LOAD_SECONDS + C_SECONDS_PER_NODE * _nodes(graph)


def build_seconds(graph: Graph) -> float:
    """Seconds the C compiler takes to build ``graph``'s kernels."""
    return C_BUILD_SECONDS + C_BUILD_SECONDS_PER_NODE * _nodes(graph)


def switch_cost(graph: Graph, cold: bool = False) -> SwitchCost:
    """The cost of moving ``graph`` to the compiled tier: loading its kernels from the cache
    here, or, ``cold``, building them in a child first (its work counts as far as it slows
    the program, see ``CONTENTION``): a forked child translates them too, else this thread
    does before it starts the compiler's process."""
    if builds_with_c():
        load = load_seconds(graph)
        if not cold:
            return SwitchCost(load)
        if forks():
            here, build = load + FORK_SECONDS, build_seconds(graph) + load
        else:
            here, build = 2 * load + SPAWN_SECONDS, build_seconds(graph) + SPAWN_SECONDS
        if spare_core():
            return SwitchCost(here + CONTENTION * build, ahead=build)
        return SwitchCost(here + build)
    return SwitchCost(KERNELS_SECONDS + (0.0 if "numba" in sys.modules else NUMBA_IMPORT_SECONDS))


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
        # Kernels not built yet: a build, which costs more (see switch_cost). The program
        # looks in the cache first, unless it holds no module at all.
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
        _functions.add(self)

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
        if self.cost.pays(self.spent):
            self.start()
        return results

    def start(self) -> None:
        with self._lock:
            if self.outcome != "waiting":
                return
            self.outcome = "compiling"
        if builds_with_c():
            if not self.cold or not forks():
                # Looked for in the cache and loaded here, in this thread; when they are not
                # there, see _not_built.
                self._compile(build=False)
                return
            if self._start_child(None):
                return
        self._start_thread()

    def _start_child(self, request: tuple | None) -> bool:
        """Starts a child that builds the kernels: forked (it translates them too), or the
        compiler alone in a process of its own, for ``request`` (``NotBuilt.request``: the
        module this thread translated). False if the system refuses one."""
        try:
            self._child = ForkedBuild(self._build, CHILD_SECONDS) if forks() \
                else SpawnedBuild(request, CHILD_SECONDS)
        except OSError:  # no memory or processes to spare
            return False
        self._children += 1
        return True

    def _start_thread(self) -> None:
        threading.Thread(target=self._compile, daemon=True,
                         name=f"eager2graph compile {self.name}").start()

    def _build(self) -> None:
        """The child's work: the kernels built into the cache (an error if C failed)."""
        JIT_EXACT.compile(self.graph, self.name, numba=False, quick=True)
        failure = c_failure()
        if failure is not None:
            raise failure

    def _collect(self, timeout: float = 0.0) -> None:
        """Once the child has ended: the kernels it built, loaded here (about ten
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
        if child.error is None:
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
            self.start()  # again when the kernels were not in the cache
            if self._child is not None:
                self._collect(left)
            else:  # a thread compiles, or another thread loads what the child built
                self.done.wait(min(left, 0.05))
        return True

    def _compile(self, build: bool = True) -> None:
        try:
            executable = JIT_EXACT.compile(self.graph, self.name, numba=not builds_with_c(),
                                           build=build, quick=True)
        except NotBuilt as missing:
            self._not_built(missing)
        except Exception as error:  # noqa: BLE001 - the plan keeps running; the report says why
            self._finish(error)
        else:
            self.outcome = "compiled" if executable.kernels else "nothing to compile"
            self.reasons = sorted({reason for _, reason in executable.refused})
            self.install(executable if executable.kernels else None)
            self.done.set()

    def _not_built(self, missing: NotBuilt) -> None:
        """Some kernels are not in the cache. Found by the program's own look in a cache that
        may hold them: back to counting, at the cost of a build, unless another process is
        building them (the last run's build left behind, say): then a child waits for that
        build, at once. When a build is what the switch paid for (without fork, this thread
        translated the kernels first), or after a child's build (another function's kernels
        came meanwhile, so it built another batch): a child builds them, at once."""
        if self._children >= CHILDREN:
            self._finish(RuntimeError(
                f"after {self._children} builds in child processes the kernels it needs "
                f"were still not in the cache (other functions' kernels compiled at the "
                f"same time change what a build holds); jit_compile=True builds them at "
                f"once"))
        elif self._children == 0 and not self.cold and not missing.elsewhere:
            self.cold, self.cost = True, switch_cost(self.graph, cold=True)
            with self._lock:
                self.outcome = "waiting"
        elif not self._start_child(missing.request):
            self._start_thread()

    def _finish(self, error: BaseException) -> None:
        self.error, self.outcome = error, "failed"
        self.install(None)
        self.done.set()

    def spawn_detached_build(self) -> None:
        """Without fork, at the program's end: the kernels translated here, and their module
        left to a compiler process that finishes on its own."""
        try:
            JIT_EXACT.compile(self.graph, self.name, numba=False, build=False, quick=True)
        except NotBuilt as missing:
            SpawnedBuild(missing.request, CHILD_SECONDS).detach()
        except Exception:  # noqa: BLE001 - the program is ending; the next run tries again
            pass

    def worth_building_behind(self) -> bool:
        """Whether the program ends before this function paid for a build it has earned: it
        spent longer on the plan than the build takes (``leave_builds_behind``)."""
        return self.outcome == "waiting" and self.cold and \
            config._jit_auto_compile_after == config.AUTO and builds_with_c() and \
            self.spent >= build_seconds(self.graph)

    def describe(self) -> str:
        if self.outcome == "waiting":
            threshold = config.jit_auto_compile_after()
            if threshold is None:
                return ("runs on the NumPy plan: background compiles are off "
                        "(rt.config.set_jit_auto_compile(None)).")
            if threshold == config.AUTO:
                return (f"runs on the NumPy plan; the compiled tier takes over in the background "
                        f"once the time spent on the plan ({self.spent:.2g} s so far) has paid "
                        f"for the switch's expected cost ({self.cost.seconds:.2g} s"
                        + (", building its kernels, which the cache does not hold"
                           if self.cold and builds_with_c() else "")
                        + f") and that cost is at most 1/{WORTH_IT} of the process's time "
                        f"by when it is paid.")
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


_functions: weakref.WeakSet[BackgroundCompile] = weakref.WeakSet()  # this process's


def leave_builds_behind() -> None:
    """At the program's end: a child still building kernels is left to finish, and one
    more builds those of the functions that earned a build but have not started it, so that
    the next run finds them in the cache. Both run at the lowest priority, on their own."""
    functions = list(_functions)
    for function in functions:
        child = function._child
        if child is not None and not child.finished:
            child.detach()
    earned = [function for function in functions if function.worth_building_behind()]
    if not earned:
        return

    def build_all() -> None:
        for function in earned:
            function._build()
    try:
        if forks():
            ForkedBuild(build_all, CHILD_SECONDS).detach()
        else:
            for function in earned:
                function.spawn_detached_build()
    except OSError:  # no process to spare: the next run builds them
        pass


atexit.register(leave_builds_behind)  # runs before forked_build's, which kills the others
if hasattr(os, "register_at_fork"):  # a process forked from the program does not own them
    os.register_at_fork(after_in_child=_functions.clear)
