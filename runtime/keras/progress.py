"""The progress line of ``fit``/``evaluate``/``predict``, like Keras' ``Progbar``.

``verbose=1``: ``12/50 ━━━━━──────── 1s 25ms/step - loss: 0.1234 - mae: 0.2000``, redrawn in
place on a terminal (once at the end of the epoch otherwise); ``verbose=2``: one line per
epoch, ``50/50 - 1s - 25ms/step - loss: ...``.
"""

from __future__ import annotations

import sys
import time

import numpy as np

WIDTH = 20


def format_value(value: float, by_size: bool = True) -> str:
    """Four decimals, or e-notation for a value near zero. Keras' one-line-per-epoch style
    (``verbose=2``, ``by_size=False``) tests the value, not its size: a negative value is
    written in e-notation there (``-2.0844e-01``)."""
    large = abs(value) > 1e-3 if by_size else value > 1e-3
    return f"{value:.4f}" if large else f"{value:.4e}"


def format_logs(logs: dict, by_size: bool = True) -> str:
    """The logs as the progress line shows them (a metric of several values, such as an
    ``F1Score`` per class, by its mean, as Keras shows it)."""
    return "".join(f" - {key}: {format_value(float(np.mean(value)), by_size)}"
                   for key, value in logs.items())


def format_per_step(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.0f}s/step"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.0f}ms/step"
    return f"{seconds * 1e6:.0f}us/step"


class Progbar:
    def __init__(self, target: int | None, verbose: int = 1, stream=None):
        self.target, self.verbose = target, verbose
        self.stream = stream or sys.stdout
        self.dynamic = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.start = time.perf_counter()
        self._last_draw = 0.0
        self._width = 0

    def update(self, current: int, logs: dict | None = None, finalize: bool = False) -> None:
        logs = logs or {}
        now = time.perf_counter()
        elapsed = now - self.start
        per_step = elapsed / max(current, 1)
        if self.verbose == 2:
            if finalize:
                logs_text = format_logs(logs, by_size=False)
                self.stream.write(f"{current}/{self.target or current} - {elapsed:.0f}s - "
                                  f"{format_per_step(per_step)}{logs_text}\n")
                self.stream.flush()
            return
        if self.verbose != 1 or (not finalize and (not self.dynamic or now - self._last_draw < 0.05)):
            return
        self._last_draw = now
        target = self.target or current
        filled = int(WIDTH * current / target) if target else WIDTH
        bar = "━" * filled + "─" * (WIDTH - filled)
        shown = elapsed if finalize else per_step * (target - current)
        line = (f"{current}/{target} {bar} {shown:.0f}s {format_per_step(per_step)}"
                f"{format_logs(logs)}")
        if self.dynamic:
            padding = " " * max(0, self._width - len(line))
            self.stream.write("\r" + line + padding)
            self._width = len(line)
            if finalize:
                self.stream.write("\n")
        elif finalize:
            self.stream.write(line + "\n")
        self.stream.flush()
