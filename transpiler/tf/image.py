"""``tf.image``: resizing, flips and rotations, crops and pads, dtype conversion, colour and
contrast adjustments and random flips on the runtime."""

from runtime.ops import image_ops as _image_ops
from transpiler.tf._names import export as _export, missing as _missing

_export(globals(), _image_ops, """
    ResizeMethod adjust_brightness adjust_contrast central_crop convert_image_dtype
    crop_to_bounding_box flip_left_right flip_up_down grayscale_to_rgb pad_to_bounding_box
    per_image_standardization psnr random_brightness random_contrast random_flip_left_right
    random_flip_up_down resize resize_with_crop_or_pad resize_with_pad rgb_to_grayscale rot90
    transpose=transpose_image
""")

__getattr__ = _missing("tf.image")
