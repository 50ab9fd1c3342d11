"""``rt.data.Dataset``: TensorFlow's ``tf.data.Dataset`` API over the nodes of this package.

A Dataset is an immutable description of a pipeline (a ``Node``); each method returns a new
one. Iterating it in Python computes eager tensors; inside a traced function a converted
``for`` loop (or ``rt.data.dataset_loop``, or ``reduce``) runs it as one graph loop.

Functions given to ``map``, ``filter``, ``flat_map``, ``reduce`` and the others run as given,
eagerly per element in Python iteration and traced once into the loop of a graph. TensorFlow converts
them with AutoGraph; here they pass through ``runtime.conversion.converted``, which the
transpiler sets up when it is imported (the runtime cannot import the transpiler).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from runtime import dtypes, tracing
from runtime.conversion import converted
from runtime.data import saving, structure
from runtime.data.batching import Batch, PaddedBatch, Unbatch
from runtime.data.combining import ChooseFromDatasets, Concatenate, FlatMap, Interleave, Zip
from runtime.data.generator import FromGenerator, generator_args
from runtime.data.grouping import GroupByWindow, bucket_key
from runtime.data.generator import signature as generator_signature
from runtime.data.graph_loop import dataset_loop, single_element, single_element_message
from runtime.data.iteration import Iterator, NumpyIterator
from runtime.data.node import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Node
from runtime.data.options import Options, WithOptions, options_of
from runtime.data.selecting import Shard, TakeWhile, Unique
from runtime.data.shuffling import Shuffle
from runtime.data.sources import Counter, Range, Tensors, TensorSlices
from runtime.data.transformations import (Enumerate, Filter, Map, Passthrough, Repeat, Scan,
                                          Skip, Take)
from runtime.data.windowing import Window
from runtime.errors import InvalidArgumentError
from runtime.ops.dispatch import convert_to_tensor
from runtime.tensor import EagerTensor, SymbolicTensor

def _node_of(value) -> Node:
    if not isinstance(value, Dataset):
        raise TypeError(f"expected an rt.data.Dataset, got {type(value).__name__}.")
    return value._node


class Dataset:
    """A sequence of elements, each a tensor or a structure (tuple, dict) of tensors."""

    def __init__(self, node: Node):
        self._node = node

    # -- sources ------------------------------------------------------------------------

    @staticmethod
    def from_tensor_slices(tensors, name: str | None = None) -> "Dataset":
        """One element per row of the first dimension of every component (a Python list is
        one tensor, as in TensorFlow; tuples and dicts are structure)."""
        return Dataset(TensorSlices(tensors))

    @staticmethod
    def from_tensors(tensors, name: str | None = None) -> "Dataset":
        """A dataset of a single element, ``tensors``."""
        return Dataset(Tensors(tensors))

    @staticmethod
    def range(*args, output_type=dtypes.int64, dtype=None, name: str | None = None) -> "Dataset":
        """``range(stop)``, ``range(start, stop)`` or ``range(start, stop, step)``, int64
        unless ``output_type`` (TensorFlow's name) or ``dtype`` says otherwise."""
        if not 1 <= len(args) <= 3:
            raise TypeError(f"Dataset.range takes 1 to 3 positional arguments (stop, or start, "
                            f"stop[, step]), got {len(args)}.")
        start, stop, step = (0, args[0], 1) if len(args) == 1 else (tuple(args) + (1,))[:3]
        return Dataset(Range(*(_bound(b) for b in (start, stop, step)),
                             dtype if dtype is not None else output_type))

    @staticmethod
    def zip(*datasets, name: str | None = None) -> "Dataset":
        """Elements of the datasets side by side: ``zip(a, b)`` or ``zip((a, b))`` gives
        tuples, ``zip({'x': a, 'y': b})`` dicts; ends with the shortest."""
        layout = datasets[0] if len(datasets) == 1 else tuple(datasets)
        if isinstance(layout, Dataset):
            layout = (layout,) if len(datasets) > 1 else layout
        if not structure.is_structure(layout) and not isinstance(layout, Dataset):
            raise TypeError(f"Dataset.zip takes datasets, or a tuple or dict of them; got "
                            f"{type(layout).__name__}.")
        nodes = [_node_of(d) for d in structure.flatten(layout)]
        return Dataset(Zip(layout, nodes))

    @staticmethod
    def from_generator(generator: Callable, output_types=None, output_shapes=None, args=None,
                       output_signature=None, name: str | None = None) -> "Dataset":
        """The elements ``generator(*args)`` yields, converted to ``output_signature`` (or
        ``output_types``/``output_shapes``) as TensorFlow converts them; each iteration calls
        the generator anew. Python only: a graph loop cannot run it (see
        ``runtime.data.generator``)."""
        spec = generator_signature(output_signature, output_types, output_shapes)
        return Dataset(FromGenerator(generator, spec, generator_args(args)))

    @staticmethod
    def counter(start=0, step=1, dtype=dtypes.int64, name: str | None = None) -> "Dataset":
        """``start, start + step, ...`` forever (int64 unless ``dtype`` says otherwise)."""
        return Dataset(Counter(start, step, dtype))

    @staticmethod
    def choose_from_datasets(datasets, choice_dataset: "Dataset",
                             stop_on_empty_dataset: bool = True) -> "Dataset":
        """Element ``k`` from ``datasets[c]``, ``c`` the ``k``-th (int64) choice; an exhausted
        dataset ends it, or with ``stop_on_empty_dataset=False`` its choices are skipped."""
        return Dataset(ChooseFromDatasets([_node_of(d) for d in datasets],
                                          _node_of(choice_dataset), stop_on_empty_dataset))

    # -- transformations ------------------------------------------------------------------

    def map(self, map_func: Callable, num_parallel_calls=None, deterministic=None,
            name: str | None = None) -> "Dataset":
        """``map_func`` applied to each element (a tuple element is unpacked into arguments)."""
        return Dataset(Map(self._node, converted(map_func),
                           parallel=num_parallel_calls is not None))

    def filter(self, predicate: Callable, name: str | None = None) -> "Dataset":
        """The elements for which ``predicate`` returns True (a scalar bool tensor)."""
        return Dataset(Filter(self._node, converted(predicate)))

    def flat_map(self, map_func: Callable, name: str | None = None) -> "Dataset":
        return Dataset(FlatMap(self._node, converted(map_func), _node_of))

    def interleave(self, map_func: Callable, cycle_length=None, block_length=None,
                   num_parallel_calls=None, deterministic=None,
                   name: str | None = None) -> "Dataset":
        """The datasets ``map_func`` makes, ``cycle_length`` open at a time, ``block_length``
        (default 1) elements from each in turn: TensorFlow's deterministic order. Without
        ``cycle_length`` (or with ``AUTOTUNE``) it is the number of CPUs this process may use,
        TensorFlow's default; parallel calls change nothing here (elements are computed in
        order)."""
        return Dataset(Interleave(self._node, converted(map_func), _node_of, cycle_length,
                                  1 if block_length is None else block_length))

    def window(self, size, shift=None, stride=1, drop_remainder: bool = False,
               name: str | None = None) -> "Dataset":
        """Windows of ``size`` elements (every ``stride``-th), one starting every ``shift``
        (default ``size``) elements; each is a dataset per component. The last ones may be
        shorter unless ``drop_remainder``. Use ``flat_map(lambda w: w.batch(size))`` to make
        them tensors."""
        return Dataset(Window(self._node, size, shift, stride, drop_remainder, Dataset))

    def scan(self, initial_state, scan_func: Callable, name: str | None = None) -> "Dataset":
        """``state, output = scan_func(state, element)`` over the elements; the outputs. The
        state keeps its structure and dtypes."""
        return Dataset(Scan(self._node, initial_state, converted(scan_func)))

    def take_while(self, predicate: Callable, name: str | None = None) -> "Dataset":
        """The elements before the first for which ``predicate`` is False."""
        return Dataset(TakeWhile(self._node, converted(predicate)))

    def shard(self, num_shards, index, name: str | None = None) -> "Dataset":
        """Elements ``index, index + num_shards, index + 2 * num_shards, ...``."""
        return Dataset(Shard(self._node, num_shards, index))

    def unique(self, name: str | None = None) -> "Dataset":
        """Each distinct element once, at its first occurrence (int32 or int64 elements)."""
        return Dataset(Unique(self._node))

    def take(self, count, name: str | None = None) -> "Dataset":
        """The first ``count`` elements (all of them for -1)."""
        return Dataset(Take(self._node, count))

    def skip(self, count, name: str | None = None) -> "Dataset":
        """All but the first ``count`` elements (none for -1)."""
        return Dataset(Skip(self._node, count))

    def repeat(self, count=None, name: str | None = None) -> "Dataset":
        """The elements ``count`` times over (forever for ``None`` or -1)."""
        return Dataset(Repeat(self._node, count))

    def enumerate(self, start=0, name: str | None = None) -> "Dataset":
        """``(index, element)`` pairs, the index int64 from ``start``."""
        return Dataset(Enumerate(self._node, start))

    def batch(self, batch_size, drop_remainder: bool = False, num_parallel_calls=None,
              deterministic=None, name: str | None = None) -> "Dataset":
        """Consecutive elements stacked ``batch_size`` at a time; the last batch may be
        shorter unless ``drop_remainder``."""
        return Dataset(Batch(self._node, batch_size, drop_remainder))

    def padded_batch(self, batch_size, padded_shapes=None, padding_values=None,
                     drop_remainder: bool = False, name: str | None = None) -> "Dataset":
        """Like ``batch``, each component padded (with 0, or ``padding_values``) to
        ``padded_shapes`` (``None`` dimensions: the longest in the batch)."""
        return Dataset(PaddedBatch(self._node, batch_size, padded_shapes, padding_values,
                                   drop_remainder))

    def rebatch(self, batch_size, drop_remainder: bool = False,
                name: str | None = None) -> "Dataset":
        """The same elements in batches of ``batch_size`` (the last may be shorter unless
        ``drop_remainder``): ``unbatch().batch(batch_size, drop_remainder)``, which is what
        TensorFlow's rebatch gives on one replica."""
        if isinstance(batch_size, (list, tuple)):
            raise NotImplementedError(
                "Dataset.rebatch with a list of batch sizes (one per replica) is not supported "
                "yet; give one batch size, or unbatch and batch the pieces yourself.")
        return self.unbatch().batch(batch_size, drop_remainder)

    def group_by_window(self, key_func: Callable, reduce_func: Callable, window_size=None,
                        window_size_func: Callable | None = None,
                        name: str | None = None) -> "Dataset":
        """Elements gathered by ``key_func`` (a scalar integer) into windows of
        ``window_size`` (or ``window_size_func(key)``); each full window, and at the end each
        partial one in the order of their keys, becomes the elements of
        ``reduce_func(key, window_dataset)``."""
        if (window_size is None) == (window_size_func is None):
            raise ValueError("Dataset.group_by_window: give exactly one of window_size and "
                             "window_size_func.")
        if window_size_func is None:
            size = int(np.asarray(window_size))
            window_size_func = lambda key: size  # noqa: E731 - one size for every key
        return Dataset(GroupByWindow(self._node, converted(key_func), converted(reduce_func),
                                     window_size_func, Dataset, _node_of))

    def bucket_by_sequence_length(self, element_length_func: Callable, bucket_boundaries,
                                  bucket_batch_sizes, padded_shapes=None, padding_values=None,
                                  pad_to_bucket_boundary: bool = False, no_padding: bool = False,
                                  drop_remainder: bool = False,
                                  name: str | None = None) -> "Dataset":
        """Batches of elements of similar length: an element of length ``n`` goes to the
        bucket ``[b_i, b_(i+1))`` holding ``n`` (``bucket_boundaries``: increasing; the first
        bucket starts at 0, the last never ends), each bucket is batched by its own
        ``bucket_batch_sizes`` entry and padded to its longest element (to the bucket's
        boundary minus one with ``pad_to_bucket_boundary``; not at all with ``no_padding``)."""
        boundaries = [int(b) for b in bucket_boundaries]
        sizes = [int(b) for b in bucket_batch_sizes]
        if len(sizes) != len(boundaries) + 1:
            raise ValueError(f"Dataset.bucket_by_sequence_length: bucket_batch_sizes needs one "
                             f"entry per bucket, len(bucket_boundaries) + 1 = "
                             f"{len(boundaries) + 1}, got {len(sizes)}.")
        if any(a >= b for a, b in zip(boundaries, boundaries[1:])):
            raise ValueError(f"Dataset.bucket_by_sequence_length: bucket_boundaries must "
                             f"increase, got {boundaries}.")
        bucket_of = bucket_key(boundaries)
        length_func = converted(element_length_func)

        def key(*element):
            return np.int64(bucket_of(int(np.asarray(length_func(*element)))))

        def batched(bucket, window):
            if type(bucket) is SymbolicTensor:
                # The element spec is traced with a symbolic key: any bucket's batches have
                # it, but for a static batch size only one size can give.
                one_size = drop_remainder and len(set(sizes)) == 1
                return window.padded_batch(sizes[0], padded_shapes, padding_values, one_size) \
                    if not no_padding else window.batch(sizes[0], one_size)
            bucket = int(bucket)
            if no_padding:
                return window.batch(sizes[bucket], drop_remainder)
            shapes = padded_shapes
            if pad_to_bucket_boundary:
                if bucket >= len(boundaries):
                    raise InvalidArgumentError(
                        f"Dataset.bucket_by_sequence_length: with pad_to_bucket_boundary=True "
                        f"every element must be shorter than the last boundary "
                        f"({boundaries[-1]}).")
                shapes = structure.map_leaves(
                    lambda spec: [boundaries[bucket] - 1 if d is None else d
                                  for d in spec.shape], padded_shapes or window.element_spec)
            return window.padded_batch(sizes[bucket], shapes, padding_values, drop_remainder)

        return self.group_by_window(key, batched, window_size_func=lambda bucket: sizes[bucket])

    def unbatch(self, name: str | None = None) -> "Dataset":
        """Each element split along its first dimension."""
        return Dataset(Unbatch(self._node))

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration: bool = True,
                name: str | None = None) -> "Dataset":
        """Elements in random order, through a buffer of ``buffer_size`` (see
        ``runtime.data.shuffling``: TensorFlow's semantics, not its exact orders)."""
        return Dataset(Shuffle(self._node, buffer_size, seed, reshuffle_each_iteration))

    def concatenate(self, dataset: "Dataset", name: str | None = None) -> "Dataset":
        return Dataset(Concatenate(self._node, _node_of(dataset)))

    def prefetch(self, buffer_size=None, name: str | None = None) -> "Dataset":
        """The same dataset: elements are computed when asked for."""
        return Dataset(Passthrough(self._node, "prefetch"))

    def cache(self, filename: str = "", name: str | None = None) -> "Dataset":
        """The same dataset: in-memory sources need no cache."""
        return Dataset(Passthrough(self._node, "cache"))

    def save(self, path, compression: str | None = None, shard_func=None,
             checkpoint_args=None) -> None:
        """Writes the elements under the directory ``path``, for ``Dataset.load`` (in
        eager2graph's own files: see ``runtime.data.saving``)."""
        if shard_func is not None or checkpoint_args is not None:
            raise NotImplementedError("Dataset.save writes one set of files: shard_func and "
                                      "checkpoint_args are not supported; leave them out.")
        saving.save(self._node, path, compression)

    @staticmethod
    def load(path, element_spec=None, compression: str | None = None, reader_func=None,
             wait: bool = False) -> "Dataset":
        """The dataset ``save`` wrote under ``path`` (compressed or not, as it was written:
        ``compression`` need not say; ``wait`` is for TensorFlow's saves still being
        written, which this one never is)."""
        if reader_func is not None:
            raise NotImplementedError("Dataset.load reads what Dataset.save wrote in one "
                                      "piece: reader_func is not supported; leave it out.")
        return Dataset(saving.load(path, element_spec))

    def with_options(self, options: Options, name: str | None = None) -> "Dataset":
        """The same dataset, with ``options`` recorded: they tune how TensorFlow runs a
        pipeline and change nothing here (see ``runtime.data.options``)."""
        return Dataset(WithOptions(self._node, options))

    def options(self) -> Options:
        """The options given to ``with_options`` anywhere in the pipeline (later ones win)."""
        return options_of(self._node)

    def apply(self, transformation_func: Callable[["Dataset"], "Dataset"]) -> "Dataset":
        return transformation_func(self)

    # -- consuming ----------------------------------------------------------------------

    def reduce(self, initial_state, reduce_func: Callable):
        """``state = reduce_func(state, element)`` over every element; the final state.
        Inside a traced function this is one graph loop."""
        reduce_func = converted(reduce_func)
        state = structure.map_leaves(convert_to_tensor, initial_state)
        if tracing.is_tracing():
            (final,) = dataset_loop(self, lambda element, s: (reduce_func(s, element),), (state,),
                                    names=["reduce_state"])
            return final
        for element in self:
            state = structure.checked_state("reduce", "reduce_func", state,
                                            reduce_func(state, element))
        return state

    def get_single_element(self, name: str | None = None) -> Any:
        """The only element; an ``InvalidArgumentError`` if there is none or more than one.
        Inside a traced function the element is computed in the graph (no loop)."""
        if tracing.is_tracing():
            return single_element(self)
        elements = iter(self)
        first = next(elements, _NOTHING)
        if first is _NOTHING or next(elements, _NOTHING) is not _NOTHING:
            raise InvalidArgumentError(single_element_message(
                "is empty" if first is _NOTHING else "has more than one element"))
        return first

    def __iter__(self) -> Iterator:
        return Iterator(self._node)

    def as_numpy_iterator(self) -> NumpyIterator:
        return NumpyIterator(self._node)

    @property
    def element_spec(self) -> Any:
        return self._node.spec()

    def cardinality(self) -> EagerTensor:
        """The number of elements as an int64 scalar, or ``INFINITE_CARDINALITY`` (-1) or
        ``UNKNOWN_CARDINALITY`` (-2)."""
        return EagerTensor(np.asarray(self._node.cardinality(), dtype=np.int64))

    def __len__(self) -> int:
        card = self._node.cardinality()
        if card == INFINITE_CARDINALITY:
            raise TypeError("The dataset is infinite.")
        if card == UNKNOWN_CARDINALITY:
            raise TypeError("The dataset length is unknown.")
        return card

    def __bool__(self) -> bool:
        return True  # not len(): an infinite or unknown dataset is still a dataset

    def __repr__(self) -> str:
        try:
            spec = self.element_spec
        except Exception:  # noqa: BLE001 -- a repr must not fail on a map it cannot trace
            spec = "<not traceable>"
        return f"<{_class_name(self._node)} element_spec={spec}>"


# The class names TensorFlow shows for datasets whose node is named differently here.
_TENSORFLOW_NAMES = {"TensorSlices": "_TensorSliceDataset", "Tensors": "_TensorDataset",
                     "FromGenerator": "_FlatMapDataset", "Enumerate": "_ZipDataset",
                     "WithOptions": "_OptionsDataset", "prefetch": "_PrefetchDataset",
                     "cache": "CacheDataset", "parallel map": "_ParallelMapDataset"}


def _class_name(node) -> str:
    """The dataset's class name as TensorFlow prints it (``<_BatchDataset element_spec=...>``),
    so that a program printing a dataset prints what it prints with TensorFlow."""
    name = type(node).__name__
    if name == "Passthrough":
        name = node.label
    elif getattr(node, "parallel", False):
        name = "parallel map"
    return _TENSORFLOW_NAMES.get(name, f"_{name}Dataset")


_NOTHING = object()


def get_single_element(dataset: Dataset) -> Any:
    """``tf.data.experimental.get_single_element``: ``dataset.get_single_element()``."""
    return dataset.get_single_element()


def _bound(value):
    """A range bound as a Python int when it is concrete."""
    if isinstance(value, EagerTensor):
        return int(value.numpy())
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return int(value)
    if isinstance(value, float) or (isinstance(value, np.ndarray) and value.dtype.kind == "f"):
        raise TypeError(f"Dataset.range takes integer bounds, got {value!r}.")
    return value


__all__ = ["Dataset", "get_single_element"]
