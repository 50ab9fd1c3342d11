"""``tf.train``: checkpoints of a training run (``runtime.checkpoints``: an ``.npz`` archive,
read back here; TensorFlow's own format is not written)."""

from runtime import checkpoints as _checkpoints
from transpiler.tf._names import export as _export, missing as _missing

_export(globals(), _checkpoints, "Checkpoint CheckpointManager latest_checkpoint")

__getattr__ = _missing("tf.train")
