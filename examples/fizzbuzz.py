"""FizzBuzz: Python control flow on tensors, eagerly and converted into a graph loop.

Mirrors "Dynamic control flow" (seed 004): the eager version runs Python's `for` and `if` on
concrete tensor values; the converted version loops over `range(n)` with a tensor `n`, so the
whole loop, the branches and the prints are one graph, run with any `n` without retracing.
"""

import argparse

import runtime as rt
from transpiler import function, to_code


def fizzbuzz_eager(max_num):
    counter = rt.constant(0)
    max_num = rt.convert_to_tensor(max_num)
    for num in range(1, max_num.numpy() + 1):
        num = rt.constant(num)
        if int(num % 3) == 0 and int(num % 5) == 0:
            print('FizzBuzz')
        elif int(num % 3) == 0:
            print('Fizz')
        elif int(num % 5) == 0:
            print('Buzz')
        else:
            print(num.numpy())
        counter += 1
    return counter


def fizzbuzz(max_num):
    counter = 0
    for num in range(1, max_num + 1):
        if num % 3 == 0 and num % 5 == 0:
            print('FizzBuzz')
        elif num % 3 == 0:
            print('Fizz')
        elif num % 5 == 0:
            print('Buzz')
        else:
            print(num)
        counter += 1
    return counter


def main(quick: bool = False) -> None:
    print("-- eager, 15:")
    fizzbuzz_eager(15)
    graph_fizzbuzz = function(fizzbuzz)
    print("-- graph, 15:")
    print("counted", graph_fizzbuzz(rt.constant(15)).numpy())
    print("-- the same graph, 5:")
    graph_fizzbuzz(rt.constant(5))
    print("graphs traced:", graph_fizzbuzz.tracing_count)
    print(to_code(fizzbuzz))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="(no effect: this example is fast)")
    main(parser.parse_args().quick)
