"""``jit_compile=None``: start on the NumPy plan, move to the compiled tier when a function
proves hot, without ever making a call wait.

A concrete function counts its calls; after ``config.set_jit_auto_compile`` calls (64 unless
set) a daemon thread compiles its graph with the compiled tier while calls go on running the
NumPy plan. When the kernels are ready the function swaps its executable (one attribute write,
atomic for the interpreter); if the tier finds nothing worth compiling, or fails, the function
stays on the plan and stops counting, and ``jit_report`` says why.

The swap comes at a call that depends on timing, so it must not be seen: the tier compiles
here only what gives the plan's bits exactly (``JIT_EXACT``). A function's result for the same
inputs is then the same before and after, and a program's results the same run to run.
"""

from __future__ import annotations

import threading
from typing import Callable

from runtime import config
from runtime.backends.jit import JIT_EXACT
from runtime.graph import Graph


class BackgroundCompile:
    """The call counter and compile thread of one concrete function."""

    def __init__(self, graph: Graph, name: str, plan_run: Callable,
                 install: Callable[[object], None]):
        self.graph, self.name = graph, name
        self.plan_run, self.install = plan_run, install
        self.calls = 0
        self.error: BaseException | None = None
        self.outcome = "waiting"
        self.done = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def run(self, *arrays):
        """The NumPy plan, counting calls until the compile starts."""
        self.calls += 1
        threshold = config._jit_auto_compile_after
        if threshold is not None and self.calls >= threshold:
            self.start()
        return self.plan_run(*arrays)

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
            executable = JIT_EXACT.compile(self.graph, self.name)
        except Exception as error:  # noqa: BLE001 - the plan keeps running; the report says why
            self.error, self.outcome = error, "failed"
            self.install(None)
        else:
            self.outcome = "compiled" if executable.kernels else "nothing to compile"
            self.install(executable if executable.kernels else None)
        finally:
            self.done.set()

    def describe(self) -> str:
        if self.outcome == "waiting":
            threshold = config.jit_auto_compile_after()
            if threshold is None:
                return ("runs on the NumPy plan: background compiles are off "
                        "(rt.config.set_jit_auto_compile(None)).")
            return (f"runs on the NumPy plan; the compiled tier takes over in the background "
                    f"after {threshold} calls ({self.calls} so far).")
        if self.outcome == "compiling":
            return "runs on the NumPy plan while the compiled tier compiles in the background."
        if self.outcome == "failed":
            return (f"runs on the NumPy plan: the compiled tier failed with "
                    f"{type(self.error).__name__}: {self.error}")
        return "runs on the NumPy plan: the compiled tier found nothing worth compiling."
