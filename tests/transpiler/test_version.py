"""Both packages report the distribution's version, the one pyproject.toml declares."""

import os

import pytest

import runtime as rt
import transpiler

tomllib = pytest.importorskip("tomllib")  # Python 3.11+

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_both_packages_have_the_version_of_pyproject():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as handle:
        declared = tomllib.load(handle)["project"]["version"]
    assert rt.__version__ == transpiler.__version__ == declared


def test_the_warnings_are_exported():
    assert issubclass(transpiler.UnrollWarning, transpiler.ConversionWarning)
    assert issubclass(transpiler.ConversionWarning, UserWarning)
