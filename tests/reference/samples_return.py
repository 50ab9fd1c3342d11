"""return: early returns in nested ifs, before loops, inside while/for, structured return values.

Two labels mark inputs where TensorFlow's AutoGraph gives up but Python semantics (and the
design's "same answer, or a clear error") say the program is fine:

* ``zero_trip``: a staged loop containing a return runs zero times. AutoGraph fails at run time
  ("loop must iterate at least once to initialize the function return value").
* ``some_paths_return``: a tensor ``if`` returns in one branch only and the function returns
  later. AutoGraph fails while tracing ("the else branch must also have a return statement").
"""

from .harness import case

SMALL = [(3,), (0,), (-2,), (1,), (-1,), (7,), (-9,), (12,)]
PAIRS = [(3, 5), (5, 3), (0, 0), (-2, 4), (4, -2), (-3, -7), (6, 6)]


def early_return_on_python_flag(x, flag):
    if flag:
        return x * 2
    return x - 1


def early_return_on_tensor(x):
    if x > 5:
        return x - 5
    x = x * 2
    return x + 1


def returns_in_nested_ifs(x, y):
    if x > 0:
        if y > 0:
            return x + y
        if y < -3:
            return x - y
    elif x < -5:
        return -x
    return 0


def return_in_elif(x):
    r = 0
    if x < 0:
        r = -1
    elif x == 0:
        return 100
    else:
        r = 1
    return r * x


def returns_in_nested_ifs_every_path(x, y):
    if x > 0:
        if y > 0:
            return x + y
        if y < -3:
            return x - y
        return 0
    elif x < -5:
        return -x
    else:
        return 0


def return_in_elif_every_path(x):
    if x < 0:
        return -1 * x
    elif x == 0:
        return 100
    return x


def return_in_else_only(x):
    if x > 0:
        y = x * 3
    else:
        return -1
    return y + 1


def return_before_loop(n):
    if n < 0:
        return -1
    s = 0
    for i in range(n):
        s += i
    return s


def return_inside_for(n):
    for i in range(n):
        if i * i > 10:
            return i
    return -1


def return_inside_while(n):
    i = 0
    while i < n:
        i += 1
        if i % 4 == 0:
            return i * 10
    return i


def return_from_inner_loop(n):
    for i in range(n):
        for j in range(n):
            if i + j > 4:
                return i * 10 + j
    return -1


def return_after_break(n):
    s = 0
    for i in range(n):
        if s > 5:
            break
        s += i
    return s


def many_return_points(x):
    if x < -10:
        return -3
    if x < 0:
        return -2
    if x == 0:
        return 0
    if x < 10:
        return 2
    return 3


def return_constant_or_tensor(x):
    if x > 0:
        return 1
    return x


def return_bool(x):
    if x > 3:
        return True
    return False


def return_comparison(x, y):
    return x >= y


def return_tuple_early(x):
    if x < 0:
        return -x, True
    return x, False


def return_dict(x):
    if x > 0:
        return {"double": x * 2, "neg": -x}
    return {"double": x, "neg": x}


def return_list(x):
    return [x, x + 1, x * x]


def return_nested_structure(x):
    if x % 2 == 0:
        return (x, x + 1), [x // 2]
    return (x + 1, x), [x * 3]


def return_none_on_python_flag(x, flag):
    if flag:
        return
    return x


def return_from_python_loop(x):
    for w in [1, 2, 3, 4]:
        if w * w > 5:
            return x * w
        x = x + w
    return x


def return_inside_python_loop_on_python_value(x, stop):
    s = x
    for w in range(10):
        if w == stop:
            return s
        s = s + w
    return -s


def no_explicit_return(x):
    y = x + 1
    y = y * 2


def return_from_if_with_loops_in_both(n):
    if n > 3:
        s = 0
        for i in range(n):
            s += i
        return s
    else:
        p = 1
        for i in range(n):
            p *= 3
        return p


def return_value_computed_in_loop(n):
    s = 0
    i = 0
    while i < n:
        i += 1
        s += i
        if s > 15:
            return s, i
    return -s, i


CASES = [
    case(early_return_on_python_flag, [(3, True), (3, False), (-4, True), (0, False)],
         tensor_params=(0,)),
    case(early_return_on_python_flag, [(3, True), (3, False), (-4, True), (0, False)],
         label="tensor_flag"),
    case(early_return_on_tensor, SMALL),
    case(returns_in_nested_ifs, PAIRS + [(2, -5), (-6, 0), (1, -3)], label="some_paths_return"),
    case(returns_in_nested_ifs_every_path, PAIRS + [(2, -5), (-6, 0), (1, -3)]),
    case(return_in_elif, SMALL, label="some_paths_return"),
    case(return_in_elif_every_path, SMALL),
    case(return_in_else_only, SMALL),
    case(return_before_loop, [(-3,), (0,), (1,), (4,), (7,)]),
    case(return_inside_for, [(1,), (3,), (4,), (5,), (10,)]),
    case(return_inside_for, [(0,), (-2,)], label="zero_trip"),
    case(return_inside_while, [(1,), (3,), (4,), (9,)]),
    case(return_inside_while, [(0,), (-1,)], label="zero_trip"),
    case(return_from_inner_loop, [(1,), (2,), (3,), (4,), (6,)]),
    case(return_from_inner_loop, [(0,)], label="zero_trip"),
    case(return_after_break, [(0,), (1,), (3,), (4,), (10,)]),
    case(many_return_points, [(-20,), (-10,), (-1,), (0,), (5,), (10,), (50,)]),
    case(return_constant_or_tensor, SMALL),
    case(return_bool, SMALL),
    case(return_comparison, PAIRS),
    case(return_tuple_early, SMALL),
    case(return_dict, SMALL),
    case(return_list, SMALL),
    case(return_nested_structure, SMALL),
    case(return_none_on_python_flag, [(3, True), (3, False)], tensor_params=(0,)),
    case(return_from_python_loop, SMALL),
    case(return_inside_python_loop_on_python_value, [(1, 0), (1, 3), (-5, 9), (2, 20)],
         tensor_params=(0,)),
    case(no_explicit_return, SMALL),
    case(return_from_if_with_loops_in_both, [(0,), (2,), (3,), (4,), (6,), (-1,)]),
    case(return_value_computed_in_loop, [(1,), (4,), (5,), (6,), (10,)]),
    case(return_value_computed_in_loop, [(0,), (-3,)], label="zero_trip"),
]
