"""Static analyses of one function, run on gast trees before and between conversions.

Modules, in dependency order:

* ``annotations``: typed per-node annotations (``Anno`` keys and accessors).
* ``qual_names``: ``QN``, the names the analyses reason about.
* ``cfg``: control-flow graph of a function and the fixed-point solver.
* ``activity``: names each statement/block reads, modifies and deletes.
* ``reaching_definitions``: names (maybe) defined at each statement and read.
* ``liveness``: names live before/after each statement.

Each analysis covers only the given function's own scope; a nested def is
one opaque statement, to be analysed by calling ``resolve`` on it.
"""
