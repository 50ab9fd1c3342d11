"""Where a state variable lives, found from the ``get_state`` closure that reads it.

Generated ``get_state``/``set_state`` closures read and write state as a whole tuple. Some
questions need one variable at a time: does ``d['k']`` exist yet (a key first set inside a
tensor ``if``), which object holds ``self.total`` (may a graph value stay there), how to take
back a placeholder written into ``d['k']``. A ``Place`` answers them from the variable's
qualified name and the closure cells or globals of ``get_state``.
"""

from __future__ import annotations

import builtins
import functools
from typing import Any, Callable

from transpiler.analysis.qual_names import QN
from transpiler.operators.variables import Undefined

@functools.lru_cache(maxsize=1024)
def _parse(name: str) -> QN:
    return QN.from_string(name)


class Place:
    """A variable (``x``), attribute (``p.x``) or constant item (``d['k']``) of converted code."""

    def __init__(self, get_state: Callable, name: str):
        self.name = name
        self.qn = _parse(name)
        self._get_state = get_state

    @property
    def is_part(self) -> bool:
        """Whether this is a part of an object rather than a variable."""
        return self.qn.is_composite

    @property
    def root_name(self) -> str:
        return str(self.qn.base)

    @property
    def is_global(self) -> bool:
        """Whether the name starts from a module global (not a local or closure variable)."""
        return self.root_name not in self._free_names()

    def root(self) -> Any:
        """The object the name starts from."""
        free = self._free_names()
        if self.root_name in free:
            return self._get_state.__closure__[free.index(self.root_name)].cell_contents
        namespace = getattr(self._get_state, "__globals__", {})
        if self.root_name in namespace:
            return namespace[self.root_name]
        return getattr(builtins, self.root_name)

    def _free_names(self) -> tuple:
        code = getattr(self._get_state, "__code__", None)
        return code.co_freevars if code is not None else ()

    def holder(self) -> Any:
        """The object whose attribute or item this place is (for a part)."""
        return _read(self.qn.parent, self.root())

    def read(self) -> Any:
        """The current value, or ``Undefined`` when this part (or an object on the way to it)
        does not exist yet."""
        try:
            return _read(self.qn, self.root())
        except (LookupError, AttributeError, TypeError, ValueError):  # ValueError: empty cell
            return Undefined(self.name)

    def remove(self) -> None:
        """Deletes this part if it exists (undoes a placeholder written into it)."""
        try:
            holder = self.holder()
            if self.qn.has_attr:
                if hasattr(holder, self.qn.attr):
                    delattr(holder, self.qn.attr)
            elif self.qn.key in holder:
                del holder[self.qn.key]
        except (LookupError, AttributeError, TypeError):
            pass


def _read(qn: QN, root: Any) -> Any:
    if qn.parent is None:
        return root
    holder = _read(qn.parent, root)
    return getattr(holder, qn.attr) if qn.has_attr else holder[qn.key]
