"""How the modules of ``transpiler.tf`` are made: TensorFlow's names bound to the runtime's
objects, and a clear ``AttributeError`` for every TensorFlow name that has no equivalent.

TensorFlow's functions take a ``name=`` argument (it names graph nodes); a runtime function
that has none gets a thin wrapper that accepts it and leaves it out, which changes no value.
"""

from __future__ import annotations

import functools
import inspect
from typing import Callable

from runtime.ops import tensorflow_rules

_README = "the README's 'TensorFlow programs' section lists what is there"


def accepting_name(value):
    """``value``, or for a function without a ``name`` parameter, a wrapper that takes one."""
    if not inspect.isfunction(value):
        return value
    parameters = inspect.signature(value).parameters
    if "name" in parameters or any(p.kind is inspect.Parameter.VAR_KEYWORD
                                   for p in parameters.values()):
        return value

    @functools.wraps(value)
    def with_name(*args, name=None, **kwargs):
        return value(*args, **kwargs)

    return with_name


def export(namespace: dict, source, names: str, *, floating_only: bool = False,
           kernel_errors: bool = True) -> None:
    """Binds each of the space-separated ``names`` of ``source`` in ``namespace``;
    ``tf_name=runtime_name`` binds a TensorFlow name to a runtime name that differs.

    Functions follow TensorFlow's rules (``runtime.ops.tensorflow_rules``): with
    ``floating_only``, integer tensors are refused; with ``kernel_errors`` (ops, whose shape
    checks TensorFlow's kernels make), a shape error raised eagerly is an
    ``InvalidArgumentError``. Checks TensorFlow makes in Python (``tf.debugging``) keep
    their ``ValueError``: ``kernel_errors=False``."""
    for entry in names.split():
        tf_name, _, runtime_name = entry.partition("=")
        value = getattr(source, runtime_name or tf_name)
        if inspect.isfunction(value):
            if floating_only:
                value = tensorflow_rules.floating_only(value)
            if kernel_errors:
                value = tensorflow_rules.kernel_errors(value)
        namespace[tf_name] = accepting_name(value)


def missing(module: str) -> Callable[[str], object]:
    """A module ``__getattr__`` that names the TensorFlow name asked for and says it is not
    supported yet (never a silent stand-in)."""
    def __getattr__(name: str):
        if name.startswith("__"):  # Python's and tools' own probes (__path__, __wrapped__, ...)
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        raise AttributeError(
            f"{module}.{name} is not supported by eager2graph yet: transpiler.tf maps "
            f"TensorFlow 2's names onto the runtime and this one has no equivalent there "
            f"({_README}).")
    return __getattr__
