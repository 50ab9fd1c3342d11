"""Every public callable of ``rt`` and its namespaces says what it does (``help(rt.exp)``)."""

import inspect
import types

import runtime as rt
import transpiler

NAMESPACES = {"rt": rt, "rt.nn": rt.nn, "rt.math": rt.math, "rt.linalg": rt.linalg,
              "rt.random": rt.random, "rt.debugging": rt.debugging, "rt.config": rt.config,
              "transpiler": transpiler}


def _undocumented(prefix: str, namespace) -> list[str]:
    names = []
    for name in dir(namespace):
        value = getattr(namespace, name)
        if name.startswith("_") or isinstance(value, types.ModuleType) or not callable(value):
            continue
        if not (inspect.getdoc(value) or "").strip():
            names.append(f"{prefix}.{name}")
    return names


def test_every_public_callable_has_a_docstring():
    missing = [name for prefix, namespace in NAMESPACES.items()
               for name in _undocumented(prefix, namespace)]
    assert missing == []
