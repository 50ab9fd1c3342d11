"""``transpiler.explain`` on every reference sample: it reports what tracing does, or raises
what tracing raises, and its per-line facts add up to the graph."""

from __future__ import annotations

import contextlib
import io
import warnings

import pytest

import transpiler
from runtime.ops.registry import COND, CONST, PLACEHOLDER, WHILE_LOOP

from . import harness
from .test_reference import PARAMS

_FIRST_INPUTS = {}
for _param in PARAMS:
    _sample = _param.values[0]
    if _sample is not None and _sample.graph and _sample.state is None:
        # without the reference test's marks: its known gaps are about values, not tracing
        _FIRST_INPUTS.setdefault(id(_sample.fn), pytest.param(*_param.values, id=_param.id))
SAMPLES = list(_FIRST_INPUTS.values())


def _quietly(call):
    """``call()`` with its prints and warnings kept out of the test output."""
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call()


@pytest.mark.parametrize("sample, args", SAMPLES)
def test_explain_reports_what_tracing_does(sample: harness.Case, args: tuple) -> None:
    tensors = harness.to_tensor_inputs(args, sample.tensor_params, sample.dtype)
    try:
        report = _quietly(lambda: transpiler.explain(sample.fn, *tensors))
    except Exception as error:  # noqa: BLE001 - tracing itself must raise the same
        with pytest.raises(type(error)):
            _quietly(lambda: transpiler.function(sample.fn).get_concrete_function(*tensors))
        return
    concrete = _quietly(lambda: transpiler.function(sample.fn).get_concrete_function(*tensors))
    final_ops = [node for node in _walk(concrete.graph)
                 if node.op not in (PLACEHOLDER, CONST, COND, WHILE_LOOP)]
    assert report.ops_kept == len(final_ops)
    listed = sum(sum(line.ops.values()) for line in report.lines)
    assert listed <= report.ops_traced
    text = str(report)
    assert text.startswith(f"explain {sample.fn.__name__}(")
    for line in report.lines:
        assert not (line.marker == "skipped" and (line.ops or line.ran)), line


def _walk(graph):
    for node in graph.nodes:
        yield node
        for sub in node.subgraphs.values():
            yield from _walk(sub)
