"""Python lists that a traced loop only appends to (``out = []``, ``out.append(v)`` in the loop)
carried by JAX loops as a preallocated array and a count.

A traced body runs once, so a real list would get one element, not one per iteration (the
runtime carries such a list as a ``StagedList``; see ``runtime/staged_list.py``). JAX arrays
have static shapes, so the loop needs a bound: its static trip count (a ``for`` over an array)
or ``set_loop_options(maximum_iterations=N)``. A probe of one iteration (``jax.eval_shape``,
with a ``Recorder`` standing for the list) learns the elements' dtype and shape and how many
appends an iteration makes at most; the loop then carries a ``JaxList``: a buffer of
``len(list) + bound * appends`` rows and the count written so far.

After a loop whose every iteration appends the same number of times and that runs its whole
trip count, the length is static: the list is a Python list again (of arrays), as the plain
function gives. Otherwise (appends under a traced ``if``, a ``break``, a while loop) the length
is known only when the function runs, and the ``JaxList`` stays: it can be indexed, appended to
and carried by further loops, but not turned into one array (its shape would depend on data).
"""

from __future__ import annotations

from typing import Hashable, Sequence

import jax.numpy as jnp
import numpy as np

from runtime import nest
from transpiler.operators import control_flow as cf
from transpiler.operators.staging.jax_values import spec_of


class Recorder:
    """Stands for a list in the probe iteration: records what is appended (over every branch
    traced, so the count is an upper bound for one iteration)."""

    def __init__(self, items: list):
        self.items, self.appended = list(items), []

    def append(self, value) -> None:
        if isinstance(value, (list, tuple, dict)):
            raise NotImplementedError(
                f"a list appended to inside a loop on a JAX tracer{cf._where()} can only hold "
                f"arrays and numbers, but {type(value).__name__}s are appended to it. Append "
                f"each part to a list of its own.")
        self.appended.append(spec_of(value))


class JaxList(nest.Composite):
    """The elements appended so far, all of one dtype and shape: ``buffer[:count]``.

    ``known`` is the count when it is known while tracing; ``added`` the appends since the
    current loop body began, when known (None after an append under a traced ``if``)."""

    __slots__ = ("buffer", "count", "known", "added")
    component_names = ("buffer", "count")

    def __init__(self, buffer, count, known: int | None, added: int | None = 0):
        self.buffer, self.count, self.known, self.added = buffer, count, known, added

    def append(self, value) -> None:
        value = jnp.asarray(value, self.buffer.dtype)
        if value.shape != self.buffer.shape[1:]:
            raise ValueError(
                f"a value of shape {value.shape} is appended{cf._where()} to a list whose "
                f"elements have shape {self.buffer.shape[1:]}; a list grown in a loop on a JAX "
                f"tracer becomes one array, so all its elements need one shape.")
        self.buffer = self.buffer.at[self.count].set(value)
        self.count = self.count + 1
        self.known = None if self.known is None else self.known + 1
        self.added = None if self.added is None else self.added + 1

    def __getitem__(self, index):
        if isinstance(index, int) and self.known is not None:
            return self.as_list()[index]
        if isinstance(index, (int, np.integer)) or np.ndim(index) == 0:
            return self.buffer[jnp.where(index < 0, index + self.count, index)]
        raise TypeError(self._unknown_length("slicing it"))

    def __len__(self) -> int:
        if self.known is not None:
            return self.known
        raise TypeError(self._unknown_length("len()"))

    def __iter__(self):
        if self.known is not None:
            return iter(self.as_list())
        raise TypeError(self._unknown_length("iterating over it"))

    def __jax_array__(self):
        if self.known is not None:
            return self.buffer[:self.known]
        raise TypeError(self._unknown_length("making it an array"))

    def as_list(self) -> list:
        return [self.buffer[i] for i in range(self.known)]

    @staticmethod
    def _unknown_length(what: str) -> str:
        return (f"{what} needs the length of a list grown in a loop on a JAX tracer, which is "
                f"only known when the function runs (the loop may stop early, or append under a "
                f"traced `if`), and JAX shapes are static. Index it with a traced position, or "
                f"make every iteration append once in a loop of static length (a for over an "
                f"array) so that its length is known.")

    # -- nest.Composite -------------------------------------------------------------------

    def components(self) -> tuple:
        return (self.buffer, self.count)

    def with_components(self, components: Sequence) -> "JaxList":
        buffer, count = components
        return JaxList(buffer, count, None, 0)

    def static_key(self) -> Hashable:
        return ("jax list", np.dtype(spec_of(self.buffer).dtype).name,
                tuple(spec_of(self.buffer).shape))

    def describe_static(self) -> str:
        spec = spec_of(self.buffer)
        return f"list grown in a loop of {np.dtype(spec.dtype).name} {tuple(spec.shape[1:])}"


def recorders(values: tuple, names: Sequence[str], staged: Sequence[str]) -> tuple:
    """``values`` with each Python list the loop only appends to replaced by a ``Recorder``;
    a list another traced loop already carries is refused (nested loops)."""
    result = []
    for name, value in zip(names, values):
        if name in staged and type(value) in (JaxList, Recorder):
            raise NotImplementedError(
                f"'{name}' is appended to in a loop on a JAX tracer{cf._where()} nested in another "
                f"such loop that appends to it too; the JAX backend grows a list in one traced "
                f"loop only. Collect each inner loop's values in a list of its own, and stack "
                f"them with jnp.stack.")
        result.append(Recorder(value) if name in staged and type(value) is list else value)
    return tuple(result)


def carried(values: tuple, names: Sequence[str], bound: int | None, construct: str,
            location: str) -> tuple:
    """``values`` with each ``Recorder`` (after the probe) as the ``JaxList`` the loop carries;
    a list nothing was appended to stays a Python list."""
    result = []
    for name, value in zip(names, values):
        if type(value) is not Recorder:
            result.append(value)
            continue
        if not value.appended:
            result.append(value.items)
            continue
        if bound is None:
            raise ValueError(
                f"'{name}' is a list appended to in the {construct}{location}, which runs on a "
                f"JAX tracer with no bound on its iterations, so the list's size has none either "
                f"(JAX arrays have static shapes). Make `transpiler.set_loop_options("
                f"maximum_iterations=N)` the first statement of the loop body, or loop over an "
                f"array or a range of a Python int.")
        dtype = jnp.result_type(*value.items, *value.appended)  # Python numbers are weak
        shape = tuple(value.appended[0].shape)
        rows = len(value.items) + bound * len(value.appended)
        buffer = jnp.zeros((rows, *shape), dtype)
        if value.items:
            buffer = buffer.at[:len(value.items)].set(jnp.asarray(value.items, dtype))
        result.append(JaxList(buffer, jnp.asarray(len(value.items), jnp.int32),
                              len(value.items)))
    return tuple(result)


def after_loop(values: tuple, entering: tuple, added: dict, trips: int | None) -> tuple:
    """The lists after a loop: Python lists of arrays when every iteration of a loop of
    ``trips`` iterations (None: not known) appended the same number of times."""
    result = []
    for index, (value, before) in enumerate(zip(values, entering)):
        if type(value) is JaxList:
            count = added.get(index)
            if trips is not None and count is not None and before.known is not None:
                value.known = before.known + trips * count
                value = value.as_list()
        result.append(value)
    return tuple(result)
