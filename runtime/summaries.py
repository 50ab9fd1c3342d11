"""``tf.summary``: TensorBoard's summaries, accepted so that training loops that log run, and
written nowhere: event files need TensorFlow's summary writer. A writer says so once, when it
is made; ``scalar`` and the others return False ("not written"), as TensorFlow's do without a
default writer."""

from __future__ import annotations

import contextlib
import os
import warnings


class SummaryWriter:
    """What ``create_file_writer`` gives: usable as the default writer, writing nothing."""

    def __init__(self, logdir):
        self.logdir = os.fspath(logdir)

    @contextlib.contextmanager
    def as_default(self, step=None):
        yield self

    def set_as_default(self, step=None) -> None:
        pass

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass


def create_file_writer(logdir, max_queue=None, flush_millis=None, filename_suffix=None,
                       name=None, experimental_trackable=False) -> SummaryWriter:
    warnings.warn(f"tf.summary writes no event files here (they need TensorFlow's summary "
                  f"writer); nothing goes to {os.fspath(logdir)!r}. Print or save the values "
                  f"you log to keep them.", UserWarning, stacklevel=2)
    return SummaryWriter(logdir)


def create_noop_writer() -> SummaryWriter:
    return SummaryWriter("")


def _not_written(name, data=None, step=None, description=None, **kwargs) -> bool:
    return False


scalar = histogram = image = text = audio = _not_written


def flush(writer=None) -> None:
    pass


@contextlib.contextmanager
def record_if(condition):
    yield
