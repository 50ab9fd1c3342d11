"""What the JAX backend carries: arrays, tracers and Python numbers, their types, and how two
types join (``lax.cond`` outputs) or convert.

Arrays, tracers and Python numbers are values the engine carries; any other leaf (None, a
string, a function, an unset return value) is static: it must be the same on both branches and
in every iteration. A Python number (weak type) next to an array takes the array's dtype where
its kind fits (``1`` next to float32), as in the runtime; anything else is an error naming the
variable.
"""

from __future__ import annotations

import contextlib

import jax
import jax.numpy as jnp
import numpy as np

import runtime as rt
from runtime import nest
from runtime.source_location import generated_line_origin
from transpiler.operators import control_flow as cf

NUMBERS = (bool, int, float, complex)
_KIND_RANK = {"b": 0, "i": 1, "u": 1, "f": 2, "c": 3}


def is_array(leaf) -> bool:
    """A leaf the engine carries (the others are static Python values)."""
    return isinstance(leaf, (jax.Array, np.ndarray, np.generic, jax.ShapeDtypeStruct) + NUMBERS)


def spec_of(leaf) -> jax.ShapeDtypeStruct:
    if isinstance(leaf, jax.ShapeDtypeStruct):
        return leaf
    if isinstance(leaf, NUMBERS):
        return jax.ShapeDtypeStruct((), jnp.result_type(leaf), weak_type=type(leaf) is not bool)
    aval = getattr(leaf, "aval", None)
    if aval is not None:
        return jax.ShapeDtypeStruct(aval.shape, aval.dtype, weak_type=aval.weak_type)
    array = np.asarray(leaf)
    return jax.ShapeDtypeStruct(array.shape, array.dtype)


def zeros(spec: jax.ShapeDtypeStruct):
    """A zero of ``spec``'s type: a Python zero for a weak scalar (it stays weak)."""
    if spec.weak_type and spec.shape == ():
        return {"b": False, "f": 0.0, "c": 0j}.get(np.dtype(spec.dtype).kind, 0)
    return jnp.zeros(spec.shape, spec.dtype)


def zeros_like(value):
    return nest.map_structure(lambda leaf: zeros(spec_of(leaf)) if is_array(leaf) else leaf,
                              value)


def converted(leaf, spec: jax.ShapeDtypeStruct):
    """``leaf`` in ``spec``'s type (a Python number stays one when ``spec`` is weak). A weak
    leaf of the right dtype is made strong when ``spec`` is: ``lax.cond`` would otherwise type
    its output after one branch, and ``acc = 0.0`` joined with an array sum must stay an array
    (it promotes as the sum does afterwards)."""
    if not needs_conversion(leaf, spec):
        return leaf
    if spec.weak_type and isinstance(leaf, NUMBERS):
        return {"b": bool, "i": int, "u": int, "f": float, "c": complex}[
            np.dtype(spec.dtype).kind](leaf)
    return jnp.asarray(leaf, spec.dtype)


def needs_conversion(leaf, spec: jax.ShapeDtypeStruct) -> bool:
    """Whether ``leaf`` differs from ``spec``'s type: another dtype, or weak where ``spec`` is
    strong."""
    have = spec_of(leaf)
    return have.dtype != spec.dtype or (have.weak_type and not spec.weak_type)


def describe(spec: jax.ShapeDtypeStruct) -> str:
    if spec.weak_type:
        kind = {"b": "bool", "i": "int", "u": "int", "f": "float", "c": "complex"}[
            np.dtype(spec.dtype).kind]
        return f"a Python {kind}"
    return f"dtype {np.dtype(spec.dtype).name}"


def joined(name: str, a: jax.ShapeDtypeStruct, b: jax.ShapeDtypeStruct, construct: str,
            location: str) -> jax.ShapeDtypeStruct:
    """The one type a conditional gives ``name`` from the true branch's ``a`` and the false
    branch's ``b``, or the error naming it."""
    if tuple(a.shape) != tuple(b.shape):
        raise rt.errors.GraphTypeError(
            f"'{name}' has shape {tuple(a.shape)} in the true branch but {tuple(b.shape)} in the "
            f"false branch of the {construct} on a JAX tracer{location}; lax.cond needs the same "
            f"shape from both branches. Pad or reshape one of them, or decide with a Python value.")
    kind_a, kind_b = np.dtype(a.dtype).kind, np.dtype(b.dtype).kind
    if a.dtype == b.dtype:
        return jax.ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type and b.weak_type)
    if a.weak_type and b.weak_type and kind_a != kind_b:
        raise rt.errors.GraphTypeError(
            f"'{name}' is {describe(a)} in the true branch but {describe(b)} in the false "
            f"branch of the {construct} on a JAX tracer{location}; Python would give a different "
            f"type on each path, which one traced value cannot. Make both the same type (e.g. "
            f"write 1.0 instead of 1).")
    if a.weak_type != b.weak_type:
        weak, strong = (a, b) if a.weak_type else (b, a)
        if _KIND_RANK[np.dtype(weak.dtype).kind] <= _KIND_RANK[np.dtype(strong.dtype).kind]:
            return jax.ShapeDtypeStruct(strong.shape, strong.dtype)
    elif a.weak_type:
        return jax.ShapeDtypeStruct(a.shape, jnp.promote_types(a.dtype, b.dtype), weak_type=True)
    raise rt.errors.GraphTypeError(
        f"'{name}' has {describe(a)} in the true branch but {describe(b)} in the false branch "
        f"of the {construct} on a JAX tracer{location}; both branches must give the same dtype "
        f"(convert one of them with .astype(...)).")


def condition(value, construct: str):
    """A bool scalar from a traced condition: numbers mean ``!= 0``; non-scalars are errors."""
    if np.ndim(value) != 0:
        raise ValueError(
            f"the condition of {construct} must be a scalar, got an array of shape "
            f"{tuple(np.shape(value))}{cf._where()}. Reduce it with jnp.all or jnp.any to say "
            f"which truth you mean.")
    value = jnp.asarray(value)
    return value if value.dtype == jnp.bool_ else value != 0



def evaluated_aside(fn):
    """``fn()``, in a scratch trace when a jaxpr is being built: what it stages is dropped, and
    a value depending on the jaxpr's tracers is a tracer (of the scratch trace), as it would be
    in the jaxpr. Elsewhere (eagerly, under ``grad`` or ``vmap`` alone) nothing is recorded and
    a value on concrete arrays stays concrete, so ``fn`` runs as it is."""
    if not isinstance(getattr(_core.trace_ctx, "trace", None), _DynamicJaxprTrace):
        return fn()
    result = []
    jax.eval_shape(lambda: result.append(fn()) or ())
    return result[0]


try:
    from jax._src import core as _core
    from jax._src.interpreters.partial_eval import DynamicJaxprTrace as _DynamicJaxprTrace
except ImportError:  # pragma: no cover - another JAX version: the test stays in the jaxpr
    _core, _DynamicJaxprTrace = None, ()


def equal(a, b) -> bool:
    try:
        return bool(type(a) is type(b) and a == b)
    except Exception:  # noqa: BLE001 - an object without a truthful == is not equal
        return False


def weak(value):
    """``value`` typed as a Python number stands for (a weak type), as JAX types ``fori_loop``'s
    counter: a range's counter next to int8 or float16 arrays keeps their dtype."""
    if getattr(value, "weak_type", True) or np.ndim(value) != 0:
        return value
    return _convert_element_type(value, np.dtype(value.dtype), weak_type=True)


def converted_type(value, dtype, weak_type: bool):
    """``value`` as ``dtype``, weak (standing for a Python number) or not."""
    return _convert_element_type(value, np.dtype(dtype), weak_type=weak_type)


try:
    from jax._src.lax.lax import _convert_element_type
except ImportError:  # pragma: no cover - another JAX version: the counter keeps its dtype
    def _convert_element_type(value, dtype, weak_type):
        return value


_depth = [0]  # how many staged branches or loop bodies are being traced


@contextlib.contextmanager
def staged_block():
    """While a branch or loop body that JAX stages is traced: Python effects in it (``print``)
    must happen at run time."""
    _depth[0] += 1
    try:
        yield
    finally:
        _depth[0] -= 1


def in_staged_block() -> bool:
    return _depth[0] > 0


def staged(fn):
    """``fn`` traced as a staged block (see ``staged_block``)."""
    def traced(*args):
        with staged_block():
            try:
                return fn(*args)
            except (jax.errors.TracerIntegerConversionError, IndexError) as error:
                refusal = python_int_refusal(error)
                if refusal is None:
                    raise
                raise refusal from error
    return traced


def python_int_refusal(error: Exception) -> Exception | None:
    """``error`` as an error naming the user's line, when it is JAX refusing a traced
    integer where Python needs an int (a list index, a slice bound); else None."""
    if isinstance(error, jax.errors.TracerIntegerConversionError) \
            or isinstance(error, IndexError) and _traced_slice_bound(error):
        return _needs_a_python_int(error)
    return None


def _traced_slice_bound(error: IndexError) -> bool:
    """Whether ``error`` is JAX's refusal of a slice with a traced bound (``x[:i + 1]``), which
    needs the bound as a Python int just as a list index does."""
    return str(error).startswith("Slice entries must be static")


def _needs_a_python_int(error: Exception) -> Exception:
    """JAX's refusal of ``__index__`` on a tracer, in a staged block, as an error naming the
    user's line: there an integer that Python needs while tracing (a list index, a slice
    bound, a size) is traced, often the block's own counter."""
    where = None
    traceback = error.__traceback__
    while traceback is not None:  # the innermost line of converted code
        code = traceback.tb_frame.f_code
        where = generated_line_origin(code.co_filename, traceback.tb_lineno) or where
        traceback = traceback.tb_next
    line = f" at {where}" if where is not None else ""
    source = f" (`{where.source_line}`)" if where is not None and where.source_line else ""
    return rt.errors.GraphTypeError(
        f"A traced integer is used{line}{source} where Python needs an int it knows while "
        f"tracing: an index of a list or tuple, a slice bound or a size. In a traced loop or "
        f"branch, values such as its counter are only known when the function runs. Index "
        f"an array instead (jnp.stack(values)[i] for a list of arrays), use "
        f"jax.lax.dynamic_slice for a slice, or make the integer a Python int.")


@contextlib.contextmanager
def escapes_refused(blocks, construct: str, location: str):
    """Inside: a staged construct whose ``blocks`` (the converted bodies) are traced. A variable
    of an enclosing function that a block changes without it being state of the construct
    (``nonlocal count`` in a helper the body calls, whose own traced ``if`` changes ``count``)
    would keep a tracer of the finished trace of the block, which fails later, far from the
    cause: it is refused here, naming it, and its value before the construct is put back."""
    cells = _cells_reached(blocks)
    before = [_contents(cell) for cell, _ in cells]
    try:
        yield
    except jax.errors.UnexpectedTracerError as error:  # the escaped tracer used again
        _refuse_escaped(cells, before, construct, location, error)
        raise
    _refuse_escaped(cells, before, construct, location, None)


def _refuse_escaped(cells: list, before: list, construct: str, location: str, error) -> None:
    """Raises naming a variable of ``cells`` that the construct changed to a value holding a
    tracer of a finished trace (that of a block: neither the current trace nor one it is
    nested in), putting its value before the construct back."""
    trace = getattr(getattr(_core, "trace_ctx", None), "trace", None)
    if trace is None:  # another JAX version: JAX's own error stays
        return
    live = set()
    while trace is not None and id(trace) not in live:
        live.add(id(trace))
        trace = getattr(trace, "parent_trace", None)
    for (cell, name), old in zip(cells, before):
        value = _contents(cell)
        if value is old or not any(
                isinstance(leaf, jax.core.Tracer) and id(leaf._trace) not in live
                for leaf in jax.tree_util.tree_leaves(value)):
            continue
        if old is _EMPTY:
            del cell.cell_contents
        else:
            cell.cell_contents = old
        raise rt.errors.GraphValueError(
            f"'{name}' is changed by the {construct}{location} through a function it calls "
            f"(a `nonlocal` statement there), so JAX cannot carry it through the traced "
            f"{construct}: its new value would be a tracer of the finished trace of the body. "
            f"Return the new value from that function and assign it in the {construct} "
            f"({name} = f(..., {name})), or keep it in an array the body updates.") from error


def _cells_reached(blocks) -> list:
    """The closure cells of the functions the ``blocks`` can call (functions their closures
    hold, transitively), each once, with the variable it holds: ``[(cell, name), ...]``. The
    blocks' own cells are left out: the construct carries those it changes that are used
    after it, and one it leaves changed is not read again."""
    own = {id(cell) for block in blocks for cell in getattr(block, "__closure__", None) or ()}
    cells, seen, stack = {}, set(), [block for block in blocks if block is not None]
    while stack:
        function = stack.pop()
        code = getattr(function, "__code__", None)
        if code is None or id(function) in seen:
            continue
        seen.add(id(function))
        for name, cell in zip(code.co_freevars, function.__closure__ or ()):
            if id(cell) not in own:
                cells.setdefault(id(cell), (cell, name))
            value = _contents(cell)
            if callable(value) and hasattr(value, "__code__"):
                stack.append(value)
    return list(cells.values())


_EMPTY = object()


def _contents(cell):
    try:
        return cell.cell_contents
    except ValueError:  # a variable not assigned yet
        return _EMPTY
