"""Random programs exported to ONNX give the graph's results in ONNX Runtime.

Two generators: the pass tests' random programs (``graph_helpers.random_program``: constant
subexpressions, identities, duplicates, conds and loops that pass values through, nested
control flow, variable writes; prints dropped with ``drop_effects=True``; programs drawing
random numbers are left out, as their export is refused), and the fuzzer's converted
programs (``tests/reference/program_gen``: ``while``/``for``/``if`` on tensors, ``break``,
``continue``, ``return``, floor division and modulo) in int32, int64 and float64.
Deterministic (``derandomize``) and small, so the module stays within a few seconds.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("onnxruntime")

from hypothesis import HealthCheck, Phase, assume, given, note, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import runtime as rt  # noqa: E402
import transpiler  # noqa: E402
from runtime.export.onnx_export import export  # noqa: E402
from tests.reference import fuzzing, program_gen  # noqa: E402
from tests.reference.program_gen import FEATURES, FLOAT64, INT32, INT64  # noqa: E402
from tests.runtime.graph_helpers import INPUTS, PROGRAMS, random_program  # noqa: E402
from tests.runtime.test_export_onnx_harness import (assert_close, graph_results,  # noqa: E402
                                                    run_model)

def cheap(examples: int) -> settings:
    return settings(max_examples=examples, derandomize=True, database=None, deadline=None,
                    print_blob=True, phases=[Phase.explicit, Phase.generate],
                    suppress_health_check=list(HealthCheck))


@cheap(60)
@given(program=PROGRAMS)
def test_random_graph_programs(program):
    dtype_name, steps = program
    assume(not any(step[0] == "random" for step in steps))
    built = random_program(dtype_name, steps)
    built.state.assign(np.zeros(3, built.dtype))
    concrete = built.trace()
    model = export(concrete, None, drop_effects=True)
    for x in INPUTS[dtype_name]:
        for n in (0, 3):
            built.state.assign(np.zeros(3, built.dtype))
            args = (x, np.array(n, np.int32))
            with np.errstate(all="ignore"):
                onnx_results = run_model(model, args)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                built.state.assign(np.zeros(3, built.dtype))
                assert_close(onnx_results, graph_results(concrete, args))


@pytest.fixture(scope="module")
def program_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("onnx_programs")


@pytest.mark.parametrize("mode", [INT32, INT64, FLOAT64], ids=lambda m: m.name)
def test_random_converted_programs(mode, program_dir):
    features = FEATURES.with_(prints=False)

    @cheap(4)
    @given(source=program_gen.programs(mode, features),
           inputs=st.lists(st.tuples(program_gen.arguments(mode), program_gen.arguments(mode)),
                           min_size=3, max_size=3))
    def check(source, inputs):
        note(source)
        module = fuzzing.load_program(source, program_dir)
        try:
            dtype = np.dtype(mode.dtype)
            function = transpiler.function(module.f, jit_compile=False)
            spec = rt.TensorSpec([], dtype)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                concrete = function.get_concrete_function(spec, spec)
            model = export(concrete, None)
            for a, b in inputs:
                args = (np.array(a, dtype), np.array(b, dtype))
                try:
                    expected = graph_results(concrete, args)
                except rt.errors.InvalidArgumentError:
                    continue  # the graph raises (a value that does not fit): so may the model
                assert_close(run_model(model, args), expected, rtol=1e-9)
        finally:
            fuzzing.unload_program(module)

    check()
