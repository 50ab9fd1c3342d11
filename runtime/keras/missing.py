"""A module ``__getattr__`` for Keras names ``rt.keras`` does not have: the error names the
Keras name asked for, instead of Python's "module has no attribute", and says whether Keras 3
has it (``KERAS_NAMES_MISSING``: the public names of TensorFlow 2.21's ``tf.keras``, Keras
3.15, that ``rt.keras`` lacks) or not (then the name is probably misspelled)."""

from __future__ import annotations

# Keras 3.15's public names, per module, that rt.keras does not have yet (regenerate with
# dir() of each tf.keras module against rt.keras when either side changes).
_TABLE = {
    "keras": """
    DTypePolicy FloatDTypePolicy Function InputSpec Operation Quantizer RematScope
    StatelessScope SymbolicScope Variable applications config datasets device
    distillation distribution dtype_policies export legacy mixed_precision name_scope
    quantizers random remat tree version visualization wrappers
    """,
    "keras.layers": """
    AdaptiveAveragePooling1D AdaptiveAveragePooling2D AdaptiveAveragePooling3D
    AdaptiveMaxPooling1D AdaptiveMaxPooling2D AdaptiveMaxPooling3D AlphaDropout AugMix
    AutoContrast AveragePooling3D AvgPool3D
    ContrastLimitedAdaptiveHistogramEqualization Conv3D Conv3DTranspose
    ConvLSTM1D ConvLSTM2D ConvLSTM3D Convolution3D
    Convolution3DTranspose Cropping3D CutMix DepthwiseConv1D
    Equalization FlaxLayer GlobalAveragePooling3D GlobalAvgPool3D
    GlobalMaxPool3D GlobalMaxPooling3D GroupQueryAttention HashedCrossing
    Hashing InputSpec JaxLayer MaxNumBoundingBoxes MaxPool3D MaxPooling3D
    MelSpectrogram MixUp Pipeline RMSNormalization RandAugment
    RandomColorDegeneration RandomColorJitter
    RandomElasticTransform RandomErasing RandomGaussianBlur RandomGrayscale
    RandomHeight RandomHue RandomInvert RandomPerspective RandomPosterization
    RandomSaturation RandomSharpness RandomShear RandomWidth
    ReversibleEmbedding STFTSpectrogram SeparableConv1D
    SeparableConvolution1D Solarization SpatialDropout3D
    SpectralNormalization StackedRNNCells StringLookup TFSMLayer TextVectorization
    ThresholdedReLU TorchModuleWrapper UpSampling3D Wrapper ZeroPadding3D deserialize
    serialize
    """,
    "keras.losses": """
    CTC CategoricalGeneralizedCrossEntropy Circle Reduction
    categorical_generalized_cross_entropy circle ctc deserialize serialize
    """,
    "keras.metrics": """
    PrecisionAtRecall RecallAtPrecision SensitivityAtSpecificity SpecificityAtSensitivity
    deserialize serialize
    """,
    "keras.optimizers": """
    LossScaleOptimizer MultiOptimizer Muon OptimizerMap ScheduleFreeAdamW
    deserialize legacy serialize
    """,
    "keras.callbacks": """
    BackupAndRestore OrbaxCheckpoint RemoteMonitor SwapEMAWeights
    """,
    "keras.initializers": """
    STFT STFTInitializer deserialize serialize stft
    """,
    "keras.ops": """
    adaptive_average_pool adaptive_max_pool allclose amax amin angle append arccosh arcsinh
    arctan2 arctanh argpartition array array_split associative_scan average_pool bartlett
    batch_normalization binary_crossentropy bincount bitwise_and bitwise_invert
    bitwise_left_shift bitwise_not bitwise_or bitwise_right_shift bitwise_xor blackman
    categorical_crossentropy cbrt cdist celu cholesky cholesky_inverse conj conjugate conv
    conv_transpose copy corrcoef correlate cross ctc_decode ctc_loss custom_gradient
    deg2rad depth_to_space depthwise_conv det diagflat diagonal diff digitize divide_no_nan
    dot_product_attention dsplit dstack dtype eig eigh empty empty_like erfc erfinv exp2
    extract_sequences fabs fft fft2 fliplr flipud fmax fmin fmod fold fori_loop gcd
    geomspace get_item glu hamming hanning hard_shrink hard_sigmoid hard_silu hard_swish
    hard_tanh heaviside histogram hsplit hstack hypot i0 identity ifft2 imag image in_top_k
    inner inv irfft is_tensor isin isneginf isposinf isreal istft jvp kaiser kron
    layer_normalization lcm ldexp left_shift linalg log10 log2 logaddexp logaddexp2 logdet
    logspace lstsq lu_factor map matrix_rank max_pool median meshgrid moveaxis multi_hot
    nan_to_num nanargmax nanargmin nancumprod nancumsum nanmax nanmean nanmedian nanmin
    nanpercentile nanprod nanquantile nanstd nansum nanvar ndim nextafter nn nonzero
    normalize numpy percentile pinv polar psnr ptp qr quantile rad2deg ravel real rearrange
    rfft right_shift rms_normalization roll rot90 saturate_cast scan scatter scatter_update
    searchsorted segment_max segment_min segment_prod segment_sum select separable_conv
    signbit sinc size slice_update slogdet soft_shrink softsign solve solve_triangular
    space_to_depth sparse_categorical_crossentropy sparse_plus sparse_sigmoid sparsemax
    squareplus stft svd swapaxes switch take_along_axis tanh_shrink threshold trapezoid tri
    trunc unfold unique unravel_index vander vdot vectorize vectorized_map view
    view_as_complex view_as_real vsplit vstack
    """,
    "keras.activations": """
    deserialize glu hard_shrink soft_shrink sparse_plus sparse_sigmoid sparsemax threshold
    """,
    "keras.regularizers": """
    OrthogonalRegularizer orthogonal_regularizer
    """,
    "keras.utils": """
    Config CustomObjectScope FeatureSpace Progbar array_to_img
    audio_dataset_from_directory bounding_boxes custom_object_scope deserialize_keras_object
    disable_interactive_logging enable_interactive_logging get_file
    get_registered_name get_registered_object get_source_inputs image_dataset_from_directory
    img_to_array is_interactive_logging_enabled is_keras_tensor legacy load_img model_to_dot
    plot_model save_img
    serialize_keras_object split_dataset standardize_dtype text_dataset_from_directory
    """,
    "keras.backend": """
    backend batch_dot batch_get_value batch_normalization batch_set_value bias_add
    binary_crossentropy binary_focal_crossentropy categorical_crossentropy
    categorical_focal_crossentropy conv1d conv2d conv2d_transpose conv3d ctc_batch_cost
    ctc_decode ctc_label_dense_to_sparse depthwise_conv2d dropout dtype eval eye foldl
    foldr get_uid gradients in_top_k is_float_dtype is_int_dtype is_sparse map_fn
    moving_average_update name_scope ones pool2d pool3d random_bernoulli random_normal
    random_normal_variable random_uniform random_uniform_variable repeat resize_images
    resize_volumes result_type reverse rnn separable_conv2d set_epsilon set_floatx
    set_image_data_format sparse_categorical_crossentropy spatial_2d_padding
    spatial_3d_padding standardize_dtype switch temporal_padding to_dense truncated_normal
    update update_add update_sub variable zeros
    """,
    "keras.models": """

    """,
}
KERAS_NAMES_MISSING: dict[str, frozenset[str]] = {
    module: frozenset(names.split()) for module, names in _TABLE.items()}


def missing(module: str):
    """The ``__getattr__`` of the ``rt.keras`` module named ``module`` (e.g. "keras.layers")."""
    def __getattr__(name: str):
        if name.startswith("__"):  # Python's and tools' own probes (__path__, __wrapped__, ...)
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        if name in KERAS_NAMES_MISSING.get(module, ()):
            raise AttributeError(f"{module}.{name} is not supported by rt.keras yet (Keras 3 "
                                 f"has it; the runtime has no equivalent. The README's 'Keras' "
                                 f"section lists what is there).")
        raise AttributeError(f"{module}.{name} is not supported by rt.keras, and Keras 3 has "
                             f"no such name either: check the spelling (the README's 'Keras' "
                             f"section lists what rt.keras has).")
    return __getattr__
