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
    distillation distribution dtype_policies export legacy mixed_precision name_scope ops
    quantizers random remat tree version visualization wrappers
    """,
    "keras.layers": """
    AdaptiveAveragePooling1D AdaptiveAveragePooling2D AdaptiveAveragePooling3D
    AdaptiveMaxPooling1D AdaptiveMaxPooling2D AdaptiveMaxPooling3D AlphaDropout AugMix
    AutoContrast AveragePooling3D AvgPool3D CategoryEncoding
    ContrastLimitedAdaptiveHistogramEqualization Conv1DTranspose Conv3D Conv3DTranspose
    ConvLSTM1D ConvLSTM2D ConvLSTM3D Convolution1DTranspose Convolution3D
    Convolution3DTranspose Cropping3D CutMix DepthwiseConv1D
    EinsumDense Equalization FlaxLayer GlobalAveragePooling3D GlobalAvgPool3D
    GlobalMaxPool3D GlobalMaxPooling3D GroupNormalization GroupQueryAttention HashedCrossing
    Hashing InputSpec IntegerLookup JaxLayer MaxNumBoundingBoxes MaxPool3D MaxPooling3D
    MelSpectrogram MixUp Pipeline RMSNormalization RandAugment RandomBrightness
    RandomColorDegeneration RandomColorJitter RandomContrast RandomCrop
    RandomElasticTransform RandomErasing RandomGaussianBlur RandomGrayscale
    RandomHeight RandomHue RandomInvert RandomPerspective RandomPosterization RandomRotation
    RandomSaturation RandomSharpness RandomShear RandomTranslation RandomWidth RandomZoom
    ReversibleEmbedding STFTSpectrogram SeparableConv1D
    SeparableConvolution1D Solarization SpatialDropout3D
    SpectralNormalization StackedRNNCells StringLookup TFSMLayer TextVectorization
    ThresholdedReLU TorchModuleWrapper UpSampling3D Wrapper ZeroPadding3D deserialize
    serialize
    """,
    "keras.losses": """
    CTC CategoricalFocalCrossentropy
    CategoricalGeneralizedCrossEntropy Circle Dice Reduction Tversky
    categorical_focal_crossentropy
    categorical_generalized_cross_entropy circle ctc deserialize dice serialize tversky
    """,
    "keras.metrics": """
    BinaryIoU ConcordanceCorrelation IoU
    OneHotIoU OneHotMeanIoU PearsonCorrelation PrecisionAtRecall RecallAtPrecision
    SensitivityAtSpecificity SpecificityAtSensitivity
    categorical_focal_crossentropy concordance_correlation deserialize pearson_correlation
    serialize
    """,
    "keras.optimizers": """
    Adafactor Lamb LossScaleOptimizer MultiOptimizer Muon OptimizerMap ScheduleFreeAdamW
    deserialize legacy serialize
    """,
    "keras.callbacks": """
    BackupAndRestore OrbaxCheckpoint ProgbarLogger RemoteMonitor SwapEMAWeights
    """,
    "keras.initializers": """
    STFT STFTInitializer deserialize serialize stft
    """,
    "keras.activations": """
    celu deserialize glu hard_shrink hard_silu hard_swish hard_tanh log_sigmoid mish
    soft_shrink sparse_plus sparse_sigmoid sparsemax squareplus tanh_shrink threshold
    """,
    "keras.regularizers": """
    OrthogonalRegularizer orthogonal_regularizer
    """,
    "keras.utils": """
    Config CustomObjectScope FeatureSpace Progbar array_to_img
    audio_dataset_from_directory bounding_boxes custom_object_scope deserialize_keras_object
    disable_interactive_logging enable_interactive_logging get_custom_objects get_file
    get_registered_name get_registered_object get_source_inputs image_dataset_from_directory
    img_to_array is_interactive_logging_enabled is_keras_tensor legacy load_img model_to_dot
    plot_model register_keras_serializable save_img
    serialize_keras_object split_dataset standardize_dtype text_dataset_from_directory
    """,
    "keras.backend": """
    abs all any arange argmax argmin backend batch_dot batch_flatten batch_get_value
    batch_normalization batch_set_value bias_add binary_crossentropy
    binary_focal_crossentropy cast cast_to_floatx categorical_crossentropy
    categorical_focal_crossentropy clip concatenate constant conv1d conv2d conv2d_transpose
    conv3d cos count_params ctc_batch_cost ctc_decode ctc_label_dense_to_sparse cumprod
    cumsum depthwise_conv2d dot dropout dtype elu equal eval exp expand_dims eye
    flatten foldl foldr gather get_uid get_value gradients greater greater_equal
    hard_sigmoid in_top_k is_float_dtype is_int_dtype
    is_keras_tensor is_sparse l2_normalize less less_equal log map_fn max maximum mean min
    minimum moving_average_update name_scope ndim not_equal one_hot ones ones_like
    permute_dimensions pool2d pool3d pow prod random_bernoulli random_normal
    random_normal_variable random_uniform random_uniform_variable relu repeat
    repeat_elements reshape resize_images resize_volumes result_type reverse rnn round
    separable_conv2d set_epsilon set_floatx set_image_data_format set_value shape sigmoid
    sign sin softmax softplus softsign sparse_categorical_crossentropy spatial_2d_padding
    spatial_3d_padding sqrt square squeeze stack standardize_dtype std stop_gradient sum
    switch tanh temporal_padding tile to_dense transpose truncated_normal update update_add
    update_sub var variable zeros zeros_like
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
