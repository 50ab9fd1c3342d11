"""``rt.data``: TensorFlow's ``tf.data`` for in-memory data.

    ds = rt.data.Dataset.from_tensor_slices((x, y)).shuffle(100, seed=1).batch(32)
    for xb, yb in ds:            # eager tensors
        ...

Inside a converted function the same ``for`` loop is one graph loop (see ``graph_loop``).
"""

from runtime.data import experimental
from runtime.data.dataset import Dataset, get_single_element
from runtime.data.graph_loop import StagedDataset, dataset_loop, staged
from runtime.data.iteration import Iterator, NumpyIterator
from runtime.data.node import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY
from runtime.data.options import AutoShardPolicy, Options
from runtime.data.plan import StagingError
from runtime.data.windowing import DatasetSpec


__all__ = ["AUTOTUNE", "Dataset", "DatasetSpec", "INFINITE_CARDINALITY", "Iterator",
           "NumpyIterator", "Options", "StagedDataset", "StagingError", "UNKNOWN_CARDINALITY",
           "dataset_loop", "experimental", "staged"]
