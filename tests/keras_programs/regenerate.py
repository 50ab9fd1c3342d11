"""Rebuilds ``expected.json`` with real TensorFlow (2.21, Keras 3):

    cd /work/main && /path/to/tf-python -m tests.keras_programs.regenerate [name ...]

Each program runs once with ``import tensorflow as tf``; what it returns and what it prints
on standard output (Keras' progress lines, cleaned of colours and redraws) is recorded. Given
names, only those programs are rerun and the rest kept.
"""

from __future__ import annotations

import json
import os
import sys
import warnings

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tensorflow as tf  # noqa: E402

from tests import keras_programs  # noqa: E402


def main(names: list[str]) -> None:
    tf.get_logger().setLevel("ERROR")
    warnings.simplefilter("ignore")  # Keras' own advice is not part of a program's output
    everything = keras_programs.programs()
    expected = keras_programs.load_expected() \
        if names and keras_programs.EXPECTED.exists() else {}
    for name, fn in everything.items():
        if names and name not in names:
            continue
        tf.keras.backend.clear_session()
        expected[name] = keras_programs.run(fn, tf)
        record = expected[name]
        print(f"{name}: {record.get('error', 'ok')} {record.get('message', '')}")
    expected = {name: expected[name] for name in everything if name in expected}
    keras_programs.EXPECTED.write_text(json.dumps(
        {"_tensorflow": tf.__version__, "_keras": tf.keras.__version__, **expected}, indent=1,
        sort_keys=False) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
