"""eager2graph side by side with hand-written NumPy, its own eager mode, TensorFlow and JAX.

    python examples/benchmark.py             # full run, one table
    python examples/benchmark.py --quick     # fewer repeats (a minute or two)
    python examples/benchmark.py --json results.json --only W3,W6
    python examples/benchmark.py --scaling   # W2, W4, W5, W6, W8 as the work grows (many minutes)
    python examples/benchmark.py --end-to-end --plot e2e.png  # whole processes, N steps (end_to_end.py)

Each workload is written once as plain Python on `rt` ops; "eager" runs that source on eager
tensors, "graph" runs it through `transpiler.function(fn, jit_compile=False)` (the NumPy plan,
never a switch to the compiled tier in the middle of the run), "compiled" through
`transpiler.function(fn, jit_compile=True)` (regions of the graph compiled by the machine's C
compiler, or Numba for what C does not take; "n/a" when neither is there). "numpy" is the same computation written by hand in NumPy (the
floor). TensorFlow (`tf.function`) and JAX (`jax.jit`) columns appear when those packages are
installed; they are not dependencies. Times are per-call medians over several repeats after
warm-up, all measured in this one process, so ratios are comparable even on a busy machine;
absolute times are not. The ratios are graph / NumPy, each other mode / graph (below 1: faster
than the graph) and compiled / jax.jit. Every mode's result is checked against NumPy first:
integers exactly, floats to rtol = atol = 1e-4; the JSON report also has each mode's deviation,
max |result - numpy| / max |numpy|, and what the compiled tier compiled (`jit_report`).

W7 and W8 are training steps (forward pass, gradient, Adam update). Each mode builds its own
fresh model and optimizer: TensorFlow's step is a `tf.function` with `GradientTape` and Keras'
Adam, JAX's is `jax.jit` of `value_and_grad` and a hand-written Adam update. A step returns the
loss before its update; the first two losses (the second shows the update) are checked against
a NumPy reference.

First calls (a new function object: conversion, trace, optimization, compilation) are timed in
this warmed-up process and in new processes, each twice: with an empty code cache (the
function converted and its plan compiled anew, as in a script's first run) and then with the
one that run filled (converted functions and compiled plans read back, as in the runs after
it; `runtime.code_cache`); the compiled tier's with empty kernel and code caches (a cold
build, with the compiler's start-up) and then with those that run filled. Kernels and code go
to temporary directories of this run, never the user's caches. In this process nothing is read
back from a code cache, the compiled tier is started by one small compile before any timing,
and the compiled mode's first call reads the kernels the new processes left.

--scaling reruns W2, W4, W5 and W6 at growing sizes (layers, loop iterations, elements), and W2's
layers and W8's training step as they grow wide (W2-wide, W8-wide: width 64 to 512 at a batch
of twice the width, where matrix products dominate) in graph, compiled, NumPy and JAX: per-call
medians, first calls of a new function object, peak memory of one call, and at every size the
graph's and the compiled tier's results checked against NumPy (integers exactly, floats to 1e-5
of the result's largest magnitude: both split or call BLAS in ways that round a long float32
dot product differently in the last bit, and the difference compounds over 1,000 layers; a
training step's first two losses to 1e-4). A failed check is printed and makes the script exit
with 1.
"""

from __future__ import annotations

import argparse
import functools
import importlib.metadata
import importlib.util
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
import types
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Callable, Iterator

import numpy as np

import end_to_end
import runtime as rt
import transpiler
from local_fit import LocalFits, make_train_step, pseudo_data
from physics_kinematics import cross_section
from runtime.backends.jit import available as jit_available
from runtime.backends.jit.c_build import toolchain
from runtime.backends.jit.c_build import builds_with_c
from runtime.errors import RetracingWarning
from transpiler.api import clear_conversion_cache

# -- the workloads, as a user would write them ------------------------------------------------


def power(x, y):
    result = rt.eye(10, dtype=rt.int32)
    for _ in range(y):
        result = rt.matmul(x, result)
    return result


def dense_model_of(layers):
    """W2's model over a list of (w, b) constants (other depths and widths for --scaling)."""
    def dense_model(x):
        x = rt.reshape(x, (-1, 784))
        for w, b in layers[:-1]:
            x = rt.nn.relu(rt.matmul(x, w) + b)
        w, b = layers[-1]
        return rt.matmul(x, w) + b
    return dense_model


def mean_squared_error(a, b):
    return rt.reduce_mean(rt.square(a - b))


def collatz_steps(n):
    steps = 0
    while n > 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def collatz_walk(x, n):
    """n steps of the Collatz map from x (while + if), the sum of the values visited: W4 with
    an iteration count that scales (collatz_steps of any int32 stops within ~1,000 steps)."""
    total = 0
    i = 0
    while i < n:
        if x % 2 == 0:
            x = x // 2
        else:
            x = 3 * x + 1
        total += x
        i += 1
    return total


def sum_of_squares(n):
    s = 0
    for i in range(n):
        s += i * i
    return s


def my_function(x):
    if rt.reduce_sum(x) <= 1:
        return x * x
    else:
        return x - 1


# W7 and W8 are training steps. Calling a builder makes a fresh model and optimizer and returns
# the step, which returns the loss before its update.

FIT_DATA = pseudo_data(8)  # 8 kinematic sets of 45 points, as examples/local_fit.py makes them
FIT_LEARNING_RATE = 0.02


def cross_section_fit_step():
    """The training step of examples/local_fit.py: F1, F2 of every set, chi-square, Adam."""
    return make_train_step(LocalFits(FIT_DATA.sets), rt.optimizers.Adam(FIT_LEARNING_RATE))


class MLP(rt.Module):
    """Dense(width, relu), Dense(width, relu), Dense(10): three layers of ``weights`` (W8's
    by default)."""

    def __init__(self, weights=None):
        super().__init__()
        self.layers = [(rt.Variable(w), rt.Variable(b))
                       for w, b in (_MLP_WEIGHTS if weights is None else weights)]

    def __call__(self, x):
        for w, b in self.layers[:-1]:
            x = rt.nn.relu(rt.matmul(x, w) + b)
        w, b = self.layers[-1]
        return rt.matmul(x, w) + b


def mlp_training_step_of(weights):
    """A builder of W8's step over ``weights`` (other widths for --scaling)."""
    return lambda: mlp_training_step(weights)


def mlp_training_step(weights=None):
    model = MLP(weights)
    optimizer = rt.optimizers.Adam(MLP_LEARNING_RATE)

    def train_step(x, labels):
        with rt.GradientTape() as tape:
            logits = model(x)
            loss = rt.reduce_mean(rt.nn.softmax_cross_entropy_with_logits(labels, logits))
        gradients = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(gradients, model.trainable_variables))
        return loss
    return train_step


_rng = np.random.RandomState(0)
_WEIGHTS = ([(_rng.randn(784, 64).astype(np.float32) * 0.05, np.zeros(64, np.float32))]
            + [(_rng.randn(64, 64).astype(np.float32) * 0.1, np.zeros(64, np.float32))
               for _ in range(99)]
            + [(_rng.randn(64, 10).astype(np.float32) * 0.1, np.zeros(10, np.float32))])
LAYERS = [(rt.constant(w), rt.constant(b)) for w, b in _WEIGHTS]
dense_model = dense_model_of(LAYERS)



def mlp_problem(width: int, batch: int) -> tuple[list, tuple]:
    """W8's MLP 32-width-width-10 (He-initialized, zero biases) and a batch of inputs and
    one-hot labels; W8 itself is width 64, batch 64."""
    rng = np.random.RandomState(8)
    weights = [(rng.randn(m, n).astype(np.float32) * np.float32(np.sqrt(2 / m)),
                np.zeros(n, np.float32)) for m, n in ((32, width), (width, width), (width, 10))]
    inputs = (rng.randn(batch, 32).astype(np.float32),
              np.eye(10, dtype=np.float32)[rng.randint(0, 10, batch)])
    return weights, inputs


_MLP_WEIGHTS, _MLP_BATCH = mlp_problem(64, 64)
MLP_LEARNING_RATE = 0.001
ADAM_BETA_1, ADAM_BETA_2, ADAM_EPSILON = 0.9, 0.999, 1e-7  # the defaults of rt, Keras and ours

# -- the same computations in hand-written NumPy ------------------------------------------------


def numpy_power(x, y):
    result = np.eye(10, dtype=np.int32)
    for _ in range(y):
        result = x @ result
    return result


def numpy_dense_model_of(weights):
    def numpy_dense_model(x):
        x = x.reshape(-1, 784)
        for w, b in weights[:-1]:
            x = np.maximum(x @ w + b, 0)
        w, b = weights[-1]
        return x @ w + b
    return numpy_dense_model


numpy_dense_model = numpy_dense_model_of(_WEIGHTS)


def numpy_mean_squared_error(a, b):
    d = a - b
    return np.int32(np.sum(d * d) // d.size)  # integer mean, truncated as in the graph


def numpy_collatz_steps(n):
    steps = 0
    while n > 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


def numpy_collatz_walk(x, n):
    total = np.int32(0)
    for _ in range(n):
        x = x // 2 if x % 2 == 0 else 3 * x + 1
        total += x
    return total


def numpy_sum_of_squares(n):
    s = 0
    for i in range(n):
        s += i * i
    return s


def numpy_sum_of_squares_int32(n):
    """numpy_sum_of_squares wrapped to int32 as the graph computes it (from n = 1862 on)."""
    s = numpy_sum_of_squares(n)
    return np.int32((s + 2 ** 31) % 2 ** 32 - 2 ** 31)


def numpy_vectorized_sum_of_squares(n):
    """What a NumPy user would write instead of the loop: O(n) memory."""
    i = np.arange(n, dtype=np.int32)
    return np.sum(i * i, dtype=np.int32)  # int32 products and sum wrap as the graph's do


def numpy_my_function(x):
    return x * x if x.sum() <= 1 else x - 1


def with_ops(fn, ops):
    """`fn` with its global `rt` bound to another module (np, tf, jax.numpy): the same formula,
    written once, computed by that framework's ops (the cross section uses sqrt, abs, cos)."""
    return types.FunctionType(fn.__code__, {**fn.__globals__, "rt": ops}, fn.__name__)


def numpy_cross_section_fit_reference() -> np.ndarray:
    """W7's first two losses in float64: the chi-square, its gradient by central differences and
    Keras' Adam update. Not timed: there is no hand-derived gradient of the formula (deriving it
    by hand is what the fit's users had to do), and finite differences are no fair floor."""
    formula, data = with_ops(cross_section, np), FIT_DATA
    kinematics = [data.kinematics[name].astype(np.float64) for name in ("QQ", "x_b", "t", "k")]

    def chi2_per_set(F1, F2):  # a set's F1, F2 change only its own row
        predicted = formula(data.phi.astype(np.float64), *kinematics, F1, F2)
        return np.sum(((predicted - data.xs) / data.errors) ** 2, axis=1, keepdims=True)

    params = [np.ones((data.sets, 1)), np.ones((data.sets, 1))]
    m, v = [np.zeros_like(p) for p in params], [np.zeros_like(p) for p in params]
    losses, h, points = [], 1e-6, data.xs.size
    for t in (1, 2):
        losses.append(chi2_per_set(*params).sum() / points)
        gradients = []
        for i in range(2):
            up, down = list(params), list(params)
            up[i], down[i] = params[i] + h, params[i] - h
            gradients.append((chi2_per_set(*up) - chi2_per_set(*down)) / (2 * h * points))
        step_size = FIT_LEARNING_RATE * math.sqrt(1 - ADAM_BETA_2 ** t) / (1 - ADAM_BETA_1 ** t)
        for p, g, m_, v_ in zip(params, gradients, m, v):
            m_ += (g - m_) * (1 - ADAM_BETA_1)
            v_ += (g * g - v_) * (1 - ADAM_BETA_2)
            p -= step_size * m_ / (np.sqrt(v_) + ADAM_EPSILON)
    return np.array(losses)


def numpy_mlp_training_step(weights=None):
    """W8 by hand: the MLP's backward pass derived on paper, then Keras' Adam update."""
    params = [a.copy() for layer in (_MLP_WEIGHTS if weights is None else weights) for a in layer]
    m, v = [np.zeros_like(p) for p in params], [np.zeros_like(p) for p in params]
    t = 0

    def train_step(x, labels):
        nonlocal t
        w1, b1, w2, b2, w3, b3 = params
        h1 = np.maximum(x @ w1 + b1, 0)
        h2 = np.maximum(h1 @ w2 + b2, 0)
        logits = h2 @ w3 + b3
        shifted = logits - logits.max(axis=1, keepdims=True)
        exp = np.exp(shifted)
        total = exp.sum(axis=1, keepdims=True)
        loss = np.mean(np.sum(labels * (np.log(total) - shifted), axis=1))
        # d loss / d logits of the mean softmax cross-entropy, then back through the layers
        d_logits = (exp / total * labels.sum(axis=1, keepdims=True) - labels) / len(x)
        d_h2 = (d_logits @ w3.T) * (h2 > 0)
        d_h1 = (d_h2 @ w2.T) * (h1 > 0)
        gradients = [x.T @ d_h1, d_h1.sum(axis=0), h1.T @ d_h2, d_h2.sum(axis=0),
                     h2.T @ d_logits, d_logits.sum(axis=0)]
        t += 1
        step_size = MLP_LEARNING_RATE * math.sqrt(1 - ADAM_BETA_2 ** t) / (1 - ADAM_BETA_1 ** t)
        for p, g, m_, v_ in zip(params, gradients, m, v):
            m_ += (g - m_) * (1 - ADAM_BETA_1)
            v_ += (g * g - v_) * (1 - ADAM_BETA_2)
            p -= step_size * m_ / (np.sqrt(v_) + ADAM_EPSILON)
        return loss
    return train_step


# -- TensorFlow and JAX versions, written as their users would ---------------------------------


def tensorflow_versions(tf) -> dict:
    layers = [(tf.constant(w), tf.constant(b)) for w, b in _WEIGHTS]

    def tf_power(x, y):
        result = tf.eye(10, dtype=tf.int32)
        for _ in range(y):
            result = tf.matmul(x, result)
        return result

    def tf_dense(x):
        x = tf.reshape(x, (20, -1))
        for w, b in layers[:-1]:
            x = tf.nn.relu(tf.matmul(x, w) + b)
        w, b = layers[-1]
        return tf.matmul(x, w) + b

    def tf_mse(a, b):
        return tf.reduce_mean(tf.square(a - b))

    def tf_collatz(n):
        steps = 0
        while n > 1:
            if n % 2 == 0:
                n = n // 2
            else:
                n = 3 * n + 1
            steps += 1
        return steps

    def tf_sum_of_squares(n):
        s = 0
        for i in tf.range(n):
            s += i * i
        return s

    def tf_my_function(x):
        if tf.reduce_sum(x) <= 1:
            return x * x
        else:
            return x - 1

    fit_cross_section = with_ops(cross_section, tf)

    def tf_cross_section_fit_step():
        F1, F2 = (tf.Variable(tf.ones([FIT_DATA.sets, 1])) for _ in range(2))
        optimizer = tf.keras.optimizers.Adam(FIT_LEARNING_RATE)

        @tf.function
        def train_step(phi, QQ, x_b, t, k, xs, errors):
            with tf.GradientTape() as tape:
                predicted = fit_cross_section(phi, QQ, x_b, t, k, F1, F2)
                chi2 = tf.reduce_mean(tf.square((predicted - xs) / errors))
            gradients = tape.gradient(chi2, [F1, F2])
            optimizer.apply_gradients(zip(gradients, [F1, F2]))
            return chi2
        return train_step

    def tf_mlp_training_step():
        layers = [(tf.Variable(w), tf.Variable(b)) for w, b in _MLP_WEIGHTS]
        variables = [v for layer in layers for v in layer]
        optimizer = tf.keras.optimizers.Adam(MLP_LEARNING_RATE)

        @tf.function
        def train_step(x, labels):
            with tf.GradientTape() as tape:
                for w, b in layers[:-1]:
                    x = tf.nn.relu(tf.matmul(x, w) + b)
                w, b = layers[-1]
                logits = tf.matmul(x, w) + b
                loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels, logits))
            gradients = tape.gradient(loss, variables)
            optimizer.apply_gradients(zip(gradients, variables))
            return loss
        return train_step

    return {"W1": tf_power, "W2": tf_dense, "W3": tf_mse, "W4": tf_collatz,
            "W5": tf_sum_of_squares, "W6": tf_my_function,
            "W7": tf_cross_section_fit_step, "W8": tf_mlp_training_step}


def jax_versions(jax) -> dict:
    jnp, lax = jax.numpy, jax.lax
    layers = [(jnp.asarray(w), jnp.asarray(b)) for w, b in _WEIGHTS]

    def jax_power(x, y):
        result = jnp.eye(10, dtype=jnp.int32)
        for _ in range(y):
            result = jnp.matmul(x, result)
        return result

    def jax_dense(x):
        x = jnp.reshape(x, (20, -1))
        for w, b in layers[:-1]:
            x = jax.nn.relu(x @ w + b)
        w, b = layers[-1]
        return x @ w + b

    def jax_mse(a, b):
        d = a - b
        return jnp.sum(d * d) // d.size

    def jax_collatz(n):
        def step(state):
            n, steps = state
            return jnp.where(n % 2 == 0, n // 2, 3 * n + 1), steps + 1
        return lax.while_loop(lambda state: state[0] > 1, step, (n, jnp.int32(0)))[1]

    def jax_sum_of_squares(n):
        return lax.fori_loop(0, n, lambda i, s: s + i * i, jnp.int32(0))

    def jax_my_function(x):
        return lax.cond(jnp.sum(x) <= 1, lambda v: v * v, lambda v: v - 1, x)

    def adam(params, gradients, state, learning_rate):
        """Keras' Adam by hand (JAX has no optimizer of its own)."""
        m, v, t = state
        t = t + 1
        step_size = learning_rate * jnp.sqrt(1 - ADAM_BETA_2 ** t) / (1 - ADAM_BETA_1 ** t)
        m = jax.tree.map(lambda m, g: m + (g - m) * (1 - ADAM_BETA_1), m, gradients)
        v = jax.tree.map(lambda v, g: v + (g * g - v) * (1 - ADAM_BETA_2), v, gradients)
        params = jax.tree.map(lambda p, m, v: p - step_size * m / (jnp.sqrt(v) + ADAM_EPSILON),
                              params, m, v)
        return params, (m, v, t)

    def training_step(loss, params, learning_rate):
        """A stateful step around one jitted function: the loss, its gradient, the update."""
        @jax.jit
        def update(params, state, *batch):
            value, gradients = jax.value_and_grad(loss)(params, *batch)
            return (value, *adam(params, gradients, state, learning_rate))

        zeros = jax.tree.map(jnp.zeros_like, params)
        state = (zeros, zeros, jnp.float32(0))

        def train_step(*batch):
            nonlocal params, state
            value, params, state = update(params, state, *batch)
            return value
        return train_step

    fit_cross_section = with_ops(cross_section, jnp)

    def fit_chi2(params, phi, QQ, x_b, t, k, xs, errors):
        predicted = fit_cross_section(phi, QQ, x_b, t, k, *params)
        return jnp.mean(jnp.square((predicted - xs) / errors))

    def mlp_loss(layers, x, labels):
        for w, b in layers[:-1]:
            x = jax.nn.relu(x @ w + b)
        w, b = layers[-1]
        return jnp.mean(-jnp.sum(labels * jax.nn.log_softmax(x @ w + b), axis=1))

    def jax_cross_section_fit_step():
        ones = jnp.ones((FIT_DATA.sets, 1), jnp.float32)
        return training_step(fit_chi2, (ones, ones), FIT_LEARNING_RATE)

    def jax_mlp_training_step(weights=_MLP_WEIGHTS):
        layers = [(jnp.asarray(w), jnp.asarray(b)) for w, b in weights]
        return training_step(mlp_loss, layers, MLP_LEARNING_RATE)

    return {"W1": jax_power, "W2": jax_dense, "W3": jax_mse, "W4": jax_collatz,
            "W5": jax_sum_of_squares, "W6": jax_my_function,
            "W7": jax_cross_section_fit_step, "W8": jax_mlp_training_step}


def jax_scaling_versions(jax) -> dict:
    """For --scaling: key -> (size -> the function to jit); W5 and W6 are those above."""
    jnp, lax = jax.numpy, jax.lax
    fixed = jax_versions(jax)

    def jax_dense_of(weights):
        layers = [(jnp.asarray(w), jnp.asarray(b)) for w, b in weights]

        def jax_dense(x):
            x = jnp.reshape(x, (-1, 784))
            for w, b in layers[:-1]:
                x = jax.nn.relu(x @ w + b)
            w, b = layers[-1]
            return x @ w + b
        return jax_dense

    def jax_collatz_walk(x, n):
        def step(_, state):
            x, total = state
            x = jnp.where(x % 2 == 0, x // 2, 3 * x + 1)
            return x, total + x
        return lax.fori_loop(0, n, step, (x, jnp.int32(0)))[1]

    return {"W2": lambda size: jax_dense_of(dense_weights(size)),
            "W2-wide": lambda size: jax_dense_of(wide_dense_weights(size)),
            "W4": lambda size: jax_collatz_walk,
            "W5": lambda size: fixed["W5"], "W6": lambda size: fixed["W6"],
            # a builder of the step, as for W8 in the main table
            "W8-wide": lambda size: lambda: fixed["W8"](mlp_problem(size, 2 * size)[0])}


# -- the table of workloads ---------------------------------------------------------------------


@dataclass
class Workload:
    key: str
    title: str
    source: Callable          # the rt version: eager and graph modes
    numpy: Callable | None    # the floor (None: not written by hand, `reference` checks results)
    arrays: tuple             # NumPy inputs (tensors in every framework)
    python_args: tuple = ()   # trailing Python arguments (static in every framework)
    numpy_target: float | None = 1.0  # graph time / NumPy time must not exceed this
    beat_jax: bool = False
    first_call_ms: float | None = 5.0  # the new process's first call, converted anew or not
    eager_speedup: float = 1.0   # graph must be this many times faster than eager
    tf_speedup: float = 10.0     # ... and than tf.function
    # Training steps: `source`, `numpy` and the TF and JAX versions are builders of a fresh
    # step; a step's first CHECKED_STEPS losses are compared with `numpy`'s or `reference()`.
    training: bool = False
    reference: Callable | None = None
    numpy_note: str = ""         # why there is no NumPy column


CHECKED_STEPS = 2


WORKLOADS = [
    Workload("W1", "power(x, 100): 10x10 int32 matmul chain", power, numpy_power,
             (np.random.RandomState(1).randint(-1, 2, (10, 10)).astype(np.int32),), (100,),
             numpy_target=1.1),
    Workload("W2", "100 Dense(64, relu) layers on [20, 28, 28]", dense_model, numpy_dense_model,
             (np.random.RandomState(2).randn(20, 28, 28).astype(np.float32),),
             numpy_target=1.1, first_call_ms=20.0),
    Workload("W3", "mean squared error, int32[5]", mean_squared_error, numpy_mean_squared_error,
             (np.array([1, 4, 2, 8, 5], np.int32), np.array([3, 1, 2, 6, 9], np.int32)),
             numpy_target=1.3, beat_jax=True),
    Workload("W4", "collatz steps of n = 27 (while + if)", collatz_steps, numpy_collatz_steps,
             (np.array(27, np.int32),), numpy_target=2.0),
    Workload("W5", "sum of i * i for i in range(1000)", sum_of_squares, numpy_sum_of_squares,
             (np.array(1000, np.int32),), numpy_target=2.0),
    Workload("W6", "if reduce_sum(x) <= 1: x * x else x - 1, f32[1000]", my_function,
             numpy_my_function, (np.linspace(-1, 1, 1000).astype(np.float32) + 0.01,),
             numpy_target=1.5, beat_jax=True),
    # Training steps: the targets are 5x faster than eager on W7 and faster than
    # tf.function on both; a first call (with the backward graph) within 10 ms.
    Workload("W7", "training step: cross-section fit, 8 sets x 45 points, Adam",
             cross_section_fit_step, None,
             (FIT_DATA.phi, *FIT_DATA.kinematics.values(), FIT_DATA.xs, FIT_DATA.errors),
             numpy_target=None, first_call_ms=10.0, eager_speedup=5.0, tf_speedup=1.0,
             training=True, reference=numpy_cross_section_fit_reference,
             numpy_note="n/a: no hand-derived gradient of the cross section (results checked "
                        "against float64 central differences)"),
    Workload("W8", "training step: MLP 32-64-64-10, batch 64, softmax cross-entropy, Adam",
             mlp_training_step, numpy_mlp_training_step, _MLP_BATCH, numpy_target=None,
             first_call_ms=10.0, tf_speedup=1.0, training=True),
]

# -- measuring ----------------------------------------------------------------------------------


@dataclass
class Settings:
    repeats: int
    budget_s: float  # time per repeat, to choose how many calls a repeat makes


def per_call_seconds(call: Callable[[], object], settings: Settings) -> float:
    """Median over repeats of the mean time of one call, after warm-up."""
    for _ in range(3):
        call()
    start, calls = time.perf_counter(), 0
    while time.perf_counter() - start < settings.budget_s / 4 or calls < 2:
        call()
        calls += 1
    estimate = (time.perf_counter() - start) / calls
    number = max(1, int(settings.budget_s / estimate))
    samples = []
    for _ in range(settings.repeats):
        start = time.perf_counter()
        for _ in range(number):
            call()
        samples.append((time.perf_counter() - start) / number)
    return statistics.median(samples)


def first_call_seconds(make: Callable[[], Callable[[], object]]) -> float:
    """Time to make a fresh function and call it once (conversion, trace, compile)."""
    start = time.perf_counter()
    make()()
    return time.perf_counter() - start


def fresh_process_first_call_ms(key: str, code_cache: str, kernel_cache: str | None = None
                                ) -> float:
    """The graph mode's first call in a new process (nothing converted or warmed up yet), its
    converted functions and compiled plans kept in `code_cache` (empty: made anew; filled by
    an earlier run: read back); with `kernel_cache`, the compiled mode's, its kernels cached in
    that directory."""
    command = [sys.executable, __file__, "--first-call-of", key, "--code-cache", code_cache]
    if kernel_cache is not None:
        command += ["--compiled-with-kernel-cache", kernel_cache]
    completed = subprocess.run(command, capture_output=True, text=True)
    if completed.returncode != 0:
        raise RuntimeError(f"the first call of {key} in a new process failed: "
                           f"{completed.stderr.strip().splitlines()[-1:]}")
    return float(completed.stdout)


def print_first_call_ms(key: str, code_cache: str, kernel_cache: str | None = None) -> None:
    w = next(w for w in WORKLOADS if w.key == key)
    rt.config.set_code_cache_directory(code_cache)
    if kernel_cache is None:
        make = make_graph(w)
    else:  # the compiler's start-up is part of this first call (Numba's import, where it builds)
        rt.config.set_jit_cache_directory(kernel_cache)
        make = make_graph(w, jit_compile=True)
    print(first_call_seconds(make) * 1e3)  # converting is part of the first call's cost


def compiled_tier_available() -> bool:
    """Whether the compiled tier has a compiler (C or Numba), as the runtime asks."""
    return jit_available()


def count_down(n):
    """Compiled once before any timing (a while loop: the tier makes it one kernel)."""
    total = 0
    while n > 0:
        total += n
        n -= 1
    return total


def prepare_compiled_tier() -> str:
    """The compiled mode's note. Compiles one small kernel into the current kernel cache: first
    calls in this (warmed-up) process then leave out the compiler's one-time start-up (new
    processes pay it: comp, cold and comp, warm)."""
    if not compiled_tier_available():
        return "neither a C compiler nor Numba: the compiled column is n/a"
    transpiler.function(count_down, jit_compile=True)(rt.constant(np.int32(3)))
    chain = toolchain() if builds_with_c() else None
    numba = importlib.util.find_spec("numba") is not None
    compilers = " and ".join(
        ([f"C ({os.path.basename(chain.compiler)})"] if chain else [])
        + ([f"Numba {importlib.metadata.version('numba')}" + (" where C cannot" if chain else "")]
           if numba else []))
    return f"kernels by {compilers}: compiled = transpiler.function(fn, jit_compile=True)"


@contextmanager
def no_code_cache() -> Iterator[None]:
    """First calls in this process convert and compile anew: conversions kept on disk by
    earlier calls (``runtime.code_cache``) are not read back. New processes are given a code
    cache of their own (``fresh_process_first_call_ms``)."""
    previous = rt.config.code_cache_directory()
    rt.config.set_code_cache_directory(False)
    try:
        yield
    finally:
        rt.config.set_code_cache_directory(False if previous is None else previous)


@contextmanager
def temporary_kernel_cache() -> Iterator[str]:
    """A temporary directory for the compiled tier's kernels, the runtime's setting restored
    after (the user's own kernel cache is neither read nor filled)."""
    previous = rt.config.jit_cache_directory()
    with tempfile.TemporaryDirectory(prefix="eager2graph-benchmark-kernels-") as directory:
        rt.config.set_jit_cache_directory(directory)
        try:
            yield directory
        finally:
            rt.config.set_jit_cache_directory(previous)


def peak_bytes(call: Callable[[], object], warmups: int = 3) -> int:
    """Peak bytes allocated during one call, after warm-up calls (tracing, fast paths)."""
    for _ in range(warmups):
        call()
    tracemalloc.start()
    try:
        call()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def import_seconds(modules: str = "runtime, transpiler") -> float:
    code = (f"import time; t = time.perf_counter(); import {modules}; "
            "print(time.perf_counter() - t)")
    runs = [float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                 check=True).stdout) for _ in range(3)]
    return statistics.median(runs)


def same(result, expected) -> bool:
    """Integers (and booleans) exactly, floats to rtol = atol = 1e-4; shapes and kinds equal."""
    got, expected = np.asarray(result), np.asarray(expected)
    if got.shape != expected.shape or (got.dtype.kind == "f") != (expected.dtype.kind == "f"):
        return False
    if expected.dtype.kind != "f":
        return bool(np.array_equal(got, expected))
    return bool(np.allclose(got, expected, rtol=1e-4, atol=1e-4))


# -- modes ------------------------------------------------------------------------------------


@dataclass
class Mode:
    name: str
    make: Callable[[Workload], Callable[[], Callable[[], object]] | None]
    note: str = ""
    results: dict = field(default_factory=dict)


def _rt_args(w: Workload):
    return tuple(rt.constant(a) for a in w.arrays) + w.python_args


def make_eager(w: Workload):
    args = _rt_args(w)
    if w.training:
        def make():
            step = w.source()
            return lambda: step(*args)
        return make
    return lambda: (lambda: w.source(*args))


def make_graph(w: Workload, jit_compile: bool = False):
    """The graph mode: the NumPy plan, jit_compile=False (the default, None, would move to the
    compiled tier in the background after 64 calls, in the middle of the timing). With
    jit_compile=True, the compiled mode. A call's `function` is the `transpiler.function`."""
    args = _rt_args(w)

    def make():
        clear_conversion_cache()
        fn = transpiler.function(w.source() if w.training else w.source, jit_compile=jit_compile)

        def call():
            return fn(*args)
        call.function = fn
        return call
    return make


def make_compiled(w: Workload):
    """The compiled mode (None without a compiler for it: the column is n/a)."""
    return make_graph(w, jit_compile=True) if compiled_tier_available() else None


def jit_report_of(call: Callable) -> str | None:
    """What the compiled tier made of the function behind a graph or compiled call."""
    function = getattr(call, "function", None)
    concrete = function.concrete_functions() if function is not None else []
    return concrete[0].jit_report if concrete else None


def make_numpy(w: Workload):
    if w.numpy is None:
        return None
    if w.training:
        def make():
            step = w.numpy()
            return lambda: step(*w.arrays)
        return make
    return lambda: (lambda: w.numpy(*w.arrays, *w.python_args))


def expected_result(w: Workload):
    if not w.training:
        return w.numpy(*w.arrays, *w.python_args)
    if w.reference is not None:
        return w.reference()
    step = w.numpy()
    return np.array([step(*w.arrays) for _ in range(CHECKED_STEPS)])


def checked_result(w: Workload, call: Callable[[], object]):
    if not w.training:
        return call()
    return np.array([np.asarray(call()) for _ in range(CHECKED_STEPS)])


def make_jitted(jax, fn: Callable, w: Workload):
    """Like make_graph: each make() jits `fn` anew (its first call traces and compiles)."""
    args = tuple(jax.numpy.asarray(a) for a in w.arrays)
    static = w.python_args

    def make():
        jitted = jax.jit(lambda *a: fn(*a, *static))
        return lambda: jitted(*args).block_until_ready()
    return make


def make_jax_step(jax, builder: Callable, w: Workload):
    """For a training step: each make() builds a fresh step (jitted inside, around its own
    state) from ``builder``."""
    args = tuple(jax.numpy.asarray(a) for a in w.arrays)

    def make():
        step = builder()
        return lambda: jax.block_until_ready(step(*args))
    return make


def optional_modes() -> list[Mode]:
    modes = []
    try:
        import tensorflow as tf
        tf_workloads = tensorflow_versions(tf)

        def make_tf(w: Workload):
            args = tuple(tf.constant(a) for a in w.arrays) + w.python_args

            def make():
                # a training step's builder returns a tf.function with its own variables
                fn = tf_workloads[w.key]() if w.training else tf.function(tf_workloads[w.key])
                return lambda: fn(*args)
            return make
        modes.append(Mode("tf.function", make_tf, f"TensorFlow {tf.__version__}"))
    except ImportError:
        modes.append(Mode("tf.function", lambda w: None, "TensorFlow is not installed: skipped"))
    try:
        import jax
        jax_workloads = jax_versions(jax)

        def make_jax(w: Workload):
            if not w.training:
                return make_jitted(jax, jax_workloads[w.key], w)
            return make_jax_step(jax, jax_workloads[w.key], w)
        modes.append(Mode("jax.jit", make_jax, f"JAX {jax.__version__}"))
    except ImportError:
        modes.append(Mode("jax.jit", lambda w: None, "JAX is not installed: skipped"))
    return modes


# -- running and reporting --------------------------------------------------------------------


def run(workloads: list[Workload], settings: Settings) -> dict:
    compiled = compiled_tier_available()
    with temporary_kernel_cache() as kernels, no_code_cache():
        modes = [Mode("numpy", make_numpy), Mode("eager", make_eager), Mode("graph", make_graph),
                 Mode("compiled", make_compiled, prepare_compiled_tier())]
        modes += optional_modes()
        report: dict = {"machine": f"{platform.machine()}, Python {platform.python_version()}, "
                                   f"NumPy {np.__version__}",
                        "notes": [m.note for m in modes if m.note],
                        "compiled_available": compiled, "workloads": {}}
        with warnings.catch_warnings():  # new function objects on purpose (first calls)
            warnings.simplefilter("ignore", RetracingWarning)
            for w in workloads:
                report["workloads"][w.key] = run_workload(w, modes, settings, kernels)
            if any(w.key == "W2" for w in workloads):
                w2 = next(w for w in workloads if w.key == "W2")
                graph_call, numpy_call = make_graph(w2)(), make_numpy(w2)()
                report["w2_peak_memory"] = {"graph_bytes": peak_bytes(graph_call),
                                            "numpy_bytes": peak_bytes(numpy_call)}
    report["import_s"] = round(import_seconds(), 3)
    if compiled:
        report["import_numba_s"] = round(import_seconds("numba"), 3)
    return report


def run_workload(w: Workload, modes: list[Mode], settings: Settings, kernels: str) -> dict:
    """One workload in every mode: checked against NumPy, then (if it passed) timed."""
    expected = expected_result(w)
    entry: dict = {"title": w.title, "per_call_us": {}, "first_call_ms": {}, "deviation": {},
                   "failures": []}
    if w.numpy_note:
        entry["numpy"] = w.numpy_note
    new_processes: dict = {}
    if compiled_tier_available():
        # in new processes first: a cold compile into an empty directory, then the same first
        # call with the kernels that run left there; this process then reads them too
        cache, code = os.path.join(kernels, w.key), os.path.join(kernels, f"{w.key}-code")
        try:
            for name in ("compiled, new process, cold cache", "compiled, new process, warm cache"):
                new_processes[name] = round(fresh_process_first_call_ms(w.key, code, cache), 2)
        except RuntimeError as error:
            entry.setdefault("errors", {})["compiled, new process"] = str(error)
        rt.config.set_jit_cache_directory(cache)
    for mode in modes:
        make = mode.make(w)
        if make is None:
            continue
        try:
            first = first_call_seconds(make)
            call = make()
            result = checked_result(w, call)
        except Exception as error:  # noqa: BLE001 - a mode that fails is reported, not fatal
            entry["failures"].append(mode.name)
            entry.setdefault("errors", {})[mode.name] = f"{type(error).__name__}: {error}"
            continue
        entry["deviation"][mode.name] = deviation(result, expected)
        if mode.name == "compiled":
            entry["jit_report"] = jit_report_of(call)
        if not same(result, expected):
            entry["failures"].append(mode.name)
            continue
        entry["first_call_ms"][mode.name] = round(first * 1e3, 2)
        entry["per_call_us"][mode.name] = round(per_call_seconds(call, settings) * 1e6, 2)
    code = os.path.join(kernels, f"{w.key}-graph-code")  # empty: converted and compiled anew
    for name in ("graph, new process", "graph, new process, code cached"):
        entry["first_call_ms"][name] = round(fresh_process_first_call_ms(w.key, code), 2)
    entry["first_call_ms"].update(new_processes)
    entry["ratios"] = ratios(entry["per_call_us"])
    entry["targets"] = targets(w, entry)
    return entry


RATIOS = [("graph", "numpy"), ("eager", "graph"), ("compiled", "graph"), ("tf.function", "graph"),
          ("jax.jit", "graph"), ("compiled", "jax.jit")]


def ratios(times: dict) -> dict:
    """The table's ratios of per-call times, "a/b" for each pair in RATIOS both modes have."""
    return {f"{a}/{b}": round(times[a] / times[b], 3) for a, b in RATIOS
            if a in times and b in times}


def targets(w: Workload, entry: dict) -> dict:
    times, result = entry["per_call_us"], {}
    if "graph" not in times:
        return {"graph result": False}
    graph = times["graph"]
    if w.numpy_target is not None and "numpy" in times:
        result[f"graph <= {w.numpy_target}x numpy"] = graph <= w.numpy_target * times["numpy"]
    result[faster_name("eager", w.eager_speedup)] = faster(graph, times.get("eager"),
                                                         w.eager_speedup)
    if "tf.function" in times:
        result[faster_name("tf.function", w.tf_speedup)] = faster(graph, times["tf.function"],
                                                                  w.tf_speedup)
    if w.beat_jax and "jax.jit" in times:
        result["graph faster than jax.jit"] = graph < times["jax.jit"]
    if w.first_call_ms is not None:
        for name, what in (("graph, new process", "new process"),
                           ("graph, new process, code cached", "new process, code cached")):
            first = entry["first_call_ms"][name]
            result[f"first call <= {w.first_call_ms:g} ms ({what})"] = first <= w.first_call_ms
    return result


def faster(graph: float, other: float | None, factor: float) -> bool:
    """Whether the graph is `factor` times as fast as `other` (just faster, for 1)."""
    if other is None:
        return False
    return graph < other if factor == 1 else factor * graph <= other


def faster_name(other: str, factor: float) -> str:
    if factor == 1:
        return f"graph faster than {other}"
    return f"graph >= {factor:g}x faster than {other}"


MODES = ["numpy", "eager", "graph", "compiled", "tf.function", "jax.jit"]
FIRST_CALLS = {  # the first-call table's columns: key in first_call_ms -> header
    **{m: m for m in MODES}, "graph, new process": "graph, cold",
    "graph, new process, code cached": "graph, warm",
    "compiled, new process, cold cache": "comp, cold", "compiled, new process, warm cache":
    "comp, warm"}


def cell(times: dict, key: str, width: int, unavailable: bool, digits: int = 1) -> str:
    """A time (or ratio) right-aligned, "n/a" for a mode that cannot run, "-" when missing."""
    text = f"{times[key]:.{digits}f}" if key in times else "n/a" if unavailable else "-"
    return f"{text:>{width}}"


def print_report(report: dict) -> None:
    workloads = report["workloads"].values()
    na = not report.get("compiled_available", True)  # the compiled column says n/a
    shown = [m for m in MODES if any(m in e["per_call_us"] for e in workloads)
             or (m == "compiled" and na)]
    print(f"eager2graph benchmark ({report['machine']})")
    for note in report["notes"]:
        print(f"  note: {note}")
    ratio_columns = ["graph/numpy"] + [f"{m}/graph" for m in shown if m not in ("numpy", "graph")]
    if "compiled" in shown and "jax.jit" in shown:
        ratio_columns.append("compiled/jax.jit")
    print("\nper call, median (us); ratios are graph / numpy, other / graph (below 1: faster "
          "than the graph)" + ("\nand compiled / jax.jit" if "compiled/jax.jit" in ratio_columns
                               else ""))
    header = f"{'':4} " + "".join(f"{m:>12}" for m in shown) + f"{'graph/np':>10}"
    header += "".join(f"{r:>18}" for r in ratio_columns[1:])
    print(header)
    for key, entry in report["workloads"].items():
        t, r = entry["per_call_us"], entry["ratios"]
        row = f"{key:4} " + "".join(cell(t, m, 12, na and m == "compiled") for m in shown)
        row += cell(r, "graph/numpy", 10, False, 2)
        row += "".join(cell(r, c, 18, na and "compiled" in c, 2) for c in ratio_columns[1:])
        print(row + ("   FAIL: " + ", ".join(entry["failures"]) if entry["failures"] else ""))
    for key, entry in report["workloads"].items():
        if "numpy" in entry:
            print(f"{key:4} numpy {entry['numpy']}")
        for mode, error in entry.get("errors", {}).items():
            print(f"{key:4} {mode} failed: {error}")
    print("\nfirst call (ms): conversion + trace + optimize + compile, in this warmed-up process "
          "and in new\nprocesses: the graph's with an empty code cache, graph, cold (converted "
          "and compiled anew,\nas in a script's first run), and with the one that run filled, "
          "graph, warm (conversions and\nplan read back); the compiled tier's with empty "
          "kernel and code caches, comp, cold (with the\ncompiler's start-up), and with those "
          "that run filled, comp, warm")
    columns = [k for k in FIRST_CALLS if any(k in e["first_call_ms"] for e in workloads)
               or (na and k.startswith("compiled"))]
    print(f"{'':4} " + "".join(f"{FIRST_CALLS[k]:>12}" for k in columns))
    for key, entry in report["workloads"].items():
        print(f"{key:4} " + "".join(cell(entry["first_call_ms"], k, 12,
                                         na and k.startswith("compiled")) for k in columns))
    print_compiled_tier(report)
    print("\ntargets")
    for key, entry in report["workloads"].items():
        for name, ok in entry["targets"].items():
            print(f"{key:4} {'ok  ' if ok else 'MISS'} {name}")
    if "w2_peak_memory" in report:
        memory = report["w2_peak_memory"]
        ratio = memory["graph_bytes"] / memory["numpy_bytes"]
        print(f"\nW2 peak memory: graph {memory['graph_bytes'] / 1e3:.0f} kB, numpy "
              f"{memory['numpy_bytes'] / 1e3:.0f} kB ({ratio:.2f}x; target <= 1.10x)")
    print(f"import runtime, transpiler: {report['import_s']:.3f} s (target <= 0.3 s)")
    if "import_numba_s" in report:
        print(f"import numba: {report['import_numba_s']:.3f} s (part of comp, cold and comp, warm)")


def print_compiled_tier(report: dict) -> None:
    """What the compiled tier compiled (jit_report's first line), how far its result is from
    NumPy's, and where it is slower than the graph."""
    if not report.get("compiled_available", True):
        return
    print("\ncompiled tier: what it compiled; check: max |compiled - numpy| / max |numpy|")
    slower = []
    for key, entry in report["workloads"].items():
        jit_report = entry.get("jit_report") or entry.get("errors", {}).get("compiled", "-")
        lines = jit_report.splitlines() or ["-"]
        kept = (len(lines) - 1 - lines.index("left on the NumPy plan:")
                if "left on the NumPy plan:" in lines else 0)
        check = (check_label(entry["deviation"]["compiled"], "compiled" in entry["failures"])
                 if "compiled" in entry["deviation"] else "-")
        print(f"{key:4} {lines[0]}; {kept} op{'' if kept == 1 else 's'} left on the NumPy plan; "
              f"check {check}")
        ratio = entry["ratios"].get("compiled/graph")
        if ratio is not None and ratio > 1:
            none = lines[0].startswith("compiled tier: 0 regions")
            slower.append(f"{key} ({ratio:.2f}x{', nothing compiled' if none else ''})")
    if slower:
        print("compiled slower than graph: " + ", ".join(slower))


# -- scaling: the same workloads as the work grows ---------------------------------------------


@functools.lru_cache(maxsize=None)
def dense_weights(layers: int) -> list:
    """`layers` Dense layers, 784 -> 64 -> ... -> 64 -> 10, the 64 -> 64 ones near the identity
    (I + noise): after 1,000 of them the output still depends on the input and stays near 1.
    Random (He) layers collapse to one input-independent output by then, which a check could
    not tell from a graph that ignores its input; W2's own weights shrink to zero."""
    rng = np.random.RandomState(layers)
    first = (rng.randn(784, 64) * np.sqrt(2 / 784), rng.randn(64) * 0.01)
    hidden = [(np.eye(64) + rng.randn(64, 64) * (0.03 / 8), rng.randn(64) * 0.01)
              for _ in range(layers - 2)]
    last = (rng.randn(64, 10) / 8, np.zeros(10))
    return [(w.astype(np.float32), b.astype(np.float32)) for w, b in (first, *hidden, last)]


def w2_of(layers: int) -> Workload:
    weights = dense_weights(layers)
    model = dense_model_of([(rt.constant(w), rt.constant(b)) for w, b in weights])
    return Workload("W2", "", model, numpy_dense_model_of(weights),
                    (np.random.RandomState(2).randn(20, 28, 28).astype(np.float32),))


@functools.lru_cache(maxsize=None)
def wide_dense_weights(width: int) -> list:
    """10 Dense layers, 784 -> width -> ... -> width -> 10, the hidden ones near the identity
    as in dense_weights."""
    rng = np.random.RandomState(width)
    first = (rng.randn(784, width) * np.sqrt(2 / 784), rng.randn(width) * 0.01)
    hidden = [(np.eye(width) + rng.randn(width, width) * (0.03 / np.sqrt(width)),
               rng.randn(width) * 0.01) for _ in range(8)]
    last = (rng.randn(width, 10) / np.sqrt(width), np.zeros(10))
    return [(w.astype(np.float32), b.astype(np.float32)) for w, b in (first, *hidden, last)]


def w2_wide_of(width: int) -> Workload:
    """W2's layers, 10 of them, at ``width`` units and a batch of 2 x width (BLAS-bound)."""
    weights = wide_dense_weights(width)
    model = dense_model_of([(rt.constant(w), rt.constant(b)) for w, b in weights])
    return Workload("W2-wide", "", model, numpy_dense_model_of(weights),
                    (np.random.RandomState(2).randn(2 * width, 28, 28).astype(np.float32),))


def w8_wide_of(width: int) -> Workload:
    """W8's training step at ``width`` units and a batch of 2 x width."""
    weights, batch = mlp_problem(width, 2 * width)
    return Workload("W8-wide", "", mlp_training_step_of(weights),
                    lambda: numpy_mlp_training_step(weights), batch, training=True)


def w4_of(iterations: int) -> Workload:
    return Workload("W4", "", collatz_walk, numpy_collatz_walk,
                    (np.array(27, np.int32), np.array(iterations, np.int32)))


def w5_of(n: int) -> Workload:
    return Workload("W5", "", sum_of_squares, numpy_sum_of_squares_int32,
                    (np.array(n, np.int32),))


def w6_of(elements: int) -> Workload:
    return Workload("W6", "", my_function, numpy_my_function,
                    (np.linspace(-1, 1, elements).astype(np.float32) + np.float32(0.01),))


@dataclass
class Scaling:
    key: str
    title: str
    unit: str                 # what the size counts
    sizes: tuple
    quick_sizes: tuple
    workload: Callable[[int], Workload]
    vectorized: Callable | None = None  # a vectorized NumPy version, timed and checked too


SCALINGS = [
    Scaling("W2", "Dense(64) layers on [20, 28, 28], relu on all but the last", "layers",
            (10, 30, 100, 300, 1000), (10, 30), w2_of),
    # BLAS-bound: matrix products of width x width at a batch of 2 x width
    Scaling("W2-wide", "10 Dense(width) layers on [2 x width, 28, 28], relu on all but the last",
            "width", (64, 128, 256, 512), (64, 128), w2_wide_of),
    Scaling("W8-wide", "W8's training step, MLP 32-width-width-10, batch 2 x width, Adam",
            "width", (64, 128, 256, 512), (64,), w8_wide_of),
    Scaling("W4", "collatz_walk(27, n): n iterations of a while loop around an if", "iterations",
            (10, 100, 10 ** 3, 10 ** 4, 10 ** 5, 10 ** 6), (10, 100), w4_of),
    Scaling("W5", "sum of i * i for i in range(n), int32 (wraps around from n = 1862)", "n",
            (10 ** 3, 10 ** 4, 10 ** 5, 10 ** 6, 10 ** 7), (100, 1000), w5_of,
            vectorized=numpy_vectorized_sum_of_squares),
    Scaling("W6", "if reduce_sum(x) <= 1: x * x else x - 1, f32[n] (x * x for n = 10)", "elements",
            tuple(10 ** k for k in range(1, 8)), (10, 1000), w6_of),
]

# Floats: max |result - numpy| / max |numpy|; integers must be equal. The graph computes a
# float product of 262,144 to 4 million multiply-adds in blocks of one BLAS thread each (the
# same bits under any load: runtime.ops.linalg_ops.blas_blocks), which NumPy's one call rounds
# differently in the last bit: W2's first layer differs by 1e-6 of its result, 5e-6 after 300
# layers. Kernels call SciPy's BLAS, which can round a long float32 dot product differently
# too: over 1,000 layers that compounds to 2e-6 (both are 4e-6 from float64).
GRAPH_TOLERANCE = 1e-5
COMPILED_TOLERANCE = 1e-5
JAX_TOLERANCE = 1e-4    # XLA's matmul sums in another order: 3e-5 after 1,000 layers
TOLERANCES = {"jax.jit": JAX_TOLERANCE, "compiled": COMPILED_TOLERANCE}
# A training step's losses: the hand-derived NumPy gradient sums in another order than the
# tape's, which the second loss shows (the main table's check allows 1e-4 too).
TRAINING_TOLERANCE = 1e-4


def deviation(result, expected) -> float | None:
    """0.0 when equal; for floats of the same shape, max |result - expected| / max |expected|;
    None when shapes or kinds (integer, float) differ, or integers differ at all."""
    got, expected = np.asarray(result), np.asarray(expected)
    if got.shape != expected.shape or (got.dtype.kind == "f") != (expected.dtype.kind == "f"):
        return None
    if np.array_equal(got, expected):
        return 0.0
    if expected.dtype.kind != "f":
        return None
    scale = float(np.max(np.abs(expected)))
    return float(np.max(np.abs(got - expected))) / scale if scale else math.inf


def scaled_per_call_seconds(call: Callable[[], object], settings: Settings) -> float:
    """per_call_seconds, except that a call slower than a repeat's budget is timed alone a few
    times after one warm-up (two 2-second calls, not 3 warm-ups and several repeats)."""
    start = time.perf_counter()
    call()
    warm = time.perf_counter() - start
    if warm < settings.budget_s:
        return per_call_seconds(call, settings)
    samples = []
    for _ in range(min(settings.repeats, 3 if warm < 1 else 2)):
        start = time.perf_counter()
        call()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def scaling_makers(s: Scaling, size: int, jax_scaling: dict | None) -> tuple[Workload, dict]:
    w = s.workload(size)
    makers = {"graph": make_graph(w)}
    if compiled_tier_available():
        makers["compiled"] = make_graph(w, jit_compile=True)
    makers["numpy"] = make_numpy(w)
    if s.vectorized is not None:
        makers["numpy, vectorized"] = lambda: (lambda: s.vectorized(*w.arrays))
    if jax_scaling is not None:
        import jax
        makers["jax.jit"] = (make_jax_step(jax, jax_scaling[s.key](size), w) if w.training
                             else make_jitted(jax, jax_scaling[s.key](size), w))
    return w, makers


def scaling_row(s: Scaling, size: int, jax_scaling: dict | None, settings: Settings) -> dict:
    """One size: each mode checked against NumPy, then (if it passed) timed and measured."""
    w, makers = scaling_makers(s, size, jax_scaling)
    expected = expected_result(w)
    row: dict = {"size": size, "per_call_us": {}, "first_call_ms": {}, "peak_kB": {},
                 "deviation": {}, "failures": []}
    for name, make in makers.items():
        first = first_call_seconds(make) if name in ("graph", "compiled", "jax.jit") else None
        call = make()
        error = deviation(checked_result(w, call), expected)
        row["deviation"][name] = error
        limit = TRAINING_TOLERANCE if w.training else TOLERANCES.get(name, GRAPH_TOLERANCE)
        if error is None or error > limit:
            row["failures"].append(name)
            continue
        if first is not None:
            row["first_call_ms"][name] = round(first * 1e3, 2)
        row["per_call_us"][name] = round(scaled_per_call_seconds(call, settings) * 1e6, 2)
        if name in ("graph", "numpy"):  # JAX allocates outside tracemalloc's view
            row["peak_kB"][name] = round(peak_bytes(call, warmups=0) / 1e3, 1)
    return row


def run_scaling(scalings: list[Scaling], settings: Settings, quick: bool) -> dict:
    """Measures and prints one table per workload as it completes (a full run takes minutes)."""
    try:
        import jax
        jax_scaling, note = jax_scaling_versions(jax), f"JAX {jax.__version__}"
    except ImportError:
        jax_scaling, note = None, "JAX is not installed: no jax.jit column"
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    with temporary_kernel_cache(), no_code_cache():
        report: dict = {"machine": f"{platform.machine()}, Python {platform.python_version()}, "
                                   f"NumPy {np.__version__}",
                        "notes": [note, prepare_compiled_tier()],
                        "compiled_available": compiled_tier_available(), "scaling": {}}
        print_scaling_header(report)
        for s in scalings:
            rows = []
            for size in s.quick_sizes if quick else s.sizes:
                with warnings.catch_warnings():  # new function objects on purpose (first calls)
                    warnings.simplefilter("ignore", RetracingWarning)
                    rows.append(scaling_row(s, size, jax_scaling, settings))
            report["scaling"][s.key] = {"title": s.title, "unit": s.unit, "rows": rows}
            print_scaling_table(s.key, report["scaling"][s.key],
                                compiled_available=report["compiled_available"])
    if load is not None:  # multithreaded BLAS (W2) is slow and erratic on a busy machine
        threads = [f"{k}={os.environ[k]}" for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
                                                    "MKL_NUM_THREADS") if k in os.environ]
        report["notes"].append(f"load average {load:.1f} before, {os.getloadavg()[0]:.1f} after, "
                               f"on {os.cpu_count()} CPUs; BLAS threads: "
                               + (", ".join(threads) or "default"))
        print(f"\nnote: {report['notes'][-1]}")
    failures = scaling_failures(report)
    if failures:
        print("\nFAILED checks (these were not timed): " + "; ".join(failures))
    return report


def growth(rows: list[dict], mode: str) -> str:
    """log-log slopes of per-call time between consecutive sizes: 1 is linear, 0 is flat."""
    points = [(r["size"], r["per_call_us"][mode]) for r in rows if mode in r["per_call_us"]]
    slopes = [math.log(t1 / t0) / math.log(s1 / s0)
              for (s0, t0), (s1, t1) in zip(points, points[1:])]
    return " ".join(f"{slope:.2f}" for slope in slopes)


def check_label(error: float | None, failed: bool) -> str:
    label = "differs" if error is None else "exact" if error == 0 else f"{error:.0e}"
    return ("FAIL " if failed else "") + label


SHORT_NAMES = {"graph": "graph", "compiled": "comp", "numpy": "numpy", "numpy, vectorized": "vec",
               "jax.jit": "jax"}


def print_scaling_header(report: dict) -> None:
    print(f"eager2graph scaling ({report['machine']})")
    for note in report["notes"]:
        print(f"  note: {note}")
    print("us: per-call median; comp: the compiled tier (jit_compile=True; n/a without a compiler for it); "
          "first: a new\n  function object's first call, with conversion, trace, optimization "
          "and compilation (ms;\n  comp reuses the kernels this process compiled at smaller "
          "sizes, identical sources only);\n  peak: tracemalloc's peak during one call (kB; "
          "Python and NumPy allocations, JAX's and\n  Numba's are invisible to it); check: "
          "against NumPy, integers exactly, floats\n  max |diff| / max |numpy| "
          f"(limits: graph {GRAPH_TOLERANCE:g}, comp {COMPILED_TOLERANCE:g}, jax "
          f"{JAX_TOLERANCE:g}); vec: NumPy "
          "vectorized")


def print_scaling_table(key: str, entry: dict, compiled_available: bool = True) -> None:
    rows = entry["rows"]
    timed = [m for m in SHORT_NAMES if any(m in r["per_call_us"] or m in r["failures"]
                                           for r in rows)
             or (m == "compiled" and not compiled_available)]
    baselines = [m for m in timed if m not in ("graph", "compiled")]
    ratios = [(a, b) for a in ("graph", "compiled") if a in timed for b in baselines]
    checked = [m for m in ("graph", "compiled", "jax.jit") if m in timed]
    columns = ([f"{SHORT_NAMES[m]} us" for m in timed]
               + [f"{SHORT_NAMES[a]}/{SHORT_NAMES[b]}" for a, b in ratios]
               + [f"first {SHORT_NAMES[m]}" for m in ("graph", "compiled") if m in timed]
               + ["first jax", "peak graph", "peak numpy"]
               + [f"check {SHORT_NAMES[m]}" for m in checked if m != "jax.jit"] + ["check jax"])
    na = {"compiled"} if not compiled_available else set()
    print(f"\n{key}: {entry['title']}")
    print(f"{entry['unit']:>10}" + "".join(f"{c:>12}" for c in columns))
    for r in rows:
        t, first, peak = r["per_call_us"], r["first_call_ms"], r["peak_kB"]
        cells = [f"{t[m]:.1f}" if m in t else "n/a" if m in na else "-" for m in timed]
        cells += [f"{t[a] / t[b]:.2f}" if a in t and b in t else "n/a" if a in na else "-"
                  for a, b in ratios]
        cells += [f"{first[m]:.1f}" if m in first else "n/a" if m in na else "-"
                  for m in ("graph", "compiled") if m in timed]
        cells += [f"{d[m]:.1f}" if m in d else "-" for d, m in (
            (first, "jax.jit"), (peak, "graph"), (peak, "numpy"))]
        cells += [check_label(r["deviation"][m], m in r["failures"]) if m in r["deviation"]
                  else "n/a" if m in na else "-"
                  for m in [m for m in checked if m != "jax.jit"] + ["jax.jit"]]
        print(f"{r['size']:>10}" + "".join(f"{c:>12}" for c in cells))
    print("  per-call growth, log-log slope between consecutive sizes (1 = linear): "
          + "; ".join(f"{SHORT_NAMES[m]} {growth(rows, m)}" for m in timed if m not in na),
          flush=True)


def scaling_failures(report: dict) -> list[str]:
    return [f"{key} {r['size']}: {', '.join(r['failures'])}"
            for key, entry in report["scaling"].items() for r in entry["rows"] if r["failures"]]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer, shorter repeats")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    parser.add_argument("--only", metavar="W1,W3", help="run only these workloads")
    parser.add_argument("--scaling", action="store_true",
                        help="W2, W4, W5, W6, W2-wide, W8-wide at growing sizes "
                             "(with --quick: small sizes only)")
    parser.add_argument("--end-to-end", action="store_true",
                        help="fresh processes training for 100 to 10,000 steps (end_to_end.py: "
                             "the MLP, W8 and W7)")
    parser.add_argument("--plot", metavar="PNG", help="with --end-to-end: plot time against steps")
    parser.add_argument("--first-call-of", metavar="W1", help=argparse.SUPPRESS)
    parser.add_argument("--compiled-with-kernel-cache", metavar="DIR", help=argparse.SUPPRESS)
    parser.add_argument("--code-cache", metavar="DIR", help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    if options.end_to_end:
        end_to_end.main(["--program", "all"] + (["--quick"] if options.quick else [])
                        + (["--plot", options.plot] if options.plot else []))
        return
    if options.first_call_of:
        print_first_call_ms(options.first_call_of, options.code_cache,
                            options.compiled_with_kernel_cache)
        return
    if options.scaling:
        chosen = [s for s in SCALINGS if not options.only or s.key in options.only.split(",")]
        settings = Settings(3, 0.01) if options.quick else Settings(5, 0.1)
        report = run_scaling(chosen, settings, quick=options.quick)
        write_json(report, options.json)
        if scaling_failures(report):
            sys.exit(1)
        return
    chosen = [w for w in WORKLOADS if not options.only or w.key in options.only.split(",")]
    settings = Settings(repeats=3, budget_s=0.05) if options.quick else Settings(repeats=7, budget_s=0.3)
    report = run(chosen, settings)
    print_report(report)
    write_json(report, options.json)


def write_json(report: dict, path: str | None) -> None:
    if path:
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(report, handle, indent=2)


if __name__ == "__main__":
    main()
