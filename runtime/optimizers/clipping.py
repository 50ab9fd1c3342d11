"""Keras' gradient clipping options of every optimizer: ``clipnorm``, ``global_clipnorm`` and
``clipvalue`` (one at most), applied to the gradients before the update.

A gradient of rows (``IndexedSlices``, an embedding's) is clipped as rows, as TensorFlow's
clipping functions do: its norm is that of the rows (a repeated id counts once per row), and
``clipvalue`` limits each row. ``clipnorm`` and ``clipvalue`` leave rows for the update to
apply as rows; ``global_clipnorm`` scales the dense gradient (Keras multiplies it by the
scale, which makes it dense), with the norm still taken over the rows.
"""

from __future__ import annotations

from typing import Sequence

from runtime.ops.array_ops import clip_by_value
from runtime.ops.norm_ops import clip_by_global_norm, clip_by_norm, global_norm
from runtime.optimizers.rows import dense


class Clipping:
    """The clipping an optimizer was given (or none), as a function of its gradients."""

    def __init__(self, name: str, clipnorm=None, clipvalue=None, global_clipnorm=None):
        given = {key: value for key, value in (("clipnorm", clipnorm), ("clipvalue", clipvalue),
                                               ("global_clipnorm", global_clipnorm))
                 if value is not None}
        if len(given) > 1:
            raise ValueError(f"{name}: only one of clipnorm, clipvalue and global_clipnorm can be "
                             f"set, got {', '.join(f'{k}={v!r}' for k, v in given.items())}.")
        for key, value in given.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"{name}: {key} must be a number, got {value!r}.")
        self.clipnorm, self.clipvalue, self.global_clipnorm = (
            None if value is None else float(value)
            for value in (clipnorm, clipvalue, global_clipnorm))

    def __call__(self, gradients: Sequence) -> list:
        """The gradients clipped, or as they are when no clipping is set; as in Keras, a
        limit of 0 or less clips nothing."""
        if self.clipnorm is not None and self.clipnorm > 0:
            return [clip_by_norm(g, self.clipnorm) for g in gradients]
        if self.global_clipnorm is not None and self.global_clipnorm > 0:
            return clip_by_global_norm([dense(g) for g in gradients], self.global_clipnorm,
                                       use_norm=global_norm(gradients))[0]
        if self.clipvalue is not None and self.clipvalue > 0:
            return [clip_by_value(g, -self.clipvalue, self.clipvalue) for g in gradients]
        return list(gradients)
