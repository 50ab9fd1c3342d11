"""What the ONNX export tests share: export a concrete function, run the model in ONNX Runtime,
compare with the graph (integers and bools exactly, floats to 1e-5 relative, NaN and
infinities in place). Imported by the other ``test_export_onnx*`` modules."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

ort = pytest.importorskip("onnxruntime")

import onnx  # noqa: E402

import runtime as rt  # noqa: E402
from runtime.export import onnx_export  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = os.path.join(ROOT, "examples")
if EXAMPLES not in sys.path:  # the example scripts import each other by name
    sys.path.append(EXAMPLES)


def session(model: onnx.ModelProto):
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.log_severity_level = 3  # the models carry unused initializers now and then
    return ort.InferenceSession(model.SerializeToString(), options,
                                providers=["CPUExecutionProvider"])


def run_model(model: onnx.ModelProto, arrays) -> list[np.ndarray]:
    runner = session(model)
    return runner.run(None, {i.name: np.asarray(a) for i, a in zip(runner.get_inputs(), arrays)})


def graph_results(concrete, args) -> list[np.ndarray]:
    with np.errstate(all="ignore"):
        result = concrete(*args)
    return [np.asarray(leaf) for leaf in rt.nest.flatten(result) if isinstance(leaf, rt.Tensor)]


def assert_close(actual, expected, rtol: float = 1e-5) -> None:
    """Same dtypes and shapes; integers and bools equal, floats to ``rtol`` of the largest
    magnitude (NaN where NaN, the same infinities)."""
    assert len(actual) == len(expected)
    for index, (a, e) in enumerate(zip(actual, expected)):
        a, e = np.asarray(a), np.asarray(e)
        assert (a.dtype, a.shape) == (e.dtype, e.shape), (index, a.dtype, a.shape, e.dtype, e.shape)
        if e.dtype.kind != "f":
            np.testing.assert_array_equal(a, e, err_msg=f"output {index}")
            continue
        np.testing.assert_array_equal(np.isnan(a), np.isnan(e), err_msg=f"NaN in output {index}")
        infinite = np.isinf(e)
        np.testing.assert_array_equal(a[infinite], e[infinite], err_msg=f"inf in output {index}")
        finite = np.isfinite(e)
        scale = float(np.abs(e[finite]).max()) if finite.any() else 0.0
        np.testing.assert_allclose(a[finite], e[finite], rtol=rtol, atol=rtol * scale,
                                   err_msg=f"output {index}")


def export_and_compare(concrete, *args, drop_effects: bool = False, tmp_path=None):
    """Exports ``concrete``, runs it on ``args`` (arrays for the tensor parameters) in ONNX
    Runtime and compares with the graph; returns the model."""
    path = None if tmp_path is None else os.path.join(tmp_path, "model.onnx")
    model = onnx_export.export(concrete, path, drop_effects=drop_effects)
    tensors = [a for a in args if isinstance(a, np.ndarray)]
    assert_close(run_model(model, tensors), graph_results(concrete, args))
    return model


def spec_of(array: np.ndarray) -> rt.TensorSpec:
    return rt.TensorSpec(array.shape, array.dtype)


def op_types(model: onnx.ModelProto) -> set[str]:
    """Every ONNX op the model uses, subgraphs included."""
    found = set()

    def walk(graph):
        for node in graph.node:
            found.add(node.op_type)
            for attribute in node.attribute:
                if attribute.type == onnx.AttributeProto.GRAPH:
                    walk(attribute.g)
    walk(model.graph)
    return found


def test_the_comparison_catches_a_wrong_value():
    with pytest.raises(AssertionError):
        assert_close([np.array([1.0, 2.0])], [np.array([1.0, 2.1])])
    with pytest.raises(AssertionError):
        assert_close([np.array([1], np.int64)], [np.array([1], np.int32)])
