"""Every Python package of the source tree is part of the installed distribution."""

import os
import tomllib

from setuptools import find_packages

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_the_package_list_covers_every_subpackage():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as handle:
        config = tomllib.load(handle)["tool"]["setuptools"]["packages"]["find"]
    found = set(find_packages(ROOT, include=config["include"]))
    on_disk = {os.path.relpath(path, ROOT).replace(os.sep, ".")
               for top in ("runtime", "transpiler")
               for path, _, files in os.walk(os.path.join(ROOT, top)) if "__init__.py" in files}
    assert on_disk <= found
