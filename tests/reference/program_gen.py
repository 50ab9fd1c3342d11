"""A Hypothesis strategy for random small programs ``def f(a, b):`` over ints, as source text.

The programs are valid in every mode the fuzzer compares, by construction:

* Termination: every ``while`` has its own counter ``cK`` (set to 0 just before the loop,
  incremented first thing in the body, so ``continue`` cannot skip it) and its test is
  ``cK < N and <comparison>`` with N <= 5; ``for`` loops run over ``range(<expr> % K)`` with
  K <= 5 or over a literal list of <= 3 ints. Nesting is at most 3 deep.
* No int32 overflow: the arguments are in [-50, 50] and every variable stays in [-999, 999]:
  each assignment is ``v = (<expr>) % 1000``, each ``+=``/``-=``/``*=`` is followed by
  ``v %= 1000``, and ``//=``/``%=`` use constants 1..9. An expression adds or subtracts at
  most three terms of the form ``p``, ``p * q``, ``p // d`` or ``p % d`` where the divisor
  ``d`` is a constant 1..9 or ``(q % 7 + 1)``, so every intermediate value is below
  3 * 999 * 999 and no divisor is ever zero.
* Graph validity: every variable returned or read after a block is set at the top
  (``x``, ``y``, ``z``); only they are assigned. The tests of ``while`` loops and the bounds
  of staged ``for`` loops always involve an argument (a tensor in graph mode), so those loops
  are staged from their first iteration on. Loops that are Python loops even in a graph
  (over a list literal, or ``while cK < N`` alone) contain no ``break`` and no ``return``
  (that would make a Python loop's exit depend on a tensor), only ``continue``.
* All returns return a 3-tuple of ints.

``FEATURES`` switches off constructs a transpiler may legitimately reject (env
``E2G_FUZZ_OFF=loop_returns,branch_returns,chained``).
"""

from __future__ import annotations

import dataclasses
import os

from hypothesis import strategies as st

VARIABLES = ("x", "y", "z")
ARGUMENTS = ("a", "b")
ARG_RANGE = (-50, 50)
INDENT = "    "
MAX_DEPTH = 3


@dataclasses.dataclass(frozen=True)
class Features:
    """Constructs the generator may use."""

    loop_returns: bool = True    # return inside staged loops (AutoGraph fails on zero trips)
    branch_returns: bool = True  # return in a branch that is not the last statement's
    chained: bool = True         # chained comparisons a < b < c on tensors
    prints: bool = True          # print(..., a) inside control flow (run-time prints)
    python_loops: bool = True    # loops that stay Python loops in graph mode


def _features_from_env() -> Features:
    off = {name.strip() for name in os.environ.get("E2G_FUZZ_OFF", "").split(",") if name.strip()}
    unknown = off - {f.name for f in dataclasses.fields(Features)}
    if unknown:
        raise ValueError(f"E2G_FUZZ_OFF: unknown features {sorted(unknown)}")
    return Features(**{name: False for name in off})


FEATURES = _features_from_env()


@dataclasses.dataclass(frozen=True)
class Scope:
    """What a statement at this point may use."""

    names: tuple[str, ...]    # readable names
    depth: int                # number of enclosing compound statements
    loop: str | None          # innermost loop: "staged", "python" or None
    may_return: bool          # False inside Python loops (a return there could depend on a tensor)
    top_level: bool = False   # directly in the function body

    def inside(self, loop: str | None = None, names: tuple[str, ...] = ()) -> "Scope":
        return Scope(self.names + names, self.depth + 1, loop or self.loop,
                     self.may_return and loop != "python")


class _Namer:
    """Fresh loop counters ``c0, c1, ...`` and loop targets ``i0, i1, ...`` for one program."""

    def __init__(self) -> None:
        self.counters = 0
        self.targets = 0

    def counter(self) -> str:
        self.counters += 1
        return f"c{self.counters - 1}"

    def target(self) -> str:
        self.targets += 1
        return f"i{self.targets - 1}"


# --------------------------------------------------------------------------------------------
# Expressions (strings)


def _atom(draw, scope: Scope) -> str:
    if draw(st.integers(0, 2)):
        return draw(st.sampled_from(scope.names))
    return str(draw(st.integers(0, 9)))


def _divisor(draw, scope: Scope) -> str:
    """A constant 1..9, or ``(v % 7 + 1)``: never zero."""
    if draw(st.booleans()):
        return str(draw(st.integers(1, 9)))
    return f"({draw(st.sampled_from(scope.names))} % 7 + 1)"


def _term(draw, scope: Scope) -> str:
    kind = draw(st.integers(0, 3))
    p = _atom(draw, scope)
    if kind == 0:
        return p
    if kind == 1:
        return f"{p} * {_atom(draw, scope)}"
    return f"{p} {'//' if kind == 2 else '%'} {_divisor(draw, scope)}"


def _expr(draw, scope: Scope, max_extra_terms: int = 2) -> str:
    text = _term(draw, scope)
    for _ in range(draw(st.integers(0, max_extra_terms))):
        text += f" {draw(st.sampled_from('+-'))} {_term(draw, scope)}"
    return text


def _tensor_expr(draw, scope: Scope) -> str:
    """An expression that involves an argument, hence a tensor in graph mode."""
    arg = draw(st.sampled_from(ARGUMENTS))
    kind = draw(st.integers(0, 2))
    if kind == 0:
        return arg
    if kind == 1:
        return f"{arg} {draw(st.sampled_from('+-'))} {_term(draw, scope)}"
    return f"{arg} * {_atom(draw, scope)}"


_RELATIONS = ("<", "<=", ">", ">=", "==", "!=")


def _comparison(draw, scope: Scope, tensor: bool = False) -> str:
    left = _tensor_expr(draw, scope) if tensor else _expr(draw, scope, 1)
    return f"{left} {draw(st.sampled_from(_RELATIONS))} {_expr(draw, scope, 1)}"


def _condition(draw, scope: Scope) -> str:
    kind = draw(st.integers(0, 4 if FEATURES.chained else 3))
    if kind == 0:
        return _comparison(draw, scope)
    if kind == 1:
        return f"{_comparison(draw, scope)} and {_comparison(draw, scope)}"
    if kind == 2:
        return f"{_comparison(draw, scope)} or {_comparison(draw, scope)}"
    if kind == 3:
        return f"not ({_comparison(draw, scope)})"
    relation = draw(st.sampled_from(("<", "<=")))
    return f"{_term(draw, scope)} {relation} {_term(draw, scope)} {relation} {_term(draw, scope)}"


def _wrapped(expr: str) -> str:
    return f"({expr}) % 1000"


# --------------------------------------------------------------------------------------------
# Statements (lists of lines, indented relative to their block)

Lines = list[str]


def _indent(lines: Lines) -> Lines:
    return [INDENT + line for line in lines]


def _assignment(draw, scope: Scope) -> Lines:
    target = draw(st.sampled_from(VARIABLES))
    kind = draw(st.integers(0, 5))
    if kind == 0:
        return [f"{target} = {_wrapped(_expr(draw, scope))}"]
    if kind in (1, 2):
        op = "+=" if kind == 1 else "-="
        return [f"{target} {op} {_expr(draw, scope)}", f"{target} %= 1000"]
    if kind == 3:
        return [f"{target} *= {_atom(draw, scope)}", f"{target} %= 1000"]
    op = "//=" if kind == 4 else "%="
    return [f"{target} {op} {draw(st.integers(1, 9))}"]


def _print(draw, scope: Scope) -> Lines:
    value = draw(st.sampled_from([name for name in scope.names if name != "a"]))
    return [f"print('{value}', {value}, 'a', a)"]


def _return(draw, scope: Scope) -> Lines:
    values = [v if draw(st.booleans()) else _wrapped(_expr(draw, scope)) for v in VARIABLES]
    return ["return " + ", ".join(values)]


def _jump(draw, scope: Scope) -> Lines | None:
    """A break/continue/return that may end the current block, or None."""
    options = []
    if scope.loop is not None:
        options.append("continue")
    if scope.loop == "staged":
        options.append("break")
    if scope.may_return and (FEATURES.branch_returns or scope.top_level) and \
            (FEATURES.loop_returns or scope.loop is None):
        options.append("return")
    if not options or draw(st.integers(0, 3)) != 0:  # a jump ends one block in four
        return None
    choice = draw(st.sampled_from(options))
    return _return(draw, scope) if choice == "return" else [choice]


def _block(draw, scope: Scope, namer: _Namer, max_statements: int = 3) -> Lines:
    lines: Lines = []
    for _ in range(draw(st.integers(1, max_statements))):
        lines += _statement(draw, scope, namer)
    jump = _jump(draw, scope)
    return lines + (jump or [])


def _if(draw, scope: Scope, namer: _Namer) -> Lines:
    inner = scope.inside()
    lines = [f"if {_condition(draw, scope)}:"] + _indent(_block(draw, inner, namer))
    for _ in range(draw(st.integers(0, 2))):
        lines += [f"elif {_condition(draw, scope)}:"] + _indent(_block(draw, inner, namer))
    if draw(st.booleans()):
        lines += ["else:"] + _indent(_block(draw, inner, namer))
    return lines


def _staged_while(draw, scope: Scope, namer: _Namer) -> Lines:
    counter = namer.counter()
    limit = draw(st.integers(1, 5))
    test = f"{counter} < {limit} and {_comparison(draw, scope, tensor=True)}"
    body = _block(draw, scope.inside("staged", (counter,)), namer)
    return [f"{counter} = 0", f"while {test}:", INDENT + f"{counter} += 1"] + _indent(body)


def _staged_for(draw, scope: Scope, namer: _Namer) -> Lines:
    target = namer.target()
    bound = _tensor_expr(draw, scope)
    bound = bound if bound in ARGUMENTS else f"({bound})"
    header = f"for {target} in range({bound} % {draw(st.integers(2, 5))}):"
    return [header] + _indent(_block(draw, scope.inside("staged", (target,)), namer))


def _python_loop(draw, scope: Scope, namer: _Namer) -> Lines:
    if draw(st.booleans()):
        target = namer.target()
        items = draw(st.lists(st.integers(0, 4), min_size=1, max_size=3))
        body = _block(draw, scope.inside("python", (target,)), namer)
        return [f"for {target} in {items}:"] + _indent(body)
    counter = namer.counter()
    body = _block(draw, scope.inside("python", (counter,)), namer)
    return [f"{counter} = 0", f"while {counter} < {draw(st.integers(1, 3))}:",
            INDENT + f"{counter} += 1"] + _indent(body)


def _statement(draw, scope: Scope, namer: _Namer) -> Lines:
    kinds = ["assign", "assign"]
    if FEATURES.prints:
        kinds.append("print")
    if scope.depth < MAX_DEPTH:
        kinds += ["if", "if", "while", "for"]
        if FEATURES.python_loops:
            kinds.append("python_loop")
    kind = draw(st.sampled_from(kinds))
    if kind == "assign":
        return _assignment(draw, scope)
    if kind == "print":
        return _print(draw, scope)
    if kind == "if":
        return _if(draw, scope, namer)
    if kind == "while":
        return _staged_while(draw, scope, namer)
    if kind == "for":
        return _staged_for(draw, scope, namer)
    return _python_loop(draw, scope, namer)


@st.composite
def programs(draw) -> str:
    """Source text of a module defining ``f(a, b)`` that returns a tuple of three ints."""
    namer = _Namer()
    scope = Scope(VARIABLES + ARGUMENTS, depth=0, loop=None, may_return=True, top_level=True)
    body = ["x = 0", "y = 1", "z = a"]
    body += _block(draw, scope, namer, max_statements=4)
    if not body[-1].startswith("return"):
        body.append("return x, y, z")
    return "def f(a, b):\n" + "\n".join(_indent(body)) + "\n"


arguments = st.integers(*ARG_RANGE)
