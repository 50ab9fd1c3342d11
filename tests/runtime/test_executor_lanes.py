"""The same update of many variables computed once (runtime.plan_lanes, runtime.plan_groups):
each optimizer's step gives the eager bits, groups show in the plan's source, a value handed
out never changes, and updates that cannot be grouped soundly stay apart."""

import _thread
import threading

import numpy as np
import pytest

import runtime as rt
from runtime import plan_groups
from runtime.plan_groups import VariableGroup

SHAPES = [(5, 3), (3,), (3, 7), (7,), (2, 2, 2)]


def _variables(dtype, seed=0):
    rng = np.random.RandomState(seed)
    values = [rng.randn(*shape).astype(dtype) for shape in SHAPES]
    values[0][0, 0], values[2][1, 1] = 0.0, -0.0
    return [rt.Variable(v) for v in values]


def _loss(variables, x):
    w1, b1, w2, b2, cube = variables
    h = rt.tanh(rt.matmul(x, w1) + b1)
    return rt.reduce_mean(rt.square(rt.matmul(h, w2) + b2)) + rt.reduce_sum(cube * cube)


def _train(make_optimizer, dtype, traced: bool, steps: int = 4):
    """(the variables' and slots' bytes after ``steps`` steps, the plan's source or None)."""
    variables = _variables(dtype)
    optimizer = make_optimizer()
    x = rt.constant(np.random.RandomState(1).randn(4, 5).astype(dtype))

    def step(x):
        with rt.GradientTape() as tape:
            loss = _loss(variables, x)
        optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
        return loss

    run = rt.function(step, jit_compile=False) if traced else step
    with np.errstate(all="ignore"):
        for _ in range(steps):
            run(x)
    state = b"".join(v.numpy().tobytes() for v in variables + optimizer.variables)
    return state, run.get_concrete_function(x).plan_source if traced else None


OPTIMIZERS = {
    "adam": lambda: rt.optimizers.Adam(0.01),
    "amsgrad": lambda: rt.optimizers.Adam(0.01, amsgrad=True),
    "sgd": lambda: rt.optimizers.SGD(0.1),
    "momentum": lambda: rt.optimizers.SGD(0.1, momentum=0.9, nesterov=True),
    "rmsprop": lambda: rt.optimizers.RMSprop(0.01),
    "adamw": lambda: rt.optimizers.AdamW(0.01),
}


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_optimizer_steps_give_the_eager_bits_with_their_updates_grouped(name, dtype):
    planned, source = _train(OPTIMIZERS[name], dtype, traced=True)
    eager, _ = _train(OPTIMIZERS[name], dtype, traced=False)
    assert planned == eager
    assert "concatenate" in source  # the gradients, for the one update of all variables


def test_a_group_of_float16_variables_gives_the_eager_bits():
    planned, source = _train(OPTIMIZERS["adam"], "float16", traced=True)
    assert planned == _train(OPTIMIZERS["adam"], "float16", traced=False)[0]
    assert "group" in source


def test_values_handed_out_never_change_and_eager_writes_are_seen(monkeypatch):
    monkeypatch.setattr(plan_groups, "_other_threads", lambda: 0)  # writes in place may happen
    variables = _variables("float32")
    optimizer = rt.optimizers.Adam(0.01)
    x = rt.constant(np.ones((4, 5), np.float32))

    @rt.function(jit_compile=False)
    def step(x):
        with rt.GradientTape() as tape:
            loss = _loss(variables, x)
        optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
        return loss

    reference = _variables("float32")
    reference_optimizer = rt.optimizers.Adam(0.01)

    def reference_step():
        with rt.GradientTape() as tape:
            loss = _loss(reference, x)
        reference_optimizer.apply_gradients(zip(tape.gradient(loss, reference), reference))

    for round_ in range(6):
        held = [v.numpy() for v in variables + optimizer.variables]
        copies = [h.copy() for h in held]
        step(x)
        reference_step()
        for h, c in zip(held, copies):  # taken before the step: unchanged by it
            assert h.tobytes() == c.tobytes()
        del held
        step(x)
        reference_step()
        if round_ % 2:  # an eager write between steps: the group reads the new value
            slot = optimizer.variables[2 + round_ % 5]
            slot.assign(slot.numpy() * 0.5)
            reference_optimizer.variables[2 + round_ % 5].assign(slot.numpy())
    assert all(a.numpy().tobytes() == b.numpy().tobytes()
               for a, b in zip(variables + optimizer.variables,
                               reference + reference_optimizer.variables))


def _written_in_place(group: VariableGroup, mode: str) -> bool:
    """Whether the next write of ``group`` goes into the array it wrote last."""
    writer = group.writer(mode, owned=False)
    address = group.variables[0]._value.__array_interface__["data"][0]
    writer(np.ones(group.size, group.dtype))
    return group.variables[0]._value.__array_interface__["data"][0] == address


def test_a_group_writes_in_place_only_when_nothing_else_can_see_it(monkeypatch):
    # (pytest-xdist's workers run a thread of their own: none here until the end)
    monkeypatch.setattr(plan_groups, "_other_threads", lambda: 0)
    variables = [rt.Variable(np.zeros(shape, np.float32)) for shape in SHAPES]
    group = VariableGroup(variables)
    group.writer("add", owned=False)(np.ones(group.size, np.float32))
    assert _written_in_place(group, "add") and _written_in_place(group, "assign")
    view = variables[3].numpy()[1:]  # a view of one value
    assert not _written_in_place(group, "sub")
    assert view.tolist() == [1.0] * 6  # as it was before the subtraction
    del view
    assert _written_in_place(group, "sub")
    variables[1].assign(np.full(3, 5.0, np.float32))  # an eager write: not the group's view
    assert not _written_in_place(group, "add")
    assert variables[1].numpy().tolist() == [6.0] * 3
    monkeypatch.setattr(plan_groups, "_other_threads", _thread._count)
    started, stop = threading.Event(), threading.Event()
    thread = threading.Thread(target=lambda: (started.set(), stop.wait()))
    thread.start()
    started.wait()
    try:  # another thread could take a value between the count and the write
        assert not _written_in_place(group, "add")
    finally:
        stop.set()
        thread.join()


def test_reads_of_an_uninitialized_group_raise_the_variables_error():
    variables = [rt.Variable(np.zeros(2, np.float32)), rt.Variable(np.zeros(3, np.float32))]
    variables[1]._value = None
    with pytest.raises(ValueError, match="not initialized yet"):
        VariableGroup(variables).read()


def _plan(fn, *args):
    function = rt.function(fn, jit_compile=False)
    return function, function.get_concrete_function(*args).plan_source


def test_lanes_that_need_each_other_stay_apart():
    a, b = rt.Variable(np.ones(3, np.float32)), rt.Variable(np.full(3, 2.0, np.float32))
    expected_a, expected_b = np.ones(3, np.float32), np.full(3, 2.0, np.float32)

    def f():  # b's update reads a after a's: one write cannot do both
        a.assign_add(b.read_value() * 2.0 + 1.0)
        b.assign_add(a.read_value() * 2.0 + 1.0)
        return a.read_value()

    function, source = _plan(f)
    assert "group" not in source
    for _ in range(3):
        function()
        expected_a += expected_b * np.float32(2.0) + np.float32(1.0)
        expected_b += expected_a * np.float32(2.0) + np.float32(1.0)
    assert a.numpy().tobytes() == expected_a.tobytes()
    assert b.numpy().tobytes() == expected_b.tobytes()


def test_lanes_on_both_sides_of_a_print_or_an_assert_stay_apart(capsys):
    a, b = rt.Variable(np.ones(3, np.float32)), rt.Variable(np.ones(4, np.float32))

    def f(x):
        a.assign_sub(a.read_value() * x + 1.0)
        rt.print("between", rt.reduce_sum(x))
        rt.assert_(x > 0.0, "x must be positive")
        b.assign_sub(b.read_value() * x + 1.0)
        return x

    function, source = _plan(f, rt.constant(0.5))
    assert "group" not in source
    function(rt.constant(0.5))
    with pytest.raises(rt.errors.InvalidArgumentError):
        function(rt.constant(-1.0))
    assert a.numpy().tolist() == [-2.0, -2.0, -2.0]  # the second call changed a, not b
    assert b.numpy().tolist() == [-0.5] * 4
    assert capsys.readouterr().out.count("between") == 2


def test_lanes_of_a_loop_body_are_grouped():
    variables = [rt.Variable(np.full(shape, 0.5, np.float64)) for shape in SHAPES[:3]]

    def body(i):
        for v in variables:
            v.assign(v.read_value() * 0.5 + 0.25)
        return i + 1

    def f(n):
        return rt.while_loop(lambda i: i < n, body, [rt.constant(0)])

    function = rt.function(f, jit_compile=False)
    function(rt.constant(3))
    assert "group" in function.get_concrete_function(rt.constant(3)).plan_source
    expected = np.float64(0.5)
    for _ in range(3):
        expected = expected * 0.5 + 0.25
    assert all((v.numpy() == expected).all() for v in variables)


def test_an_intermediate_used_elsewhere_is_computed_apart_and_gathered():
    a, b = rt.Variable(np.ones((2, 3), np.float32)), rt.Variable(np.ones(5, np.float32))

    def f(x):
        da = rt.reshape(rt.tile(x, [6]), [2, 3]) * 3.0  # returned too: a leaf of the group
        db = rt.tile(x, [5]) * 3.0
        a.assign_sub(da * 2.0 - 1.0)
        b.assign_sub(db * 2.0 - 1.0)
        return da, db

    function, source = _plan(f, rt.constant([0.25]))
    da, db = function(rt.constant([0.25]))
    assert "concatenate" in source
    assert da.numpy().tolist() == [[0.75] * 3] * 2 and db.numpy().tolist() == [0.75] * 5
    assert a.numpy().tolist() == [[0.5] * 3] * 2 and b.numpy().tolist() == [0.5] * 5


def test_a_read_between_two_lanes_sees_the_first_lanes_write():
    a, b = rt.Variable(np.ones(3, np.float32)), rt.Variable(np.ones(4, np.float32))

    def f(x, y):
        a.assign_add(x * 2.0 + 1.0)
        seen = a.read_value() * 3.0  # moved after the group's write, which writes a too
        b.assign_add(y * 2.0 + 1.0)
        return seen

    args = rt.constant(np.full(3, 0.5, np.float32)), rt.constant(np.full(4, 0.25, np.float32))
    function, source = _plan(f, *args)
    assert "concatenate" in source
    assert function(*args).numpy().tolist() == [9.0] * 3
    assert a.numpy().tolist() == [3.0] * 3 and b.numpy().tolist() == [2.5] * 4


def test_complex_variables_are_updated_one_by_one():
    a = rt.Variable(np.full(3, 1 + 2j, np.complex64))
    b = rt.Variable(np.full(4, 2 - 1j, np.complex64))

    def f(x):
        a.assign_sub(a.read_value() * x + 1.0)
        b.assign_sub(b.read_value() * x + 1.0)
        return x

    function, source = _plan(f, rt.constant(np.complex64(0.5j)))
    assert "concatenate" not in source and "group" not in source
    function(rt.constant(np.complex64(0.5j)))
    assert a.numpy().tolist() == [(1 + 2j) - ((1 + 2j) * 0.5j + 1)] * 3
