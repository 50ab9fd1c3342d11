"""Backends: what turns an optimized graph into something that runs it.

A ``ConcreteFunction`` asks its backend to ``compile`` the graph once and calls the result.
The NumPy plan (``NUMPY``) is the default and the reference every other backend must match.
"""

from runtime.backends.base import Backend, Executable
from runtime.backends.numpy_plan import NUMPY

__all__ = ["Backend", "Executable", "NUMPY"]
