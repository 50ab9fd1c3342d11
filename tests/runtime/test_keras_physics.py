"""examples/keras_physics.py, the physics group's Keras fit with ``import transpiler.tf as tf``
as its only change, trains like TensorFlow: the same file run with ``import tensorflow as
tf`` (TensorFlow 2.21 with tf-keras 2.21, ``TF_USE_LEGACY_KERAS=1``, since Keras 3 refuses
``tf.split`` on a Keras input) gave the losses below from the same initial weights."""

import importlib.util
import os

import numpy as np

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "keras_physics.py")
TF_LOSSES = [1.13790762424469, 0.005510378163307905, 0.00017862433742266148]
TF_FIRST_PREDICTIONS = [0.22553685, 0.2247827, 0.22265251]
TF_DATA = (0.0031927857, 0.094884574, 0.031097354)  # min, max, mean of the pseudo-data


def load_example():
    spec = importlib.util.spec_from_file_location("keras_physics", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def initial_weights(model):
    rng = np.random.default_rng(42)
    return [(rng.standard_normal(w.shape) * np.sqrt(2.0 / w.shape[0]) if w.ndim == 2
             else 0.01 * rng.standard_normal(w.shape)).astype("float32")
            for w in model.get_weights()]


def test_physics_model_fits_like_tensorflow_from_the_same_weights():
    example = load_example()
    kins, F = example.pseudo_data()
    # float32 through a long formula: agreement to a few float32 roundings
    np.testing.assert_allclose([F.min(), F.max(), F.mean()], TF_DATA, rtol=5e-5)
    model = example.build_model(len(kins))
    assert [w.shape for w in model.get_weights()] == \
        [(3, 100), (100,), (100, 100), (100,), (100, 4), (4,)]
    assert type(model.layers[-1]).__name__ == "TotalFLayer"
    model.set_weights(initial_weights(model))
    np.testing.assert_allclose(model.predict(kins[:3], verbose=0).ravel(), TF_FIRST_PREDICTIONS,
                               rtol=1e-5)
    history = model.fit(kins, F, epochs=3, batch_size=16, shuffle=False, verbose=0)
    np.testing.assert_allclose(history.history["loss"], TF_LOSSES, rtol=1e-5)
