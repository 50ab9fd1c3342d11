"""What every optimizer shares: the learning rate, the step counter, slot variables, the
checks on ``apply_gradients``, the options Keras gives every optimizer, and the steps that
several update rules have in common (``move_toward``, ``decayed``). A subclass names its slots
and writes the update of one variable.

Updates are ordinary ops and variable assignments, so the same code runs eagerly and inside a
traced training step, where it becomes assign nodes of the graph. Slots are created on a
variable's first update, which may happen while a step is traced: ``rt.Variable`` refuses to
be created in a trace (a variable made there would be made again on every trace), so slots are
made outside it, once per optimizer and variable, and every later trace reuses them.
"""

from __future__ import annotations

import threading
from typing import Callable, Iterable

import numpy as np

from runtime import dtypes, tracing
from runtime.ops.array_ops import cast, constant, convert_to_tensor, reshape
from runtime.ops.indexed_slices import IndexedSlices
from runtime.ops.math_ops import pow  # noqa: A004
from runtime.optimizers.accumulation import Accumulation
from runtime.optimizers.averaging import MovingAverage, overwrite
from runtime.optimizers.clipping import Clipping
from runtime.optimizers.rows import dense, map_rows
from runtime.optimizers.weight_decay import WeightDecay
from runtime.source_location import warn_at_user_code
from runtime.tensor import EagerTensor, Tensor, format_shape
from runtime.variables import Variable


class Optimizer:
    """Base class of ``rt.optimizers`` (Keras' ``Optimizer``): subclasses set ``slot_names``
    and implement ``_update``. Every optimizer takes Keras' options: ``clipnorm``,
    ``clipvalue`` or ``global_clipnorm`` (``runtime.optimizers.clipping``), ``weight_decay``
    (``runtime.optimizers.weight_decay``), ``use_ema`` with ``ema_momentum`` and
    ``ema_overwrite_frequency`` (``runtime.optimizers.averaging``),
    ``gradient_accumulation_steps`` (``runtime.optimizers.accumulation``) and
    ``loss_scale_factor`` (``scale_loss`` multiplies the loss by it, and ``apply_gradients``
    divides the gradients by it before anything else).

    Attributes:
        iterations: int64, the number of updates made: the ``apply_gradients`` calls (an
            ``rt.Variable``), or with ``gradient_accumulation_steps`` the calls divided by it
            (a tensor).
        learning_rate: an ``rt.Variable`` (a number given is held in one, so assigning a new
            number changes it without retracing a step), or the schedule given: a callable
            that takes the step (an int64 tensor, the ``apply_gradients`` calls made before)
            and returns the learning rate.
    """

    slot_names: tuple[str, ...] = ()
    # The first value of slots that do not start at zero, by name.
    initial_slot_values: dict[str, float] = {}

    def __init__(self, learning_rate, name: str, clipnorm=None, clipvalue=None,
                 global_clipnorm=None, weight_decay=None, use_ema: bool = False,
                 ema_momentum: float = 0.99, ema_overwrite_frequency: int | None = None,
                 loss_scale_factor: float | None = None,
                 gradient_accumulation_steps: int | None = None):
        self.name = name
        self._clipping = Clipping(name, clipnorm, clipvalue, global_clipnorm)
        self._weight_decay = WeightDecay(name, weight_decay)
        self._moving_average = MovingAverage(name, use_ema, ema_momentum,
                                             ema_overwrite_frequency)
        self._accumulation = Accumulation(name, gradient_accumulation_steps)
        if loss_scale_factor is not None and (isinstance(loss_scale_factor, bool) or
                                              not isinstance(loss_scale_factor, (int, float))):
            raise TypeError(f"{name}: loss_scale_factor must be a number or None, got "
                            f"{loss_scale_factor!r}.")
        self._loss_scale_factor = None if loss_scale_factor is None else float(loss_scale_factor)
        self._lock = threading.Lock()
        self._variables: list[Variable] = []
        self._slots: dict[int, tuple[Variable, dict[str, Variable]]] = {}
        self._option_slots: dict[tuple[int, str], tuple[Variable, Variable]] = {}
        self._warned_no_gradient: dict[int, Variable] = {}
        self._calls = self._new_variable(np.int64(0), "iterations")
        self._learning_rate = self._build_learning_rate(learning_rate)
        self.built = False  # True once it has made the slots of the variables it updates

    # -- hyperparameters --------------------------------------------------------------------

    # Read-only: a traced step holds them as constants, so a change would not reach it.
    clipnorm = property(lambda self: self._clipping.clipnorm)
    clipvalue = property(lambda self: self._clipping.clipvalue)
    global_clipnorm = property(lambda self: self._clipping.global_clipnorm)
    weight_decay = property(lambda self: self._weight_decay.rate)
    use_ema = property(lambda self: self._moving_average.enabled)
    ema_momentum = property(lambda self: self._moving_average.momentum)
    ema_overwrite_frequency = property(lambda self: self._moving_average.overwrite_frequency)
    gradient_accumulation_steps = property(lambda self: self._accumulation.steps)
    loss_scale_factor = property(lambda self: self._loss_scale_factor)

    @property
    def iterations(self) -> Variable | Tensor:
        """The number of updates made (see the class docstring)."""
        steps = self._accumulation.steps
        return self._calls if steps is None else self._calls // steps

    def scale_loss(self, loss):
        """``loss`` times ``loss_scale_factor`` (``loss`` itself without one): what a
        training step differentiates, as Keras' ``train_step`` does."""
        return loss if self._loss_scale_factor is None else loss * self._loss_scale_factor

    def exclude_from_weight_decay(self, var_list=None, var_names=None) -> None:
        """Leaves out of the weight decay the variables in ``var_list`` and those whose name
        contains one of the strings in ``var_names``."""
        self._weight_decay.exclude(var_list, var_names)

    def _build_learning_rate(self, value):
        if isinstance(value, Variable):
            if value.dtype.kind != "f" or value.shape != ():
                raise TypeError(f"{self.name}: a learning rate variable must be a floating-point "
                                f"scalar, got {value.dtype.name} of shape "
                                f"{format_shape(value.shape)}.")
            return value
        if callable(value):
            return value
        # Held as float64: a cast to each variable's dtype then rounds the number given only once.
        return self._new_variable(np.float64(_number(value, self.name)), "learning_rate")

    @property
    def learning_rate(self):
        """The learning rate variable or schedule; setting a number assigns the variable."""
        return self._learning_rate

    @learning_rate.setter
    def learning_rate(self, value) -> None:
        if isinstance(self._learning_rate, Variable) and not isinstance(value, Variable) \
                and not callable(value):
            self._learning_rate.assign(np.asarray(_number(value, self.name),
                                                  self._learning_rate.dtype))
            return
        # Steps traced already read the old variable or schedule: replacing it would leave
        # them behind without a word.
        raise TypeError(f"{self.name}: the learning rate can only be set to a new number (which "
                        f"is assigned to its variable); to use a different variable or schedule, "
                        f"create a new optimizer with it.")

    def _learning_rate_value(self) -> Tensor:
        """The learning rate of the step being applied, in float64 unless given otherwise."""
        if isinstance(self._learning_rate, Variable):
            return self._learning_rate.value()
        value = self._learning_rate(self._calls.value())
        if isinstance(value, Variable):
            return value.value()
        return convert_to_tensor(value, dtypes.float64 if isinstance(value, dtypes.PYTHON_SCALARS)
                                 else None)

    # -- variables --------------------------------------------------------------------------

    @property
    def variables(self) -> list[Variable]:
        """The optimizer's own variables: ``iterations``, the learning rate variable it made
        (not one it was given), then the slots in the order they were created."""
        return list(self._variables)

    def build(self, var_list: Iterable[Variable]) -> None:
        """Creates the slots of ``var_list`` now instead of when ``apply_gradients`` first
        gets them."""
        self._build([_checked_variable(variable, self.name) for variable in var_list])

    def _build(self, variables: list[Variable]) -> None:
        """Makes the slots that ``variables`` do not have yet, all at once (as Keras' build
        does), so that they are made in the same order eagerly and in a trace."""
        for variable in variables:
            self._slots_of(variable)
            if self._moving_average.enabled:
                self._option_slot(variable, "average")
            if self._accumulation.steps:
                self._option_slot(variable, "gradient_accumulator")
        self._build_state(variables)
        self.built = True

    def _build_state(self, variables: list[Variable]) -> None:
        """Makes the variables of the whole optimizer (not of one variable) that a subclass
        keeps, if it has not yet: called with each ``build``."""

    def _new_variable(self, value: np.ndarray, name: str, slot_of: Variable | None = None
                      ) -> Variable:
        """A variable of the optimizer's; ``slot_of``: the variable it is a slot of (whose
        name ``name`` starts with; subclasses name slots after it)."""
        with tracing.eager_scope():  # see the module docstring
            variable = Variable(value, name=name, trainable=False)
        self._variables.append(variable)
        return variable

    def _slots_of(self, variable: Variable) -> dict[str, Variable]:
        entry = self._slots.get(id(variable))
        if entry is None:
            with self._lock:
                entry = self._slots.get(id(variable))
                if entry is None:
                    slots = {name: self._new_variable(self._initial_slot(name, variable),
                                                      f"{variable.name}/{name}", variable)
                             for name in self.slot_names}
                    # The variable is kept in the entry so that its id is not reused.
                    entry = self._slots[id(variable)] = (variable, slots)
        return entry[1]

    def _initial_slot(self, name: str, variable: Variable) -> np.ndarray:
        """The first value of the slot ``name`` of ``variable``: zeros unless
        ``initial_slot_values`` has another."""
        return np.full(variable.shape, self.initial_slot_values.get(name, 0), variable.dtype)

    def _option_slot(self, variable: Variable, name: str) -> Variable:
        """The slot ``name`` (zeros at first) that an option keeps for ``variable``: the
        moving average's ``average`` or the ``gradient_accumulator``."""
        entry = self._option_slots.get((id(variable), name))
        if entry is None:
            with self._lock:
                entry = self._option_slots.get((id(variable), name))
                if entry is None:
                    slot = self._new_variable(np.zeros(variable.shape, variable.dtype),
                                              f"{variable.name}/{name}", variable)
                    entry = self._option_slots[id(variable), name] = (variable, slot)
        return entry[1]

    # -- applying ---------------------------------------------------------------------------

    def apply_gradients(self, grads_and_vars: Iterable[tuple]) -> Variable:
        """Updates each variable with its gradient (or, with ``gradient_accumulation_steps``,
        adds it to the ones to update with later), moves the averages of ``use_ema``, counts
        the call, then gives each variable with a ``constraint`` its constrained value.

        Args:
            grads_and_vars: (gradient, variable) pairs, e.g. ``zip(grads, variables)``. A
                gradient must have its variable's dtype and shape; a ``None`` gradient leaves
                its variable unchanged (with a warning the first time). A gradient of rows
                (``IndexedSlices``) is applied as Keras applies it (``runtime.optimizers.rows``).

        Returns:
            The variable that counts the calls (``iterations`` without accumulation).

        Raises:
            TypeError: a pair is not (gradient, rt.Variable), or dtypes differ.
            ValueError: shapes differ, or no pair has a gradient.
        """
        pairs, variables = self._checked_pairs(grads_and_vars)
        self._build(variables)
        scale = self._loss_scale_factor
        if scale is not None:
            pairs = [(map_rows(lambda g: g / scale, g), v) for g, v in pairs]
        if self._accumulation.steps is None:
            self._update_variables(pairs)
        else:
            self._accumulation.apply(pairs, self._calls, self._update_variables,
                                     lambda v: self._option_slot(v, "gradient_accumulator"))
        self._moving_average.update(variables, self.iterations,
                                    lambda v: self._option_slot(v, "average"))
        self._calls.assign_add(np.int64(1))
        _apply_constraints(v for _, v in pairs)
        return self._calls

    def _update_variables(self, pairs: list[tuple]) -> None:
        """Clips the gradients of ``pairs``, then decays and updates each variable."""
        pairs = list(zip(self._clipping([g for g, _ in pairs]), [v for _, v in pairs]))
        learning_rate = self._learning_rate_value()
        self._begin_update([v for _, v in pairs])
        rates: dict[np.dtype, tuple] = {}  # computed once per dtype and step
        for gradient, variable in pairs:
            if variable.dtype not in rates:
                rate = cast(learning_rate, variable.dtype)
                rates[variable.dtype] = rate, self._step_size(rate)
            rate, step_size = rates[variable.dtype]
            self._weight_decay.apply(variable, rate)
            self._update(variable, gradient, self._slots_of(variable), step_size)

    def finalize_variable_values(self, var_list: Iterable[Variable]) -> None:
        """With ``use_ema``, gives each variable of ``var_list`` its moving average (``fit``
        calls it when training ends, as Keras 3 does); otherwise does nothing.

        Raises:
            ValueError: a variable of ``var_list`` has no average: the optimizer never saw it.
        """
        if not self._moving_average.enabled:
            return
        var_list = list(var_list)
        unknown = [v.name for v in var_list if (id(v), "average") not in self._option_slots]
        if unknown:
            raise ValueError(f"{self.name}.finalize_variable_values: no moving average of "
                             f"{', '.join(map(repr, unknown))}; the optimizer keeps averages "
                             f"of the variables it was given in apply_gradients or build.")
        overwrite(var_list, [self._option_slot(v, "average") for v in var_list])

    def apply(self, grads, trainable_variables) -> Variable:
        """Keras 3's spelling: ``apply_gradients(zip(grads, trainable_variables))``."""
        return self.apply_gradients(zip(grads, trainable_variables))

    def _begin_update(self, variables: list[Variable]) -> None:
        """Called once per update, before the variables' updates (for state of the whole
        optimizer, such as Nadam's momentum product)."""

    def _step_size(self, learning_rate: Tensor):
        """What ``_update`` receives, from the learning rate in one variable dtype; called
        once per update and dtype, before ``iterations`` is incremented."""
        return learning_rate

    def _step_number(self, dtype: np.dtype, ahead: int = 1) -> Tensor:
        """``iterations + ahead`` in ``dtype``: with ``ahead=1``, Keras' ``t`` of the update
        being applied (the first is 1)."""
        return cast(self.iterations + ahead, dtype)

    def _update(self, variable: Variable, gradient: Tensor, slots: dict[str, Variable],
                step_size: Tensor) -> None:
        """Assigns the update of one variable."""
        raise NotImplementedError

    def _checked_pairs(self, grads_and_vars) -> tuple[list[tuple], list[Variable]]:
        """The (gradient, variable) pairs that have a gradient, and all the variables."""
        pairs, missing, variables = [], [], []
        for pair in grads_and_vars:
            try:
                gradient, variable = pair
            except (TypeError, ValueError):
                raise TypeError(f"{self.name}.apply_gradients takes (gradient, variable) pairs, "
                                f"such as zip(grads, variables); got {pair!r}.") from None
            variable = _checked_variable(variable, self.name)
            variables.append(variable)
            if gradient is None:
                missing.append(variable)
            else:
                pairs.append((self._checked_gradient(gradient, variable), variable))
        if not pairs:
            names = ", ".join(repr(v.name) for v in missing)
            raise ValueError(f"{self.name}.apply_gradients: no gradient was given for any "
                             f"variable ({names or 'no pairs at all'}). Check that the loss is "
                             f"computed from the variables inside the GradientTape's block.")
        self._warn_no_gradient(missing)
        return pairs, variables

    def _checked_gradient(self, gradient, variable: Variable) -> Tensor | IndexedSlices:
        if not isinstance(gradient, (Tensor, IndexedSlices)):
            gradient = convert_to_tensor(
                gradient, variable.dtype if isinstance(gradient, dtypes.PYTHON_SCALARS) else None)
        if gradient.dtype != variable.dtype:
            raise TypeError(f"{self.name}.apply_gradients: the gradient of variable "
                            f"{variable.name!r} has dtype {gradient.dtype.name}, but the variable "
                            f"is {variable.dtype.name}. Gradients must have their variable's "
                            f"dtype; convert with rt.cast.")
        shape = gradient.shape
        if shape is not None and len(shape) == len(variable.shape) and all(
                a is None or a == b for a, b in zip(shape, variable.shape)):
            # A dimension unknown while tracing: the reshape checks the size when the graph runs.
            return gradient if None not in shape or isinstance(gradient, IndexedSlices) \
                else reshape(gradient, variable.shape)
        raise ValueError(f"{self.name}.apply_gradients: the gradient of variable "
                         f"{variable.name!r} has shape {format_shape(shape)}, but the variable "
                         f"has shape {format_shape(variable.shape)}. Check that gradients and "
                         f"variables are zipped in the same order.")

    def _warn_no_gradient(self, missing: list[Variable]) -> None:
        new = [v for v in missing if id(v) not in self._warned_no_gradient]
        if not new:
            return
        self._warned_no_gradient.update((id(v), v) for v in new)
        names = ", ".join(repr(v.name) for v in new)
        warn_at_user_code(f"{self.name}.apply_gradients: the gradient is None for {names}, "
                          f"which is left unchanged. The loss does not depend on it, or only "
                          f"through ops without a gradient. (Warned once per variable.)",
                          UserWarning)

    def __repr__(self) -> str:
        return f"<rt.optimizers.{type(self).__name__} {self.name!r}>"


def _apply_constraints(variables: Iterable[Variable]) -> None:
    """Projects each updated variable that has a ``constraint`` back onto it, after every
    call (with gradient accumulation too), as Keras does."""
    for variable in variables:
        if variable.constraint is not None:
            variable.assign(variable.constraint(variable))


def _checked_variable(variable, name: str) -> Variable:
    if not isinstance(variable, Variable):
        raise TypeError(f"{name} updates rt.Variables, got {type(variable).__name__}. "
                        f"apply_gradients takes zip(gradients, variables): gradients first.")
    if variable.dtype.kind != "f":
        raise TypeError(f"{name} updates floating-point variables only; variable "
                        f"{variable.name!r} is {variable.dtype.name}.")
    return variable


def _number(value, name: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(
            value, (int, float, np.integer, np.floating, np.ndarray, EagerTensor)):
        raise TypeError(f"{name}: the learning rate must be a number, an rt.Variable or a "
                        f"schedule (a callable taking the step), got {type(value).__name__}.")
    array = np.asarray(value.numpy() if isinstance(value, EagerTensor) else value)
    if array.shape != () or array.dtype.kind not in "iuf":
        raise TypeError(f"{name}: the learning rate must be a real scalar, got "
                        f"{array.dtype.name} of shape {format_shape(array.shape)}.")
    return float(array)


class MomentEstimates(Optimizer):
    """An optimizer that keeps Adam's moving averages of the gradient and of its square
    (Adam, Adamax, Nadam, Lamb): ``beta_1``, ``beta_2`` and ``epsilon``, read-only, since a
    traced step holds them as constants and a change would not reach it."""

    def __init__(self, learning_rate, beta_1: float, beta_2: float, epsilon: float, name: str,
                 **options):
        self._beta_1, self._beta_2 = float(beta_1), float(beta_2)
        self._epsilon = float(epsilon)
        super().__init__(learning_rate, name, **options)

    beta_1 = property(lambda self: self._beta_1)
    beta_2 = property(lambda self: self._beta_2)
    epsilon = property(lambda self: self._epsilon)


# -- steps that several update rules share ------------------------------------------------------
# Each takes a decay rate ``beta`` either as a Python number (``1 - beta`` is then computed in
# float64 and rounded once to the slot's dtype) or as a tensor of the slot's dtype (``1 - beta``
# computed in that dtype): each Keras optimizer has one or the other, and in float32 the two
# differ in the last bits.


def move_toward(slot: Variable, target: Tensor, beta) -> None:
    """``slot += (target - slot) * (1 - beta)``: Adam's way of averaging (the moments of
    Adam, Nadam and Adamax)."""
    slot.assign_add((target - slot.value()) * (1 - beta))


def decayed(slot: Variable, beta, gradient, fn: Callable | None = None) -> Tensor:
    """``slot * beta + fn(g) * (1 - beta)``: RMSprop's way of averaging (also Adadelta's and
    Lion's). Of a gradient of rows, ``fn(g) * (1 - beta)`` is taken row by row and the rows
    of a repeated id then added up, as Keras on TensorFlow adds them to the dense term."""
    return slot.value() * beta + dense(
        map_rows(lambda g: (g if fn is None else fn(g)) * (1 - beta), gradient))


def power_of_step(beta: float, t: Tensor) -> Tensor:
    """``beta ** t`` in ``t``'s dtype (``t`` from ``Optimizer._step_number``)."""
    return pow(constant(beta, t.dtype), t)


def non_negative(name: str, key: str, value) -> float:
    """``value`` as a float, checked to be a number of at least 0."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
        raise ValueError(f"{name}: {key} must be a number of at least 0, got {value!r}.")
    return float(value)
