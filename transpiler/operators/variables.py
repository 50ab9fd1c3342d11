"""Values standing for variables that may not exist yet, and loads that check for them."""

from __future__ import annotations

import re

from runtime.control_flow import Unset

# The converted function's return value lives in a variable named so (made unique with a
# number); messages about it speak of "the return value", not of a name the user never wrote.
RETURN_VALUE_NAME = "retval"
_RETURN_VALUE_PATTERN = re.compile(rf"{RETURN_VALUE_NAME}(_\d+)?")


class Undefined:
    """The value of a variable that Python would not have defined at this point: not assigned
    yet, or ``deleted`` by a ``del`` statement."""

    __slots__ = ("symbol_name", "deleted")

    def __init__(self, symbol_name: str, deleted: bool = False):
        self.symbol_name, self.deleted = symbol_name, deleted

    def read(self):
        raise UnboundLocalError(
            f"cannot access local variable '{self.symbol_name}' where it is not associated with "
            f"a value ('{self.symbol_name}' is used before assignment)", name=self.symbol_name)

    def __repr__(self) -> str:
        deleted = ", deleted=True" if self.deleted else ""
        return f"Undefined({self.symbol_name!r}{deleted})"

    def _raise(self, *_args):
        self.read()


# Using an undefined variable in an expression raises what Python raises for it, naming it,
# even where generated code reads it without ``ld`` (a loop body traced before it assigns).
for _method in ("add sub mul truediv floordiv mod pow matmul and or xor lshift rshift lt le gt "
                "ge eq ne neg pos abs invert bool len iter getitem call index float int").split():
    setattr(Undefined, f"__{_method}__", Undefined._raise)
    if _method in "add sub mul truediv floordiv mod pow matmul and or xor lshift rshift".split():
        setattr(Undefined, f"__r{_method}__", Undefined._raise)
del _method


class UndefinedReturnValue(Unset):
    """The return value of a function before any ``return`` statement ran.

    Graph control flow may carry it along a path that has not returned: it then stands for
    zeros of the returned type, which are never read because ``do_return`` is false there.
    """

    __slots__ = ()

    def __repr__(self) -> str:
        return "UndefinedReturnValue()"


class ReturnedNone:
    """The return value after graph control flow in which a `return` without a value (or
    ``return None``) ran on some paths and no return on the others: ``None`` where the
    function returned (``do_return`` is set), nothing yet elsewhere.

    ``where`` names the tensor constructs that decided it, innermost first ("the if statement
    at f.py:4", "the while loop at f.py:3"), for the error when another path returns a value.
    All such values are equal: two paths that both return None agree."""

    __slots__ = ("where",)

    def __init__(self, where: tuple[str, ...]):
        self.where = where

    def inside(self, construct: str) -> "ReturnedNone":
        """The same, decided again by an enclosing construct (a loop around the ``if``)."""
        return ReturnedNone(self.where + (construct,))

    def describe(self) -> str:
        return ", inside ".join(self.where)

    def __eq__(self, other) -> bool:
        return isinstance(other, ReturnedNone)

    def __hash__(self) -> int:
        return hash(ReturnedNone)

    def __repr__(self) -> str:
        return f"ReturnedNone({self.describe()!r})"


def returns_none(value) -> bool:
    """Whether a return value means "returned None" (where a return ran at all)."""
    return value is None or type(value) is ReturnedNone


def returns_a_value(value) -> bool:
    """Whether a return value is something a `return <value>` gave (not None, not unset)."""
    return not returns_none(value) and type(value) is not UndefinedReturnValue


def ld(value):
    """Loads a variable that may be undefined: raises like Python if it is."""
    if type(value) is Undefined:
        value.read()
    return value


def is_undefined(value) -> bool:
    return type(value) is Undefined or type(value) is UndefinedReturnValue


def return_value(value):
    """What a converted function returns: ``None`` when no ``return`` statement ran, or when
    the one that ran had no value."""
    return None if type(value) in (UndefinedReturnValue, ReturnedNone) else value


def is_return_value_name(name: str) -> bool:
    return _RETURN_VALUE_PATTERN.fullmatch(name) is not None
