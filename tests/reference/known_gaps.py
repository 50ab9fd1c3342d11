"""Reference cases the transpiler does not handle yet, by cause (tracked in issue 3).

Each is an expected failure (strict): when a fix makes one pass, the suite says so and
the entry must be removed. Python-value conversion is exact for all of them; the gaps
are in graph mode only, except where noted."""

REASONS = {
}

KNOWN_GAPS = {
}
