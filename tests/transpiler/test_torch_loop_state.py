"""Staged PyTorch loops and branches keep Python's meaning for what they carry and change:
Python numbers in loop state take the dtype PyTorch's promotion gives them next to tensors,
``reversed(range(n))`` counts down, a Python int bound made dynamic by ``torch.compile`` stays
symbolic, a submodule's ``forward`` is converted, and a registered buffer changed in a staged
block is changed in place. Each converted function is exported (or compiled with the
``aot_eager`` backend) once and compared with plain Python on several inputs.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from torch._dynamo.utils import counters  # noqa: E402

from runtime.errors import GraphTypeError  # noqa: E402
from tests.torch_programs import Calls  # noqa: E402
from tests.transpiler.staging_samples import (  # noqa: E402
    extended_gcd, halved_sum, reverse_digits, reversed_weighted, rotated)
from transpiler import convert  # noqa: E402


def _exported(fn, example):
    return torch.export.export(Calls(convert(fn)), example).module()


def _same_tensor(expected, actual) -> bool:
    """Same value, and the same dtype where Python gives a tensor (a loop that ran zero times
    leaves a Python number in Python, which a traced value stands for)."""
    same_type = not isinstance(expected, torch.Tensor) or expected.dtype == actual.dtype
    expected, actual = torch.as_tensor(expected), torch.as_tensor(actual)
    return same_type and bool(torch.allclose(
        expected.double(), actual.double(), rtol=1e-3, equal_nan=True))


@pytest.mark.parametrize("dtype", [torch.int32, torch.int16, torch.int64])
def test_a_python_int_next_to_integer_tensors_keeps_their_dtype_and_wraps_as_they_do(dtype):
    # 1999999999 reversed overflows int32: eager PyTorch wraps it around in int32.
    big = 1999999999 if dtype != torch.int16 else 32000
    exported = _exported(reverse_digits, (torch.tensor(123, dtype=dtype),))
    for n in (0, 12345 if dtype != torch.int16 else 1234, big):
        n = torch.tensor(n, dtype=dtype)
        assert _same_tensor(reverse_digits(n), exported(n)), (dtype, n)


def test_a_python_int_in_a_compiled_loop_keeps_int32():
    compiled = torch.compile(convert(reverse_digits), fullgraph=True, backend="aot_eager")
    for n in (12345, 1999999999):
        n = torch.tensor(n, dtype=torch.int32)
        assert _same_tensor(reverse_digits(n), compiled(n))


@pytest.mark.parametrize("dtype", [torch.float16, torch.float64])
def test_a_python_float_next_to_float_tensors_keeps_their_dtype(dtype):
    exported = _exported(halved_sum, (torch.tensor(3.0, dtype=dtype),))
    for x in (0.5, 3.0, 100.0):
        x = torch.tensor(x, dtype=dtype)
        assert _same_tensor(halved_sum(x), exported(x)), (dtype, x)


@pytest.mark.parametrize("dtype, first, second", [
    (torch.int32, 1, 0), (torch.int8, 1, 0), (torch.float16, 1.0, 0.0),
    (torch.float64, 1.0, 0.0), (torch.int64, 1, 0)])
def test_python_numbers_swapped_in_a_loop_take_the_dtype_the_loop_settles_on(dtype, first,
                                                                            second):
    exported = _exported(lambda b: rotated(b, first, second), (torch.tensor(3, dtype=dtype),))
    for b in (1, 3, 5):
        b = torch.tensor(b, dtype=dtype)
        assert _same_tensor(rotated(b, first, second), exported(b)), (dtype, b)


def test_python_ints_rotated_through_int32_arithmetic_keep_int32_exported_and_compiled():
    # x0, x1 = x1, x0 - q * x1: x1 becomes int32 in the first iteration, x0 in the second.
    example = (torch.tensor(240, dtype=torch.int32), torch.tensor(46, dtype=torch.int32))
    exported = _exported(extended_gcd, example)
    compiled = torch.compile(convert(extended_gcd), fullgraph=True, backend="aot_eager")
    for a, b in ((240, 46), (17, 5), (7, 0)):
        args = (torch.tensor(a, dtype=torch.int32), torch.tensor(b, dtype=torch.int32))
        for run in (exported, compiled):
            expected, got = extended_gcd(*args), run(*args)
            assert all(_same_tensor(e, g) for e, g in zip(expected, got)), (a, b, got)


def test_a_python_float_made_an_int_tensor_in_a_loop_is_a_clear_error():
    with pytest.raises(GraphTypeError, match=r"'v' is a Python float before an iteration of "
                                             r"the while loop at staging_samples.py:\d+ and "
                                             r"dtype int32 after it"):
        _exported(lambda b: rotated(b, 1.0, 0.0), (torch.tensor(3, dtype=torch.int32),))


def test_reversed_range_of_traced_bounds_counts_down_as_python():
    exported = _exported(reversed_weighted, (torch.tensor(0), torch.tensor(5), torch.tensor(1)))
    for bounds in ((0, 5, 1), (2, 9, 3), (9, 2, -3), (5, 0, 1), (0, 0, 1), (3, -4, -2),
                   (-3, 4, 2), (1, 2, 5)):
        args = tuple(torch.tensor(bound) for bound in bounds)
        assert int(exported(*args)) == reversed_weighted(*bounds), bounds


def _first_values(x, n):
    total = torch.zeros(())
    for i in range(n):
        total = total + x[i]
    i = 0
    while i < n:
        total = total + x[i]
        i += 1
    return total


def test_a_python_int_loop_bound_made_dynamic_does_not_compile_again_per_value():
    torch._dynamo.reset()
    counters.clear()
    compiled = torch.compile(convert(_first_values), fullgraph=True, backend="aot_eager")
    x = torch.arange(8.0)
    for n in (1, 2, 3, 5):
        assert torch.allclose(compiled(x, n), _first_values(x, n)), n
    assert counters["stats"]["unique_graphs"] <= 2


class _Gate(torch.nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x * 2
        return -x


class _Gated(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.gate = _Gate()
        self.linear = torch.nn.Linear(2, 2)

    def forward(self, x):
        return self.gate(self.linear(x))


def test_a_submodule_s_forward_is_converted_and_hooks_still_run():
    torch.manual_seed(0)
    model = _Gated()
    converted = _Gated()
    converted.load_state_dict(model.state_dict())
    converted.forward = convert(converted.forward)
    exported = torch.export.export(converted, (torch.ones(2),)).module()
    for x in (torch.tensor([1.0, 2.0]), torch.tensor([-3.0, 0.5])):
        assert torch.allclose(exported(x), model(x))
    seen = []
    converted.gate.register_forward_hook(lambda module, args, out: seen.append(out))
    assert torch.allclose(converted(torch.ones(2)), model(torch.ones(2))) and len(seen) == 1


class _Counting(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("count", torch.zeros((), dtype=torch.int64))
        self.register_buffer("best", torch.tensor(0.0))

    def forward(self, x):
        if x.sum() > 5:
            self.count += 1
        if x.sum() > self.best:
            self.best = x.sum()
        while x.sum() < 10:
            x = x * 2
            self.count += 1
        return x - self.best


def _buffers_after(model, inputs):
    outputs = [model(x.clone()) for x in inputs]
    return outputs, [buffer.clone() for buffer in model.buffers()]


def test_buffers_changed_in_staged_blocks_are_changed_in_place():
    inputs = [torch.tensor([1.0, 2.0]), torch.tensor([-1.0, 20.0]), torch.tensor([3.0, 1.0])]
    expected = _buffers_after(_Counting(), inputs)
    exported = _Counting()
    exported.forward = convert(exported.forward)
    exported = torch.export.export(exported, (inputs[0].clone(),)).module()
    compiled = _Counting()
    compiled.forward = convert(compiled.forward)
    for model, run in ((exported, exported),
                       (compiled, torch.compile(compiled, fullgraph=True, backend="aot_eager"))):
        outputs, buffers = _buffers_after(run, inputs)
        assert all(map(_same_tensor, expected[0], outputs))
        assert all(map(_same_tensor, expected[1], buffers)), buffers


_SCALE, _REPEATS = 2.0, 1


def _scaled_repeatedly(x):
    for _ in range(_REPEATS):
        if x.sum() > 0:
            x = x * _SCALE
    return x


class _Training(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.threshold = 0.5

    def forward(self, x):
        if x.mean() > self.threshold:
            x = x * 10
        if self.training:
            x = x + 100
        return x


def test_compiled_code_sees_changed_globals_attributes_and_training_flags():
    global _SCALE, _REPEATS
    compiled = torch.compile(convert(_scaled_repeatedly), fullgraph=True, backend="aot_eager")
    x = torch.tensor([1.0, 2.0])
    try:
        for _SCALE, _REPEATS in ((2.0, 1), (5.0, 1), (5.0, 2), (5.0, 3)):
            assert torch.equal(compiled(x), _scaled_repeatedly(x)), (_SCALE, _REPEATS)
    finally:
        _SCALE, _REPEATS = 2.0, 1
    model = _Training()
    model.forward = convert(model.forward)
    run = torch.compile(model, fullgraph=True, backend="aot_eager")
    for threshold, training in ((0.5, False), (5.0, False), (5.0, True)):
        model.threshold = threshold
        model.train(training)
        assert torch.equal(run(x), _Training.forward(model, x)), (threshold, training)


def test_each_converted_function_is_its_own_code_to_dynamo():
    """Dynamo remembers which sizes changed per file, line and name of the code it compiles
    (and the code of the functions in its closure): the wrappers of two converted functions
    must not share that, or one function's changing sizes would make another's dynamic."""
    from tests.torch_programs.algorithms import staircase_integer_ops

    def doubled(x):
        return x * 2
    first, second = convert(doubled), convert(staircase_integer_ops)
    assert first.__code__.co_name != second.__code__.co_name
    assert "doubled" in first.__code__.co_name \
        and "staircase_integer_ops" in second.__code__.co_name


def sum_of_first_elements(x, n):
    total = torch.zeros(())
    for i in range(n):
        total = total + x[i]
    return total


def test_a_tensor_an_iteration_makes_a_wider_dtype_is_carried_in_it():
    # float32 zeros plus float64 elements are float64, as in Python; when the loop runs zero
    # times, Python keeps float32 zeros, which the staged loop cannot: the run fails saying so.
    compiled = torch.compile(convert(sum_of_first_elements), fullgraph=True, backend="aot_eager")
    x = torch.tensor([1.0, 2.0], dtype=torch.float64)
    got = compiled(x, torch.tensor(2))
    assert got.dtype == torch.float64 and float(got) == 3.0
    with pytest.raises(RuntimeError, match=r"ran zero times, so 'total' keeps the dtype "
                                           r"float32 it had before it, which each iteration "
                                           r"makes float64"):
        compiled(x, torch.tensor(0))
