"""Reverse-mode automatic differentiation: tapes, the backward pass and gradient rules that
need more than one op (control flow, custom gradients).

Every op's own gradient rule lives next to its kernel in ``runtime.ops``; this package records
what ran (eagerly on a tape, in a trace as the graph itself) and runs the rules backwards.
"""
