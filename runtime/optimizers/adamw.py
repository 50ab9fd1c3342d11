"""``rt.optimizers.AdamW``: Adam with decoupled weight decay (Loshchilov and Hutter)."""

from __future__ import annotations

from runtime.optimizers.adam import Adam


class AdamW(Adam):
    """Keras' ``AdamW``: ``Adam`` with ``weight_decay`` 0.004 by default (any optimizer takes
    ``weight_decay``; see ``runtime.optimizers.weight_decay``)."""

    def __init__(self, learning_rate=0.001, weight_decay: float = 0.004, beta_1: float = 0.9,
                 beta_2: float = 0.999, epsilon: float = 1e-7, amsgrad: bool = False,
                 name: str = "AdamW", **options):
        if isinstance(weight_decay, bool) or not isinstance(weight_decay, (int, float)):
            raise TypeError(f"{name}: weight_decay must be a number, got {weight_decay!r}.")
        super().__init__(learning_rate, beta_1, beta_2, epsilon, amsgrad, name,
                         weight_decay=weight_decay, **options)
