"""Non-strict execution: a graph runs only what its results and effects need.

Mirrors "Non-strict execution" (seed 002): the unused `gather` of an out-of-range index raises
eagerly, but the graph never runs it, so no error.
"""

import argparse

import runtime as rt
from transpiler import function


def unused_return_eager(x):
    # Get index 1 will fail when `len(x) == 1`
    rt.gather(x, [1])  # unused
    return x


@function
def unused_return_graph(x):
    rt.gather(x, [1])  # unused
    return x


def main(quick: bool = False) -> None:
    try:
        print(unused_return_eager(rt.constant([0.0])))
    except rt.errors.InvalidArgumentError as e:
        # All operations are run during eager execution so an error is raised.
        print(f"{type(e).__name__}: {e}")
    # Only needed operations are run during graph execution. The error is not raised.
    print(unused_return_graph(rt.constant([0.0])))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="(no effect: this example is fast)")
    main(parser.parse_args().quick)
