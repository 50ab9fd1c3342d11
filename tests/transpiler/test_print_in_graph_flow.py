"""print inside graph branches and loops runs when they run, as many times as Python's."""

import runtime as rt
from transpiler import function


def greet_each_step(n):
    i = 0
    while i < n:
        print("step")
        i += 1
    return i


def greet_if_positive(x):
    if x > 0:
        print("positive")
    return x


def test_python_only_print_in_a_tensor_loop_runs_per_iteration(capsys):
    fn = function(greet_each_step)
    for n in (0, 1, 3):
        fn(rt.constant(n))
        assert capsys.readouterr().out == "step\n" * n


def test_python_only_print_in_a_tensor_branch_runs_when_taken(capsys):
    fn = function(greet_if_positive)
    fn(rt.constant(-1))
    assert capsys.readouterr().out == ""
    fn(rt.constant(2))
    assert capsys.readouterr().out == "positive\n"


def recursive_power(x, k):
    if k == 0:
        return 1
    return x * recursive_power(x, k - 1)


def test_recursion_on_a_python_depth_converts():
    assert int(function(recursive_power)(rt.constant(3), 4)) == 81
