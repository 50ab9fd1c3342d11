"""``tf.test``: a ``TestCase`` with TensorFlow's array assertions, and ``main``.

``evaluate`` gives NumPy values (a tensor's ``numpy()``, through lists, tuples and dicts);
``assertAllClose`` and ``assertAllEqual`` compare array-likes of one shape, as TensorFlow's do
(NaNs equal NaNs; the tolerances are TensorFlow's defaults)."""

from __future__ import annotations

import unittest

import numpy as np

from runtime import nest
from runtime.tensor import Tensor
from transpiler.tf._names import missing as _missing

main = unittest.main


def _array(value) -> np.ndarray:
    read = getattr(value, "_read_value_for_op", None)  # a variable
    value = read() if read is not None and not isinstance(value, Tensor) else value
    return np.asarray(value.numpy() if isinstance(value, Tensor) else value)


class TestCase(unittest.TestCase):
    """``unittest.TestCase`` with TensorFlow's ``evaluate`` and array assertions."""

    def evaluate(self, tensors):
        """The NumPy values of ``tensors`` (any nesting of lists, tuples and dicts)."""
        return nest.map_structure(
            lambda value: _array(value) if isinstance(value, Tensor)
            or hasattr(value, "_read_value_for_op") else value, tensors)

    def _pairs(self, a, b):
        if isinstance(a, dict) or isinstance(b, dict):
            self.assertIsInstance(a, dict)
            self.assertIsInstance(b, dict)
            self.assertEqual(sorted(a), sorted(b), "the dicts have different keys")
            return [(a[key], b[key]) for key in a]
        if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and (
                any(isinstance(item, (Tensor, dict, list, tuple)) for item in list(a) + list(b))
                or len(a) != len(b)):
            self.assertEqual(len(a), len(b), "the sequences have different lengths")
            return list(zip(a, b))
        return None

    def assertAllClose(self, a, b, rtol: float = 1e-6, atol: float = 1e-6, msg=None):
        """``a`` and ``b`` (or each pair of their items) have one shape and are close."""
        pairs = self._pairs(a, b)
        if pairs is not None:
            for x, y in pairs:
                self.assertAllClose(x, y, rtol=rtol, atol=atol, msg=msg)
            return
        x, y = _array(a), _array(b)
        self.assertEqual(x.shape, y.shape, f"Shape mismatch: expected {x.shape}, got "
                                           f"{y.shape}. {msg or ''}")
        if np.float16 in (x.dtype, y.dtype):  # TensorFlow loosens the bounds for halfs
            rtol, atol = max(rtol, 1e-3), max(atol, 1e-3)
        np.testing.assert_allclose(y, x, rtol=rtol, atol=atol, equal_nan=True,
                                   err_msg=msg or "")

    def assertNotAllClose(self, a, b, rtol: float = 1e-6, atol: float = 1e-6, msg=None):
        try:
            self.assertAllClose(a, b, rtol=rtol, atol=atol)
        except AssertionError:
            return
        raise AssertionError(msg or "the two values are close")

    def assertAllEqual(self, a, b, msg=None):
        """``a`` and ``b`` have one shape and equal values (NaN equals NaN)."""
        x, y = _array(a), _array(b)
        self.assertEqual(x.shape, y.shape, f"Shape mismatch: expected {x.shape}, got "
                                           f"{y.shape}. {msg or ''}")
        np.testing.assert_array_equal(y, x, err_msg=msg or "")

    def assertAllGreater(self, a, comparison_target):
        self.assertTrue(np.all(_array(a) > comparison_target), f"{_array(a)} is not all > "
                                                               f"{comparison_target}")

    def assertAllLess(self, a, comparison_target):
        self.assertTrue(np.all(_array(a) < comparison_target), f"{_array(a)} is not all < "
                                                               f"{comparison_target}")

    def assertDTypeEqual(self, target, expected_dtype):
        self.assertEqual(_array(target).dtype, np.dtype(expected_dtype))


__getattr__ = _missing("tf.test")
