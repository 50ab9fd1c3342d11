"""TensorFlow 2 Keras programs (``tests/keras_programs``), run with
``import transpiler.tf as tf``: each returns what TensorFlow 2.21 (Keras 3) returned, to float32
rounding after training, and prints the same progress lines (times and bars aside).

The expected records were made by running the same programs with TensorFlow
(``python -m tests.keras_programs.regenerate``).
"""

from __future__ import annotations

import importlib.util
import warnings

import pytest

import transpiler.tf as tf
from tests import keras_programs

PROGRAMS = keras_programs.programs()
EXPECTED = keras_programs.load_expected()

# Where eager2graph differs from TensorFlow, and why.
KNOWN_DIFFERENCES: dict[str, str] = {}


def test_every_program_has_an_expected_record():
    assert sorted(PROGRAMS) == sorted(k for k in EXPECTED if not k.startswith("_"))


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_matches_tensorflow(name):
    expected = EXPECTED[name]
    tf.keras.backend.clear_session()  # layer names start from "dense", as in regenerate.py
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a program that warns here and not in Keras fails
        actual = keras_programs.run(PROGRAMS[name], tf)
    if name in KNOWN_DIFFERENCES:
        assert "error" not in actual, actual.get("message")
        pytest.xfail(KNOWN_DIFFERENCES[name])
    if "error" in expected or "error" in actual:
        assert expected.get("error") == actual.get("error"), actual.get("message")
    else:
        differences = keras_programs.compare(expected["value"], actual["value"])
        assert not differences, "\n".join(differences)
    differences = keras_programs.progress_differences(expected["output"], actual["output"])
    assert not differences, "\n".join(differences) + \
        f"\n--- TensorFlow\n{expected['output']}--- eager2graph\n{actual['output']}"


@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None,
                    reason="TensorFlow is not installed")
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_expected_records_are_current(name):
    import tensorflow
    tensorflow.keras.backend.clear_session()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Keras' own advice is not part of a program's output
        live = keras_programs.run(PROGRAMS[name], tensorflow)
    assert not keras_programs.compare(EXPECTED[name]["value"], live["value"]) \
        if "value" in live else EXPECTED[name].get("error") == live.get("error")
