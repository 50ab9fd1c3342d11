"""What a staging backend provides: the protocol every engine module implements.

The operators in ``transpiler.operators`` call a backend only once they know the statement is
staged (its condition or iterable is a value of the backend's engine). They pass what the
generated code gave them: the block bodies as closures, ``get_state()``/``set_state(values)``
for the variables the block changes, their ``names`` (for messages), and the static facts the
converter found (``mutates``: in-place calls on outside objects; ``outer``: state that may
belong to enclosing code; ``staged``: lists the block only appends to). The backend builds its
engine's conditional or loop around them, using the shared checks of
``transpiler.operators.control_flow`` so that every engine reports the same errors.
"""

from __future__ import annotations

from typing import Any, Callable, Protocol, Sequence


class StagingBackend(Protocol):
    """One engine's way to stage Python control flow."""

    name: str

    def stages(self, value) -> bool:
        """Whether a condition or iterable of this value is staged by this engine."""

    def if_stmt(self, cond, body: Callable, orelse: Callable, get_state: Callable,
                set_state: Callable, names: Sequence[str], nouts: int | None, *,
                mutates: Sequence[str], outer: Sequence[str], staged: Sequence[str]) -> Any:
        """An ``if`` statement on a staged condition; returns what the branches return."""

    def if_exp(self, cond, if_true: Callable, if_false: Callable) -> Any:
        """``if_true() if cond else if_false()`` on a staged condition."""

    def and_(self, value, right: Callable) -> Any:
        """``value and right()`` for a staged ``value``."""

    def or_(self, value, right: Callable) -> Any:
        """``value or right()`` for a staged ``value``."""

    def not_(self, value) -> Any:
        """``not value`` for a staged ``value``."""

    def while_stmt(self, test: Callable, body: Callable, get_state: Callable,
                   set_state: Callable, names: Sequence[str], opts: dict, *,
                   mutates: Sequence[str], outer: Sequence[str], staged: Sequence[str]) -> None:
        """``while test(): body()`` once ``test()`` gave a staged value."""

    def for_stmt(self, iterable, extra_test: Callable | None, body: Callable,
                 get_state: Callable, set_state: Callable, names: Sequence[str], opts: dict, *,
                 mutates: Sequence[str], outer: Sequence[str], staged: Sequence[str]) -> None:
        """``for item in iterable: body(item)`` while ``extra_test()`` holds, over a staged
        iterable (a staged range, a staged array's leading axis, enumerate/zip of those)."""

    def range(self, *args) -> Any:
        """``range(*args)`` with a staged bound: something ``for_stmt`` iterates."""

    def stages_rest_of_range(self, rest: range, extra_test: Callable, body: Callable,
                             get_state: Callable, set_state: Callable, names: Sequence[str],
                             opts: dict) -> bool:
        """Whether it ran the iterations ``rest`` of a ``for`` over a Python range as one staged
        loop, once a ``break`` or ``return`` made ``extra_test()`` a staged value (else each
        remaining iteration is unrolled as a conditional); an error also declines (see
        ``control_flow._staged_rest``)."""
