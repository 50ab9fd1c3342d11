"""Which op becomes what in JAX: one table keyed by ``OpDef``, and the ops that do not export.

``LOWERINGS`` maps an op to ``rule(node, *values) -> value or list of values``; the ops with
subgraphs, variable reads and effects are handled by ``jax_interpreter`` (``HANDLED``).
``NOT_EXPORTED`` gives every other registered op the reason it is refused; a test checks that
each registered op is in exactly one of them.
"""

from __future__ import annotations

from runtime import variables
from runtime.backends.jit.regions import COMPILED_REGION
from runtime.concrete_function import CALL
from runtime.export import (jax_arrays, jax_conv, jax_indexing, jax_linalg, jax_math, jax_more,
                            jax_nn, jax_reductions, pending_rules)
from runtime.ops import (io_ops, python_function_ops, random_ops, scatter_ops, sort_ops,
                         tensor_array_ops)
from runtime.ops.registry import COND, CONST, PLACEHOLDER, WHILE_LOOP
from runtime.passes.counted_loops import RANGE_FITS

LOWERINGS = {
    **jax_math.LOWERINGS,
    **jax_reductions.LOWERINGS,
    **jax_arrays.LOWERINGS,
    **jax_indexing.LOWERINGS,
    **jax_nn.LOWERINGS,
    **jax_more.LOWERINGS,
    **jax_conv.LOWERINGS,
    **jax_linalg.LOWERINGS,
}

# Handled by the interpreter itself (see jax_interpreter): structure, state and effects.
HANDLED = frozenset({PLACEHOLDER, CONST, COND, WHILE_LOOP, variables.READ, io_ops.PRINT,
                     io_ops.ASSERT, RANGE_FITS})

_TENSOR_ARRAY = (
    "TensorArrays (and lists grown in a loop) keep a buffer that grows and elements counted "
    "when the graph runs; JAX needs every shape while it traces. Stack the values into a "
    "preallocated tensor instead (e.g. with rt.where or a one-hot update), or export the "
    "function without the TensorArray.")
_RANDOM = (
    "random draws come from NumPy's generator, whose values JAX cannot reproduce, and a draw "
    "is an effect that a pure JAX function cannot keep. Draw the values outside (e.g. with "
    "jax.random) and pass them to the function as an argument.")

NOT_EXPORTED = {
    variables.ASSIGN: (
        "assigning a variable changes state outside the function, which a pure JAX function "
        "cannot do (variables are read as constants fixed at export). Return the new value "
        "(or the gradients) from the function and apply it outside, e.g. export a function "
        "that computes the gradients and update the variables with the results."),
    random_ops.UNIFORM: _RANDOM,
    random_ops.NORMAL: _RANDOM,
    COMPILED_REGION: (
        "compiled regions exist only in the compiled tier's private copy of a graph; export "
        "the concrete function's graph (concrete_function.graph), which never holds them."),
    CALL: ("calls of concrete functions are recorded by eager gradient tapes only and never "
           "appear in a traced graph."),
    sort_ops.UNIQUE: ("the number of distinct values is known only when the graph runs, and JAX "
                      "needs every shape while it traces; pass a fixed size outside instead."),
    **{op: ("an index out of range is an error in the runtime, but JAX clamps or drops it "
            "silently, so the exported function could give other results; checking the "
            "indices in JAX is future work.")
       for op in scatter_ops.INDEX_CHECKED},
    **{op: ("it calls a Python function when it runs, which a JAX function cannot hold: JAX "
            "traces its function once and runs what it traced. Export the function without it, "
            "or compute its result outside and pass it in as an argument.")
       for op in (python_function_ops.PY_FUNCTION, python_function_ops.NUMPY_FUNCTION)},
    **{op: _TENSOR_ARRAY for op in (
        tensor_array_ops.NEW, tensor_array_ops.WRITE, tensor_array_ops.READ,
        tensor_array_ops.STACK, tensor_array_ops.GATHER, tensor_array_ops.CONCAT,
        tensor_array_ops.UNSTACK, tensor_array_ops.READER_GRAD, tensor_array_ops.WRITE_GRAD)},
    **pending_rules.PENDING,
}
