"""if / elif / else: 0, 1, 2+ modified variables, variables created in branches, nesting."""

from .harness import case

SMALL = [(3,), (0,), (-2,), (1,), (-1,), (7,), (-9,), (12,)]
PAIRS = [(3, 5), (5, 3), (0, 0), (-2, 4), (4, -2), (-3, -7), (6, 6), (1, -1)]
TRIPLES = [(1, 2, 3), (3, 2, 1), (2, 3, 1), (0, 0, 0), (-1, 5, -5), (5, -1, 2), (4, 4, 1), (-2, -3, -4)]


def sign(x):
    if x > 0:
        return 1
    elif x < 0:
        return -1
    else:
        return 0


def abs_by_if(x):
    if x < 0:
        x = -x
    return x


def no_variables_modified(x):
    if x > 0:
        pass
    else:
        pass
    return x + 1


def one_variable_both_branches(x):
    if x > 2:
        y = x * 2
    else:
        y = x - 1
    return y


def one_variable_no_else(x):
    y = 0
    if x > 5:
        y = x
    return y


def two_variables_swapped(x, y):
    if x > y:
        lo, hi = y, x
    else:
        lo, hi = x, y
    return lo, hi


def three_variables_partially_modified(x):
    a = 1
    b = 2
    c = 3
    if x % 2 == 0:
        a = x
        b = x + 1
    else:
        c = x * 3
    return a, b, c


def created_in_both_branches(x):
    if x % 2 == 0:
        parity = 0
        half = x // 2
    else:
        parity = 1
        half = (x - 1) // 2
    return parity, half


def elif_chain(x):
    if x < -5:
        bucket = 0
    elif x < 0:
        bucket = 1
    elif x < 5:
        bucket = 2
    elif x < 10:
        bucket = 3
    else:
        bucket = 4
    return bucket


def elif_without_else(x):
    r = 100
    if x < 0:
        r = -x
    elif x == 0:
        r = 50
    elif x > 10:
        r = x - 10
    return r


def nested_if(x, y):
    if x > 0:
        if y > 0:
            quadrant = 1
        else:
            quadrant = 4
    else:
        if y > 0:
            quadrant = 2
        else:
            quadrant = 3
    return quadrant


def nested_if_inner_only_in_one_branch(x, y):
    z = 0
    if x > y:
        z = x - y
        if z > 3:
            z = 3
    else:
        z = y - x
    return z


def successive_ifs(x):
    r = 0
    if x > 0:
        r += 1
    if x > 10:
        r += 10
    if x % 2 == 0:
        r += 100
    if r > 100:
        r = r - 1000
    return r


def successive_ifs_dependent(x):
    if x < 0:
        x = x + 10
    if x > 5:
        x = x - 5
    if x % 3 == 0:
        x = x * 2
    return x


def if_on_python_flag(x, flag):
    if flag:
        y = x + 1
    else:
        y = x - 1
    return y


def modifies_parameters(x, y):
    if x > y:
        x = x - y
    else:
        y = y - x
    return x, y


def temporary_used_only_inside(x):
    if x > 0:
        tmp = x * x
        x = tmp + 1
    return x


def int_truthiness(x):
    if x:
        r = 1
    else:
        r = 2
    return r


def negated_condition(x):
    if not x > 3:
        x = x + 100
    return x


def compound_condition(x, y):
    if x > 0 and y > 0:
        r = 1
    elif x > 0 or y > 0:
        r = 2
    else:
        r = 3
    return r


def three_level_nesting(a, b, c):
    r = 0
    if a > b:
        if b > c:
            r = 1
        else:
            if a > c:
                r = 2
            else:
                r = 3
    else:
        if a > c:
            r = 4
        elif b > c:
            r = 5
        else:
            r = 6
    return r


def python_guard_then_tensor_if(x, n):
    y = x
    if n > 2:
        if x > n:
            y = x - n
        else:
            y = n - x
    return y


def bool_result(x):
    if x > 0:
        ok = True
    else:
        ok = False
    return ok


def swap_if_out_of_order(x, y):
    if x < y:
        x, y = y, x
    return x, y


def branch_uses_value_from_before(x):
    base = x * 2
    if base > 5:
        out = base - 5
    else:
        out = 5 - base
    return out + base


def if_inside_expression_chain(x):
    y = x + 1
    if y > 3:
        y = y * 2
    z = y - x
    if z > 4:
        z = z // 2
    return y, z


CASES = [
    case(sign, SMALL),
    case(abs_by_if, SMALL),
    case(no_variables_modified, SMALL),
    case(one_variable_both_branches, SMALL),
    case(one_variable_no_else, SMALL),
    case(two_variables_swapped, PAIRS),
    case(three_variables_partially_modified, SMALL),
    case(created_in_both_branches, SMALL),
    case(elif_chain, [(-10,), (-5,), (-3,), (0,), (4,), (5,), (9,), (10,), (25,)]),
    case(elif_without_else, [(-4,), (0,), (3,), (10,), (11,), (30,)]),
    case(nested_if, PAIRS),
    case(nested_if_inner_only_in_one_branch, PAIRS + [(10, 1), (1, 10)]),
    case(successive_ifs, [(-3,), (0,), (1,), (2,), (11,), (12,), (13,)]),
    case(successive_ifs_dependent, [(-7,), (-1,), (0,), (3,), (6,), (8,), (11,)]),
    case(if_on_python_flag, [(3, True), (3, False), (-2, True), (0, False)], tensor_params=(0,)),
    case(if_on_python_flag, [(3, True), (3, False), (-2, True), (0, False)],
         label="tensor_flag"),
    case(modifies_parameters, PAIRS),
    case(temporary_used_only_inside, SMALL),
    case(int_truthiness, SMALL),
    case(negated_condition, SMALL),
    case(compound_condition, PAIRS),
    case(three_level_nesting, TRIPLES),
    case(python_guard_then_tensor_if, [(5, 3), (1, 3), (5, 1), (1, 1), (-4, 4)], tensor_params=(0,)),
    case(bool_result, SMALL),
    case(swap_if_out_of_order, PAIRS),
    case(branch_uses_value_from_before, SMALL),
    case(if_inside_expression_chain, SMALL),
]
