"""Which ops export to ONNX, and why the others do not: one table keyed by ``OpDef``.

``RULES`` maps an op to the rule that writes its ONNX nodes; ``LOWERED`` lists the ops the
lowering itself handles (graph structure, control flow, variable reads); ``NOT_EXPORTED``
gives, for every other registered op, the reason it has no ONNX form. A test walks the
registry and fails when an op is in none of them, so a new op cannot be forgotten silently.
"""

from __future__ import annotations

from runtime.backends.jit.regions import COMPILED_REGION
from runtime.concrete_function import CALL
from runtime.export import (onnx_indexing, onnx_rules_array, onnx_rules_conv, onnx_rules_linalg,
                            onnx_rules_math, onnx_rules_more, onnx_rules_reduce,
                            onnx_tensor_arrays, pending_rules)
from runtime.ops import (bitwise_ops, io_ops, python_function_ops, random_ops, reduce_ops,
                         scan_ops, scatter_ops, sort_ops, special_math_ops)
from runtime.ops.registry import COND, CONST, PLACEHOLDER, WHILE_LOOP, OpDef
from runtime.variables import ASSIGN, READ

RULES = {**onnx_rules_math.RULES, **onnx_rules_array.RULES, **onnx_rules_reduce.RULES,
         **onnx_indexing.RULES, **onnx_tensor_arrays.RULES, **onnx_rules_more.RULES,
         **onnx_rules_conv.RULES, **onnx_rules_linalg.RULES}

LOWERED: dict[OpDef, str] = {
    PLACEHOLDER: "a graph input, named after the parameter",
    CONST: "an initializer",
    COND: "If, with both branches as subgraphs",
    WHILE_LOOP: "Loop (maximum_iterations as its trip count, the condition inlined before the "
                "loop and at the end of the body)",
    READ: "an initializer holding the variable's value at export time",
    io_ops.ASSERT: ("a check every output depends on, which makes the model fail with the "
                    "message as the failing node's name; inside a branch or loop body it is "
                    "refused, or left out with drop_effects=True"),
}

_EFFECT = ("Refused, or left out of the model with drop_effects=True")

NOT_EXPORTED: dict[OpDef, str] = {
    io_ops.PRINT: f"printing is an effect ONNX cannot express. {_EFFECT}.",
    ASSIGN: (f"writing a variable is state that outlives the call, and an ONNX model is a pure "
             f"function. {_EFFECT} (reads later in the same call see the value assigned)."),
    random_ops.UNIFORM: ("draws come from NumPy's generator, which ONNX's RandomUniform cannot "
                         "reproduce; pass the random values as inputs instead"),
    random_ops.NORMAL: ("draws come from NumPy's generator, which ONNX's RandomNormal cannot "
                        "reproduce; pass the random values as inputs instead"),
    reduce_ops.PRODUCT_OF_OTHERS_GRAD: (
        "the second derivative of reduce_prod carries dual numbers through exclusive products "
        "from both ends, which the exporter does not write as ONNX loops; the first derivative "
        "(product_of_others) exports"),
    COMPILED_REGION: ("it exists only in the compiled tier's private copy of a graph; the "
                      "ConcreteFunction's own graph, which is what is exported, never holds one"),
    CALL: "it is recorded only on eager gradient tapes, never in a traced graph",
    **pending_rules.PENDING,
    **onnx_rules_linalg.NOT_EXPORTED,
    **{op: ("no ONNX operator computes it exactly; composing one with NumPy's results at the "
            "edge values is future work")
       for op in (special_math_ops.EXPM1, special_math_ops.LOG_SIGMOID, special_math_ops.ATAN2,
                  special_math_ops.TRUNCATEDIV, special_math_ops.TRUNCATEMOD, scan_ops.CUMPROD,
                  scan_ops.CUMULATIVE_LOGSUMEXP, sort_ops.ARGSORT, sort_ops.TAKE_ALONG_AXIS,
                  sort_ops.TAKE_ALONG_AXIS_GRAD, sort_ops.SEARCHSORTED)},
    sort_ops.UNIQUE: ("its output's length depends on the values, and ONNX's Unique orders "
                      "values differently from TensorFlow's first-occurrence order"),
    **{op: ("an index out of range is an error in the runtime, which ONNX Runtime would not "
            "raise; checking every index in the model is future work")
       for op in scatter_ops.INDEX_CHECKED},
    **{op: ("the BitShift operator of ONNX takes unsigned integers only (a right shift of a signed "
            "integer is arithmetic here) and does not clamp the shift amount as TensorFlow "
            "does; writing it from other operators is future work")
       for op in (bitwise_ops.LEFT_SHIFT, bitwise_ops.RIGHT_SHIFT)},
    **{op: ("it calls a Python function when it runs, and an ONNX model holds ONNX operators "
            "only; export the function without it, or compute its result outside and pass it in")
       for op in (python_function_ops.PY_FUNCTION, python_function_ops.NUMPY_FUNCTION)},
}

# Effects without outputs: refused, or left out of the model with drop_effects=True (an
# assertion at the top of the function is kept as a check; see Lowering._effect).
EFFECTS = frozenset({io_ops.PRINT, io_ops.ASSERT, ASSIGN})


def not_exported() -> dict[str, str]:
    """Op name -> why it does not export, sorted by name (for the README and error text)."""
    return {op.name: reason for op, reason in sorted(NOT_EXPORTED.items(), key=lambda i: i[0].name)}
