"""``rt.Module``: a named container whose variables are found from its attributes (``tf.Module``).

The search follows TensorFlow's: the module's attributes in sorted name order, each flattened
as a nested structure (lists, tuples, dict values by sorted key); every variable and
sub-module is taken once, by identity, and sub-modules are searched after all of the
module's own attributes, in the order they were found. Other objects are not looked into.
"""

from __future__ import annotations

import functools
import re
from typing import Callable, Iterator

from runtime import nest
from runtime.ops.program_order import name_scope
from runtime.variables import Variable

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_CAMEL_BOUNDARY = re.compile(r"((?<=[a-z0-9])[A-Z]|(?!^)[A-Z](?=[a-z]))")


class Module:
    """Base class of models and layers: subclasses create their variables and sub-modules in
    ``__init__`` and compute in ``__call__``.

        class Dense(rt.Module):
            def __init__(self, w, b, name=None):
                super().__init__(name=name)
                self.w, self.b = rt.Variable(w), rt.Variable(b)

            def __call__(self, x):
                return rt.matmul(x, self.w) + self.b

    Args:
        name: a Python identifier; defaults to the class name in snake case (``dense``).
    """

    def __init__(self, name: str | None = None):
        if name is not None and (type(name) is not str or not _IDENTIFIER.match(name)):
            raise ValueError(f"{name!r} is not a valid module name: module names must be Python "
                             f"identifiers (letters, digits and underscores, not starting with "
                             f"a digit).")
        self._name = name if name is not None else _snake_case(type(self).__name__)

    @property
    def name(self) -> str:
        # A subclass that does not call Module.__init__ still has a name.
        return self.__dict__.get("_name") or _snake_case(type(self).__name__)

    @property
    def name_scope(self) -> name_scope:
        """The module's name scope, ``"<name>/"`` (TensorFlow's ``with self.name_scope:``);
        nodes and variables are named by op and line here, so it groups nothing (see
        ``runtime.ops.program_order.name_scope``)."""
        return name_scope(f"{self.name}/")

    @staticmethod
    def with_name_scope(method: Callable) -> Callable:
        """Decorates a method to run inside its module's ``name_scope``, as TensorFlow's
        ``tf.Module.with_name_scope`` does."""
        @functools.wraps(method)
        def scoped(self, *args, **kwargs):
            with self.name_scope:
                return method(self, *args, **kwargs)
        return scoped

    @property
    def variables(self) -> tuple[Variable, ...]:
        """Every variable of this module and its sub-modules, each once."""
        return tuple(self._flatten(lambda value: isinstance(value, Variable)))

    @property
    def trainable_variables(self) -> tuple[Variable, ...]:
        """The variables created with ``trainable=True`` (what optimizers update)."""
        return tuple(self._flatten(lambda value: isinstance(value, Variable) and value.trainable))

    @property
    def submodules(self) -> tuple["Module", ...]:
        """Every module reachable from this one's attributes, this one excluded."""
        return tuple(self._flatten(lambda value: isinstance(value, Module)))

    def _flatten(self, predicate: Callable[[object], bool]) -> Iterator:
        seen = {id(self)}
        return _walk(self, predicate, seen)

    def __repr__(self) -> str:
        return f"<rt.Module {type(self).__name__} {self.name!r}>"


def _walk(module: Module, predicate: Callable[[object], bool], seen: set[int]) -> Iterator:
    attributes = getattr(module, "__dict__", {})
    found: list[Module] = []
    for key in sorted(attributes):
        for leaf in nest.flatten(attributes[key]):
            if not isinstance(leaf, (Variable, Module)) or id(leaf) in seen:
                continue
            seen.add(id(leaf))  # variables and modules live as long as the search
            if predicate(leaf):
                yield leaf
            if isinstance(leaf, Module):
                found.append(leaf)
    for submodule in found:
        yield from _walk(submodule, predicate, seen)


def _snake_case(name: str) -> str:
    return _CAMEL_BOUNDARY.sub(r"_\1", name).lower()
