"""``rt.random`` additions: stateless draws (same seed, same values, eagerly, traced and after
save/load), ``Generator`` streams, ``shuffle``, ``categorical``, ``truncated_normal``, and the
clipping helpers ``clip_by_norm``/``clip_by_global_norm``."""

import numpy as np
import pytest

import runtime as rt

from tests.runtime.test_gradients_math import RNG, check_gradients

pytestmark = pytest.mark.filterwarnings("ignore::runtime.errors.RetracingWarning")


@pytest.mark.parametrize("dtype", [rt.float32, rt.float64])
def test_stateless_draws_are_deterministic(dtype, tmp_path):
    def draw(seed):
        return (rt.random.stateless_normal([200], seed, 1.0, 2.0, dtype),
                rt.random.stateless_uniform([200], seed, -1.0, 3.0, dtype))
    eager = draw([3, 4])
    traced = rt.function(draw)
    concrete = traced.get_concrete_function(rt.TensorSpec([2], rt.int32))
    rt.save(concrete, str(tmp_path / "g"))
    loaded = rt.load(str(tmp_path / "g"))
    for other in (draw([3, 4]), traced(rt.constant([3, 4])), loaded(rt.constant([3, 4]))):
        for a, b in zip(eager, other):
            assert a.dtype == b.dtype == dtype and a.numpy().tolist() == b.numpy().tolist()
    normal, uniform = (v.numpy() for v in eager)
    assert abs(normal.mean() - 1.0) < 0.5 and 1.5 < normal.std() < 2.5
    assert uniform.min() >= -1.0 and uniform.max() < 3.0
    assert draw([3, 5])[0].numpy().tolist() != normal.tolist()


def test_stateless_ints_and_errors():
    ints = rt.random.stateless_uniform([50], [1, 2], 0, 5, rt.int64).numpy()
    assert ints.dtype == np.int64 and set(ints) <= set(range(5))
    with pytest.raises(ValueError, match="integer dtypes need an explicit maxval"):
        rt.random.stateless_uniform([2], [1, 2], dtype=rt.int32)
    with pytest.raises(ValueError, match=r"seed must be a pair of integers"):
        rt.random.stateless_normal([2], [1, 2, 3])
    with pytest.raises(TypeError, match="float dtype"):
        rt.random.stateless_normal([2], [1, 2], dtype=rt.int32)


def test_generator_streams_repeat_eagerly_and_traced():
    eager = rt.random.Generator.from_seed(11)
    values = [eager.normal([3]).numpy().tolist(), eager.uniform([2], 0, 10, rt.int32).numpy()]
    traced_gen = rt.random.Generator.from_seed(11)
    step = rt.function(lambda: (traced_gen.normal([3]), traced_gen.uniform([2], 0, 10, rt.int32)))
    first, second = step(), step()
    assert first[0].numpy().tolist() == values[0]
    assert second[0].numpy().tolist() != first[0].numpy().tolist()
    assert rt.random.Generator.from_seed(12).normal([3]).numpy().tolist() != values[0]
    assert 0 <= values[1].min() and values[1].max() < 10


def test_shuffle_categorical_truncated_normal():
    rt.random.set_seed(1)
    x = np.arange(20).reshape(10, 2)
    shuffled = rt.random.shuffle(x, seed=4).numpy()
    assert sorted(shuffled[:, 0].tolist()) == list(range(0, 20, 2))
    assert (shuffled[:, 1] == shuffled[:, 0] + 1).all()
    rt.random.set_seed(1)
    assert rt.random.shuffle(x, seed=4).numpy().tolist() == shuffled.tolist()
    traced = rt.function(lambda t: rt.random.shuffle(t))
    assert sorted(traced(rt.constant(x)).numpy()[:, 0].tolist()) == list(range(0, 20, 2))

    with np.errstate(divide="ignore"):  # log(0) = -inf: a class that is never drawn
        logits = np.log(np.array([[0.7, 0.3, 0.0], [0.0, 0.0, 1.0]]))
    samples = rt.random.categorical(logits, 4000, seed=2)
    assert samples.dtype == rt.int64 and samples.shape == (2, 4000)
    counts = np.bincount(samples.numpy()[0], minlength=3) / 4000
    assert abs(counts[0] - 0.7) < 0.05 and counts[2] == 0
    assert (samples.numpy()[1] == 2).all()
    assert rt.function(lambda l: rt.random.categorical(l, 3, rt.int32))(logits).dtype == rt.int32
    with pytest.raises(TypeError, match="float logits"):
        rt.random.categorical([[1, 2]], 1)

    draws = rt.random.truncated_normal([5000], 1.0, 0.5, rt.float64, seed=3).numpy()
    assert draws.min() >= 0.0 and draws.max() <= 2.0 and abs(draws.mean() - 1.0) < 0.05
    traced = rt.function(lambda: rt.random.truncated_normal([3]))
    assert traced().numpy().tolist() != traced().numpy().tolist()


def test_clip_by_norm_and_global_norm():
    x = RNG.normal(size=(3, 4)) * 3
    clipped = rt.clip_by_norm(x, 2.0).numpy()
    np.testing.assert_allclose(clipped, x * 2.0 / np.linalg.norm(x))
    small = x / 100
    np.testing.assert_allclose(rt.clip_by_norm(small, 2.0).numpy(), small)
    rows = rt.function(lambda t: rt.clip_by_norm(t, 1.0, axes=[1]))(x).numpy()
    np.testing.assert_allclose(np.linalg.norm(rows, axis=1), np.minimum(
        np.linalg.norm(x, axis=1), 1.0))
    assert rt.clip_by_norm(np.zeros(3), 1.0).numpy().tolist() == [0.0, 0.0, 0.0]
    check_gradients(lambda t: rt.clip_by_norm(t, 2.0), x)
    check_gradients(lambda t: rt.clip_by_norm(t, 1.0, axes=[1]), x)

    a, b = RNG.normal(size=(2, 2)), RNG.normal(size=3)
    total = np.sqrt((a ** 2).sum() + (b ** 2).sum())
    (ca, none, cb), norm = rt.clip_by_global_norm([a, None, b], 1.0)
    assert none is None
    np.testing.assert_allclose(norm.numpy(), total)
    np.testing.assert_allclose(ca.numpy(), a / total)
    np.testing.assert_allclose(cb.numpy(), b / total)
    kept, _ = rt.clip_by_global_norm([a], 100.0)
    np.testing.assert_allclose(kept[0].numpy(), a)
    with np.errstate(invalid="ignore"):  # inf - inf on the way to TensorFlow's NaN
        nan, _ = rt.clip_by_global_norm([np.array([np.inf, 1.0])], 1.0)
    assert np.isnan(nan[0].numpy()).all()
    with pytest.raises(TypeError, match="list or tuple"):
        rt.clip_by_global_norm(rt.constant([1.0]), 1.0)
    check_gradients(lambda s, t: rt.clip_by_global_norm([s, t], 1.0)[0][0], a, b)
