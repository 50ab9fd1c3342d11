"""Converted control flow under ``torch.compile(fullgraph=True)`` where PyTorch traces blocks
apart from the program (issue 26): sizes Dynamo made dynamic read in blocks, ``cond``'s
gradient pass with integer outputs, a tensor from outside changed in place through a view in
a branch, and lists appended to in branches. Each case is checked against plain eager
PyTorch, on inputs taking every branch.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

# PyTorch's own deprecation of torch.jit.script_method, raised inside torch when inductor loads.
pytestmark = pytest.mark.filterwarnings(
    "ignore:`torch.jit.script_method` is deprecated:DeprecationWarning")

from tests.torch_programs import Calls  # noqa: E402
from transpiler import convert  # noqa: E402


def _compiled(fn, dynamic=None):
    return torch.compile(fn, fullgraph=True, backend="aot_eager", dynamic=dynamic)


class _Repeated(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = torch.nn.Linear(4, 4)

    def forward(self, x, steps):
        for _ in range(steps):
            x = torch.tanh(self.layer(x))
        return x, steps


def _twins(cls):
    """The plain module and a converted copy with the same parameters."""
    torch.manual_seed(0)
    plain, converted = cls(), cls()
    converted.load_state_dict(plain.state_dict())
    converted.forward = convert(converted.forward)
    return plain, converted


def _gradients(module, output):
    """The gradients of ``output.sum()`` for ``module``'s parameters (zeros where unused)."""
    loss = output.sum() + sum(p.sum() * 0 for p in module.parameters())
    return torch.autograd.grad(loss, list(module.parameters()))


def _same_values_and_gradients(plain, converted, run, inputs, atol=1e-8):
    for args in inputs:
        expected, got = plain(*args), run(*args)
        for e, g in zip(expected, got):
            e, g = torch.as_tensor(e), torch.as_tensor(g)
            assert e.dtype == g.dtype and torch.allclose(e, g, atol=atol), (args, expected, got)
        for e, g in zip(_gradients(plain, expected[0]), _gradients(converted, got[0])):
            assert torch.allclose(e, g, atol=atol), (args, e, g)


def test_a_loop_over_a_module_with_dynamic_sizes_and_its_gradient():
    # The body is traced again for while_loop's schema and gradient, where the program's
    # symbolic sizes are unknown: the loop's shape checks are asked outside any trace. PyTorch
    # 2.13's while_loop gradient is wrong for zero trips, and for the parameters when the loop
    # variable needs no gradient (the exported program's too).
    plain, converted = _twins(_Repeated)
    inputs = [(torch.linspace(-1, 1, 4), torch.tensor(steps)) for steps in (0, 1, 3)]
    _same_values_and_gradients(plain, converted, _compiled(converted, dynamic=True), inputs)
    exported = torch.export.export(converted, inputs[1]).module()
    _same_values_and_gradients(plain, exported, exported, inputs)


def test_parameter_gradients_through_a_loop_under_inductor():
    # The one Inductor compile of this file. Inductor compiled the while_loop in the backward
    # graph with the backward's donated buffers at its body's input positions: the body wrote
    # over the layer's bias, so the bias gradient was wrong and the bias itself changed.
    plain, converted = _twins(_Repeated)
    before = [p.detach().clone() for p in converted.parameters()]
    inputs = [(torch.linspace(-1, 1, 4), torch.tensor(steps)) for steps in (0, 1, 3)]
    _same_values_and_gradients(plain, converted, torch.compile(converted, fullgraph=True),
                               inputs, atol=1e-6)  # Inductor's kernels round differently
    assert all(torch.equal(b, p) for b, p in zip(before, converted.parameters()))


def powered(x, n):
    r = torch.ones_like(x)
    for _ in range(n):
        r = r * x + 1.0
    return r


def halved_above_one(x):
    while x.sum() > 1.0:
        x = x * 0.5
    return x


def squares_until_over_three(x):
    total = x[0] * 0
    for v in x:
        if total > 3.0:
            break
        total = total + v * v
    return total


def grown_until(x, limit):
    while x.sum() < limit:
        if x.max() > 4.0:
            return x * 2.0
        x = x * 1.5 + 0.1
    return x


@pytest.mark.parametrize("fn, inputs", [
    (powered, [([0.9, 1.1], 3), ([0.9, 1.1], 0)]),
    (halved_above_one, [([0.1, 0.2],), ([3.0, 1.0],)]),
    (squares_until_over_three, [([1.0, 1.5, 2.0, 0.5],)]),
    (grown_until, [([1.0, 2.0], 0.5), ([1.0, 2.0], 20.0)]),
])
def test_input_gradients_of_an_exported_program_traced_without_gradients(fn, inputs):
    # The example input needs no gradient, the exported program's input does: its loops and
    # conditionals are differentiable anyway (a loop that runs zero times gives no gradient;
    # a break or return flag passes through the cond as a float).
    example = tuple(torch.tensor(a) for a in inputs[0])
    exported = torch.export.export(Calls(convert(fn)), example).module()
    for args in inputs:
        grads = []
        for run in (fn, exported):
            x, *rest = (torch.tensor(a) for a in args)
            x.requires_grad_()
            (run(x, *rest) + x * 0).sum().backward()
            grads.append(x.grad)
        assert torch.allclose(*grads), (args, grads)


def middle_moved(x, t):
    m = (x.shape[0] - 1) // 2
    if x[0] > t:
        if x[1] > t:
            m = m + 1
        else:
            m = m - 1
    return m


def test_a_number_computed_from_a_dynamic_size_is_used_in_branches():
    # ``m + 1`` in a branch is Python arithmetic on a symbolic int of the program: the symbol
    # it is made of is an input of the branch, from which its tracer rebuilds it.
    compiled = _compiled(convert(middle_moved), dynamic=True)
    for x in ([1.0, 2.0, 3.0, 4.0, 5.0], [1.0, -2.0, 3.0], [-1.0, 2.0, 3.0, 4.0]):
        x = torch.tensor(x)
        assert int(compiled(x, torch.tensor(0.0))) == middle_moved(x, torch.tensor(0.0))


class _Counted(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = torch.nn.Linear(3, 3)

    def forward(self, x, big):
        y = self.layer(x)
        if y.sum() > 0:
            y = y * 2
            k, flag = big + 1, torch.tensor(True)
        else:
            k, flag = -big - 7, torch.tensor(False)
        return y, k, flag


def test_a_differentiated_cond_gives_integer_and_bool_outputs_exactly():
    # PyTorch 2.13's cond gradient needs a gradient for each output: integer ones go through
    # it as floats that hold them exactly (an int64 as two halves).
    plain, converted = _twins(_Counted)
    big = torch.tensor(2 ** 40 + 3)
    inputs = [(torch.ones(3), big), (-torch.ones(3), big), (torch.ones(3), -big)]
    _same_values_and_gradients(plain, converted, _compiled(converted), inputs)


def fix_negatives(x):
    for i in range(x.shape[0]):
        if x[i] < 0:
            x[i] += 10
    return x


def thirds_or_steps(x):
    y = x.clone()
    for i in range(y.shape[0]):
        if y[i] % 3 == 0:
            y[i] //= 3
        else:
            v = y[i]
            v *= 2  # changes y through the view, as in Python
    return y


@pytest.mark.parametrize("fn, inputs", [
    (fix_negatives, ([1.0, -2.0, 3.0], [1.0, 2.0, 3.0])),
    (thirds_or_steps, ([3, 4, 5, 6], [1, 1, 9, 2])),
])
def test_an_item_changed_in_place_in_a_branch_inside_a_python_loop(fn, inputs):
    # ``x[i] += 10`` changes the view ``x[i]`` of a tensor from outside the branch: the branch
    # changes a copy of the tensor, and the view is made again from the copy.
    compiled = _compiled(convert(fn))
    for values in inputs:
        expected, got = torch.tensor(values), torch.tensor(values)
        assert torch.equal(compiled(got), fn(expected)) and torch.equal(got, expected)


def smallest_then_hidden(x, k):
    x = x.clone()
    for _ in range(k):
        i = torch.argmin(x)
        value = x[i]
        x[i] = float("inf")
    return value  # a view of x: inf, as in Python


def test_a_view_selected_by_a_computed_index_and_then_written():
    # The index is read as a symbolic int known to be in range: PyTorch then makes the view
    # again after the write without a new symbol of unknown offset.
    compiled = _compiled(convert(smallest_then_hidden))
    x = torch.tensor([5.0, 2.0, 8.0, 1.0])
    for k in (1, 3):
        assert torch.equal(compiled(x, k), smallest_then_hidden(x, k))


def signed_rows(x):
    outs = []
    seen = outs
    for row in x:
        if row.sum() > 0:
            outs.append(row)
        else:
            outs.append(-row)
    return torch.stack(seen)


def test_a_list_appended_to_in_both_branches_of_a_staged_if():
    # The appended elements are outputs of the cond, appended to the list itself.
    exported = torch.export.export(Calls(convert(signed_rows)), (torch.ones(3, 2),)).module()
    compiled = _compiled(convert(signed_rows))
    for x in (torch.linspace(-2, 2, 6).reshape(3, 2), torch.linspace(2, -2, 6).reshape(3, 2)):
        assert torch.equal(exported(x), signed_rows(x)) and torch.equal(compiled(x), signed_rows(x))


def kept_positive(x):
    outs = []
    for row in x:
        if row.sum() > 0:
            outs.append(row)
    return outs


def test_a_list_appended_to_in_one_branch_only_is_an_error():
    with pytest.raises(Exception, match=r"'outs' return different structures.*same length"):
        torch.export.export(Calls(convert(kept_positive)), (torch.ones(3, 2),))


def view_then_change(x):
    y = x * 1
    if y.sum() > 0:
        v = y[0]
        y.add_(1)  # v sees the change, as in Python
    else:
        v = y[1]
    return v, y


def test_a_view_read_after_its_tensor_changed_in_place_in_a_branch():
    exported = torch.export.export(Calls(convert(view_then_change)), (torch.ones(2),)).module()
    compiled = _compiled(convert(view_then_change))
    for x in (torch.ones(2), -torch.ones(2)):
        expected = view_then_change(x)
        for got in (exported(x), compiled(x)):
            assert all(torch.equal(e, g) for e, g in zip(expected, got)), (x, expected, got)


class _Tolerance:
    def __init__(self, tol):
        self.tol = tol


def halvings_to(x, config):
    steps = 0
    while x > config.tol:
        x = x / 2
        steps += 1
    return steps


def test_an_argument_fullgraph_cannot_pass_is_an_error_naming_it():
    with pytest.raises(TypeError, match=r"Argument 'config' of halvings_to \(at "
                                        r"test_torch_compile_cases.py:\d+\) is \(or holds\) a "
                                        r"_Tolerance object.*register_dataclass"):
        _compiled(convert(halvings_to))(torch.tensor(8.0), _Tolerance(1.0))
    # Without fullgraph, Dynamo runs the call as Python: Python's result.
    compiled = torch.compile(convert(halvings_to), backend="eager")
    assert compiled(torch.tensor(8.0), _Tolerance(1.0)) == 3


def converted_in_blocks(x, n):
    if x.sum() > 0:
        y = x.double() / 2
    else:
        y = x.to(torch.float64)
    total = torch.zeros((), dtype=torch.int64)
    for _ in range(n):
        total = total + x.long().sum()
    return y, total


def test_dtype_conversions_of_tensors_from_outside_a_block():
    # cond and while_loop trace a block again for their schema with functionalization off,
    # where a functional tensor's .to() (and .double(), .long(), ...) failed ("'NoneType'
    # object has no attribute 'export'").
    compiled = _compiled(convert(converted_in_blocks))
    for x, n in (([1.5, 2.5], 2), ([-1.5, 0.5], 0)):
        args = (torch.tensor(x), torch.tensor(n))
        for e, g in zip(converted_in_blocks(*args), compiled(*args)):
            assert e.dtype == g.dtype and torch.equal(e, g), (args, e, g)


def at_the_largest(x):
    return x[x.argmax().item()] * 2


def half_total(x, n):
    total = 0.0
    i = 0
    while i < n:
        total = total + x[i]
        i += 1
    return total


def test_indexing_by_an_int_known_only_when_the_program_runs():
    # PyTorch's indexing of a functional tensor refused the symbolic int of .item() ("got
    # SymInt"); so did a loop's Python int counter standing in as one while the loop was
    # discovered, which made the float total of a float16 sum a float32 tensor.
    x = torch.tensor([1.0, 5.0, 2.0])
    assert torch.equal(_compiled(convert(at_the_largest))(x), at_the_largest(x))
    halves = torch.tensor([1.0, 2.0], dtype=torch.float16)
    compiled = _compiled(convert(half_total))
    for n in (2, 0):
        got = compiled(halves, torch.tensor(n))
        assert got.dtype == torch.float16 and float(got) == float(half_total(halves, n))


def insertion_sorted(x):
    x = x.clone()
    for i in range(1, x.shape[0]):
        j = i
        while j > 0 and x[j - 1] > x[j]:
            smaller = x[j].clone()
            x[j] = x[j - 1]
            x[j - 1] = smaller
            j -= 1
    return x


def test_a_loop_nested_in_a_staged_loop_changing_an_array_in_place():
    # With a dynamic size, range(1, n) is a staged loop too. The inner loop carries the array
    # it changes and reads it as an operand: both are the outer body's one input, which
    # while_loop refused as aliased inputs ("cond_fn might be aliasing the input"). Its
    # stand-ins also lost the views written through, whose ids new tensors then took, read as
    # those views: the counter became a float32 tensor.
    x = torch.tensor([4.0, 1.0, 3.0, 2.0])
    assert torch.equal(_compiled(convert(insertion_sorted), dynamic=True)(x), insertion_sorted(x))


def limit_and_threshold(x, n):
    return x > 0 and n > 2


def halvings_below(x, n):
    k = 0
    while x > 1 and k < n:
        x = x / 2
        k += 1
    return x, k


def nested_python_test(x, n):
    if x > 0:
        if n > 4:
            y = x * 2
        else:
            y = -x
    else:
        y = x
    return y


@pytest.mark.parametrize("fn", [limit_and_threshold, halvings_below, nested_python_test])
def test_a_python_int_made_dynamic_is_compared_in_blocks(fn):
    # ``n > 2`` in an ``and`` (a cond) and ``if n > 4`` in a branch are Python comparisons of a
    # symbolic int that no PyTorch operation of the block receives: its symbol must be an input
    # of the block all the same ("s0 is not tracked with proxy" when its tracer rebuilt it).
    compiled = _compiled(convert(fn), dynamic=True)
    for x, n in ((100.0, 3), (100.0, 10), (-1.0, 20), (0.5, 1)):
        expected, got = fn(torch.tensor(x), n), compiled(torch.tensor(x), n)
        for e, g in zip(*(v if isinstance(v, tuple) else (v,) for v in (expected, got))):
            assert float(g) == float(e), (fn.__name__, x, n, expected, got)


def float_of_a_positive(x):
    if x > 0:
        y = float(x)
    else:
        y = 0.0
    return y


def test_a_branch_giving_float_of_its_input_gives_a_copy():
    # ``float(x)`` of a 0-d float32 ``x`` is ``x`` reshaped, which shares its storage without
    # being marked a view under torch.compile: cond refused the branch ("cond_true might be
    # aliasing the input or the output").
    compiled = _compiled(convert(float_of_a_positive))
    for x in (2.0, -2.0):
        assert float(compiled(torch.tensor(x))) == float_of_a_positive(torch.tensor(x))
