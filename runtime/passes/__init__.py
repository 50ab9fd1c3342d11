"""Graph optimization passes, run on every traced graph before it is compiled."""

from runtime.passes.pipeline import PassRecord, optimize

__all__ = ["optimize", "PassRecord"]
