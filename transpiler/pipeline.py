"""The converters, in the one order that is correct, applied to a parsed function."""

from __future__ import annotations

import dataclasses

import gast

from transpiler.analysis import activity
from transpiler.converters import (break_statements, call_trees, continue_statements,
                                   control_flow, expressions, loop_options, return_statements,
                                   unsupported, variables)
from transpiler.converters.base import Context, own_scope_walk

# Order matters, and each step says why it comes where it does.
CONVERTERS = (
    ("unsupported", unsupported.transform),          # fail before changing anything
    ("loop_options", loop_options.transform),        # while set_loop_options is still first
    ("break", break_statements.transform),           # emits `continue`, lowered next
    ("continue", continue_statements.transform),
    ("return", return_statements.transform),         # after loop jumps: its guards wrap theirs
    ("calls", call_trees.transform),                 # before the calls move into closures
    ("expressions", expressions.transform),          # and/or/not/ternary, incl. the new flags
    ("control_flow", control_flow.transform),        # analyses see the final variables
    ("variables", variables.transform),              # needs the reaching definitions above
)


def convert_tree(fn_node: gast.FunctionDef, ctx: Context) -> None:
    """Converts ``fn_node`` in place; nested functions first, each as its own scope. Nested
    generator functions stay plain Python: they run when iterated, and ``ag__.converted``
    leaves generator functions alone too."""
    nested = [node for node in own_scope_walk(fn_node.body, blocks_only=True)
              if isinstance(node, gast.FunctionDef) and not unsupported.is_generator(node)]
    if nested:
        own_locals = {str(q) for q in activity.resolve(fn_node).local_names}
        inner = dataclasses.replace(ctx, enclosing_locals=ctx.enclosing_locals | own_locals)
        for node in nested:
            convert_tree(node, inner)
    for _, converter in CONVERTERS:
        converter(fn_node, ctx)
