"""MultiHeadAttention (its numbers against TensorFlow are in tests/keras_programs): masks,
the two orders of scaling, a traced call, and the options refused instead of ignored."""

import numpy as np
import pytest

import runtime as rt
import transpiler.tf as tf

RNG = np.random.default_rng(4)
X = RNG.normal(size=(2, 4, 3)).astype("float32")


def _layer(**kwargs):
    layer = tf.keras.layers.MultiHeadAttention(num_heads=2, key_dim=2, **kwargs)
    layer(X, X)
    layer.set_weights([RNG.uniform(-0.5, 0.5, w.shape).astype("float32")
                       for w in layer.get_weights()])
    return layer


def test_causal_mask_is_the_lower_triangle_and_masks_accept_numbers():
    layer = _layer()
    causal = layer(X, X, use_causal_mask=True).numpy()
    lower = np.tril(np.ones((4, 4), bool))[None].repeat(2, axis=0)
    np.testing.assert_allclose(causal, layer(X, X, attention_mask=lower).numpy(), rtol=1e-6)
    np.testing.assert_allclose(causal, layer(X, X, attention_mask=lower * 1.0).numpy(),
                               rtol=1e-6)
    _, scores = layer(X, X, use_causal_mask=True, return_attention_scores=True)
    assert np.all(scores.numpy()[:, :, 0, 1:] == 0)  # the first step sees only itself
    np.testing.assert_allclose(scores.numpy().sum(axis=-1), 1.0, rtol=1e-6)


def test_scores_returned_or_not_give_the_same_output():
    layer = _layer()
    output, _ = layer(X, X, return_attention_scores=True)
    np.testing.assert_allclose(output.numpy(), layer(X, X).numpy(), rtol=1e-5)


def test_traced_call_matches_the_eager_call():
    layer = _layer()
    traced = rt.function(lambda q, v: layer(q, v, use_causal_mask=True))
    np.testing.assert_allclose(traced(X, X).numpy(), layer(X, X, use_causal_mask=True).numpy(),
                               rtol=1e-6)


@pytest.mark.parametrize("option", [{"attention_axes": (1,)}, {"output_shape": (2, 3)}])
def test_options_that_would_be_ignored_are_refused(option):
    with pytest.raises(NotImplementedError, match="not supported yet by rt.keras"):
        tf.keras.layers.MultiHeadAttention(num_heads=2, key_dim=2, **option)
