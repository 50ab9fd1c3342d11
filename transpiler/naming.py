"""Fresh names for generated variables and functions that never clash with the user's."""

from __future__ import annotations

from typing import Iterable


class Namer:
    """Hands out ``if_body``, ``if_body_1``, ... avoiding every name used in the function."""

    def __init__(self, used: Iterable[str]):
        """``used``: every identifier of the function (its names, defs and classes)."""
        self.taken = set(used) | {"ag__"}

    def reserve(self, root: str) -> str:
        """A name free of the user's names, reusable by every generated function (a parameter)."""
        name, counter = root, 0
        while name in self.taken:
            counter += 1
            name = f"{root}_{counter}"
        return name

    def new(self, root: str) -> str:
        name, counter = root, 0
        while name in self.taken:
            counter += 1
            name = f"{root}_{counter}"
        self.taken.add(name)
        return name
