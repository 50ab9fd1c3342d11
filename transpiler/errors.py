"""Exceptions raised while converting user code.

They are typed so callers can tell a conversion problem (the user's code is
outside what the transpiler handles) from a bug in the transpiler itself.
Every message is a full sentence that names the construct, the user's
``file:line`` where known, and what to do about it.
"""


class ConversionError(Exception):
    """Base class for problems found while converting a user function."""


class UnsupportedSyntaxError(ConversionError, NotImplementedError):
    """The function uses a construct the transpiler cannot convert (e.g. generators).

    Also a ``NotImplementedError`` because the construct is valid Python that
    is simply not handled, not a mistake in the user's code.
    """


class SourceUnavailableError(ConversionError, ValueError):
    """The source code of the function cannot be read, so it cannot be parsed.

    Also a ``ValueError`` because the problem lies in the object handed to the
    transpiler (a builtin, or a function created by ``exec``), not in its code.
    """


class ConversionWarning(UserWarning):
    """Converted code runs, but not as the user probably meant: a function that runs as plain
    Python because its source cannot be read, or a construct that cannot be staged as written."""


class UnrollWarning(ConversionWarning):
    """A Python loop ran while tracing and unrolled into a very large graph, which is slow to
    trace and to optimize; a tensor bound would make it one graph loop."""
