"""The ``ag__`` namespace: the functions generated code calls.

Each runs plain Python on Python values, so converted code behaves exactly as before on them,
and builds graph ops (``rt.cond``, ``rt.while_loop``, ...) on symbolic tensors.
"""

import os

from runtime.source_location import register_internal_directory
from transpiler.operators.asserts import assert_stmt
from transpiler.operators.builtins import (abs_ as abs, all_ as all, any_ as any,  # noqa: A001
                                           bool_ as bool, enumerate_ as enumerate,
                                           float_ as float, int_ as int, len_ as len, max_ as max,
                                           min_ as min, print_ as print, range_ as range,
                                           round_ as round, zip_ as zip, OVERLOADS)
from transpiler.operators.calls import converted, do_not_convert
from transpiler.operators.control_flow import for_stmt, if_exp, if_stmt, loop_options, while_stmt
from transpiler.operators.formatting import field, formatted, percent_format, str_format
from transpiler.operators.logical import and_, chained_compare, contains, not_, or_
from transpiler.operators.math_calls import namespace as math  # noqa: F401
from transpiler.operators.variables import Undefined, UndefinedReturnValue, ld, return_value

# Frames in the transpiler are never "the user's line" in graph locations and errors.
register_internal_directory(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

BUILTIN_OVERLOADS = {name: name for name in OVERLOADS}
