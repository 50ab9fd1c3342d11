"""What tracing did with each line: `transpiler.explain` on a function that mixes graph work,
Python that runs only while tracing, an unrolled loop, and ops the optimizer removes.

    python examples/explain.py
    python -m transpiler examples/explain.py:smooth --args "f32[3], 2, False" --explain

The command line prints the same report as `print(transpiler.explain(...))` below.
"""

import argparse

import runtime as rt
import transpiler


@transpiler.function
def smooth(x, steps, verbose):
    print("tracing smooth")
    total = rt.zeros_like(x)
    for _ in range(steps):
        total += rt.tanh(x)
    if verbose:
        rt.print("total:", total)
    if rt.reduce_sum(total) > 0:
        total = total * 0.5
    unused = rt.exp(x)
    scale = rt.constant(2.0) * 3.0
    return total * scale


def main(quick: bool = False) -> None:
    x = rt.constant([1.0, -0.5, 2.0])
    print("first call:")
    print(smooth(x, 2, False))   # traces: the Python print runs now
    print("second call:")
    print(smooth(x, 2, False))   # runs the graph: nothing printed while tracing
    print()
    print(transpiler.explain(smooth, rt.TensorSpec([3], rt.float32), 2, False))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="(no effect: this example is fast)")
    main(parser.parse_args().quick)
