"""What the gradient tests share: central finite differences and the tape's answer for the
same weighted sum, so each test states only the function and its inputs."""

import numpy as np

import runtime as rt

EPS = 1e-6


def value_of(fn, arrays) -> np.ndarray:
    return np.asarray(fn(*[rt.constant(a) for a in arrays]).numpy())


def numeric_gradient(fn, arrays, index: int, seed: np.ndarray) -> np.ndarray:
    """Central differences of ``sum(seed * fn(*arrays))`` with respect to ``arrays[index]``."""
    arrays = [np.array(a) for a in arrays]
    grad = np.zeros(arrays[index].shape)
    for position in np.ndindex(grad.shape):
        sides = []
        for step in (EPS, -EPS):
            moved = [np.array(a, copy=True) for a in arrays]
            moved[index][position] += step
            sides.append(np.sum(seed * value_of(fn, moved)))
        grad[position] = (sides[0] - sides[1]) / (2 * EPS)
    return grad


def tape_gradients(fn, tensors, wrt, seed) -> list:
    """The gradients of ``fn(*tensors)`` weighted by ``seed``, with respect to the tensors at
    the positions ``wrt``, as tensors (a gather's gradient, rows, made dense)."""
    sources = [tensors[i] for i in wrt]
    with rt.GradientTape() as tape:
        tape.watch(sources)
        y = fn(*tensors)
    return [None if g is None else rt.convert_to_tensor(g)
            for g in tape.gradient(y, sources, output_gradients=seed)]
