"""A Hypothesis strategy for random small programs ``def f(a, b):``, as module source text.

Each ``Mode`` fixes the numbers the programs compute with:

* ``INT32``: arguments in [-50, 50], variables kept in [-999, 999] (``% 1000``), graph inputs
  int32 tensors.
* ``INT64``: arguments up to +-2**41 (beyond int32), variables kept below 10**13 (``% M`` with
  ``M = 10**13``), graph inputs int64 tensors. A product's second factor is a constant 0..9 or
  ``(q % 1000)``, so no intermediate value exceeds 3 * 10**16 (int64 holds 9.2 * 10**18).
* ``FLOAT64``: float arguments (fractions, up to +-10**12, and tiny ones like 1e-300), variables
  floats below 10**13, graph inputs float64 tensors; loop bounds are ``int(<expr> % 1000.0) % K``
  (a graph's int() holds int64 only, Python's any size). Python
  and NumPy compute the same IEEE doubles, so the answers are compared to 1e-12.

The programs are valid in every mode the fuzzer compares, by construction:

* Termination: every ``while`` has its own counter ``cK`` (set to 0 just before the loop,
  incremented first thing in the body, so ``continue`` cannot skip it) and its test is
  ``cK < N and <comparison>`` with N <= 5; ``for`` loops run over ``range(<expr> % K)`` with
  K <= 5 or over a literal list of <= 3 ints. Nesting is at most 3 deep.
* No overflow and no division by zero: each assignment is ``v = (<expr>) % M``, each
  ``+=``/``-=``/``*=`` is followed by ``v %= M``, and ``//=``/``%=`` use constants 1..9. An
  expression adds or subtracts at most three terms ``p``, ``p * q``, ``p // d`` or ``p % d``
  where the divisor ``d`` is a constant 1..9 or ``(q % 7 + 1)``.
* Graph validity: every variable returned or read after a block is set at the top
  (``x``, ``y``, ``z``); only they are assigned. The tests of ``while`` loops and the bounds
  of staged ``for`` loops always involve an argument (a tensor in graph mode), so those loops
  are staged from their first iteration on. Loops that are Python loops even in a graph
  (over a list literal, or ``while cK < N`` alone) contain no ``break`` and no ``return``
  (that would make a Python loop's exit depend on a tensor), only ``continue``.
* All returns return a tuple of the same length.

``Features`` adds the constructs of issue 9 (all off by default):

* ``state``: ``S.v = (S.v + <expr>) % M`` (an attribute of a module-level object) and
  ``G = (G + <expr>) % M`` (a global), only under tensor control flow (inside a staged loop or
  an ``if`` whose test reads an argument). ``_reset()`` / ``_read()`` in the module give the
  harness the state to compare after each call.
* ``chained_calls``: conditions ``p < _f(q) <= r``; ``_f`` returns its argument and records
  the call in ``_CALLS`` (``_calls()`` in the module), compared where Python control flow runs.
* ``try_return``: where a ``return`` may stand, ``try: return _h(K, x, y, z)`` /
  ``except ValueError: pass``; ``_h`` raises when K is 1, so execution goes on after it.
* ``appends``: ``out = []`` at the top, ``out.append(<expr> % 1000)`` inside staged loops,
  and every return returns ``len(out)`` too (returns inside loops are then left out: ``len``
  of a list being filled is not what is tested).

``python_numbers=False`` starts ``x``, ``y`` and the ``while`` counters as ``a * 0`` (``+ 1``)
instead of Python numbers: in a graph they are then tensors of the arguments' dtype from the
start, so a Python int never meets an int64 tensor in a loop or a branch.

``E2G_FUZZ_OFF=loop_returns,branch_returns,chained,prints,python_loops,python_numbers``
switches off constructs a transpiler may legitimately reject.
"""

from __future__ import annotations

import dataclasses
import os
import re

from hypothesis import assume
from hypothesis import strategies as st

VARIABLES = ("x", "y", "z")
ARGUMENTS = ("a", "b")
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
    python_numbers: bool = True  # x, y and loop counters start as Python numbers (else as
                                 # `a * 0`: tensors of the arguments' dtype in a graph)
    # issue 9 constructs, off unless asked for
    state: bool = False          # attribute and global assigned under tensor control flow
    chained_calls: bool = False  # p < _f(q) <= r, counting the calls of _f
    try_return: bool = False     # try: return _h(...) / except ValueError: pass
    appends: bool = False        # out.append(...) inside staged loops, len(out) returned

    def with_(self, **changes: bool) -> "Features":
        return dataclasses.replace(self, **changes)


def _features_from_env() -> Features:
    off = {name.strip() for name in os.environ.get("E2G_FUZZ_OFF", "").split(",") if name.strip()}
    unknown = off - {f.name for f in dataclasses.fields(Features)}
    if unknown:
        raise ValueError(f"E2G_FUZZ_OFF: unknown features {sorted(unknown)}")
    return Features(**{name: False for name in off})


FEATURES = _features_from_env()


@dataclasses.dataclass(frozen=True)
class Mode:
    """The numbers a program computes with (see the module docstring)."""

    name: str
    dtype: str               # of the graph's tensor arguments
    modulus: str             # M, as program text
    floats: bool             # float variables and arguments
    small_factors: bool      # the second factor of a product is below 1000


INT32 = Mode("int32", "int32", "1000", floats=False, small_factors=False)
INT64 = Mode("int64", "int64", "10000000000000", floats=False, small_factors=True)
FLOAT64 = Mode("float64", "float64", "10000000000000.0", floats=True, small_factors=False)
MODES = {mode.name: mode for mode in (INT32, INT64, FLOAT64)}


def arguments(mode: Mode = INT32) -> st.SearchStrategy:
    """Argument values of ``mode``: mostly small, often beyond 32 bits for the 64-bit modes."""
    if mode is INT32:
        return st.integers(-50, 50)
    if mode is INT64:
        return st.one_of(st.integers(-50, 50), st.integers(2**31, 2**41),
                         st.integers(-2**41, -2**31))
    return st.one_of(
        st.integers(-200, 200).map(lambda k: k / 4),                       # exact fractions
        st.floats(-1000.0, 1000.0, allow_nan=False, allow_infinity=False),
        st.floats(1e9, 1e12).flatmap(lambda v: st.sampled_from([v, -v])),  # beyond float32 precision
        st.sampled_from([1e-300, -2.5e-300, 0.1, -0.0]),                   # beyond float32 range
    )


@dataclasses.dataclass(frozen=True)
class Scope:
    """What a statement at this point may use."""

    names: tuple[str, ...]    # readable names
    depth: int                # number of enclosing compound statements
    loop: str | None          # innermost loop: "staged", "python" or None
    may_return: bool          # False inside Python loops (a return there could depend on a tensor)
    top_level: bool = False   # directly in the function body
    staged: bool = False      # under tensor control flow (a staged loop, an if on an argument)
    in_staged_loop: bool = False  # inside a staged loop body (at any depth)

    def inside(self, loop: str | None = None, names: tuple[str, ...] = (),
               staged: bool = False) -> "Scope":
        return Scope(self.names + names, self.depth + 1, loop or self.loop,
                     self.may_return and loop != "python", False,
                     self.staged or staged or loop == "staged",
                     self.in_staged_loop or loop == "staged")


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


class _Generator:
    """Draws one program for a mode and a feature set."""

    def __init__(self, draw, mode: Mode, features: Features) -> None:
        self.draw = draw
        self.mode = mode
        self.features = features
        self.namer = _Namer()
        self.try_returns = 0

    # ---- expressions (strings) -------------------------------------------------------------

    def atom(self, scope: Scope) -> str:
        if self.draw(st.integers(0, 2)):
            return self.draw(st.sampled_from(scope.names))
        return str(self.draw(st.integers(0, 9)))

    def factor(self, scope: Scope) -> str:
        """The second factor of a product: any atom, or below 1000 in the int64 mode."""
        if not self.mode.small_factors:
            return self.atom(scope)
        if self.draw(st.booleans()):
            return str(self.draw(st.integers(0, 9)))
        return f"({self.draw(st.sampled_from(scope.names))} % 1000)"

    def divisor(self, scope: Scope) -> str:
        """A constant 1..9, or ``(v % 7 + 1)``: never zero."""
        if self.draw(st.booleans()):
            return str(self.draw(st.integers(1, 9)))
        return f"({self.draw(st.sampled_from(scope.names))} % 7 + 1)"

    def term(self, scope: Scope) -> str:
        kind = self.draw(st.integers(0, 3))
        p = self.atom(scope)
        if kind == 0:
            return p
        if kind == 1:
            return f"{p} * {self.factor(scope)}"
        return f"{p} {'//' if kind == 2 else '%'} {self.divisor(scope)}"

    def expr(self, scope: Scope, max_extra_terms: int = 2) -> str:
        text = self.term(scope)
        for _ in range(self.draw(st.integers(0, max_extra_terms))):
            text += f" {self.draw(st.sampled_from('+-'))} {self.term(scope)}"
        return text

    def tensor_expr(self, scope: Scope) -> str:
        """An expression that involves an argument, hence a tensor in graph mode."""
        arg = self.draw(st.sampled_from(ARGUMENTS))
        kind = self.draw(st.integers(0, 2))
        if kind == 0:
            return arg
        if kind == 1:
            return f"{arg} {self.draw(st.sampled_from('+-'))} {self.term(scope)}"
        return f"{arg} * {self.factor(scope)}"

    def comparison(self, scope: Scope, tensor: bool = False) -> str:
        left = self.tensor_expr(scope) if tensor else self.expr(scope, 1)
        relation = self.draw(st.sampled_from(("<", "<=", ">", ">=", "==", "!=")))
        return f"{left} {relation} {self.expr(scope, 1)}"

    def condition(self, scope: Scope) -> str:
        kinds = [0, 1, 2, 3] + ([4] if self.features.chained else []) \
            + ([5, 5] if self.features.chained_calls else [])
        kind = self.draw(st.sampled_from(kinds))
        if kind == 0:
            return self.comparison(scope)
        if kind == 1:
            return f"{self.comparison(scope)} and {self.comparison(scope)}"
        if kind == 2:
            return f"{self.comparison(scope)} or {self.comparison(scope)}"
        if kind == 3:
            return f"not ({self.comparison(scope)})"
        relation = self.draw(st.sampled_from(("<", "<=")))
        if kind == 4:
            return (f"{self.term(scope)} {relation} {self.term(scope)} {relation} "
                    f"{self.term(scope)}")
        return (f"{self.term(scope)} {relation} _f({self.term(scope)}) "
                f"{self.draw(st.sampled_from(('<', '<=')))} {self.term(scope)}")

    def wrapped(self, expr: str) -> str:
        return f"({expr}) % {self.mode.modulus}"

    # ---- statements (lists of lines, indented relative to their block) ---------------------

    def assignment(self, scope: Scope) -> list[str]:
        target = self.draw(st.sampled_from(VARIABLES))
        kind = self.draw(st.integers(0, 5))
        m = self.mode.modulus
        if kind == 0:
            return [f"{target} = {self.wrapped(self.expr(scope))}"]
        if kind in (1, 2):
            op = "+=" if kind == 1 else "-="
            return [f"{target} {op} {self.expr(scope)}", f"{target} %= {m}"]
        if kind == 3:
            return [f"{target} *= {self.factor(scope)}", f"{target} %= {m}"]
        op = "//=" if kind == 4 else "%="
        return [f"{target} {op} {self.draw(st.integers(1, 9))}"]

    def print_(self, scope: Scope) -> list[str]:
        value = self.draw(st.sampled_from([name for name in scope.names if name != "a"]))
        return [f"print('{value}', {value}, 'a', a)"]

    def state_update(self, scope: Scope) -> list[str]:
        if self.draw(st.booleans()):
            return [f"S.v = {self.wrapped('S.v + ' + self.expr(scope, 1))}"]
        return [f"G = {self.wrapped('G + ' + self.expr(scope, 1))}"]

    def append(self, scope: Scope) -> list[str]:
        return [f"out.append(({self.expr(scope, 1)}) % 1000)"]

    def returned_values(self, scope: Scope) -> list[str]:
        values = [v if self.draw(st.booleans()) else self.wrapped(self.expr(scope))
                  for v in VARIABLES]
        return values + (["len(out)"] if self.features.appends else [])

    def return_(self, scope: Scope) -> list[str]:
        return ["return " + ", ".join(self.returned_values(scope))]

    def try_return(self, scope: Scope) -> list[str]:
        raises = self.draw(st.integers(0, 1))
        self.try_returns += 1
        return ["try:", INDENT + f"return _h({raises}, {', '.join(self.returned_values(scope))})",
                "except ValueError:", INDENT + "pass"]

    def may_return_here(self, scope: Scope) -> bool:
        loop_returns = self.features.loop_returns and not self.features.appends
        return scope.may_return and (self.features.branch_returns or scope.top_level) and \
            (loop_returns or scope.loop is None)

    def jump(self, scope: Scope) -> list[str] | None:
        """A break/continue/return that may end the current block, or None."""
        options = []
        if scope.loop is not None:
            options.append("continue")
        if scope.loop == "staged":
            options.append("break")
        if self.may_return_here(scope):
            options.append("return")
        if not options or self.draw(st.integers(0, 3)) != 0:  # a jump ends one block in four
            return None
        choice = self.draw(st.sampled_from(options))
        return self.return_(scope) if choice == "return" else [choice]

    def block(self, scope: Scope, max_statements: int = 3) -> list[str]:
        lines: list[str] = []
        for _ in range(self.draw(st.integers(1, max_statements))):
            lines += self.statement(scope)
        jump = self.jump(scope)
        return lines + (jump or [])

    def if_(self, scope: Scope) -> list[str]:
        test = self.condition(scope)
        inner = scope.inside(staged=re.search(r"\b[ab]\b", test) is not None)
        lines = [f"if {test}:"] + _indent(self.block(inner))
        for _ in range(self.draw(st.integers(0, 2))):
            test = self.condition(scope)
            inner = scope.inside(staged=inner.staged or re.search(r"\b[ab]\b", test) is not None)
            lines += [f"elif {test}:"] + _indent(self.block(inner))
        if self.draw(st.booleans()):
            lines += ["else:"] + _indent(self.block(inner))
        return lines

    def zero(self) -> str:
        """0 as a Python number, or as ``a * 0`` (a tensor of the arguments' dtype in a graph)."""
        if self.features.python_numbers:
            return "0.0" if self.mode.floats else "0"
        return "a * 0"

    def one(self) -> str:
        if self.features.python_numbers:
            return "1.0" if self.mode.floats else "1"
        return "a * 0 + 1"

    def staged_while(self, scope: Scope) -> list[str]:
        counter = self.namer.counter()
        limit = self.draw(st.integers(1, 5))
        test = f"{counter} < {limit} and {self.comparison(scope, tensor=True)}"
        body = self.block(scope.inside("staged", (counter,)))
        return [f"{counter} = {self.zero()}", f"while {test}:",
                INDENT + f"{counter} += 1"] + _indent(body)

    def staged_for(self, scope: Scope) -> list[str]:
        target = self.namer.target()
        bound = self.tensor_expr(scope)
        bound = bound if bound in ARGUMENTS else f"({bound})"
        if self.mode.floats:
            bound = f"int({bound} % 1000.0)"  # int() of a float beyond int64 is refused
        header = f"for {target} in range({bound} % {self.draw(st.integers(2, 5))}):"
        return [header] + _indent(self.block(scope.inside("staged", (target,))))

    def python_loop(self, scope: Scope) -> list[str]:
        if self.draw(st.booleans()):
            target = self.namer.target()
            items = self.draw(st.lists(st.integers(0, 4), min_size=1, max_size=3))
            body = self.block(scope.inside("python", (target,)))
            return [f"for {target} in {items}:"] + _indent(body)
        counter = self.namer.counter()
        body = self.block(scope.inside("python", (counter,)))
        return [f"{counter} = {self.zero()}", f"while {counter} < {self.draw(st.integers(1, 3))}:",
                INDENT + f"{counter} += 1"] + _indent(body)

    def statement(self, scope: Scope) -> list[str]:
        kinds = ["assign", "assign"]
        if self.features.prints:
            kinds.append("print")
        if self.features.state and scope.staged:
            kinds += ["state", "state"]
        if self.features.appends and scope.in_staged_loop:
            kinds += ["append", "append"]
        if self.features.try_return and self.may_return_here(scope):
            kinds.append("try_return")
        if scope.depth < MAX_DEPTH:
            kinds += ["if", "if", "while", "for"]
            if self.features.python_loops:
                kinds.append("python_loop")
        kind = self.draw(st.sampled_from(kinds))
        if kind == "assign":
            return self.assignment(scope)
        if kind == "print":
            return self.print_(scope)
        if kind == "state":
            return self.state_update(scope)
        if kind == "append":
            return self.append(scope)
        if kind == "try_return":
            return self.try_return(scope)
        if kind == "if":
            return self.if_(scope)
        if kind == "while":
            return self.staged_while(scope)
        if kind == "for":
            return self.staged_for(scope)
        return self.python_loop(scope)

    def program(self) -> str:
        scope = Scope(VARIABLES + ARGUMENTS, depth=0, loop=None, may_return=True, top_level=True)
        body = (["global G"] if self.features.state else []) \
            + [f"x = {self.zero()}", f"y = {self.one()}", "z = a"] \
            + (["out = []"] if self.features.appends else [])
        body += self.block(scope, max_statements=4)
        if not body[-1].startswith("return"):
            body += self.return_(scope)
        return _prelude(self.mode, self.features) + "def f(a, b):\n" + "\n".join(_indent(body)) + "\n"


def _indent(lines: list[str]) -> list[str]:
    return [INDENT + line for line in lines]


def _prelude(mode: Mode, features: Features) -> str:
    """Module-level helpers of the issue 9 features (empty without them)."""
    zero = "0.0" if mode.floats else "0"
    lines = []
    if features.state:
        lines += ["class _State:", f"    v = {zero}", "", "", "S = _State()", f"G = {zero}", ""]
    if features.chained_calls:
        lines += ["_CALLS = []", "", "", "def _f(v):", "    _CALLS.append(1)", "    return v",
                  "", "", "def _calls():", "    return len(_CALLS)", ""]
    if features.try_return:
        lines += ["def _h(raises, *values):", "    if raises:",
                  "        raise ValueError('no value')", "    return values", ""]
    if features.state or features.chained_calls:
        lines += ["def _reset():", "    global G" if features.state else "    pass"]
        if features.state:
            lines += [f"    S.v = {zero}", f"    G = {zero}"]
        if features.chained_calls:
            lines += ["    _CALLS.clear()"]
        lines += ["", "", "def _read():",
                  "    return (S.v, G)" if features.state else "    return ()", "", ""]
    return "\n".join(lines) + ("\n" if lines else "")


_FEATURE_USES = {
    "state": r"^\s+(S\.v|G) = ",
    "chained_calls": r"_f\(",
    "try_return": r"return _h\(",
    "appends": r"out\.append\(",
}


def uses_a_feature(source: str, features: Features) -> bool:
    """Whether ``f`` uses one of the issue 9 constructs enabled in ``features`` (true when none
    is enabled)."""
    body = source[source.index("def f("):]
    wanted = [pattern for name, pattern in _FEATURE_USES.items() if getattr(features, name)]
    return not wanted or any(re.search(p, body, re.M) for p in wanted)


@st.composite
def programs(draw, mode: Mode = INT32, features: Features | None = None) -> str:
    """Source text of a module defining ``f(a, b)`` (and the helpers its features need); with
    issue 9 features, ``f`` uses at least one of them."""
    features = FEATURES if features is None else features
    source = _Generator(draw, mode, features).program()
    assume(uses_a_feature(source, features))
    return source
