"""Calls: module-level helpers with their own control flow (converted recursively), lambdas,
local functions, closures, keyword and starred arguments, higher-order functions."""

from .harness import case

SMALL = [(3,), (0,), (-2,), (1,), (-1,), (7,), (-9,), (12,)]
COUNTS = [(0,), (1,), (2,), (5,), (8,), (-3,)]


def _clip(v, lo, hi):
    if v < lo:
        return lo
    elif v > hi:
        return hi
    return v


def _square(v):
    return v * v


def _negate(v):
    return -v


def _is_even(v):
    return v % 2 == 0


def _sum_to(n):
    s = 0
    for i in range(n):
        s += i
    return s


def _smallest_divisor(n):
    d = 2
    while d * d <= n:
        if n % d == 0:
            break
        d += 1
    if d * d > n:
        d = n
    return d


def _power(x, k):
    if k == 0:
        return 1
    return x * _power(x, k - 1)


def _apply(f, v):
    return f(v)


def _apply_twice(f, v):
    return f(f(v))


def _divmod_positive(v, d):
    return v // d, v % d


def _loud_double(v):
    print("doubling", v)
    return v * 2


def _count_down_steps(n):
    steps = 0
    while n > 0:
        n -= 2
        steps += 1
    return steps


_triple = lambda v: v * 3  # noqa: E731 (a module-level lambda is the point of the sample)


def call_helper_with_if(x):
    return _clip(x, -3, 3)


def call_helper_with_loop(n):
    return _sum_to(n) + 1


def call_in_loop(n):
    s = 0
    for i in range(n):
        s += _square(i)
    return s


def call_in_condition(x):
    if _is_even(x):
        r = x // 2
    else:
        r = 3 * x + 1
    return r


def nested_calls(x):
    return _clip(_square(x), 0, 50)


def call_helper_with_while_break(n):
    return _smallest_divisor(n)


def recursion_on_python_depth(x, k):
    return _power(x, k)


def lambda_local(x):
    f = lambda v: v * 3 + 1  # noqa: E731
    return f(x) + f(2)


def lambda_with_ternary(x):
    f = lambda v: v if v > 0 else -v  # noqa: E731
    return f(x) + f(x - 5)


def lambda_passed_to_helper(x):
    return _apply(lambda v: v - 1, x), _apply_twice(lambda w: w * 2, x)


def module_level_lambda(x):
    return _triple(x) + _triple(1)


def keyword_arguments(x):
    return _clip(x, hi=4, lo=-4)


def starred_arguments(x, y):
    bounds = (y - 2, y + 2)
    return _clip(x, *bounds)


def local_function(x):
    def inner(v):
        if v > 0:
            return v * 2
        return -v
    return inner(x) + inner(x - 3)


def closure_over_python_value(x, k):
    def add_k(v):
        return v + k
    return add_k(x), add_k(add_k(x))


def helper_that_prints(x):
    return _loud_double(x) + 1


def helper_returns_tuple(x):
    q, r = _divmod_positive(x, 7)
    return q * 7 + r, q, r


def helper_in_while_test(n):
    i = 0
    while _square(i) < n:
        i += 1
    return i


def helper_called_in_both_branches(x):
    if x > 0:
        y = _square(x)
    else:
        y = _negate(x)
    return y


def helper_with_loop_called_in_loop(n):
    total = 0
    for i in range(n):
        total += _count_down_steps(i)
    return total


def higher_order_over_python_list(x):
    out = []
    for f in [_square, _negate, _triple]:
        out.append(f(x))
    return out


def list_comprehension_of_calls(x):
    return [f(x) for f in (_square, _negate)]


def function_chosen_by_python_flag(x, use_square):
    f = _square if use_square else _negate
    return f(x)


def builtin_passed_as_value(x, y):
    return _apply(abs, x) + _apply(abs, y)


CASES = [
    case(call_helper_with_if, SMALL),
    case(call_helper_with_loop, COUNTS),
    case(call_in_loop, COUNTS),
    case(call_in_condition, SMALL),
    case(nested_calls, SMALL),
    case(call_helper_with_while_break, [(2,), (9,), (13,), (15,), (49,), (97,), (1,), (0,)]),
    case(recursion_on_python_depth, [(2, 0), (2, 3), (-3, 3), (5, 4), (0, 2)], tensor_params=(0,)),
    case(lambda_local, SMALL),
    case(lambda_with_ternary, SMALL),
    case(lambda_passed_to_helper, SMALL),
    case(module_level_lambda, SMALL),
    case(keyword_arguments, SMALL),
    case(starred_arguments, [(0, 0), (5, 0), (-5, 0), (3, 4), (9, 1)]),
    case(local_function, SMALL),
    case(closure_over_python_value, [(3, 1), (0, -4), (-2, 10)], tensor_params=(0,)),
    case(helper_that_prints, SMALL),
    case(helper_returns_tuple, [(0,), (6,), (7,), (50,), (-8,)]),
    case(helper_in_while_test, [(0,), (1,), (2,), (10,), (50,), (-4,)]),
    case(helper_called_in_both_branches, SMALL),
    case(helper_with_loop_called_in_loop, COUNTS),
    case(higher_order_over_python_list, SMALL),
    case(list_comprehension_of_calls, SMALL),
    case(function_chosen_by_python_flag, [(3, True), (3, False), (-4, True)], tensor_params=(0,)),
    case(builtin_passed_as_value, [(3, -4), (0, 0), (-7, 2)]),
]
