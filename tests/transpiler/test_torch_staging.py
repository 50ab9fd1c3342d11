"""Converted control flow on traced PyTorch tensors: ``torch.export.export`` (non-strict) of a
module calling ``convert(f)``, and ``torch.compile(convert(f), fullgraph=True)``, stage
``if``/``while``/``for``/ternaries/``and``/``or`` into ``cond`` and ``while_loop`` and give what
plain Python gives on the same values, for inputs taking every branch and several trip counts
(the PyTorch staging backend, issue 26).

Each function is exported once and compiled once, then run on many inputs. Compiling uses the
``aot_eager`` backend (Dynamo and AOTAutograd trace exactly as for inductor; only the code
generation is skipped, which takes most of the time); one test goes through inductor.
"""

from __future__ import annotations

import math
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")

# PyTorch's own deprecation of torch.jit.script_method, raised inside torch when inductor loads.
pytestmark = pytest.mark.filterwarnings(
    "ignore:`torch.jit.script_method` is deprecated:DeprecationWarning")

from tests.torch_programs import Calls  # noqa: E402
from tests.transpiler.staging_samples import (  # noqa: E402
    stepped_sum, total_of_first, zero_step_sum, zipped_and_enumerated)
import transpiler  # noqa: E402
from runtime.errors import GraphTypeError  # noqa: E402
from transpiler import convert  # noqa: E402


@convert
def clipped_steps(x, limit):
    steps = 0
    while x.sum() > limit:
        x = x * 0.5
        steps += 1
    return x, steps


def piecewise(x):
    if x > 1.0:
        y = x * x
    elif x > -1.0:
        y = 2.0 * x + 1.0
    else:
        y = -x
    return y


def clipped_sum(x, n):
    total = 0
    for i in range(n):
        if i > x:
            break
        if i % 3 == 0:
            continue
        total += i
    return total if total > 2 and x < 9 else -total


def collatz_steps(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def early_return_in_while(n):
    i = 0
    while i < 100:
        if i * i > n:
            return i
        i += 1
    return -1


def logic(x, y):
    if not (x > y) and y > 0 or x == 3:
        return x + y
    return x - y


def first_set_inside(n):
    for i in range(n):
        last = i * 2
    return last


def _scale(v, k):
    return v * k


def with_helper_and_nested(x, n):
    def bump(v):
        return v + 1.0
    for i in range(n):
        x = bump(_scale(x, 0.5))
    return x if x.sum() > 0 else -x


def rows_with_break(xs, limit):
    total = xs[0] * 0
    for row in xs:
        if row.sum() > limit:
            break
        total = total + row
    return total


def _even_shown(v):
    print("even?", v)
    return v % 2 == 0


def printing_inside_a_branch(x):
    r = 0
    if x > 0 and _even_shown(x):
        r = 1
    return r


def mismatched_dtypes(x):
    if x > 0:
        y = torch.ones((), dtype=torch.int32)
    else:
        y = torch.ones((), dtype=torch.float32) * 2.5
    return y


def bucket(x):
    if x < -5:
        b = 0
    elif x < 0:
        b = 1
    elif x < 5:
        b = 2
    else:
        b = 3
    return b


def break_inner_continue_outer(n):
    total = 0
    for i in range(n):
        j = 0
        while j < i:
            if j * i > 6:
                break
            total += j
            j += 1
        if i % 2 == 1:
            continue
        total += 100
    return total


def return_from_innermost(n):
    for i in range(n):
        for j in range(n):
            if i * j > 5:
                return i * 10 + j
    return -1


def builtins_on_values(x, y):
    return (int(x / 4), float(y) / 2, min(x, y), max(x, 0), min(-1, y, x), round(float(x) / 3),
            abs(y))


def best_and_worst(n):
    best, worst = -100, 100
    for i in range(n):
        v = (i * 7) % 5
        best = max(best, v)
        worst = min(worst, v)
    return best, worst


def maybe_nothing(x, flag):
    if flag:
        return None
    return x * 2


def no_return_statement(x):
    y = x + 1  # noqa: F841 (only the missing return matters)


def labelled(x):
    y = x * 2 if x.sum() > 0 else x
    return "done", None, y


def label_by_value(x):
    return "big" if x.sum() > 0 else "small"


def checked_half(x):
    assert x >= 0, "x must not be negative"
    return x / 2


def _t(value, dtype=None):
    return torch.tensor(value, dtype=dtype)


def _same(expected, actual) -> bool:
    if isinstance(expected, tuple):
        return isinstance(actual, tuple) and len(expected) == len(actual) and all(
            _same(e, a) for e, a in zip(expected, actual))
    return bool(torch.allclose(torch.as_tensor(actual).double(),
                               torch.as_tensor(expected).double(), atol=1e-5))


def _check_both(fn, inputs, example=None):
    """``fn`` converted, exported (then run through ``.module()``) and compiled, against plain
    Python on every input."""
    converted = convert(fn)
    exported = torch.export.export(Calls(converted), example or inputs[0]).module()
    compiled = torch.compile(converted, fullgraph=True, backend="aot_eager")
    for args in inputs:
        expected = fn(*args)
        assert _same(expected, converted(*args)), (fn.__name__, args)
        assert _same(expected, exported(*args)), ("export", fn.__name__, args, exported(*args))
        assert _same(expected, compiled(*args)), ("compile", fn.__name__, args)


def test_the_issue_example_through_inductor_and_export():
    compiled = torch.compile(clipped_steps, fullgraph=True)  # inductor: no graph break
    exported = torch.export.export(Calls(clipped_steps), (torch.ones(8), _t(3.0))).module()
    for scale, limit in ((1.0, 3.0), (1.0, 30.0), (4.0, 0.5), (2.0, 16.0)):
        x = torch.full((8,), scale)
        expected_x, expected_steps = clipped_steps.__wrapped__(x, _t(limit))
        for run in (compiled, exported):
            got_x, got_steps = run(x, _t(limit))
            assert torch.allclose(got_x, expected_x) and int(got_steps) == expected_steps


def test_if_elif_else_every_branch():
    _check_both(piecewise, [(_t(v),) for v in (-3.0, -1.0, -0.5, 0.0, 0.99, 1.0, 1.5, 4.0)])


def test_for_range_with_break_continue_and_a_ternary_with_and():
    _check_both(clipped_sum, [(_t(x), _t(n)) for x in (-2, 0, 4, 10) for n in (0, 1, 5, 11)])


def test_while_with_if_inside_and_several_trip_counts():
    _check_both(collatz_steps, [(_t(n),) for n in (1, 2, 3, 6, 7, 27)])


def test_return_inside_a_while_loop():
    _check_both(early_return_in_while, [(_t(n),) for n in (-3, 0, 1, 10, 50, 9999, 20000)])


def test_and_or_not_on_tensors():
    _check_both(logic, [(_t(x), _t(y)) for x in (-1, 0, 3, 4) for y in (-2, 0, 3)])


def test_helpers_and_nested_functions_inside_the_compiled_function():
    # Dynamo never enters the converted function: the lock and the caches of converting
    # `_scale` and `bump`, and the closures, run as Python (issue 26, Dynamo problems).
    _check_both(with_helper_and_nested,
                [(torch.tensor([1.0, -4.0]), _t(n)) for n in (0, 1, 3)] +
                [(torch.tensor([-1.0, -4.0]), _t(2))])


def test_a_loop_over_rows_is_unrolled_and_its_break_staged():
    rows = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    _check_both(rows_with_break, [(rows, _t(limit)) for limit in (0.0, 3.5, 7.5, 100.0)])


def test_a_variable_first_assigned_in_a_loop():
    exported = torch.export.export(Calls(convert(first_set_inside)), (_t(3),)).module()
    assert int(exported(_t(3))) == 4 and int(exported(_t(5))) == 8
    with pytest.raises(RuntimeError, match=r"ran zero times, so 'last', first assigned"):
        exported(_t(0))


def test_printing_a_tensor_inside_a_block(capsys):
    # Under torch.compile a FunctionalTensor's repr reads the tensor it wraps; that read is not
    # a capture of the block (it was made a cond input: "'Tensor' object has no attribute
    # 'constant'", 24 of the reference inputs).
    _check_both(printing_inside_a_branch, [(_t(v),) for v in (-2, 3, 4)])
    assert "even?" in capsys.readouterr().out


def test_concrete_tensors_run_as_python():
    assert convert(collatz_steps)(_t(27)) == 111
    assert isinstance(convert(clipped_sum)(3, 10), int)
    assert convert(piecewise)(_t(2.0)) == 4.0


def test_gradient_through_a_converted_if_matches_finite_differences():
    compiled = torch.compile(convert(piecewise), fullgraph=True, backend="aot_eager")
    exported = torch.export.export(Calls(convert(piecewise)), (_t(0.5),)).module()
    for x in (-3.0, 0.25, 2.0):
        eps = 1e-3
        numeric = (piecewise(_t(x + eps, torch.float64)) - piecewise(_t(x - eps, torch.float64))) \
            / (2 * eps)
        for run in (compiled, exported):
            v = _t(x).requires_grad_()
            run(v).backward()
            assert abs(float(v.grad) - float(numeric)) < 1e-3, (x, float(v.grad), float(numeric))


def test_mismatched_branch_dtypes_name_the_variable_and_line():
    with pytest.raises(TypeError, match=r"'y' has dtype int32 in the true branch but dtype "
                                        r"float32 in the false branch of the if statement on a "
                                        r"traced PyTorch tensor at test_torch_staging.py:\d+"):
        torch.export.export(Calls(convert(mismatched_dtypes)), (_t(1.0),))


def test_a_condition_with_several_elements_is_refused():
    with pytest.raises(ValueError, match=r"must be a single value, got a tensor of shape \(2,\)"):
        torch.export.export(Calls(convert(piecewise)), (torch.tensor([1.0, 2.0]),))


def test_import_transpiler_does_not_import_torch():
    code = "import sys, transpiler; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_gradient_through_a_converted_while_loop():
    # PyTorch 2.13's while_loop is differentiable (it keeps every iteration's values).
    compiled = torch.compile(clipped_steps, fullgraph=True, backend="aot_eager")
    exported = torch.export.export(Calls(clipped_steps), (torch.ones(4), _t(1.0))).module()
    for run in (compiled, exported, clipped_steps.__wrapped__):
        x = torch.full((4,), 8.0, requires_grad=True)
        y, steps = run(x, _t(1.0))
        y.sum().backward()
        assert int(steps) == 5 and torch.allclose(x.grad, torch.full((4,), 1 / 32))


def test_nested_staged_blocks_share_their_captured_inputs_once():
    # A nested block notes both the outer tensor and the enclosing block's input standing for
    # it; given twice, they were operands aliasing each other ("cond_true might be aliasing
    # the input or the output!", 100 of the reference inputs under torch.compile).
    _check_both(bucket, [(_t(v),) for v in (-9, -5, -1, 0, 3, 5, 12)])
    _check_both(break_inner_continue_outer, [(_t(n),) for n in (0, 1, 2, 5, 8)])
    _check_both(return_from_innermost, [(_t(n),) for n in (0, 2, 3, 4, 7)])


def test_int_float_min_max_round_abs_of_traced_tensors_give_pythons_values():
    # Python would ask the traced tensor for its value ("Could not extract specialized
    # integer from data-dependent expression").
    pairs = [(-7, 2), (-6, -3), (0, 0), (5, -4), (9, 11)]
    for dtype in (torch.int64, torch.float64, torch.float32):
        _check_both(builtins_on_values, [(_t(x, dtype), _t(y, dtype)) for x, y in pairs])
    _check_both(best_and_worst, [(_t(n),) for n in (0, 1, 2, 6, -1)])


def largest_or_half(x):
    return max(x.max(), 0.5)


def test_min_max_of_values_python_gives_back_as_different_types_are_refused():
    # Python gives back the int64 tensor or the float 0.5: one traced value cannot be both
    # (it gave a float32 tensor, 2.0 where Python gives tensor(2)).
    with pytest.raises(TypeError, match=r"max\(\) of dtype int64 and a Python float on a traced "
                                        r"PyTorch tensor at test_torch_staging.py:\d+: Python "
                                        r"gives back one of them as it is"):
        torch.export.export(Calls(convert(largest_or_half)), (_t([1, 2]),))


def cube_root_of_eight(x):
    for _ in range(100):
        fx = x ** 3 - 8
        if fx.abs() < 1e-9:
            break
        x = x - fx / (3 * x ** 2)
    return x


_LIMITS = [4.0, 2.0, 1.0]


def doubled_below_limits(x):
    for i in range(3):
        if x > _LIMITS[i]:
            break
        x = x * 2
    return x


def test_a_break_on_a_tensor_in_a_loop_over_a_python_range_stages_the_rest_as_one_loop():
    # Unrolled, each of the 100 iterations was a cond holding the body's conds, which PyTorch
    # traces several times over: torch.compile took minutes. A counter the body needs as a
    # Python int (a list index) keeps the loop unrolled.
    exported = torch.export.export(Calls(convert(cube_root_of_eight)),
                                   (_t(3.0, torch.float64),))
    targets = {str(node.target) for module in exported.graph_module.modules()
               if isinstance(module, torch.fx.GraphModule) for node in module.graph.nodes}
    assert any("while_loop" in target for target in targets)
    for x in (3.0, 2.0, 10.0):
        assert torch.allclose(exported.module()(_t(x, torch.float64)),
                              cube_root_of_eight(_t(x, torch.float64)))
    unrolled = torch.export.export(Calls(convert(doubled_below_limits)), (_t(0.5),)).module()
    for x in (0.5, 3.0, 5.0):
        assert float(unrolled(_t(x))) == float(doubled_below_limits(_t(x)))


def test_int_of_nan_fails_when_the_program_runs():
    exported = torch.export.export(Calls(convert(builtins_on_values)), (_t(1.0), _t(2.0)))
    with pytest.raises(RuntimeError, match=r"int\(\) of a NaN or infinite value at "
                                           r"test_torch_staging.py:\d+"):
        exported.module()(_t(float("nan")), _t(2.0))


def test_an_assert_on_a_traced_tensor_is_checked_when_the_program_runs():
    _check_both(checked_half, [(_t(v),) for v in (0.0, 3.0)])
    exported = torch.export.export(Calls(convert(checked_half)), (_t(1.0),)).module()
    with pytest.raises(RuntimeError, match=r"x must not be negative \(the assert at "
                                           r"test_torch_staging.py:\d+\)"):
        exported(_t(-1.0))


def test_none_and_strings_in_what_a_compiled_function_returns():
    # Dynamo refuses them from an opaque call ("Unsupported output type for nonstrict_trace-ed
    # function"); they travel in the structure it records instead.
    compiled = torch.compile(convert(maybe_nothing), fullgraph=True, backend="aot_eager")
    assert compiled(_t(2.0), True) is None and float(compiled(_t(2.0), False)) == 4.0
    assert torch.compile(convert(no_return_statement), fullgraph=True,
                         backend="aot_eager")(_t(1.0)) is None
    compiled = torch.compile(convert(labelled), fullgraph=True, backend="aot_eager")
    for value, expected in ((1.0, 2.0), (-1.0, -1.0)):
        text, nothing, y = compiled(torch.full((2,), value))
        assert (text, nothing) == ("done", None) and torch.equal(y, torch.full((2,), expected))


def with_optional_bias(x, bias=None, mode="add"):
    y = x * 2 if x.sum() > 0 else x
    if bias is not None:
        y = y + bias if mode == "add" else y - bias
    return y


def test_none_and_strings_as_arguments_of_a_compiled_function():
    # Dynamo refused them as arguments of the opaque call ("Invalid input type for
    # nonstrict_trace-ed function").
    compiled = torch.compile(convert(with_optional_bias), fullgraph=True, backend="aot_eager")
    ones = torch.ones(2)
    for args, kwargs in (((ones,), {}), ((ones, ones), {}), ((-ones, ones), {"mode": "sub"}),
                         ((ones,), {"bias": None})):
        assert torch.equal(compiled(*args, **kwargs), with_optional_bias(*args, **kwargs))


def flagged_while_above_one(n):
    x = n
    while x > 1:
        x = x < 0  # an int64 tensor made a bool one: a dtype that does not hold it
    return x


flagged_converted = convert(flagged_while_above_one)


def plus_one_of_flagged(n):
    return flagged_converted(n) + 1


def test_a_refusal_under_torch_compile_is_the_error_the_user_sees():
    # Dynamo reports an error of an opaque call as its own ("Unsupported output type for
    # nonstrict_trace-ed function"), the refusal hidden in its suppressed context.
    with pytest.raises(GraphTypeError,
                       match=r"^'the value' is 'big' in the true branch and 'small' in the false "
                             r"branch of the conditional expression on a traced PyTorch tensor "
                             r"at test_torch_staging.py:\d+"):
        torch.compile(convert(label_by_value), fullgraph=True, backend="aot_eager")(_t(1.0))
    # Called from a compiled function, which Dynamo traces into.
    with pytest.raises(GraphTypeError,
                       match=r"^'x' has dtype int64 before an iteration of the while loop at "
                             r"test_torch_staging.py:\d+ and dtype bool after it"):
        torch.compile(plus_one_of_flagged, fullgraph=True, backend="aot_eager")(_t(9))


def test_without_fullgraph_a_refusal_is_a_graph_break_that_runs_as_python():
    compiled = torch.compile(convert(flagged_while_above_one), backend="aot_eager")
    assert float(compiled(_t(9))) == flagged_while_above_one(_t(9))


def test_many_converted_functions_each_compile_as_their_own_function():
    # torch.compile of one marked function wraps it in a frame whose code every such function
    # shared, so after Dynamo's 8 recompilations of that code the ninth failed (fullgraph) or
    # ran eagerly.
    def over(limit):
        def doubled_over_limit(x):
            if x.sum() > limit:
                return x * 2
            return x - 1
        return doubled_over_limit

    with torch._dynamo.config.patch(recompile_limit=8):
        for limit in range(10):
            compiled = torch.compile(convert(over(limit)), fullgraph=True, backend="aot_eager")
            assert float(compiled(_t(4.5))) == (9.0 if limit < 4.5 else 3.5)


def scaled_when_positive(x, k):
    if x.sum() > 0:
        x = x * k
    return x


def shifted_until(x, n, step):
    i = 0
    while x.sum() < n:
        x = x + step
        i += 1
    return x, i


def rows_over_half(x):
    m = x.shape[0]
    total = x[0] * 0
    for i in range(m):
        if x[i].sum() > m / 2:
            total = total + x[i]
    return total


def indexed_in_a_loop(x, n):
    total = x[0, 0] * 0
    for i in range(n):
        j = n - 1 - i
        total = total + x[i, j] + x[:, i].sum() * 2 + x[i][1:].sum() * 3 + x[..., j][0] * 5
        if x[-1 - i, 0] > 4:
            total = total - x[i][j]
    return total


def test_indexing_by_the_variable_of_a_staged_loop():
    # A 0-d integer tensor in an index is read as its integer, which a trace does not know
    # ("Could not extract specialized integer from data-dependent expression").
    x = torch.arange(16.0).reshape(4, 4)
    _check_both(indexed_in_a_loop, [(x, _t(n)) for n in (0, 1, 3, 4)] +
                [(x.flip(0), _t(2)), (x.to(torch.float64), _t(4))])


def filled_in_a_loop(x, n):
    out = torch.zeros(5)
    for i in range(n):
        out[i] = x[i] * 2
    return out


def accumulated_in_place(x, n):
    s = torch.zeros(3)
    i = 0
    while i < n:
        s.add_(x[i])
        i += 1
    return s


def first_set_in_a_branch(x):
    y = x.clone()
    if x.sum() > 0:
        y[0] = 100.0
    else:
        y.mul_(-1)
    if y.mean() > 0:
        y.add_(1)
    return y


def test_tensors_changed_in_place_in_blocks_change_as_in_python():
    # A tensor the converter does not carry (item assignment with the loop's index, add_) was
    # changed on a copy and the change lost: s.add_(v) in a staged loop gave zeros. It is now
    # carried and written back after the block.
    x = torch.arange(5.0)
    _check_both(filled_in_a_loop, [(x, _t(n)) for n in (0, 1, 3, 5)])
    rows = torch.arange(12.0).reshape(4, 3)
    _check_both(accumulated_in_place, [(rows, _t(n)) for n in (0, 1, 4)])
    _check_both(first_set_in_a_branch, [(torch.ones(3),), (-torch.ones(3),)])


def test_python_numbers_that_torch_compile_makes_symbolic_are_block_inputs():
    # After a second value Dynamo makes a Python int or float argument symbolic; a branch or
    # loop body reading it got "s10 is not tracked with proxy" (and a number specialized per
    # value would hit the recompile limit).
    compiled = torch.compile(convert(scaled_when_positive), fullgraph=True, backend="aot_eager")
    for k in (2, 3, 4, -5, 2.5, 3.5, 0.25):
        for value in (1.0, -1.0):
            assert float(compiled(_t(value), k)) == float(scaled_when_positive(_t(value), k))
    compiled = torch.compile(convert(shifted_until), fullgraph=True, backend="aot_eager")
    for n, step in ((3, 1), (7, 2), (20, 0.5), (50, 3.25)):
        x, i = compiled(torch.ones(2), n, step)
        expected_x, expected_i = shifted_until(torch.ones(2), n, step)
        assert torch.equal(x, expected_x) and int(i) == expected_i


def test_a_size_of_a_dynamic_shape_read_inside_a_block():
    x = torch.arange(12.0).reshape(4, 3)
    batch = torch.export.Dim("batch", min=2)
    exported = torch.export.export(Calls(convert(rows_over_half)), (x,),
                                   dynamic_shapes=((({0: batch}),),)).module()
    compiled = torch.compile(convert(rows_over_half), fullgraph=True, backend="aot_eager",
                             dynamic=True)
    for rows in (2, 4, 7):
        x = torch.arange(rows * 3.0).reshape(rows, 3) - 4.0
        expected = rows_over_half(x)
        assert torch.equal(exported(x), expected) and torch.equal(compiled(x), expected)


def branch_on_item(x):
    if x.item() > 0.5:
        return x * 2
    return x / 2


def halve_while_item_large(x):
    steps = 0
    while x.sum().item() > 1.0:
        x = x / 2
        steps += 1
    return x, steps


def numbers_of_an_item(x):
    value = x.item()
    flag = bool(x.sum() > 0)
    return int(value), float(value), round(value), abs(value), bool(value), flag, \
        (x + 1 if not value > 0 else x - 1), any(v > 1 for v in x.reshape(-1)), \
        all([x.sum() < 3, flag]), any([]), all([0, x.sum() > 0])


def test_decisions_on_numbers_known_only_when_the_program_runs():
    # (and bool, any and all of traced values.) x.item() under a trace is a symbolic number without a value ("Could not guard on
    # data-dependent expression" in plain PyTorch): deciding on it is staged.
    _check_both(branch_on_item, [(_t(v),) for v in (0.7, 0.2, -3.0)])
    _check_both(halve_while_item_large, [(_t(v),) for v in ([3.0, 4.0], [0.1, 0.2], [9.0, 0.0])],
                example=(_t([3.0, 4.0]),))
    for dtype in (torch.float32, torch.float64, torch.int64):
        _check_both(numbers_of_an_item, [(_t(v, dtype),) for v in (2.5, -3.7, 0.0)])


def top_two(x):
    x = x.clone()
    values, places = [], []
    for _ in range(2):
        i = torch.argmax(x)
        values.append(x[i].clone())
        places.append(i)
        x[i] = float("-inf")
    return torch.stack(values), torch.stack(places)


def test_indexing_by_a_computed_integer_tensor_outside_staged_blocks():
    # x[i] with i = torch.argmax(x): PyTorch reads i as an integer, which a trace does not know.
    _check_both(top_two, [(_t(v),) for v in ([3.0, 1.0, 4.0, 1.0, 5.0], [9.0, 8.0, 7.0, 6.0, 5.0],
                                             [1.0, 1.0, 1.0, 1.0, -2.0])])


def math_of_traced_numbers(x, y):
    a = float(x)
    return (math.floor(a * 10) / 10, math.ceil(a), math.sqrt(abs(a)),
            math.log(abs(a) + 1, 2), math.log(abs(a) + 1), math.exp(-abs(a)),
            math.isclose(a, float(y), rel_tol=1e-3), math.atan2(a, 2.0), math.hypot(a, 3.0),
            math.degrees(a), math.pow(abs(a), 0.5), math.erf(a), math.isnan(a), math.fabs(a),
            math.copysign(2.0, a), math.tanh(a))


def exp_of_the_mean(x):
    m = x.mean().item()
    if m > 0:
        return math.exp(-m)
    return math.exp(m)


def root_of(x):
    return math.sqrt(float(x))


def test_math_functions_of_traced_values_compute_what_python_computes():
    pairs = [(1.234, 1.2345), (-1.234, 5.0), (0.0, 0.0), (7.5, 7.5)]
    for dtype in (torch.float32, torch.float64):
        _check_both(math_of_traced_numbers, [(_t(a, dtype), _t(b, dtype)) for a, b in pairs])
    _check_both(exp_of_the_mean, [(_t([1.0, 2.0]),), (_t([-1.0, -2.0]),)])
    assert "ag__.math.exp(-m)" in transpiler.to_code(exp_of_the_mean)


def test_math_where_python_raises_fails_when_the_program_runs():
    exported = torch.export.export(Calls(convert(root_of)), (_t(4.0),)).module()
    assert float(exported(_t(4.0))) == 2.0
    with pytest.raises(RuntimeError, match=r"math\.sqrt\(\) of a negative value at "
                                           r"test_torch_staging.py:\d+: Python raises "
                                           r"ValueError \(math domain error\)\."):
        exported(_t(-1.0))


class _Gates(torch.nn.Module):
    """Parameters of several modules, some of one shape, read inside a staged if."""

    def __init__(self):
        super().__init__()
        self.first, self.second = torch.nn.Linear(3, 4), torch.nn.Linear(4, 3)
        self.shift = torch.nn.Parameter(torch.randn(3))
        self.scale = torch.nn.Parameter(torch.randn(3, 1))

    def forward(self, x):
        if x.sum() > 0:
            y = self.second(self.first(x)) * self.scale + self.shift
        else:
            y = self.second(self.first(x) * 2) * self.shift - self.scale
        return y.sum()


def test_gradients_of_parameters_read_in_a_staged_block_under_torch_compile():
    # cond's gradient pass runs the branch again after AOTAutograd has put the module's real
    # parameters back: each stands again for the traced parameter made from it.
    torch.manual_seed(0)
    plain, converted = _Gates(), _Gates()
    converted.load_state_dict(plain.state_dict())
    converted.forward = convert(converted.forward)
    compiled = torch.compile(converted, fullgraph=True, backend="aot_eager")
    for x in (torch.ones(3), -torch.ones(3)):
        plain.zero_grad()
        converted.zero_grad()
        plain(x).backward()
        compiled(x).backward()
        for (name, expected), got in zip(plain.named_parameters(), converted.parameters()):
            assert torch.allclose(expected.grad, got.grad), name


def merged_when_close(a, b):
    if torch.equal(a, b):
        return a
    if a.allclose(b, atol=0.1):
        return (a + b) / 2
    return torch.maximum(a, b)


def test_equal_and_allclose_of_traced_tensors_are_computed_when_the_program_runs():
    # PyTorch computes their Python bool from the data ("DataDependentOutputException").
    _check_both(merged_when_close, [(_t([1.0, 2.0]), _t([1.0, 2.0])),
                                    (_t([1.0, 2.0]), _t([1.05, 2.0])),
                                    (_t([1.0, 2.0]), _t([3.0, 0.0]))])
    assert "ag__.converted(torch.equal)(a, b)" in transpiler.to_code(merged_when_close)


def test_a_python_int_a_loop_makes_a_float_fails_when_the_loop_runs_zero_times():
    # Python keeps the int 0 then; the traced loop has one type for 'total', a float32 tensor.
    x = _t([1.0, 2.0, 3.0])
    _check_both(total_of_first, [(x, _t(2)), (x, _t(3))])
    exported = torch.export.export(Calls(convert(total_of_first)), (x, _t(2))).module()
    with pytest.raises(RuntimeError, match=r"the for loop at staging_samples.py:\d+ ran zero "
                                           r"times, so 'total' keeps the Python number"):
        exported(x, _t(0))


def prefix_sum(xs, n):
    total = xs[0] * 0
    for i in range(n):
        total = total + xs[i]
    return total


def test_indexing_by_a_loop_counter_compiles_with_inductor():
    # The one extra Inductor compile of this file (slow on two cores): Inductor lowers the
    # read of the counter as an integer only where the trace bound its symbol to the node.
    compiled = torch.compile(convert(prefix_sum), fullgraph=True)
    xs = _t([1.0, 2.0, 3.0])
    for n in (0, 2, 3):
        assert float(compiled(xs, _t(n))) == float(prefix_sum(xs, _t(n)))


def test_a_range_with_a_step_of_zero_fails_as_in_python():
    # Python: ValueError("range() arg 3 must not be zero"); a traced step is checked when the
    # program runs (a step of 0 used to run no iteration and give 0).
    _check_both(stepped_sum, [(_t(7), _t(2)), (_t(-7), _t(-3)), (_t(3), _t(5))])
    exported = torch.export.export(Calls(convert(stepped_sum)), (_t(7), _t(2))).module()
    for n in (5, -5):
        with pytest.raises(RuntimeError, match=r"range\(\) arg 3 must not be zero: the for loop "
                                               r"at staging_samples.py:\d+"):
            exported(_t(n), _t(0))
    with pytest.raises(ValueError, match=r"range\(\) arg 3 must not be zero: the for loop at "
                                         r"staging_samples.py:\d+"):
        torch.export.export(Calls(convert(zero_step_sum)), (_t(7),))


def test_enumerate_of_zip_and_zip_of_enumerate():
    # Each was refused: "'TensorZip' object is not iterable".
    _check_both(zipped_and_enumerated, [(_t([1.0, 2.0, 3.0]), _t([0.5, -1.0, 4.0])),
                                        (_t([3.0, 1.0, 2.0]), _t([2.0, 2.0, 2.0]))])


def assigned_in_one_branch(x):
    if x.sum() > 0:
        y = x * 2
    return y + 1


def test_a_variable_one_branch_leaves_unassigned_fails_when_that_branch_runs():
    # Python raises UnboundLocalError on that path only; the other path gives its value.
    positive = _t([1.0, 2.0])
    exported = torch.export.export(Calls(convert(assigned_in_one_branch)), (positive,)).module()
    compiled = torch.compile(convert(assigned_in_one_branch), fullgraph=True,
                             backend="aot_eager")
    for run in (exported, compiled):
        assert torch.equal(run(positive), assigned_in_one_branch(positive))
        with pytest.raises(RuntimeError, match=r"'y' is not assigned in the else branch of the "
                                               r"if statement at test_torch_staging.py:\d+, "
                                               r"which the condition took"):
            run(-positive)


class _Lazy:
    """An object whose ``item`` property has an effect (and may raise)."""

    reads = 0

    @property
    def item(self):
        _Lazy.reads += 1
        raise RuntimeError("not loaded")

    def value(self):
        return 3


def _with_lazy(obj):
    return obj.value()


def equal_by_keywords(a, b):
    return torch.equal(input=a, other=b), torch.allclose(input=a, other=b, atol=0.5)


def rounding_and_hypot(n, x, y):
    return math.floor(n.item()), math.ceil(n.item()), math.floor(x), math.hypot(y, y)


def assigned_in_neither_branch(x, flag=False):
    if x.sum() > 0:
        if flag:
            y = x + 1
    else:
        if flag:
            y = x - 1
    if flag:
        return y
    return x * 2


def test_replacements_change_nothing_python_would_do_differently():
    # Methods of other objects are not looked at (a property is never read); PyTorch's
    # keyword names work; floor of an int is exact; hypot does not overflow; a variable
    # neither branch assigns stays unassigned.
    assert convert(_with_lazy)(_Lazy()) == 3 and _Lazy.reads == 0
    a = _t([1.0, 2.0])
    assert convert(equal_by_keywords)(a, a) == (True, True)
    _check_both(equal_by_keywords, [(a, a.clone()), (a, a + 0.25), (a, a + 1)])
    big, f64 = 2 ** 60 + 1, torch.float64
    converted = convert(rounding_and_hypot)
    runs = (torch.export.export(Calls(converted), (_t(3), _t(1.5, f64), _t(1.0, f64))).module(),
            torch.compile(converted, fullgraph=True, backend="aot_eager"))
    for args in ((_t(big), _t(2.5e15, f64), _t(1e200, f64)),
                 (_t(-big), _t(-2.5, f64), _t(3.0, f64))):
        expected = rounding_and_hypot(*args)
        for run in runs:
            got = run(*args)
            assert [int(v) for v in got[:3]] == list(expected[:3])
            assert float(got[3]) == pytest.approx(expected[3], rel=1e-12)
    _check_both(assigned_in_neither_branch, [(a,), (-a,)])
    with pytest.raises(RuntimeError, match=r"math\.floor\(\) of NaN, an infinity"):
        runs[0](_t(3), _t(float("nan"), f64), _t(1.0, f64))


def slices_by_traced_bounds(x, n):
    y = x.clone()
    y[:n] = 0
    total = torch.zeros(())
    for i in range(n):
        total = total + x[: i + 1].sum()
    return x[:n].sum(), x[n:n + 2].sum(), y, total


def _same_typed(expected, actual) -> bool:
    """Equal values of the same dtypes (and shapes), element by element of tuples."""
    if isinstance(expected, tuple):
        return isinstance(actual, tuple) and len(expected) == len(actual) and all(
            _same_typed(e, a) for e, a in zip(expected, actual))
    return expected.dtype == actual.dtype and expected.shape == actual.shape and bool(
        torch.allclose(actual, expected))


def test_slices_with_bounds_known_only_when_the_program_runs():
    # PyTorch slices by a symbolic int as Python slices by an int (clamped, negative from the
    # end); asked for the tensor's value, torch.compile's trace fails instead.
    x = _t([1.0, 2.0, 3.0, 4.0])
    converted = convert(slices_by_traced_bounds)
    exported = torch.export.export(Calls(converted), (x, _t(2))).module()
    compiled = torch.compile(converted, fullgraph=True, backend="aot_eager")
    for n in (2, 0, 6, -1):
        expected = slices_by_traced_bounds(x, _t(n))
        assert _same_typed(expected, exported(x, _t(n))), n
        assert _same_typed(expected, compiled(x, _t(n))), n


def scaled_by_table(x, i):
    table = [10.0, 20.0, 30.0]
    return x * table[i]


def test_a_list_indexed_by_a_traced_tensor_names_the_line():
    with pytest.raises(GraphTypeError, match=r"A traced integer tensor is used at "
                                             r"test_torch_staging.py:\d+ where Python needs an "
                                             r"int.*torch.tensor\(values\)\[i\]"):
        torch.export.export(Calls(convert(scaled_by_table)), (_t([1.0]), _t(1)))


def formatted_print_in_a_branch(x):
    if x.sum() > 0:
        print(f"sum {x.sum():.2f}", "mean %.1f" % x.mean(), "{:>6.3f}".format(x.max()))
        return x * 2
    return x


def test_a_number_format_of_a_traced_tensor_prints_it_as_str_with_a_warning(capsys):
    # Converted code prints while PyTorch traces, when the tensor has no value to format
    # (FakeTensor.__format__ refused the format, failing the trace).
    with pytest.warns(transpiler.ConversionWarning, match=r"The format \{x:\.2f\} cannot be "
                                                          r"applied to a PyTorch tensor being "
                                                          r"traced"):
        compiled = torch.compile(convert(formatted_print_in_a_branch), fullgraph=True,
                                 backend="aot_eager")
        assert torch.equal(compiled(_t([1.0, 2.0])), _t([2.0, 4.0]))
    assert "sum " in capsys.readouterr().out
