"""eager2graph transpiler: rewrites Python control flow so functions run as graphs.

    from transpiler import function

    @function
    def f(x):
        if rt.reduce_sum(x) > 0:      # a tensor condition: becomes rt.cond in the graph
            x = x * 2
        return x

``to_code(f)`` shows the generated Python.
"""

from runtime import __version__  # one distribution, one version
from runtime import conversion
from transpiler.api import convert, do_not_convert, function, set_loop_options, to_code
from transpiler.explaining import explain
from transpiler.operators import calls
from transpiler.errors import (ConversionError, ConversionWarning, SourceUnavailableError,
                               UnrollWarning, UnsupportedSyntaxError)

# Dataset functions and Keras layers' call, which the runtime calls itself, are converted too,
# as TensorFlow applies AutoGraph to them: as a call from converted code would convert them.
conversion.set_converter(calls.converted)

__all__ = ["convert", "to_code", "explain", "function", "do_not_convert", "set_loop_options", "ConversionError",
           "SourceUnavailableError", "UnsupportedSyntaxError", "ConversionWarning", "UnrollWarning", "__version__"]
