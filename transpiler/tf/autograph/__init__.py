"""``tf.autograph``: the transpiler under TensorFlow's names (``to_graph`` is
``transpiler.convert``, ``to_code`` is ``transpiler.to_code``)."""

from transpiler import api as _api
from transpiler.tf._names import missing as _missing
from transpiler.tf.autograph import experimental  # noqa: F401

to_code = _api.to_code
to_graph = _api.convert

__getattr__ = _missing("tf.autograph")
