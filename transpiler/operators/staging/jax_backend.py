"""The JAX backend: control flow on JAX tracers (under ``jax.jit``, ``grad``, ``vmap``) becomes
``lax.cond``, ``lax.while_loop`` and ``lax.fori_loop``.

Imported only when a tracer reaches an ``ag__`` operator (so JAX is already imported). The
Python semantics and the checks with their messages are the shared ones of
``transpiler.operators.control_flow``; what is JAX's own is in the modules beside this one:
``jax_values`` (which leaves are carried, their types), ``jax_conditionals`` (``lax.cond``),
``jax_loops`` (``while_loop`` / ``fori_loop``).
"""

from __future__ import annotations

import jax.numpy as jnp

import runtime as rt

from transpiler.operators import control_flow as cf
from transpiler.operators.control_flow import naming_construct
from transpiler.operators.staging import StagedRange, is_jax_tracer, jax_builtins
from transpiler.operators.staging.expressions import StagedExpressions
from transpiler.operators.staging.jax_conditionals import staged_cond
from transpiler.operators.staging.jax_lists import JaxList
from transpiler.operators.staging.jax_loops import Loop, continues, sequence
from transpiler.operators.staging.jax_values import condition, escapes_refused
from transpiler.operators.tensor_sequences import python_iterable


class JaxBackend(StagedExpressions):
    """Stages control flow on JAX tracers."""

    name = "jax"
    stages = staticmethod(is_jax_tracer)
    builtins = jax_builtins  # int, float, min, max, print, assert... on tracers
    staged_cond = staticmethod(staged_cond)
    condition = staticmethod(condition)
    logical_not = staticmethod(jnp.logical_not)

    def after_if(self, before: tuple, branch_outputs: list, outputs: list,
                 appended: list[bool]) -> None:
        """A carried list's count stays known after the if when every branch appended to it as
        many times (none, or once in each)."""
        super().after_if(before, branch_outputs, outputs, appended)
        for index, value in enumerate(outputs):
            if type(value) is JaxList:
                # Each branch starts from a copy of the list whose ``added`` is 0.
                counts = {values[index].added if type(values[index]) is JaxList else None
                          for values in branch_outputs}
                count = counts.pop() if len(counts) == 1 else None
                known, added = before[index].known, before[index].added
                value.known = None if count is None or known is None else known + count
                value.added = None if count is None or added is None else added + count

    def if_stmt(self, cond, body, orelse, get_state, set_state, names, nouts, *, mutates, outer,
                staged):
        with escapes_refused((body, orelse), "if statement", cf._where()):
            return super().if_stmt(cond, body, orelse, get_state, set_state, names, nouts,
                                   mutates=mutates, outer=outer, staged=staged)

    @staticmethod
    def while_stmt(test, body, get_state, set_state, names, opts, *, mutates, outer, staged):
        with escapes_refused((test, body), "while loop", cf._where()):
            JaxBackend._while_stmt(test, body, get_state, set_state, names, opts,
                                   mutates=mutates, staged=staged)

    @staticmethod
    def _while_stmt(test, body, get_state, set_state, names, opts, *, mutates, staged):
        cf._reject_mutations(mutates, "a while loop", cf._ONCE_PER_TRACE)
        before = cf._state_before(get_state, names)
        with naming_construct("while loop"):
            loop = Loop(get_state, set_state, names, "while loop",
                        maximum=opts.get("maximum_iterations"), staged=staged)
            loop.settle(before, body)
            final = loop.run((), test, lambda: (body(), ())[1])
        set_state(final)

    @staticmethod
    def for_stmt(iterable, extra_test, body, get_state, set_state, names, opts, *, mutates,
                 outer, staged):
        with escapes_refused((extra_test, body), "for loop", cf._where()):
            JaxBackend._for_stmt(iterable, extra_test, body, get_state, set_state, names, opts,
                                 mutates=mutates, staged=staged)

    @staticmethod
    def _for_stmt(iterable, extra_test, body, get_state, set_state, names, opts, *, mutates,
                  staged):
        cf._reject_mutations(mutates, "a for loop", cf._ONCE_PER_TRACE)
        before = cf._state_before(get_state, names)
        with naming_construct("for loop"):
            start, limit, delta, item_of, length = sequence(iterable)
            if length == 0:  # no iteration, as in Python (there is no element to trace it on)
                return
            loop = Loop(get_state, set_state, names, "for loop", length=length,
                        exits_early=extra_test is not None or length is None,
                        maximum=opts.get("maximum_iterations"), staged=staged, first_runs=True)

            def test(index):
                more = continues(index, limit, delta)
                if extra_test is None:
                    return more
                return jnp.logical_and(more, condition(extra_test(), "the for loop"))

            def step(index):
                body(item_of(index))
                return (index + delta,)

            try:
                loop.settle(before, lambda: body(item_of(start)))
                final = loop.run((jnp.asarray(start),), test, step)
            except (rt.errors.GraphTypeError, rt.errors.GraphValueError):
                if length is None or extra_test is not None or isinstance(iterable, StagedRange):
                    raise
                # A variable changes shape or type from one iteration to the next (``acc = 0.0``
                # then ``acc = acc + row``, ``prev = None`` then ``prev = v``), or the body needs
                # its counter as a Python int (``values[i]`` of a list, ``x[:i]``): one JAX loop
                # cannot do it, but the number of elements is known, so the loop runs as Python,
                # element by element.
                set_state(before)
                cf._python_for(python_iterable(iterable), None, body, get_state, set_state,
                               names)
                return
        set_state(final)

    range = staticmethod(StagedRange.of)

    @staticmethod
    def stages_rest_of_range(rest: range, extra_test, body, get_state, set_state, names,
                             opts) -> bool:
        """The rest of a Python range as one loop that stops early and differentiates as a
        scan (``bounded_while``; see ``control_flow._staged_rest``): unrolled, each iteration
        was a ``lax.cond`` nested in the one before (100 iterations: a jaxpr 50 times longer,
        a first call of 0.68 s against 0.16)."""
        JaxBackend.for_stmt(StagedRange(rest.start, rest.stop, rest.step), extra_test, body,
                            get_state, set_state, names, opts, mutates=(), outer=(), staged=())
        return True


BACKEND = JaxBackend()
