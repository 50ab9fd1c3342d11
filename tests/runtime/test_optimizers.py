"""rt.optimizers: Keras' update rules, eagerly and in traced training steps.

Each update is checked against the Keras formula written out in NumPy, in the variable's
dtype; eager and traced updates must agree exactly. Training steps use only ops whose
gradients exist (add, subtract, multiply): a non-scalar tape target stands for its sum.
"""

import re
import warnings

import numpy as np
import pytest

import runtime as rt
import transpiler
from runtime.errors import RetracingWarning

DTYPES = [np.float32, np.float64]
CONFIGS = {
    "sgd": lambda: rt.optimizers.SGD(learning_rate=0.1),
    "momentum": lambda: rt.optimizers.SGD(learning_rate=0.1, momentum=0.9),
    "nesterov": lambda: rt.optimizers.SGD(learning_rate=0.1, momentum=0.9, nesterov=True),
    "adam": lambda: rt.optimizers.Adam(learning_rate=0.1),
    "amsgrad": lambda: rt.optimizers.Adam(learning_rate=0.1, beta_1=0.8, beta_2=0.99,
                                          epsilon=1e-3, amsgrad=True),
    "adagrad": lambda: rt.optimizers.Adagrad(learning_rate=0.1, initial_accumulator_value=0.2),
    "adadelta": lambda: rt.optimizers.Adadelta(learning_rate=1.0, rho=0.9, epsilon=1e-3),
    "adamax": lambda: rt.optimizers.Adamax(learning_rate=0.1, beta_1=0.8, beta_2=0.95),
    "nadam": lambda: rt.optimizers.Nadam(learning_rate=0.1, beta_1=0.8, beta_2=0.99),
    "ftrl": lambda: rt.optimizers.Ftrl(
        learning_rate=0.3, learning_rate_power=-0.7, initial_accumulator_value=0.2,
        l1_regularization_strength=0.05, l2_regularization_strength=0.1,
        l2_shrinkage_regularization_strength=0.02, beta=0.3),
    "lion": lambda: rt.optimizers.Lion(learning_rate=0.1, beta_1=0.8, beta_2=0.95),
}
STEPS = 6


# -- the Keras formulas, in NumPy --------------------------------------------------------------


def adadelta_step(opt, value, g, state, lr, t):
    dtype = value.dtype.type
    rho, eps = dtype(opt.rho), dtype(opt.epsilon)
    grads = state["accumulated_grad"] = rho * state["accumulated_grad"] + (1 - rho) * g * g
    delta = -np.sqrt(state["accumulated_delta_var"] + eps) * g / np.sqrt(grads + eps)
    state["accumulated_delta_var"] = rho * state["accumulated_delta_var"] \
        + (1 - rho) * delta * delta
    return value + lr * delta


def adamax_step(opt, value, g, state, lr, t):
    dtype = value.dtype.type
    beta_1, beta_2 = dtype(opt.beta_1), dtype(opt.beta_2)
    m = state["momentum"] = state["momentum"] + (g - state["momentum"]) * (1 - beta_1)
    u = state["norm"] = np.maximum(beta_2 * state["norm"], np.abs(g))
    return value - lr * m / ((1 - beta_1 ** t) * (u + dtype(opt.epsilon)))


def nadam_step(opt, value, g, state, lr, t):
    dtype = value.dtype.type
    beta_1, beta_2 = dtype(opt.beta_1), dtype(opt.beta_2)
    u_t = beta_1 * (1 - dtype(0.5) * dtype(0.96) ** t)
    u_next = beta_1 * (1 - dtype(0.5) * dtype(0.96) ** (t + 1))
    product = state["u_product"] = state.get("u_product", dtype(1)) * u_t
    m = state["momentum"] = state["momentum"] + (g - state["momentum"]) * (1 - beta_1)
    v = state["velocity"] = state["velocity"] + (g * g - state["velocity"]) * (1 - beta_2)
    m_hat = u_next * m / (1 - product * u_next) + (1 - u_t) * g / (1 - product)
    v_hat = v / (1 - beta_2 ** t)
    return value - lr * m_hat / (np.sqrt(v_hat) + dtype(opt.epsilon))


def ftrl_step(opt, value, g, state, lr, t):
    dtype = value.dtype.type
    power = dtype(-opt.learning_rate_power)
    old = state.get("accumulator", np.full_like(value, opt.initial_accumulator_value))
    new = state["accumulator"] = old + g * g
    linear = state["linear"] = state["linear"] + g \
        + dtype(2 * opt.l2_shrinkage_regularization_strength) * value \
        - (new ** power - old ** power) / lr * value
    l1 = dtype(opt.l1_regularization_strength)
    l2 = dtype(opt.l2_regularization_strength) + dtype(opt.beta) / (2 * lr)
    return (np.clip(linear, -l1, l1) - linear) / (new ** power / lr + 2 * l2)


def lion_step(opt, value, g, state, lr, t):
    dtype = value.dtype.type
    beta_1, beta_2 = dtype(opt.beta_1), dtype(opt.beta_2)
    value = value - lr * np.sign(beta_1 * state["momentum"] + (1 - beta_1) * g)
    state["momentum"] = beta_2 * state["momentum"] + (1 - beta_2) * g
    return value


# The optimizers whose rule is one function of (optimizer, value, gradient, slots, lr, t): the
# slots start at zeros unless the function says otherwise.
REFERENCE_STEPS = {rt.optimizers.Adadelta: adadelta_step, rt.optimizers.Adamax: adamax_step,
                   rt.optimizers.Nadam: nadam_step, rt.optimizers.Ftrl: ftrl_step,
                   rt.optimizers.Lion: lion_step}


def keras_update(optimizer, value, gradients):
    """``value`` after applying ``gradients`` one per step, by the Keras update rule."""
    dtype = value.dtype.type
    lr = dtype(optimizer.learning_rate.numpy())
    reference_step = REFERENCE_STEPS.get(type(optimizer))
    if reference_step is not None:
        state = {name: np.zeros_like(value) for name in optimizer.slot_names
                 if name not in optimizer.initial_slot_values}
        for t, g in enumerate(gradients, start=1):
            value = reference_step(optimizer, value, g, state, lr, dtype(t))
        return value
    m, v, vhat = (np.zeros_like(value) for _ in range(3))
    for step, g in enumerate(gradients):
        if isinstance(optimizer, rt.optimizers.SGD):
            momentum = dtype(optimizer.momentum)
            if not optimizer.momentum:
                value = value - g * lr
                continue
            m = m * momentum - g * lr
            value = value + (m * momentum - g * lr if optimizer.nesterov else m)
            continue
        if isinstance(optimizer, rt.optimizers.Adagrad):
            if step == 0:
                m = np.full_like(value, optimizer.initial_accumulator_value)
            m = m + g * g
            value = value - (lr * g) / np.sqrt(m + dtype(optimizer.epsilon))
            continue
        beta_1, beta_2 = dtype(optimizer.beta_1), dtype(optimizer.beta_2)
        t = dtype(step + 1)
        lr_t = lr * np.sqrt(1 - beta_2 ** t) / (1 - beta_1 ** t)
        m = m + (g - m) * dtype(1 - optimizer.beta_1)
        v = v + (g * g - v) * dtype(1 - optimizer.beta_2)
        vhat = np.maximum(vhat, v)
        denominator = np.sqrt(vhat if optimizer.amsgrad else v) + dtype(optimizer.epsilon)
        value = value - (m * lr_t) / denominator
    return value


def gradient_sequence(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    return [rng.normal(size=shape).astype(dtype) for _ in range(STEPS)]


def run_updates(optimizer, variables, gradients, traced: bool):
    """Applies gradients[i] (one list per variable) for every step, eagerly or traced."""
    def apply(*grads):
        optimizer.apply_gradients(zip(grads, variables))

    step = rt.function(apply) if traced else apply
    for i in range(STEPS):
        step(*[rt.constant(g[i]) for g in gradients])
    return step


def tolerance(dtype):
    return {"rtol": 1e-6, "atol": 1e-6} if dtype == np.float32 else {"rtol": 1e-13, "atol": 1e-13}


# -- update rules ------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.__name__)
@pytest.mark.parametrize("config", CONFIGS)
def test_updates_match_the_keras_formulas(config, dtype):
    initial = [np.array([1.0, -2.0, 0.5], dtype), np.array([[0.3, 0.0], [-1.0, 4.0]], dtype)]
    gradients = [gradient_sequence(x.shape, dtype, seed) for seed, x in enumerate(initial)]
    optimizer = CONFIGS[config]()
    variables = [rt.Variable(x) for x in initial]
    run_updates(optimizer, variables, gradients, traced=False)
    for variable, x, g in zip(variables, initial, gradients):
        expected = keras_update(optimizer, x, g)
        assert variable.dtype == dtype
        np.testing.assert_allclose(variable.numpy(), expected, **tolerance(dtype))
    assert optimizer.iterations.dtype == np.int64 and optimizer.iterations.numpy() == STEPS


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.__name__)
@pytest.mark.parametrize("config", CONFIGS)
def test_a_traced_step_gives_the_eager_numbers(config, dtype):
    initial = [np.array([1.0, -2.0, 0.5], dtype), np.array([[0.3, 0.0], [-1.0, 4.0]], dtype)]
    gradients = [gradient_sequence(x.shape, dtype, seed) for seed, x in enumerate(initial)]
    results = []
    for traced in (False, True):
        optimizer = CONFIGS[config]()
        variables = [rt.Variable(x) for x in initial]
        step = run_updates(optimizer, variables, gradients, traced)
        results.append([v.numpy() for v in variables + optimizer.variables])
    assert step.tracing_count == 1
    for eager, graph in zip(*results):
        np.testing.assert_array_equal(eager, graph)


def test_variables_of_two_dtypes_each_get_their_own_step_size():
    optimizer = rt.optimizers.Adam(learning_rate=0.1)
    initial = [np.array([1.0, 2.0], np.float32), np.array([1.0, 2.0], np.float64)]
    gradients = [gradient_sequence((2,), x.dtype, 0) for x in initial]
    variables = [rt.Variable(x) for x in initial]
    run_updates(optimizer, variables, gradients, traced=True)
    for variable, x, g in zip(variables, initial, gradients):
        np.testing.assert_allclose(variable.numpy(), keras_update(optimizer, x, g),
                                   **tolerance(x.dtype))


def test_keras_defaults():
    sgd, adam = rt.optimizers.SGD(), rt.optimizers.Adam()
    assert sgd.learning_rate.numpy() == 0.01 and sgd.momentum == 0.0 and not sgd.nesterov
    assert adam.learning_rate.numpy() == 0.001
    assert (adam.beta_1, adam.beta_2, adam.epsilon, adam.amsgrad) == (0.9, 0.999, 1e-7, False)
    with pytest.raises(AttributeError):
        adam.beta_1 = 0.5  # a traced step holds it as a constant
    with pytest.raises(ValueError, match=re.escape("momentum must be a number in [0, 1]")):
        rt.optimizers.SGD(momentum=1.5)
    assert (adam.clipnorm, adam.clipvalue, adam.global_clipnorm) == (None, None, None)
    with pytest.raises(ValueError, match="only one of clipnorm, clipvalue and global_clipnorm"):
        rt.optimizers.SGD(clipnorm=1.0, clipvalue=0.5)
    adagrad = rt.optimizers.Adagrad()
    assert (adagrad.initial_accumulator_value, adagrad.epsilon) == (0.1, 1e-7)
    with pytest.raises(ValueError, match="initial_accumulator_value must be a number of at"):
        rt.optimizers.Adagrad(initial_accumulator_value=-1)


# -- slots -------------------------------------------------------------------------------------


def linear_step(optimizer, w, b, decorator=rt.function):
    @decorator
    def step(x, y):
        with rt.GradientTape() as tape:
            error = w * x + b - y
            squared = error * error  # the tape's target: the gradient is that of its sum
        grads = tape.gradient(squared, [w, b])
        optimizer.apply_gradients(zip(grads, [w, b]))
        return rt.reduce_sum(squared)
    return step


def test_slots_are_created_once_on_first_use_even_inside_a_trace():
    w, b = rt.Variable(np.float32(0.0), name="w"), rt.Variable(np.float32(0.0), name="b")
    optimizer = rt.optimizers.Adam(learning_rate=0.1, amsgrad=True)
    assert [v.name for v in optimizer.variables] == ["iterations", "learning_rate"]
    step = linear_step(optimizer, w, b)
    step(rt.constant([1.0, 2.0]), rt.constant([3.0, 5.0]))
    names = [v.name for v in optimizer.variables]
    assert names == ["iterations", "learning_rate", "w/m", "w/v", "w/vhat", "b/m", "b/v", "b/vhat"]
    before = optimizer.variables
    step(rt.constant([1.0, 2.0, 3.0]), rt.constant([3.0, 5.0, 7.0]))  # a new shape: retraced
    step(rt.constant([1.0, 2.0]), rt.constant([3.0, 5.0]))
    assert step.tracing_count == 2
    assert all(a is b for a, b in zip(optimizer.variables, before)) and len(before) == 8
    assert not any(v.trainable for v in optimizer.variables)
    assert optimizer.iterations.numpy() == 3


def test_build_creates_slots_before_the_first_step():
    w = rt.Variable([1.0, 2.0], name="w")
    optimizer = rt.optimizers.SGD(momentum=0.5)
    optimizer.build([w])
    slot = optimizer.variables[-1]
    assert slot.name == "w/momentum" and slot.shape == (2,) and slot.dtype == np.float32
    optimizer.apply_gradients([(rt.constant([1.0, 1.0]), w)])
    assert optimizer.variables[-1] is slot


def test_user_code_still_cannot_create_a_variable_in_a_trace():
    @rt.function
    def f(x):
        return rt.Variable(x)
    with pytest.raises(ValueError, match="only supports singleton tf.Variables"):
        f(rt.constant(1.0))


# -- training steps ----------------------------------------------------------------------------


@pytest.mark.parametrize("decorator", [rt.function, transpiler.function],
                         ids=["rt.function", "transpiler.function"])
def test_a_training_step_traces_once_over_many_epochs(decorator):
    w, b = rt.Variable(np.float32(0.0)), rt.Variable(np.float32(0.0))
    optimizer = rt.optimizers.SGD(learning_rate=0.02, momentum=0.5)
    step = linear_step(optimizer, w, b, decorator)
    x = rt.constant(np.linspace(-1, 1, 8, dtype=np.float32))
    with warnings.catch_warnings():
        warnings.simplefilter("error", RetracingWarning)
        for _ in range(60):
            step(x, 2 * x - 1)
    assert step.tracing_count == 1 and len(step.concrete_functions()) == 1
    assert optimizer.iterations.numpy() == 60
    graph = step.concrete_functions()[0].graph
    assigned = {node.attrs["variable"].name for node in graph.nodes
                if node.op.name == "assign_variable"}
    assert assigned == {w.name, b.name, "iterations", f"{w.name}/momentum", f"{b.name}/momentum"}


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.__name__)
@pytest.mark.parametrize("config", ["momentum", "adam"])
def test_linear_regression_converges_to_the_same_parameters_eagerly_and_in_a_graph(config, dtype):
    x = rt.constant(np.linspace(-1, 1, 16, dtype=dtype))
    y = 2 * x - 1
    results = []
    for decorator in (lambda f: f, rt.function):
        w, b = rt.Variable(dtype(0.0)), rt.Variable(dtype(0.0))
        optimizer = CONFIGS[config]()
        step = linear_step(optimizer, w, b, decorator)
        for _ in range(150):
            loss = step(x, y)
        results.append((w.numpy(), b.numpy(), loss.numpy()))
    (w_eager, b_eager, loss_eager), (w_graph, b_graph, loss_graph) = results
    assert w_eager == w_graph and b_eager == b_graph and loss_eager == loss_graph
    np.testing.assert_allclose([w_graph, b_graph], [2.0, -1.0], atol=1e-3)
    assert loss_graph < 1e-4


# -- gradients that do not fit -----------------------------------------------------------------


def test_a_none_gradient_skips_its_variable_with_a_warning_once():
    w, unused = rt.Variable([1.0, 2.0], name="w"), rt.Variable([5.0], name="unused")
    optimizer = rt.optimizers.SGD(learning_rate=0.5)

    @rt.function
    def step():
        with rt.GradientTape() as tape:
            loss = w * w
        grads = tape.gradient(loss, [w, unused])
        optimizer.apply_gradients(zip(grads, [w, unused]))

    with pytest.warns(UserWarning, match=re.escape("the gradient is None for 'unused', which is "
                                                   "left unchanged")):
        step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        step()
        optimizer.apply_gradients([(None, unused), (rt.constant([1.0, 1.0]), w)])  # eagerly too
    np.testing.assert_array_equal(w.numpy(), [-0.5, -0.5])  # w - 0.5 * 2w = 0, then 0 - 0.5 * 1
    np.testing.assert_array_equal(unused.numpy(), [5.0])
    assert optimizer.iterations.numpy() == 3


def test_no_gradient_at_all_is_an_error():
    w = rt.Variable([1.0], name="w")
    optimizer = rt.optimizers.Adam()
    message = "no gradient was given for any variable ('w')"
    with pytest.raises(ValueError, match=re.escape(message)):
        optimizer.apply_gradients([(None, w)])
    with pytest.raises(ValueError, match="no pairs at all"):
        optimizer.apply_gradients([])
    assert optimizer.iterations.numpy() == 0


def test_gradients_must_have_their_variables_shape_and_dtype():
    w = rt.Variable(np.zeros((2, 3), np.float32), name="kernel")
    optimizer = rt.optimizers.SGD()
    with pytest.raises(ValueError, match=re.escape(
            "the gradient of variable 'kernel' has shape (3, 2), but the variable has shape "
            "(2, 3)")):
        optimizer.apply_gradients([(rt.zeros((3, 2)), w)])
    with pytest.raises(TypeError, match=re.escape(
            "the gradient of variable 'kernel' has dtype float64, but the variable is float32")):
        optimizer.apply_gradients([(np.zeros((2, 3)), w)])
    message = "apply_gradients takes zip(gradients, variables)"
    with pytest.raises(TypeError, match=re.escape(message)):
        optimizer.apply_gradients([(w, rt.zeros((2, 3)))])
    with pytest.raises(TypeError, match="takes \\(gradient, variable\\) pairs"):
        optimizer.apply_gradients([w])

    @rt.function
    def traced(g):
        optimizer.apply_gradients([(g, w)])
    with pytest.raises(ValueError, match="the gradient of variable 'kernel' has shape"):
        traced(rt.zeros((2, 2)))
    assert len(optimizer.variables) == 2 and optimizer.iterations.numpy() == 0  # no slots


# -- learning rates ----------------------------------------------------------------------------


def test_a_learning_rate_variable_changes_without_retracing():
    w = rt.Variable([1.0, 1.0])
    rate = rt.Variable(0.5)
    optimizer = rt.optimizers.SGD(learning_rate=rate)
    assert optimizer.learning_rate is rate
    assert [v.name for v in optimizer.variables] == ["iterations"]  # the rate is not its own

    @rt.function
    def step(g):
        optimizer.apply_gradients([(g, w)])

    step(rt.constant([1.0, 2.0]))
    rate.assign(0.25)
    step(rt.constant([1.0, 2.0]))
    np.testing.assert_array_equal(w.numpy(), [1 - 0.5 - 0.25, 1 - 1.0 - 0.5])
    assert step.tracing_count == 1


def test_setting_a_number_assigns_the_learning_rate_variable():
    w = rt.Variable(np.array([0.0], np.float64))
    optimizer = rt.optimizers.SGD(learning_rate=0.1)

    @rt.function
    def step(g):
        optimizer.apply_gradients([(g, w)])

    step(np.array([1.0]))
    optimizer.learning_rate = 0.01
    step(np.array([1.0]))
    assert step.tracing_count == 1
    assert w.numpy()[0] == -0.1 - 0.01  # held in float64: no float32 rounding of 0.1 or 0.01
    with pytest.raises(TypeError, match="create a new optimizer"):
        optimizer.learning_rate = lambda step: 0.1


def test_a_schedule_gets_the_step():
    def schedule(step):
        return 0.5 / (1 + step)  # step: an int64 tensor, iterations before the update

    results = []
    for traced in (False, True):
        w = rt.Variable(np.array([0.0], np.float64))
        optimizer = rt.optimizers.SGD(learning_rate=schedule)
        steps = run_updates(optimizer, [w], [[np.array([1.0])] * STEPS], traced)
        results.append(w.numpy())
    assert steps.tracing_count == 1
    expected = -sum(0.5 / (1 + i) for i in range(STEPS))
    np.testing.assert_allclose(results[0], [expected], rtol=1e-15)
    np.testing.assert_array_equal(results[0], results[1])


def test_learning_rates_that_are_not_numbers_are_refused():
    with pytest.raises(TypeError, match="the learning rate must be a number"):
        rt.optimizers.SGD(learning_rate="0.1")
    with pytest.raises(TypeError, match="must be a floating-point scalar"):
        rt.optimizers.Adam(learning_rate=rt.Variable([0.1, 0.2]))


# -- options of every optimizer ----------------------------------------------------------------


def run_steps(optimizer, variable, gradients, traced: bool):
    def apply(g):
        optimizer.apply_gradients([(g, variable)])

    step = rt.function(apply) if traced else apply
    for g in gradients:
        step(rt.constant(g))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.__name__)
@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
def test_gradient_accumulation_updates_with_the_mean_every_few_calls(traced, dtype):
    initial = np.array([1.0, -2.0, 0.5], dtype)
    gradients = gradient_sequence((3,), dtype, 0) + gradient_sequence((3,), dtype, 1)[:2]
    optimizer = rt.optimizers.SGD(learning_rate=lambda calls: 0.5 / (1 + calls),
                                  gradient_accumulation_steps=3)
    variable = rt.Variable(initial)
    run_steps(optimizer, variable, gradients, traced)  # 8 calls: updates at calls 3 and 6
    expected = initial - dtype(0.5 / 3) * ((gradients[2] + (gradients[0] + gradients[1])) / 3) \
        - dtype(0.5 / 6) * ((gradients[5] + (gradients[3] + gradients[4])) / 3)
    np.testing.assert_allclose(variable.numpy(), expected, **tolerance(dtype))
    assert int(optimizer.iterations) == 2  # updates; the schedule got the calls
    accumulator = next(v for v in optimizer.variables if v.name.endswith("gradient_accumulator"))
    np.testing.assert_allclose(accumulator.numpy(), gradients[6] + gradients[7],
                               **tolerance(dtype))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.__name__)
@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
def test_a_moving_average_is_written_back_every_few_updates_and_at_the_end(traced, dtype):
    initial = np.array([1.0, -2.0, 0.5], dtype)
    gradients = gradient_sequence((3,), dtype, 2)[:5]
    optimizer = rt.optimizers.SGD(learning_rate=0.1, use_ema=True, ema_momentum=0.9,
                                  ema_overwrite_frequency=2)
    variable = rt.Variable(initial)
    run_steps(optimizer, variable, gradients, traced)
    value, average = initial, np.zeros_like(initial)
    for step, g in enumerate(gradients):
        value = value - dtype(0.1) * g
        momentum = dtype(0.9) if step else dtype(0)
        average = momentum * average + (1 - momentum) * value
        if (step + 1) % 2 == 0:
            value = average
    np.testing.assert_allclose(variable.numpy(), value, **tolerance(dtype))
    optimizer.finalize_variable_values([variable])
    np.testing.assert_allclose(variable.numpy(), average, **tolerance(dtype))
    with pytest.raises(ValueError, match="no moving average of 'other'"):
        optimizer.finalize_variable_values([rt.Variable(initial, name="other")])


def test_all_options_together_give_the_eager_numbers_and_variables_in_a_trace():
    results = []
    for traced in (False, True):
        variables = [rt.Variable(np.array([1.0, -2.0, 0.5], np.float32), name="a"),
                     rt.Variable(np.array([0.3]), name="b")]
        optimizer = rt.optimizers.Nadam(0.1, use_ema=True, ema_overwrite_frequency=2,
                                        gradient_accumulation_steps=3, clipnorm=0.5,
                                        weight_decay=0.1, loss_scale_factor=2.0)
        gradients = [gradient_sequence((3,), np.float32, 0), gradient_sequence((1,), np.float64, 1)]
        step = run_updates(optimizer, variables, gradients, traced)
        results.append({v.name: v.numpy() for v in variables + optimizer.variables})
    assert step.tracing_count == 1
    assert list(results[0]) == list(results[1]) == [
        "a", "b", "iterations", "learning_rate", "a/momentum", "a/velocity", "a/average",
        "a/gradient_accumulator", "b/momentum", "b/velocity", "b/average",
        "b/gradient_accumulator", "u_product"]
    for name in results[0]:
        np.testing.assert_array_equal(results[0][name], results[1][name], err_msg=name)


def test_finalize_does_nothing_without_a_moving_average():
    variable = rt.Variable([1.0, 2.0])
    optimizer = rt.optimizers.Adam()
    optimizer.finalize_variable_values([variable])
    np.testing.assert_array_equal(variable.numpy(), [1.0, 2.0])


def test_a_loss_scale_factor_divides_the_gradients_back():
    dense, rows = rt.Variable([1.0, 2.0, 3.0]), rt.Variable([[1.0], [2.0], [3.0]])
    optimizer = rt.optimizers.SGD(learning_rate=0.5, loss_scale_factor=4.0)
    assert optimizer.scale_loss(rt.constant(2.0)).numpy() == 8.0
    optimizer.apply_gradients([
        (rt.constant([4.0, 8.0, -4.0]), dense),
        (rt.IndexedSlices(rt.constant([[4.0], [8.0]]), rt.constant([2, 2]), (3, 1)), rows)])
    np.testing.assert_array_equal(dense.numpy(), [0.5, 1.0, 3.5])
    np.testing.assert_array_equal(rows.numpy(), [[1.0], [2.0], [1.5]])  # rows divided too
    assert rt.optimizers.Adam().scale_loss(3.0) == 3.0


def test_options_are_checked():
    with pytest.raises(ValueError, match="gradient_accumulation_steps must be an integer of at"):
        rt.optimizers.SGD(gradient_accumulation_steps=1)
    with pytest.raises(ValueError, match=re.escape("ema_momentum must be in [0, 1]")):
        rt.optimizers.Adam(use_ema=True, ema_momentum=1.5)
    with pytest.raises(ValueError, match="ema_overwrite_frequency must be an integer"):
        rt.optimizers.Adam(use_ema=True, ema_overwrite_frequency=0.5)
    with pytest.raises(TypeError, match="loss_scale_factor must be a number"):
        rt.optimizers.Adam(loss_scale_factor="128")
    with pytest.raises(ValueError, match=re.escape("beta_1 must be a number in (0, 1]")):
        rt.optimizers.Lion(beta_1=0.0)
    with pytest.raises(ValueError, match="learning_rate_power must be a number of at most 0"):
        rt.optimizers.Ftrl(learning_rate_power=0.5)
    with pytest.raises(ValueError, match="l1_regularization_strength must be a number of at"):
        rt.optimizers.Ftrl(l1_regularization_strength=-1.0)


def test_keras_defaults_of_the_other_optimizers():
    adadelta, adamax, nadam = rt.optimizers.Adadelta(), rt.optimizers.Adamax(), \
        rt.optimizers.Nadam()
    assert (adadelta.learning_rate.numpy(), adadelta.rho, adadelta.epsilon) == (0.001, 0.95, 1e-7)
    for optimizer in (adamax, nadam):
        assert optimizer.learning_rate.numpy() == 0.001
        assert (optimizer.beta_1, optimizer.beta_2, optimizer.epsilon) == (0.9, 0.999, 1e-7)
    ftrl = rt.optimizers.Ftrl()
    assert (ftrl.learning_rate_power, ftrl.initial_accumulator_value, ftrl.beta) == \
        (-0.5, 0.1, 0.0)
    assert ftrl.l1_regularization_strength == ftrl.l2_regularization_strength == \
        ftrl.l2_shrinkage_regularization_strength == 0.0
    lion = rt.optimizers.Lion()
    assert (lion.learning_rate.numpy(), lion.beta_1, lion.beta_2) == (0.001, 0.9, 0.99)
    assert (lion.use_ema, lion.ema_momentum, lion.ema_overwrite_frequency,
            lion.gradient_accumulation_steps, lion.loss_scale_factor) == \
        (False, 0.99, None, None, None)


# -- saving ------------------------------------------------------------------------------------


def test_a_saved_training_step_updates_its_own_variables(tmp_path):
    w, b = rt.Variable(np.float32(0.0), name="w"), rt.Variable(np.float32(0.0), name="b")
    optimizer = rt.optimizers.Adam(learning_rate=0.1)
    step = linear_step(optimizer, w, b)
    spec = rt.TensorSpec([None], rt.float32)
    concrete = step.get_concrete_function(spec, spec)
    rt.save(concrete, tmp_path / "step.e2g")
    loaded = rt.load(tmp_path / "step.e2g")

    x = rt.constant(np.linspace(-1, 1, 8, dtype=np.float32))
    losses = [loaded(x, 2 * x - 1).numpy() for _ in range(3)]
    saved = {v.name: v for v in loaded.variables}
    assert saved["iterations"].numpy() == 3 and saved["w"].numpy() != 0
    assert w.numpy() == 0 and b.numpy() == 0 and optimizer.iterations.numpy() == 0
    assert not any(v is u for v in loaded.variables for u in [w, b, *optimizer.variables])

    # The original step, run as often, gives the same numbers.
    assert [concrete(x, 2 * x - 1).numpy() for _ in range(3)] == losses
    assert saved["w"].numpy() == w.numpy()
    assert saved["b/v"].numpy() == optimizer.variables[-1].numpy()
