"""The Keras names rt.keras lacks: the table in runtime/keras/missing.py stays true (each name
listed is missing), and a missing name's error says whether Keras 3 has it."""

import importlib

import pytest

import runtime as rt
from runtime.keras.missing import KERAS_NAMES_MISSING


def _module(name: str):
    module = rt
    for part in name.split("."):
        module = getattr(module, part)
    return module


@pytest.mark.parametrize("module", sorted(KERAS_NAMES_MISSING))
def test_every_name_listed_as_missing_is_missing(module):
    namespace = _module(module)
    present = [name for name in sorted(KERAS_NAMES_MISSING[module])
               if _has(namespace, name)]
    assert not present, f"rt.{module} has {present}: remove them from runtime/keras/missing.py"


def _has(namespace, name) -> bool:
    try:
        getattr(namespace, name)
    except AttributeError:
        return False
    return True


def test_the_error_says_whether_keras_has_the_name():
    with pytest.raises(AttributeError, match=r"keras.losses.Circle is not supported by rt.keras "
                                             r"yet \(Keras 3 has it"):
        rt.keras.losses.Circle
    with pytest.raises(AttributeError, match="keras.layers.Dens is not supported by rt.keras, "
                                             "and Keras 3 has no such name either: check the "
                                             "spelling"):
        rt.keras.layers.Dens
    assert importlib.import_module("runtime.keras.layers").__name__ == "runtime.keras.layers"
