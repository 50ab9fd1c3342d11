"""Checkpoints of a training run: the variables of the objects given to ``Checkpoint`` (models,
modules, optimizers, variables), written to one ``.npz`` archive and read back.

TensorFlow's own checkpoint format is not written (it needs TensorFlow); a checkpoint written
here is read here. Loading never runs code: the archive holds arrays only
(``allow_pickle=False``). Each object's variables are kept under its keyword, in the order the
object lists them. An optimizer makes its slots when it first applies gradients; restoring
one that has made none yet first makes them for the trainable variables of the checkpoint's
models, in their order, which is the order ``apply_gradients(zip(grads,
model.trainable_variables))`` makes them in.
"""

from __future__ import annotations

import os
import re
import warnings

import numpy as np

from runtime.variables import Variable

_FILE = re.compile(r"^(?P<prefix>.+)-(?P<number>\d+)\.npz$")


class Checkpoint:
    """``Checkpoint(model=model, optimizer=optimizer)``: ``save(prefix)`` writes
    ``prefix-N.npz`` (N counting the saves), ``write(path)`` writes ``path``, ``restore(path)``
    and ``read(path)`` assign what was written back to the same objects' variables."""

    def __init__(self, root=None, **objects):
        if root is not None:
            objects["root"] = root
        self._objects = objects
        # A variable, as in TensorFlow (``int(ckpt.save_counter)``, ``.numpy()``).
        self.save_counter = Variable(np.int64(0), trainable=False, name="save_counter")

    def __getattr__(self, name: str):
        """The objects given by keyword: ``ckpt.step.assign_add(1)``."""
        objects = self.__dict__.get("_objects", {})
        if name in objects:
            return objects[name]
        raise AttributeError(f"this Checkpoint has no {name!r}: it holds "
                             f"{', '.join(objects) or 'no objects'}.")

    def _variables(self) -> dict[str, list[Variable]]:
        return {key: _variables_of(value) for key, value in self._objects.items()}

    def write(self, file_prefix) -> str:
        """Writes ``file_prefix.npz``; returns ``file_prefix`` (what ``read`` takes, as
        TensorFlow's paths name a checkpoint without its files' suffixes)."""
        prefix = _prefix(file_prefix)
        arrays = {f"{key}/{index:05d}": np.asarray(variable.numpy())
                  for key, variables in self._variables().items()
                  for index, variable in enumerate(variables)}
        with open(prefix + ".npz", "wb") as file:  # a file object: np.savez adds no suffix
            np.savez(file, **arrays)
        return prefix

    def save(self, file_prefix) -> str:
        self.save_counter.assign_add(1)
        return self.write(f"{os.fspath(file_prefix)}-{int(self.save_counter.numpy())}")

    def read(self, save_path) -> "RestoreStatus":
        path = _prefix(save_path) + ".npz"
        if not os.path.exists(path):
            raise FileNotFoundError(f"no checkpoint at {_prefix(save_path)} (the file {path} "
                                    f"does not exist); CheckpointManager.latest_checkpoint "
                                    f"names the newest one.")
        with np.load(path, allow_pickle=False) as archive:
            saved: dict[str, dict[int, np.ndarray]] = {}
            for name in archive.files:
                key, _, index = name.rpartition("/")
                saved.setdefault(key, {})[int(index)] = archive[name]
        self._build_optimizers(saved)
        missing = []
        for key, variables in self._variables().items():
            arrays = saved.get(key, {})
            for index, variable in enumerate(variables):
                if index in arrays:
                    _assign(variable, arrays[index], key, path)
            missing += [f"{key}/{index}" for index in sorted(arrays) if index >= len(variables)]
        return RestoreStatus(path, missing)

    def restore(self, save_path) -> "RestoreStatus":
        """Like ``read``; a ``save_path`` of None (no checkpoint yet: ``latest_checkpoint``
        found none) restores nothing, as in TensorFlow."""
        if save_path is None:
            return RestoreStatus(None, [])
        match = _FILE.match(os.path.basename(_prefix(save_path)) + ".npz")
        if match:
            self.save_counter.assign(int(match["number"]))
        return self.read(save_path)

    def _build_optimizers(self, saved: dict) -> None:
        trainable = [variable for value in self._objects.values()
                     if not _is_optimizer(value)
                     for variable in getattr(value, "trainable_variables", ())]
        for key, value in self._objects.items():
            if _is_optimizer(value) and len(saved.get(key, {})) > len(value.variables) \
                    and trainable:
                value.build(trainable)


class RestoreStatus:
    """What ``restore`` did: ``assert_consumed`` raises if values in the file found no
    variable, ``expect_partial`` accepts that."""

    def __init__(self, path: str | None, unmatched: list[str]):
        self.path, self.unmatched = path, unmatched
        if unmatched:
            warnings.warn(f"{len(unmatched)} value(s) in {path} found no variable to restore "
                          f"({', '.join(unmatched[:5])}...): those objects have fewer "
                          f"variables than when it was written.", UserWarning, stacklevel=3)

    def assert_consumed(self) -> "RestoreStatus":
        if self.unmatched:
            raise AssertionError(f"values in {self.path} were not restored: "
                                 f"{', '.join(self.unmatched)}.")
        return self

    def expect_partial(self) -> "RestoreStatus":
        return self

    def assert_existing_objects_matched(self) -> "RestoreStatus":
        return self.assert_consumed()


class CheckpointManager:
    """Numbered saves of a ``Checkpoint`` in ``directory``, keeping the last
    ``max_to_keep``; ``latest_checkpoint`` is the newest one's path (None before any)."""

    def __init__(self, checkpoint: Checkpoint, directory, max_to_keep=5,
                 checkpoint_name="ckpt"):
        self._checkpoint, self.directory = checkpoint, os.fspath(directory)
        self.max_to_keep, self._name = max_to_keep, checkpoint_name
        os.makedirs(self.directory, exist_ok=True)

    @property
    def checkpoints(self) -> list[str]:
        return _numbered(self.directory, self._name)

    @property
    def latest_checkpoint(self) -> str | None:
        found = self.checkpoints
        return found[-1] if found else None

    def save(self, checkpoint_number=None) -> str:
        if checkpoint_number is not None:
            self._checkpoint.save_counter.assign(int(checkpoint_number) - 1)
        path = self._checkpoint.save(os.path.join(self.directory, self._name))
        if self.max_to_keep is not None:
            for old in self.checkpoints[:-self.max_to_keep]:
                os.remove(old + ".npz")
        return path


def latest_checkpoint(checkpoint_dir) -> str | None:
    """The newest numbered checkpoint in ``checkpoint_dir`` (any name), or None."""
    found = _numbered(os.fspath(checkpoint_dir), None)
    return found[-1] if found else None


def _numbered(directory: str, name: str | None) -> list[str]:
    if not os.path.isdir(directory):
        return []
    found = []
    for entry in os.listdir(directory):
        match = _FILE.match(entry)
        if match and (name is None or match["prefix"] == name):
            found.append((int(match["number"]), os.path.join(directory, entry)))
    return [_prefix(path) for _, path in sorted(found)]


def _prefix(path) -> str:
    """A checkpoint's name: its file's path without ``.npz``."""
    path = os.fspath(path)
    return path[:-len(".npz")] if path.endswith(".npz") else path


def _is_optimizer(value) -> bool:
    return hasattr(value, "apply_gradients") and hasattr(value, "build")


def _variables_of(value) -> list[Variable]:
    if isinstance(value, Variable):
        return [value]
    found = getattr(value, "variables", None)
    if found is None:
        raise TypeError(f"Checkpoint takes models, modules, optimizers and variables, got "
                        f"{type(value).__name__}, which has no variables.")
    return list(found() if callable(found) else found)


def _assign(variable: Variable, array: np.ndarray, key: str, path: str) -> None:
    if tuple(array.shape) != tuple(variable.shape):
        raise ValueError(f"{path} holds a value of shape {array.shape} for variable "
                         f"{variable.name!r} of {key!r}, which has shape "
                         f"{tuple(variable.shape)}: the checkpoint was written by another "
                         f"model.")
    variable.assign(array.astype(variable.dtype))
