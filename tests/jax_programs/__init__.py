"""JAX programs written the way JAX users write them: plain Python functions using
``jax.numpy``, with ``if``/``while``/``for``/``break``/``continue``/``return`` on array values.

Each module here holds functions and, after each one, ``CASES[fn] = [args, ...]``: the argument
tuples it runs on, chosen to take every branch and several trip counts. ``TRANSFORMS[fn]`` names
the transform a function is meant for when it is not ``jax.jit``, ``STATIC[fn]`` the
``static_argnums`` of its ``jax.jit`` (sizes, as users pass them):

* ``"jit"`` (default): expected is ``fn(*args)`` run as plain Python on the concrete arrays,
  actual is ``jax.jit(convert(fn))(*args)``;
* ``"grad"``: expected ``jax.grad(fn)(*args)`` (JAX runs Python control flow on the concrete
  values of ``grad``), actual ``jax.jit(jax.grad(convert(fn)))(*args)``;
* ``"vmap"``: expected is ``fn`` run in plain Python on each row of the arguments, stacked;
  actual ``jax.jit(jax.vmap(convert(fn)))(*args)``.

Where plain Python raises, the converted run must raise too. Results compare dtype-aware
(``same``): arrays of the same dtype and shape, integers and booleans exactly, floats with
``allclose(rtol=1e-5, atol=1e-6)``, containers of the same type; a Python number equals a 0-d
array of the same value.

``F``/``I`` build arrays of JAX's default float/int dtype (float32/int32, or float64/int64 when
``jax_enable_x64`` is on before this package is imported: ``python -m
tests.jax_programs.measure --x64`` runs the whole corpus so).
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import io
import warnings
from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np

from transpiler import convert

KINDS = ("conditionals", "while_loops", "for_loops", "algorithms", "containers", "idioms",
         "transforms", "numerics")


def F(value) -> jax.Array:
    """An array of the default float dtype."""
    return jnp.asarray(value, dtype=jnp.result_type(float))


def I(value) -> jax.Array:  # noqa: E743 - short, as the argument lists read
    """An array of the default int dtype."""
    return jnp.asarray(value, dtype=jnp.result_type(int))


@dataclasses.dataclass
class Program:
    name: str  # "kind.function"
    fn: Callable
    inputs: list
    transform: str = "jit"
    static: tuple = ()  # static_argnums of jax.jit, as users pass sizes


@dataclasses.dataclass
class Outcome:
    """One input of one program: ``status`` is "ok", "wrong" or "error"."""
    program: str
    index: int
    status: str
    detail: str = ""


def programs() -> dict[str, Program]:
    found = {}
    for kind in KINDS:
        module = importlib.import_module(f"{__name__}.{kind}")
        transforms = getattr(module, "TRANSFORMS", {})
        static = getattr(module, "STATIC", {})
        for fn, inputs in module.CASES.items():
            name = f"{kind}.{fn.__name__}"
            assert name not in found, name
            found[name] = Program(name, fn, inputs, transforms.get(fn, "jit"),
                                  static.get(fn, ()))
    return found


# -- expected and actual ----------------------------------------------------------------------


def _stack(results: list):
    return jax.tree_util.tree_map(lambda *leaves: jnp.stack([jnp.asarray(v) for v in leaves]),
                                  *results)


def expected_of(program: Program, args: tuple):
    if program.transform == "grad":
        return jax.grad(program.fn)(*args)
    if program.transform == "vmap":
        rows = int(np.shape(args[0])[0])
        return _stack([program.fn(*(a[i] for a in args)) for i in range(rows)])
    return program.fn(*args)


def staged(program: Program) -> Callable:
    """The converted function under the program's transform, jitted once."""
    converted = convert(program.fn)
    if program.transform == "grad":
        return jax.jit(jax.grad(converted))
    if program.transform == "vmap":
        return jax.jit(jax.vmap(converted))
    return jax.jit(converted, static_argnums=program.static)


def _block(value):
    for leaf in jax.tree_util.tree_leaves(value):
        if isinstance(leaf, jax.Array):
            leaf.block_until_ready()
    jax.effects_barrier()
    return value


# -- comparison -------------------------------------------------------------------------------


def _kind(value) -> str:
    if isinstance(value, bool):
        return "b"
    if isinstance(value, int):
        return "i"
    if isinstance(value, float):
        return "f"
    kind = np.asarray(value).dtype.kind
    return "i" if kind == "u" else kind


def _leaf_difference(expected, actual, path: str) -> str | None:
    numbers = (bool, int, float)
    python_number = isinstance(expected, numbers) or isinstance(actual, numbers)
    e, a = np.asarray(expected), np.asarray(actual)
    if e.shape != a.shape:
        return f"{path}: shape {e.shape} != {a.shape}"
    # A Python number equals a 0-d array of the same value, whatever its dtype (JAX gives
    # branches one dtype: ``return 0`` next to ``return x.sum()`` is 0.0 under jit).
    if not python_number and e.dtype != a.dtype:
        return f"{path}: dtype {e.dtype} != {a.dtype} ({expected!r} vs {actual!r})"
    if _kind(expected) in "bi" and _kind(actual) in "bi":
        same = np.array_equal(e, a)
    else:
        same = np.allclose(e, a, rtol=1e-5, atol=1e-6, equal_nan=True)
    return None if same else f"{path}: {expected!r} != {actual!r}"


def difference(expected, actual, path: str = "result") -> str | None:
    """None when ``actual`` is what ``expected`` is, else a sentence saying where they differ."""
    if isinstance(expected, (tuple, list, dict)) or isinstance(actual, (tuple, list, dict)):
        if type(expected) is not type(actual):
            return f"{path}: {type(expected).__name__} != {type(actual).__name__}"
        if isinstance(expected, dict):
            if sorted(expected) != sorted(actual):
                return f"{path}: keys {sorted(expected)} != {sorted(actual)}"
            pairs = [(expected[k], actual[k], f"{path}[{k!r}]") for k in expected]
        else:
            if len(expected) != len(actual):
                return f"{path}: length {len(expected)} != {len(actual)}"
            pairs = [(e, a, f"{path}[{i}]") for i, (e, a) in enumerate(zip(expected, actual))]
        for e, a, p in pairs:
            found = difference(e, a, p)
            if found:
                return found
        return None
    if expected is None or actual is None:
        return None if expected is actual else f"{path}: {expected!r} != {actual!r}"
    return _leaf_difference(expected, actual, path)


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}"


def run_program(program: Program) -> list[Outcome]:
    """Every input of ``program``: plain Python against the staged, converted function."""
    outcomes = []
    compiled = None
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()), \
            contextlib.redirect_stderr(io.StringIO()):
        warnings.simplefilter("ignore")
        for index, args in enumerate(program.inputs):
            try:
                expected, python_error = expected_of(program, args), None
            except Exception as error:  # noqa: BLE001 - the converted run must raise too
                expected, python_error = None, error
            try:
                if compiled is None:
                    compiled = staged(program)
                actual = _block(compiled(*args))
            except Exception as error:  # noqa: BLE001 - recorded
                if python_error is not None:
                    outcomes.append(Outcome(program.name, index, "ok", "both raise"))
                else:
                    outcomes.append(Outcome(program.name, index, "error", _first_line(error)))
                continue
            if python_error is not None:
                outcomes.append(Outcome(program.name, index, "wrong",
                                        f"Python raises {_first_line(python_error)}, "
                                        f"converted gives {actual!r}"))
                continue
            found = difference(expected, actual)
            outcomes.append(Outcome(program.name, index, "wrong" if found else "ok", found or ""))
    return outcomes


def run_all(names: list[str] | None = None) -> dict[str, list[Outcome]]:
    every = programs()
    return {name: run_program(every[name]) for name in (names or every)}


def describe(args: Any) -> str:
    return repr(jax.tree_util.tree_map(lambda a: np.asarray(a).tolist(), args))
