"""Augmented assignment, tuple unpacking, builtins on Python values and tensors, composite names
(``d['k']``, ``obj.attr``, ``l[0]``) in control flow, globals, and exceptions."""

from .harness import case

SMALL = [(3,), (0,), (-2,), (1,), (-1,), (7,), (-9,), (12,)]
PAIRS = [(3, 5), (5, 3), (0, 0), (-2, 4), (4, -2), (-3, -7), (6, 6)]
SCALE = 3


class _Point:
    """A plain object whose attributes are modified inside control flow."""

    def __init__(self, x, y):
        self.x = x
        self.y = y


def augmented_assignments(x):
    x += 3
    x -= 1
    x *= 2
    x //= 3
    x %= 7
    return x


def augmented_in_branches(x):
    y = 10
    if x > 0:
        y += x
        y *= 2
    else:
        y -= x
        y //= 2
    return y


def augmented_in_loop(n):
    a = 1
    b = 100
    for i in range(n):
        a *= 2
        b -= a
        b %= 97
    return a, b


def tuple_swap(x, y):
    a, b = x + y, x - y
    a, b = b, a
    return a, b


def nested_unpacking(x):
    (a, b), c = (x, x + 1), x * 2
    return a + b + c


def starred_unpacking(x):
    first, *rest = [x, x + 1, x + 2]
    return first, rest, len(rest)


def unpack_in_loop(n):
    a, b, c = 0, 1, 2
    for i in range(n):
        a, b, c = b, c, (a + b + c) % 11
    return a, b, c


def builtin_abs(x):
    return abs(x) + abs(-3)


def builtin_min_max(x, y):
    return min(x, y), max(x, y), max(x, 0), min(-1, y)


def builtin_min_max_three(x, y, z):
    return min(x, y, z), max(x, y, z)


def builtin_min_max_in_loop(n):
    best = -100
    worst = 100
    for i in range(n):
        v = (i * 7) % 5
        best = max(best, v)
        worst = min(worst, v)
    return best, worst


def builtin_len_of_python_list(x, xs):
    return x * len(xs)


def builtin_len_of_vector(xs):
    return len(xs)


def builtin_int(x):
    return int(x) * 2 + int(3.9)


def builtin_float(x):
    return float(x) / 2


def builtin_int_of_division(x):
    return int(x / 4)


def builtin_range_materialized(n):
    return list(range(n)), len(range(0, n, 2))


def builtin_sum_of_python_list(x):
    return sum([x, 1, 2]), sum([x * i for i in range(3)])


def builtin_pow(x):
    return x ** 2 + 2 ** 3


def module_constant(x):
    if x > SCALE:
        x = x * SCALE
    return x


def floor_div_and_mod_signs(x, d):
    return x // d, x % d, -x // d, -x % d


def comparison_results_tuple(x):
    return x > 0, x == 0, x < 0


def dict_item_modified_in_if(x):
    d = {"pos": 0, "neg": 0}
    if x > 0:
        d["pos"] = x
    else:
        d["neg"] = x
    return d["pos"], d["neg"]


def list_item_modified_in_loop(n):
    acc = [0, 1]
    for i in range(n):
        acc[0] = acc[0] + i
        acc[1] = acc[1] * 2 % 100
    return acc[0], acc[1]


def attribute_modified_in_if(x, y):
    p = _Point(x, y)
    if p.x > p.y:
        p.x = p.x - p.y
    else:
        p.y = p.y - p.x
    return p.x, p.y


def dict_built_and_read(x):
    d = {"a": x, "b": x + 1}
    d["a"] += 10
    return d


def raise_on_python_value(x, n):
    if n < 0:
        raise ValueError("n must be non-negative")
    return x + n


def zero_division_python_divisor(x, d):
    return x // d


def zero_division_tensor_divisor(x, d):
    return x % d + x // d


def unbound_local_on_python_flag(x, flag):
    if flag:
        y = x * 2
    return y


def raise_inside_python_loop(x, n, limit):
    for i in range(n):
        if i == limit:
            raise KeyError(i)
        x = x + i
    return x


def assert_on_python_value(x, n):
    assert n >= 0, "n must be non-negative"
    return x * n


def none_arithmetic_on_python_flag(x, flag):
    y = None
    if flag:
        y = x
    return y + 1


def index_error_python(xs, i):
    return xs[i]


CASES = [
    case(augmented_assignments, SMALL),
    case(augmented_in_branches, SMALL),
    case(augmented_in_loop, [(0,), (1,), (4,), (9,), (-1,)]),
    case(tuple_swap, PAIRS),
    case(nested_unpacking, SMALL),
    case(starred_unpacking, SMALL),
    case(unpack_in_loop, [(0,), (1,), (3,), (10,), (-2,)]),
    case(builtin_abs, SMALL),
    case(builtin_min_max, PAIRS),
    case(builtin_min_max_three, [(1, 2, 3), (3, 1, 2), (2, 3, 1), (0, 0, 0), (-4, 4, -5)]),
    case(builtin_min_max_in_loop, [(0,), (1,), (2,), (6,), (-1,)]),
    case(builtin_len_of_python_list, [(3, [1, 2]), (-2, []), (0, [7, 8, 9])], tensor_params=(0,)),
    case(builtin_len_of_vector, [([1, 2, 3],), ([5],), ([0, 0, 0, 0, 0],)]),
    case(builtin_int, SMALL),
    case(builtin_float, SMALL),
    case(builtin_int_of_division, SMALL + [(-6,), (6,)]),
    case(builtin_range_materialized, [(0,), (1,), (5,)], tensor_params=()),
    case(builtin_sum_of_python_list, SMALL),
    case(builtin_pow, SMALL),
    case(module_constant, SMALL),
    case(floor_div_and_mod_signs, [(7, 2), (-7, 2), (7, -2), (-7, -2), (0, 3), (9, 3)]),
    case(comparison_results_tuple, SMALL),
    case(dict_item_modified_in_if, SMALL),
    case(list_item_modified_in_loop, [(0,), (1,), (5,), (12,), (-3,)]),
    case(attribute_modified_in_if, PAIRS),
    case(dict_built_and_read, SMALL),
    case(raise_on_python_value, [(3, 1), (3, -1), (0, 0)], tensor_params=(0,)),
    # Integer division by zero raises in graphs too (NumPy alone would give 0 and warn).
    case(zero_division_python_divisor, [(7, 2), (-7, 3), (7, 0)], tensor_params=(0,)),
    case(zero_division_tensor_divisor, [(7, 2), (-7, 3), (7, 0), (0, 0)]),
    case(unbound_local_on_python_flag, [(3, True), (3, False)], tensor_params=(0,)),
    case(raise_inside_python_loop, [(0, 5, 3), (0, 5, 9), (2, 0, 0)], tensor_params=(0,)),
    case(assert_on_python_value, [(3, 2), (3, -1)], tensor_params=(0,)),
    case(none_arithmetic_on_python_flag, [(3, True), (3, False)], tensor_params=(0,)),
    case(index_error_python, [([1, 2, 3], 1), ([1, 2, 3], 3), ([], 0)], tensor_params=()),
]
