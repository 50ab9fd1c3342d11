"""Rebuilds ``expected.json`` with real TensorFlow:

    cd /work/main && /path/to/tf-python -m tests.tf_programs.regenerate [name ...]

Each program runs once with ``import tensorflow as tf``; what it returns and what it prints
(``print`` and ``tf.print``, which TensorFlow writes from C++, so both file descriptors are
captured) is recorded. Given names, only those programs are rerun and the rest kept.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tensorflow as tf  # noqa: E402

from tests import tf_programs  # noqa: E402


@contextlib.contextmanager
def file_descriptors():
    """Captures everything written to standard output and error, by Python and by C++, in
    the order written."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    text = []
    with tempfile.TemporaryFile() as sink:
        os.dup2(sink.fileno(), 1)
        os.dup2(sink.fileno(), 2)
        streams = sys.stdout, sys.stderr
        python_stream = open(os.dup(1), "w", buffering=1)  # line-buffered: keeps the order
        sys.stdout = sys.stderr = python_stream
        try:
            yield lambda: text[0]
        finally:
            python_stream.flush()
            sys.stdout, sys.stderr = streams
            python_stream.close()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])
            sink.seek(0)
            text.append(sink.read().decode())


def main(names: list[str]) -> None:
    tf.get_logger().setLevel("ERROR")
    everything = tf_programs.programs()
    expected = tf_programs.load_expected() if names and tf_programs.EXPECTED.exists() else {}
    for name, fn in everything.items():
        if names and name not in names:
            continue
        expected[name] = tf_programs.run(fn, tf, capture=file_descriptors)
        status = expected[name].get("error", "ok")
        print(f"{name}: {status}")
    expected = {name: expected[name] for name in everything if name in expected}
    tf_programs.EXPECTED.write_text(json.dumps(
        {"_tensorflow": tf.__version__, **expected}, indent=1, sort_keys=False) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
