"""Python side effects run while tracing; `rt.print` runs on every call.

Mirrors "Executing Python side effects" (seeds 002, 003): `get_MSE` prints "Calculating MSE!"
once for three calls, and three times with `rt.config.run_functions_eagerly(True)`;
`transpiler.explain` then shows which lines ran only while tracing.
"""

import argparse

import runtime as rt
from transpiler import explain, function


@function
def get_MSE(y_true, y_pred):
    print("Calculating MSE!")
    sq_diff = rt.pow(y_true - y_pred, 2)
    return rt.reduce_mean(sq_diff)


@function
def get_MSE_logged(y_true, y_pred):
    rt.print("Calculating MSE (rt.print, every call)")
    return rt.reduce_mean(rt.pow(y_true - y_pred, 2))


def main(quick: bool = False) -> None:
    rt.random.set_seed(7)
    y_true = rt.random.uniform([5], maxval=10, dtype=rt.int32)
    y_pred = rt.random.uniform([5], maxval=10, dtype=rt.int32)
    print(y_true)
    print(y_pred)
    print("graph:", get_MSE(y_true, y_pred))

    print("-- three graph calls:")
    for _ in range(3):
        error = get_MSE(y_true, y_pred)

    print("-- three eager calls (run_functions_eagerly):")
    rt.config.run_functions_eagerly(True)
    try:
        for _ in range(3):
            error = get_MSE(y_true, y_pred)
    finally:
        rt.config.run_functions_eagerly(False)  # don't forget to set it back
    print("eager:", error)

    print("-- rt.print is part of the graph:")
    for _ in range(3):
        get_MSE_logged(y_true, y_pred)

    print("-- transpiler.explain lists what each line became (it traces once more):")
    print(explain(get_MSE, y_true, y_pred))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="(no effect: this example is fast)")
    main(parser.parse_args().quick)
