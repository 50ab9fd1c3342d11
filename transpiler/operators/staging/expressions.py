"""``if`` statements, conditional expressions, ``and``, ``or`` and ``not`` for the engines
outside the runtime.

Each is one conditional of the engine (``a and b`` is ``b if a else a``), so a backend class
inherits ``StagedExpressions`` and names its engine's ``staged_cond`` (the values of two
branches), its ``condition`` (a scalar boolean of a value, or a clear error) and its
``logical_not``; the state handling, the shared checks of the branches and the lists they
append to are written here once.
"""

from __future__ import annotations

import contextlib
from typing import Callable

from transpiler.operators import control_flow as cf
from transpiler.operators.control_flow import naming_construct
from transpiler.operators.variables import ReturnedNone, is_return_value_name


class StagedExpressions:
    """``if_exp``, ``and_``, ``or_`` and ``not_`` in terms of the engine's conditional."""

    staged_cond: Callable
    condition: Callable
    logical_not: Callable

    def if_stmt(self, cond, body, orelse, get_state, set_state, names, nouts, *, mutates, outer,
                staged):
        cf._reject_mutations(mutates, "an if statement", "both branches are traced once, "
                             "whichever the condition picks when it runs")
        nouts = len(names) if nouts is None else nouts
        before = cf._state_before(get_state, names)
        write_back = self.writing_back(before, names, get_state)
        # What the branches start from, kept apart: ``after_if`` may append to the lists of
        # ``before``, and an engine may run a branch again later (for its gradient).
        start = cf._fresh(before)
        location = cf._where()
        returned_none = ReturnedNone((f"the if statement{location}",))
        labelled = ("",) + tuple(names[:nouts])
        branch_outputs: list[tuple] = []

        def branch(fn: Callable, label: str) -> Callable:
            def run() -> tuple:
                cf._set_state_tolerantly(set_state, get_state, names, cf._fresh(start))
                result = fn()
                state = cf._state_before(get_state, names)
                _refuse_appends_lost(before[nouts:], state[nouts:], names[nouts:], staged,
                                     location)
                outputs = self.branch_outputs(state[:nouts], names, label, location)
                branch_outputs.append(outputs)
                return (result,) + outputs
            return run

        def check_pair(then_values: tuple, else_values: tuple) -> None:
            cf._check_return_kinds(then_values, else_values, labelled, location)
            cf._check_branch_structures(then_values, else_values, labelled, location)

        def prepare(values: tuple) -> tuple:
            return values[:1] + tuple(
                returned_none if value is None and is_return_value_name(name) else value
                for name, value in zip(names, values[1:]))

        with naming_construct("if statement"), _endless_recursion_named("if statement",
                                                                         location):
            result, *outputs = self.staged_cond(
                cond, branch(body, "if"), branch(orelse, "else"), construct="if statement",
                location=location, names=labelled, check_pair=check_pair, prepare=prepare)
        self.after_if(before, branch_outputs, outputs, [name in staged for name in names])
        final = write_back(tuple(outputs) + tuple(before[nouts:]), f"the if statement{location}")
        cf._set_state_tolerantly(set_state, get_state, names, final)
        return result

    def writing_back(self, before: tuple, names, get_state) -> Callable:
        """``finish(after, construct)``: the values to set after a staged block that gave
        ``after`` for the state that was ``before`` (read before the block runs); ``after``
        itself by default."""
        return lambda after, construct: after

    def branch_outputs(self, outputs: tuple, names, label: str, location: str) -> tuple:
        """What a branch gives the conditional for the variables used after it; a variable
        it leaves unassigned (or deleted) is an error naming it, by default."""
        cf._check_branch_outputs(outputs, names, label, location)
        return outputs

    def after_if(self, before: tuple, branch_outputs: list, outputs: list,
                 appended: list[bool]) -> None:
        """Updates the values an ``if`` gives (``branch_outputs``: what each traced branch set;
        ``appended``: per value, whether it is a list the branches only append to). A list the
        branches appended to (as many elements in each, one type each: outputs of the
        conditional) gets those elements appended to itself, so that another name for it sees
        them, as in Python."""
        for index, (old, only_appended) in enumerate(zip(before[:len(outputs)], appended)):
            if only_appended and type(old) is list and type(outputs[index]) is list and all(
                    _appended_to(old, values[index]) for values in branch_outputs):
                old.extend(outputs[index][len(old):])
                outputs[index] = old

    def if_exp(self, cond, if_true: Callable, if_false: Callable):
        return self._choose(cond, if_true, if_false, "conditional expression")

    def and_(self, value, right: Callable):
        return self._choose(value, right, lambda: value, "`and` expression")

    def or_(self, value, right: Callable):
        return self._choose(value, lambda: value, right, "`or` expression")

    def not_(self, value):
        return self.logical_not(self.condition(value, "a `not` expression"))

    def stages_rest_of_range(self, *args) -> bool:
        return False  # unrolled: a conditional per iteration

    def _choose(self, cond, if_true: Callable, if_false: Callable, construct: str):
        location = cf._where()
        with naming_construct(construct), _endless_recursion_named(construct, location):
            value, = self.staged_cond(cond, lambda: (if_true(),), lambda: (if_false(),),
                                      construct=construct, location=location,
                                      names=("the value",))
        return value


_depth = [0]  # staged conditionals being traced, one inside another


@contextlib.contextmanager
def _endless_recursion_named(construct: str, location: str):
    """Inside: a staged conditional's branches are traced. Both are traced whatever the
    condition, so a function calling itself in one until a traced value stops it never stops;
    Python's recursion limit, reached deep inside, is raised at the outermost conditional with
    a message naming it."""
    _depth[0] += 1
    try:
        yield
    except RecursionError:
        if _depth[0] > 1:
            raise
        raise RecursionError(
            f"Python's recursion limit was reached while the branches of the {construct} on a "
            f"traced value{location} were traced. Both branches of a traced {construct} are "
            f"traced whatever the condition, so a function that calls itself in a branch until a "
            f"traced value stops it (if n <= 1: return 1; return n * f(n - 1)) never stops. "
            f"Write the recursion as a loop.") from None
    finally:
        _depth[0] -= 1


def _refuse_appends_lost(before: tuple, after: tuple, names, staged, location: str) -> None:
    """A list a branch appended to that the code after the ``if`` does not read by that name
    (it reads another name for it: ``kept = parts`` before, ``kept`` after) is not an output
    of the conditional, so the elements would be lost: refused, naming it."""
    for name, old, new in zip(names, before, after):
        if name in staged and type(old) is list and _appended_to(old, new) \
                and len(new) > len(old):
            raise NotImplementedError(
                f"'{name}' is a list appended to in a branch of the if statement on a traced "
                f"value{location}, but the code after the if does not use it by that name (it "
                f"may use another name for the same list), so the appended elements cannot "
                f"reach it. Use the list by the name it is appended to under after the if.")


def _appended_to(old: list, new) -> bool:
    """Whether ``new`` is the list ``old`` with elements appended (its own elements kept)."""
    return type(new) is list and len(new) >= len(old) and all(
        a is b for a, b in zip(old, new))
