"""The affine image transform under Keras' RandomRotation, RandomZoom and RandomTranslation
(fill modes, interpolation, exact cases), and the augmentation layers inside traced
functions. Comparisons with Keras itself are in tests/keras_programs/augmentation.py."""

import numpy as np
import pytest

import runtime as rt
from runtime.keras import layers
from runtime.ops.image_transform_ops import transform

IMAGES = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4, 1)
SHIFT_RIGHT = np.array([[1, 0, 1.5, 0, 1, 0]] * 2, np.float32)  # reads x + 1.5


def test_the_identity_transform_changes_nothing():
    identity = np.array([[1, 0, 0, 0, 1, 0]] * 2, np.float32)
    np.testing.assert_array_equal(transform(IMAGES, identity), IMAGES)


@pytest.mark.parametrize("fill_mode,bilinear,nearest", [
    ("reflect", [1.5, 2.5, 3.0, 2.5], [2, 3, 3, 3]),
    ("wrap", [1.5, 2.5, 1.5, 0.5], [2, 3, 0, 1]),
    ("nearest", [1.5, 2.5, 3.0, 3.0], [2, 3, 3, 3]),
    ("constant", [1.5, 2.5, 1.5, 0.0], [2, 3, 0, 0]),
])
def test_points_outside_are_filled_by_the_fill_mode(fill_mode, bilinear, nearest):
    row = IMAGES[0, 0, :, 0]  # 0 1 2 3, read at 1.5 2.5 3.5 4.5
    assert row.tolist() == [0, 1, 2, 3]
    np.testing.assert_allclose(transform(IMAGES, SHIFT_RIGHT, fill_mode=fill_mode)[0, 0, :, 0],
                               bilinear)
    np.testing.assert_allclose(
        transform(IMAGES, SHIFT_RIGHT, "nearest", fill_mode)[0, 0, :, 0], nearest)


def test_a_quarter_turn_about_the_centre_is_rot90():
    square = np.arange(2 * 5 * 5 * 2, dtype=np.float32).reshape(2, 5, 5, 2)
    c = 2.0  # the centre of a 5 x 5 image; x_in = c - (y - c), y_in = x: a quarter turn
    quarter = np.array([[0, -1, 2 * c, 1, 0, 0]] * 2, np.float32)
    turned = transform(square, quarter).numpy()
    np.testing.assert_allclose(turned, np.rot90(square, k=1, axes=(1, 2)), atol=1e-5)


@pytest.mark.parametrize("layer", [
    layers.RandomRotation(0.25), layers.RandomZoom(0.3, 0.2), layers.RandomTranslation(0.3, 0.3),
    layers.RandomContrast(0.5), layers.RandomBrightness(0.2), layers.RandomCrop(2, 3),
], ids=lambda layer: type(layer).__name__)
def test_layers_run_in_traced_functions_and_differ_between_calls(layer):
    step = rt.function(lambda images: layer(images, training=True))
    images = rt.constant(IMAGES * 10.0)
    first, second = step(images).numpy(), step(images).numpy()
    assert first.dtype == np.float32 and first.shape == second.shape
    assert not np.array_equal(first, second) or isinstance(layer, layers.RandomCrop)
    inference = rt.function(lambda images: layer(images, training=False))(images)
    np.testing.assert_array_equal(inference, images)


def test_bad_factors_are_refused():
    with pytest.raises(ValueError, match="lower <= upper"):
        layers.RandomRotation((0.3, 0.1))
    with pytest.raises(ValueError, match="within"):
        layers.RandomBrightness(1.5)
    with pytest.raises(NotImplementedError, match="fill_mode"):
        layers.RandomZoom(0.1, fill_mode="mirror")
