"""``tf.train.Checkpoint``'s archive: written and read back, its errors, no code run on load."""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt
from runtime.checkpoints import Checkpoint, CheckpointManager, latest_checkpoint


def test_variables_and_modules_round_trip(tmp_path):
    module = rt.Module()
    module.w = rt.Variable(np.arange(6.0).reshape(2, 3))
    counter = rt.Variable(np.int64(3))
    path = Checkpoint(net=module, counter=counter).write(tmp_path / "state")
    module.w.assign(np.zeros((2, 3)))
    counter.assign(np.int64(0))
    Checkpoint(net=module, counter=counter).read(path).assert_consumed()
    assert module.w.numpy().tolist() == [[0, 1, 2], [3, 4, 5]] and counter.numpy() == 3


def test_a_missing_or_foreign_checkpoint_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="no checkpoint at"):
        Checkpoint(v=rt.Variable(1.0)).restore(tmp_path / "nothing-1")
    path = Checkpoint(v=rt.Variable([1.0, 2.0])).write(tmp_path / "two")
    with pytest.raises(ValueError, match="shape .* written by another model"):
        Checkpoint(v=rt.Variable([1.0, 2.0, 3.0])).read(path)
    assert Checkpoint(v=rt.Variable(1.0)).restore(None).unmatched == []  # nothing saved yet


def test_a_manager_numbers_and_prunes_its_saves(tmp_path):
    variable = rt.Variable(0.0)
    manager = CheckpointManager(Checkpoint(v=variable), tmp_path, max_to_keep=2)
    assert manager.latest_checkpoint is None
    for value in (1.0, 2.0, 3.0):
        variable.assign(value)
        manager.save()
    assert [p.rsplit("/", 1)[-1] for p in manager.checkpoints] == ["ckpt-2", "ckpt-3"]
    assert latest_checkpoint(tmp_path) == manager.latest_checkpoint
    Checkpoint(v=variable).restore(manager.checkpoints[0])
    assert variable.numpy() == 2.0


def test_an_archive_holding_objects_is_refused_not_unpickled(tmp_path):
    path = tmp_path / "hostile.npz"
    np.savez(path, **{"v/00000": np.array([{"code": "run"}], dtype=object)})
    with pytest.raises(ValueError, match="allow_pickle"):
        Checkpoint(v=rt.Variable([1.0])).read(tmp_path / "hostile")
