"""``tf.data.experimental``: the constants, and the transformations TensorFlow kept there from
before they were ``Dataset`` methods (``ds.apply(tf.data.experimental.unbatch())`` in older
programs). Each transformation is the method of the same name, applied to a dataset."""

from __future__ import annotations

from typing import Callable

from runtime import dtypes
from runtime.data.dataset import Dataset, get_single_element  # noqa: F401  (its name here)
from runtime.data.node import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY  # noqa: F401
from runtime.data.options import AutoShardPolicy  # noqa: F401
from runtime.data.selecting import AssertCardinality

Transformation = Callable[[Dataset], Dataset]

choose_from_datasets = Dataset.choose_from_datasets
load = Dataset.load


def save(dataset: Dataset, path, compression=None, shard_func=None, checkpoint_args=None) -> None:
    dataset.save(path, compression, shard_func, checkpoint_args)


def cardinality(dataset: Dataset):
    return dataset.cardinality()


def assert_cardinality(expected_cardinality) -> Transformation:
    """The dataset with the cardinality given, checked while it is iterated."""
    return lambda dataset: Dataset(AssertCardinality(dataset._node, expected_cardinality))


def Counter(start=0, step=1, dtype=dtypes.int64) -> Dataset:  # noqa: N802 (TensorFlow's name)
    return Dataset.counter(start, step, dtype)


def unbatch() -> Transformation:
    return lambda dataset: dataset.unbatch()


def enumerate_dataset(start=0) -> Transformation:
    return lambda dataset: dataset.enumerate(start)


def scan(initial_state, scan_func: Callable) -> Transformation:
    return lambda dataset: dataset.scan(initial_state, scan_func)


def group_by_window(key_func: Callable, reduce_func: Callable, window_size=None,
                    window_size_func=None) -> Transformation:
    return lambda dataset: dataset.group_by_window(key_func, reduce_func, window_size,
                                                   window_size_func)


def bucket_by_sequence_length(element_length_func: Callable, bucket_boundaries,
                              bucket_batch_sizes, padded_shapes=None, padding_values=None,
                              pad_to_bucket_boundary: bool = False, no_padding: bool = False,
                              drop_remainder: bool = False) -> Transformation:
    return lambda dataset: dataset.bucket_by_sequence_length(
        element_length_func, bucket_boundaries, bucket_batch_sizes, padded_shapes=padded_shapes,
        padding_values=padding_values, pad_to_bucket_boundary=pad_to_bucket_boundary,
        no_padding=no_padding, drop_remainder=drop_remainder)


def map_and_batch(map_func: Callable, batch_size, num_parallel_batches=None,
                  drop_remainder: bool = False, num_parallel_calls=None) -> Transformation:
    """``map`` then ``batch`` (TensorFlow fused them; the elements are the same)."""
    return lambda dataset: dataset.map(map_func).batch(batch_size, drop_remainder=drop_remainder)


def parallel_interleave(map_func: Callable, cycle_length, block_length=1, sloppy=False,
                        buffer_output_elements=None, prefetch_input_elements=None
                        ) -> Transformation:
    """``interleave``; ``sloppy=True`` allowed TensorFlow any order, and this is one of them."""
    return lambda dataset: dataset.interleave(map_func, cycle_length=cycle_length,
                                              block_length=block_length)


def shuffle_and_repeat(buffer_size, count=None, seed=None) -> Transformation:
    """Shuffled anew on each of ``count`` passes (forever when None)."""
    return lambda dataset: dataset.shuffle(buffer_size, seed=seed).repeat(count)


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    raise AttributeError(f"tf.data.experimental.{name} is not supported by eager2graph yet; the "
                         f"README's 'TensorFlow programs' section lists what tf.data has.")
