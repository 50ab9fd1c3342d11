"""``jit_compile=None``: start on the NumPy plan, move to the compiled tier when a function
proves hot, without making the program slower by more than a twentieth.

A concrete function times one call in 64 to estimate the time it has spent on the NumPy plan.
Once that has paid for the switch (``switch_cost``: what the switch costs the program, its
work in this process, which holds the interpreter's lock and so slows the calls meanwhile, and
the compiler's), and the process has run for ``WORTH_IT`` times that cost, a daemon thread
compiles the graph while calls go on running the plan: whatever the program does next, the
switch costs it at most a twentieth of its time (``config.set_jit_auto_compile`` sets a fixed
number of calls instead, or turns it off).

With a C compiler, kernels are written here (a fraction of a millisecond per node, in turns
with the calls) and built in a child process, which leaves the lock free; kernels C does not
take stay on the plan, since Numba would compile them in this process, holding the lock for
seconds. The child's time counts in the cost: on a machine busy with other work it comes out
of the program's. Without a C compiler, Numba compiles everything, and the switch is costed
as the import of Numba plus a second of compiling or loading kernels.

When the kernels are ready the function swaps its executable (one attribute write, atomic
for the interpreter); if the tier finds nothing worth compiling, or fails, the function stays
on the plan and stops counting, and ``jit_report`` says why.

The swap comes at a call that depends on timing, so it must not be seen: the tier compiles
here only what gives the plan's bits exactly (``JIT_EXACT``). A function's result for the same
inputs is then the same before and after, and a program's results the same run to run.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import Callable

from runtime import config
from runtime.backends.jit import JIT_EXACT
from runtime.backends.jit.c_build import builds_with_c
from runtime.graph import Graph


SAMPLE_EVERY = 64  # one call in this many is timed
WORTH_IT = 20  # the switch may cost at most 1/20 of the process's time before it
# Estimates of this machine class (2 cores). With C: this process's part of the switch per
# node of the graph (partitioning, writing the kernels and the plan around them: W7 60 ms for
# 264 nodes, W8 36 ms for 157), which runs in turns with the calls, and the C compiler's, one
# module per function (W7 0.8 s, W8 0.7 s cold), which takes the other core or, on a busy
# machine, time from the program. With Numba: its import, then loading or compiling the
# kernels of one function (about 0.05 s each from the disk cache, 0.5-2 s each cold).
C_SECONDS_PER_NODE = 2.5e-4
C_BUILD_SECONDS = 0.15
C_BUILD_SECONDS_PER_NODE = 2.5e-3
NUMBA_IMPORT_SECONDS = 0.7
KERNELS_SECONDS = 1.0


def switch_cost(graph: Graph) -> float:
    """Seconds the move of ``graph`` to the compiled tier is expected to cost the program:
    all of it counts, the compiler's child process too, as a machine busy with other work
    gives it no spare core."""
    if builds_with_c():
        nodes = sum(1 for _ in graph.walk())
        return C_BUILD_SECONDS + (C_SECONDS_PER_NODE + C_BUILD_SECONDS_PER_NODE) * nodes
    return KERNELS_SECONDS + (0.0 if "numba" in sys.modules else NUMBA_IMPORT_SECONDS)


class BackgroundCompile:
    """The call counter and compile thread of one concrete function."""

    def __init__(self, graph: Graph, name: str, plan_run: Callable,
                 install: Callable[[object], None]):
        self.graph, self.name = graph, name
        self.plan_run, self.install = plan_run, install
        self.calls = 0
        self.spent = 0.0  # seconds on the plan, estimated from the timed calls
        self.cost = switch_cost(graph)
        self.error: BaseException | None = None
        self.reasons: list[str] = []  # why the tier left ops on the plan, when it compiled none
        self.outcome = "waiting"
        self.done = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def run(self, *arrays):
        """The NumPy plan, counting calls until the compile starts."""
        self.calls += 1
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
            if self._thread is not None:
                return
            self._thread = threading.Thread(target=self._compile, daemon=True,
                                            name=f"eager2graph compile {self.name}")
            self.outcome = "compiling"
        self._thread.start()

    def _compile(self) -> None:
        try:
            executable = JIT_EXACT.compile(self.graph, self.name, numba=not builds_with_c())
        except Exception as error:  # noqa: BLE001 - the plan keeps running; the report says why
            self.error, self.outcome = error, "failed"
            self.install(None)
        else:
            self.outcome = "compiled" if executable.kernels else "nothing to compile"
            self.reasons = sorted({reason for _, reason in executable.refused})
            self.install(executable if executable.kernels else None)
        finally:
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
                        f"for the switch's expected cost ({self.cost:.2g} s) and the process "
                        f"has run {WORTH_IT} times as long.")
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
