"""The op registry: one ``OpDef`` per op, and the table that maps names to them.

An ``OpDef`` declares everything about an op in one place: the NumPy kernel that computes it,
the rule that infers output dtypes and shapes while tracing, its gradient rule, and whether it
is an effect (runs on every call in program order, never pruned) or stateful (reads mutable
state: never folded or merged, but pruned when unused). Code tests which op a node runs by identity
(``node.op is WHILE_LOOP``) or by these properties, never by name; names are for printing and
for reading saved graphs (``get_op``). This module imports nothing else of the runtime, so any
module can import it at the top (``runtime.ops.dispatch`` runs ops).
"""

from __future__ import annotations

import enum
import importlib
import pkgutil
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

Kernel = Callable[..., Any]


class _NotDifferentiable:
    """The gradient rule of ops whose outputs carry no gradient (comparisons, argmax, integer
    arithmetic, shapes): a gradient asked through them is ``None``, as in TensorFlow."""

    def __repr__(self) -> str:
        return "NOT_DIFFERENTIABLE"


NOT_DIFFERENTIABLE = _NotDifferentiable()


class Promotion(enum.Enum):
    """How an op's inputs of different dtypes (and Python numbers) are reconciled."""

    NONE = "inputs are used as given"
    COMMON = ("every input is cast to the dtype they promote to (dtypes.promote_types): the "
              "kernel sees one dtype, so eager, graph and inferred dtypes agree")
    COMPARE = ("Python numbers take NumPy's dtype next to the tensors, tensors stay as they "
               "are: the result is bool, and NumPy compares mixed dtypes exactly")


@dataclass(frozen=True, eq=False)
class OpDef:
    """Everything the runtime knows about one op."""

    name: str
    kernel: Kernel | None
    infer: Callable[..., Any] | None
    effect: bool = False          # print, assert, variable writes, random draws
    stateful: bool = False        # variable reads: ordered, never folded or merged
    promotion: Promotion = Promotion.NONE
    unpromoted: int = 0           # leading inputs promotion leaves alone (where's condition)
    num_outputs: int | None = 1   # None: as many as the type rule gives (py_function's Tout)
    # Optional: ``bind(attrs, input_types) -> callable(*arrays)`` for a specialized kernel.
    bind: Callable[..., Callable] | None = None
    # ``gradient(node, *output_grads) -> one gradient (or None) per input``, built from ops so
    # it runs eagerly or adds nodes to the graph being traced (see runtime.autodiff). An
    # output's gradient is None when nothing depends on it. ``None`` here: no rule (asking
    # for a gradient through the op is an error); NOT_DIFFERENTIABLE: the gradient is None.
    gradient: Callable[..., Sequence] | _NotDifferentiable | None = None
    reads_variable: bool = False  # its output is a variable's value (a gradient source)
    doc: str = field(default="", repr=False)

    def define_gradient(self, rule: Callable[..., Sequence]) -> None:
        """Sets the gradient rule of an op declared before its rule could be (the ops with
        subgraphs, whose rules build control flow)."""
        if self.gradient is not None:
            raise ValueError(f"op {self.name!r} already has a gradient rule")
        object.__setattr__(self, "gradient", rule)

    def bound_kernel(self, attrs: dict, input_types: Sequence[tuple]) -> Callable:
        """The kernel with its attributes fixed, as the executor calls it."""
        if self.bind is not None:
            return self.bind(attrs, input_types)
        if not attrs:
            return self.kernel
        kernel, frozen = self.kernel, dict(attrs)
        return lambda *arrays: kernel(*arrays, **frozen)


_REGISTRY: dict[str, OpDef] = {}


def register(op: OpDef) -> OpDef:
    if op.name in _REGISTRY:
        raise ValueError(f"op {op.name!r} is registered twice")
    _REGISTRY[op.name] = op
    return op


def get_op(name: str) -> OpDef:
    op = _REGISTRY.get(name)
    if op is None:
        _register_every_family()
        op = _REGISTRY.get(name)
    if op is None:
        raise KeyError(f"unknown op {name!r}")
    return op


def _register_every_family() -> None:
    """Imports every module of ``runtime.ops``: a family is registered when its module is
    first imported (image ops by ``tf.image``, Keras' augmentation by its layers), and a graph
    saved by a program that used one names it before this program has imported it."""
    package = importlib.import_module("runtime.ops")
    for module in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"runtime.ops.{module.name}")


def all_ops() -> dict[str, OpDef]:
    return dict(_REGISTRY)


PLACEHOLDER = register(OpDef("placeholder", None, None))
CONST = register(OpDef("const", None, None, gradient=NOT_DIFFERENTIABLE))
# The ops with subgraphs (runtime.control_flow builds them): defined here with the other ops
# the IR itself knows, so the executor and the passes need not import the user-facing API.
COND = register(OpDef("cond", None, None))
WHILE_LOOP = register(OpDef("while_loop", None, None))
