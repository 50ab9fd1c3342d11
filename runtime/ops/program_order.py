"""TensorFlow's ways of ordering ops, which this runtime needs no help with: effects (prints,
assertions, variable writes, random draws, Python functions) always run, in the order the
program wrote them, eagerly and in graphs; pure ops run when a result needs them, and have
nothing to order. So ``control_dependencies`` orders nothing, and ``group`` and ``no_op``
make no op: each returns None, as TensorFlow's do eagerly; ``device`` places nothing (all
runs on the CPU). ``init_scope`` does what
TensorFlow's does: the ops in it run eagerly, outside any function being traced."""

from __future__ import annotations

import contextlib
import threading
from typing import Iterable, Iterator

from runtime import tracing
from runtime.autodiff import recording
from runtime.ops.array_ops import identity


def no_op(name=None) -> None:
    """Nothing (TensorFlow's placeholder op). ``name`` is accepted and ignored."""
    return None


def group(*inputs, name=None) -> None:
    """Nothing to wait for: the effects among ``inputs`` ran (or will run) in program order
    anyway, and pure values need no running. ``name`` is accepted and ignored."""
    return None


@contextlib.contextmanager
def control_dependencies(control_inputs: Iterable | None) -> Iterator[None]:
    """A block whose ops TensorFlow would run after ``control_inputs``. Effects already run in
    program order here, so the block changes nothing; a pure value among ``control_inputs``
    is computed only if something uses it (an error it would raise, such as an index out of
    range, is then not raised)."""
    yield


@contextlib.contextmanager
def device(device_name) -> Iterator[None]:
    """A block whose ops TensorFlow would place on ``device_name`` ("CPU:0", "/GPU:0", ...).
    Everything runs on the CPU here, which is what TensorFlow does on a machine without the
    device named (soft placement): the block changes nothing."""
    if device_name is not None and not isinstance(device_name, str) \
            and not callable(getattr(device_name, "to_string", None)):
        raise TypeError(f"device: the device name must be a string such as 'CPU:0', got "
                        f"{device_name!r}.")
    yield


@contextlib.contextmanager
def init_scope() -> Iterator[None]:
    """A block that runs eagerly even inside a function being traced, unseen by gradient
    tapes: for values computed once (a variable's initial value), as in TensorFlow. A
    symbolic tensor of the traced function cannot be used inside it."""
    with tracing.eager_scope(), recording.paused():
        yield


class _OpenScopes(threading.local):
    def __init__(self):
        self.names: list[str] = []  # the full names of the scopes entered, innermost last


_open_scopes = _OpenScopes()


class name_scope:  # noqa: N801 - TensorFlow's name
    """TensorFlow's ``name_scope``: a block whose graph nodes TensorFlow prefixes with
    ``name``. Nodes here are named by their op and source line, so it changes nothing; the
    ``with`` target is the scope's full name (``"outer/inner/"``; a name ending in ``/`` is
    taken as a full name), as in TensorFlow."""

    def __init__(self, name: str):
        if not isinstance(name, str):
            raise TypeError(f"name_scope: the name must be a string, got {name!r}.")
        self._name = name

    @property
    def name(self) -> str:
        return self._name

    def __enter__(self) -> str:
        names = _open_scopes.names
        if not self._name or self._name.endswith("/"):
            full = self._name
        else:
            full = (names[-1] if names else "") + self._name + "/"
        names.append(full)
        return full

    def __exit__(self, *exc_info) -> None:
        _open_scopes.names.pop()


def get_current_name_scope() -> str:
    """The full name of the innermost ``name_scope`` open, without its final ``/`` (``""``
    outside every scope), as TensorFlow gives it."""
    names = _open_scopes.names
    return names[-1].rstrip("/") if names else ""


def identity_n(input) -> list:  # noqa: A002 - TensorFlow's parameter name
    """Each of the tensors ``input``, as a list (one identity per tensor, so each keeps its
    dtype, unlike ``stack``)."""
    return [identity(value) for value in input]


def tuple(tensors, control_inputs=None, name=None) -> list:  # noqa: A001 - TensorFlow's name
    """``tensors`` as a list of tensors, available once all of them are: everything here runs
    in program order already (see the module docstring), so only the identities remain;
    ``None`` entries stay ``None``."""
    return [None if value is None else identity(value) for value in tensors]


def guarantee_const(input, name=None):  # noqa: A002
    """``input`` unchanged: TensorFlow's promise to its optimizer that the value is constant
    over a call, which the runtime does not use."""
    return identity(input)

