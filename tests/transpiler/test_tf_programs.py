"""TensorFlow 2 programs (``tests/tf_programs``), written as TensorFlow users write them, run
with ``import transpiler.tf as tf``: each returns what TensorFlow 2.21 returned (values,
dtypes, shapes, the exception class when it raises) and prints what TensorFlow printed.

The expected records were made by running the same programs with TensorFlow
(``python -m tests.tf_programs.regenerate``); when TensorFlow is importable here, they are
also compared with a live run.
"""

from __future__ import annotations

import importlib.util
import warnings

import numpy as np
import pytest

import transpiler.tf as tf
from tests import tf_programs

PROGRAMS = tf_programs.programs()
EXPECTED = tf_programs.load_expected()

# Where eager2graph differs from TensorFlow on purpose or for now: the reason, and the
# record eager2graph is held to instead.
KNOWN_DIFFERENCES = {
    "autograph_data.return_inside_dataset_loop": (
        "a return inside a loop over a dataset works here; TensorFlow raises "
        "NotImplementedError", {"value": tf_programs.plain((np.int64(4), np.int64(-1))),
                                "output": ""}),
    "basics.input_signature_fixed": (
        "Python's print of a tensor in a converted function prints its value on every call "
        "here; TensorFlow prints the symbolic tensor once, when tracing", None),
    "basics.dtypes_while_tracing": (
        "inside a traced function a tensor's dtype is NumPy's (it prints as int64 and has no "
        "is_integer): the graph's own code (runtime.graph's lint, the passes, saving) tests "
        "for np.dtype instances; an eager tensor's is TensorFlow's (basics.dtypes_print_and_"
        "compare)", None),
}


def _check(expected: dict, actual: dict) -> None:
    if "error" in expected or "error" in actual:
        if expected.get("error") != actual.get("error"):
            pytest.fail(f"TensorFlow: {expected.get('error', 'no error')}, eager2graph: "
                        f"{actual.get('error', 'no error')}: {actual.get('message', '')}",
                        pytrace=False)
    else:
        differences = tf_programs.compare(expected["value"], actual["value"])
        if differences:
            pytest.fail("\n".join(differences), pytrace=False)
    if actual["output"] != expected["output"]:
        pytest.fail(f"the printed text differs:\n--- TensorFlow\n{expected['output']}"
                    f"--- eager2graph\n{actual['output']}", pytrace=False)


def test_every_program_has_an_expected_record():
    assert sorted(PROGRAMS) == sorted(k for k in EXPECTED if not k.startswith("_"))


# NumPy's floating-point warnings that a program causes on purpose (TensorFlow gives the same
# inf and nan without a word; eager2graph shows NumPy's warning at the user's line).
EXPECTED_WARNINGS = {"gradients.custom_gradient_log1pexp": "overflow encountered in exp",
                     "user_programs.image_psnr": "divide by zero encountered in log"}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_matches_tensorflow(name):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        actual = tf_programs.run(PROGRAMS[name], tf)
    shown = {str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)}
    assert shown == ({EXPECTED_WARNINGS[name]} if name in EXPECTED_WARNINGS else set()), shown
    if name in KNOWN_DIFFERENCES:
        reason, instead = KNOWN_DIFFERENCES[name]
        if instead is None:
            pytest.xfail(reason)
        _check(instead, actual)
        return
    _check(EXPECTED[name], actual)


@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None,
                    reason="TensorFlow is not installed")
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_expected_records_are_current(name):
    import tensorflow
    from tests.tf_programs.regenerate import file_descriptors
    live = tf_programs.run(PROGRAMS[name], tensorflow, capture=file_descriptors)
    _check(live, EXPECTED[name])
