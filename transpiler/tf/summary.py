"""``tf.summary``: accepted, writing nothing (``runtime.summaries``: event files need
TensorFlow's summary writer)."""

from runtime import summaries as _summaries
from transpiler.tf._names import export as _export, missing as _missing

_export(globals(), _summaries, """
    SummaryWriter audio create_file_writer create_noop_writer flush histogram image record_if
    scalar text
""")

__getattr__ = _missing("tf.summary")
