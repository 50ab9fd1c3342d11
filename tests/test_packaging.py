"""Every Python package of the source tree is part of the installed distribution."""

import fnmatch
import os

import pytest

tomllib = pytest.importorskip("tomllib")  # Python 3.11+

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_the_package_patterns_cover_every_subpackage():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as handle:
        include = tomllib.load(handle)["tool"]["setuptools"]["packages"]["find"]["include"]
    on_disk = [os.path.relpath(path, ROOT).replace(os.sep, ".")
               for top in ("runtime", "transpiler")
               for path, _, files in os.walk(os.path.join(ROOT, top)) if "__init__.py" in files]
    assert "runtime.serialize" in on_disk
    missing = [p for p in on_disk if not any(fnmatch.fnmatchcase(p, pattern) for pattern in include)]
    assert missing == []
