"""for loops: over range(tensor) (staged), over Python lists/tuples/dicts (unrolled), enumerate, zip."""

from .harness import case

COUNTS = [(0,), (1,), (2,), (5,), (8,), (-3,)]
SMALL = [(3,), (0,), (-2,), (1,), (7,)]
WEIGHTS = [1, 2, 3]


def sum_range(n):
    s = 0
    for i in range(n):
        s += i
    return s


def sum_range_start_stop(a, b):
    s = 0
    for i in range(a, b):
        s += i
    return s


def sum_range_step(n):
    s = 0
    for i in range(1, n, 3):
        s += i
    return s


def negative_step(n):
    s = 0
    for i in range(n, 0, -2):
        s = s * 2 + i
    return s


def over_python_list(x):
    for w in [1, 2, 3]:
        x = x * 2 + w
    return x


def over_module_list(x):
    s = 0
    for w in WEIGHTS:
        s += w * x
    return s


def with_enumerate(x):
    s = 0
    for i, w in enumerate([5, 3, 1]):
        s += i * w * x
    return s


def with_enumerate_start(x):
    s = x
    for i, w in enumerate([4, -2], start=10):
        s = s + i - w
    return s


def with_zip(x):
    s = 0
    for a, b in zip([1, 2, 3], [4, 5, 6]):
        s += a * x - b
    return s


def over_tuple(x):
    out = 0
    for sgn in (1, -1, 1):
        out = out * 3 + sgn * x
    return out


def over_dict_items(x):
    s = 0
    for key, value in {"a": 1, "b": 2, "c": 5}.items():
        s += value * x + len(key)
    return s


def over_string(x):
    for ch in "abc":
        x = x + ord(ch) % 3
    return x


def nested_ranges(n):
    s = 0
    for i in range(n):
        for j in range(i):
            s += i * j
    return s


def if_inside_for(n):
    evens = 0
    odds = 0
    for i in range(n):
        if i % 2 == 0:
            evens += i
        else:
            odds += i
    return evens, odds


def iterate_used_after_loop(n):
    count = 0
    for i in range(n):
        count += 1
    return i, count


def python_range_tensor_body(x):
    for i in range(4):
        x = x + i
    return x


def range_of_python_len(x, xs):
    for i in range(len(xs)):
        x = x * 2 + xs[i]
    return x


def body_local_variable(n):
    total = 0
    for i in range(n):
        square = i * i
        total += square
    return total


def reverse_range(n):
    acc = 0
    for i in range(n - 1, -1, -1):
        acc = (acc * 3 + i) % 1000
    return acc


def over_list_of_tensors(x, y):
    s = 0
    for v in [x, y, x + y]:
        s += v * v
    return s


def two_loop_variables(n):
    a = 0
    b = 1
    for i in range(n):
        a, b = b, a + b
    return a, b


def python_outer_staged_inner(n):
    s = 0
    for k in [1, 2, 3]:
        for i in range(n):
            s += k * i
    return s


def staged_outer_python_inner(n):
    s = 0
    for i in range(n):
        for k in (2, 3):
            s += i * k
    return s


def python_bound_tensor_body(n, x):
    for i in range(n):
        x = x - i
    return x


def range_with_expression_bounds(a, b):
    s = 0
    for i in range(a - 1, b * 2):
        s += i % 5
    return s


def loop_target_is_tuple_of_lists(x):
    s = 0
    for a, (b, c) in [(1, (2, 3)), (4, (5, 6))]:
        s += a * x + b - c
    return s


def successive_loops(n):
    s = 0
    for i in range(n):
        s += i
    p = 1
    for j in range(n):
        p = p * 2 % 1000
    return s, p


CASES = [
    case(sum_range, COUNTS),
    case(sum_range_start_stop, [(0, 5), (2, 6), (5, 2), (-3, 3), (4, 4), (-5, -1)]),
    case(sum_range_step, [(0,), (1,), (2,), (4,), (10,), (-6,)]),
    case(negative_step, [(0,), (1,), (2,), (5,), (8,), (-3,)]),
    case(over_python_list, SMALL),
    case(over_module_list, SMALL),
    case(with_enumerate, SMALL),
    case(with_enumerate_start, SMALL),
    case(with_zip, SMALL),
    case(over_tuple, SMALL),
    case(over_dict_items, SMALL),
    case(over_string, SMALL),
    case(nested_ranges, COUNTS),
    case(if_inside_for, COUNTS),
    # n >= 1: after a zero-trip loop Python leaves `i` unbound.
    case(iterate_used_after_loop, [(1,), (2,), (6,)]),
    case(python_range_tensor_body, SMALL),
    case(range_of_python_len, [(1, [1, 2, 3]), (0, []), (-2, [5]), (3, [0, -1, 2, -3])],
         tensor_params=(0,)),
    case(body_local_variable, COUNTS),
    case(reverse_range, COUNTS),
    case(over_list_of_tensors, [(1, 2), (0, 0), (-3, 4), (5, -5)]),
    case(two_loop_variables, COUNTS + [(20,)]),
    case(python_outer_staged_inner, COUNTS),
    case(staged_outer_python_inner, COUNTS),
    case(python_bound_tensor_body, [(0, 3), (3, 3), (5, -1), (-2, 7)], tensor_params=(1,)),
    case(python_bound_tensor_body, [(0, 3), (3, 3), (5, -1), (-2, 7)], label="all_tensors"),
    case(range_with_expression_bounds, [(0, 0), (1, 3), (3, 1), (-2, 2), (6, 4)]),
    case(loop_target_is_tuple_of_lists, SMALL),
    case(successive_loops, COUNTS + [(12,)]),
]
