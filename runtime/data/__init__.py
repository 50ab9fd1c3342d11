"""``rt.data``: TensorFlow's ``tf.data`` for in-memory data.

    ds = rt.data.Dataset.from_tensor_slices((x, y)).shuffle(100, seed=1).batch(32)
    for xb, yb in ds:            # eager tensors
        ...

Inside a converted function the same ``for`` loop is one graph loop (see ``graph_loop``).
"""

from types import SimpleNamespace

from runtime.data.dataset import Dataset, get_single_element
from runtime.data.graph_loop import StagedDataset, dataset_loop, staged
from runtime.data.iteration import Iterator, NumpyIterator
from runtime.data.node import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY
from runtime.data.options import AutoShardPolicy, Options
from runtime.data.plan import StagingError
from runtime.data.windowing import DatasetSpec


def _cardinality(dataset: Dataset):
    return dataset.cardinality()


experimental = SimpleNamespace(AUTOTUNE=AUTOTUNE, INFINITE_CARDINALITY=INFINITE_CARDINALITY,
                               UNKNOWN_CARDINALITY=UNKNOWN_CARDINALITY, cardinality=_cardinality,
                               AutoShardPolicy=AutoShardPolicy,
                               choose_from_datasets=Dataset.choose_from_datasets,
                               get_single_element=get_single_element)

__all__ = ["AUTOTUNE", "Dataset", "DatasetSpec", "INFINITE_CARDINALITY", "Iterator",
           "NumpyIterator", "Options", "StagedDataset", "StagingError", "UNKNOWN_CARDINALITY",
           "dataset_loop", "experimental", "staged"]
