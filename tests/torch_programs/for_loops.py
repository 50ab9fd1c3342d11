"""``for`` loops: over ``range`` of a tensor or of a shape, over rows, with ``break``,
``continue``, ``return``, lists, in-place updates."""

import torch

from tests.torch_programs import t

CASES = {}


def sum_first_n(x, n):
    total = 0
    for i in range(n):
        total += x[i]
    return total


CASES[sum_first_n] = [(t([1.0, 2.0, 3.0, 4.0]), t(0)), (t([1.0, 2.0, 3.0, 4.0]), t(2)),
                      (t([1.0, 2.0, 3.0, 4.0]), t(4))]


def running_max_fill(x):
    out = torch.zeros_like(x)
    for i in range(x.shape[0]):
        if i == 0 or x[i] > out[i - 1]:
            out[i] = x[i]
        else:
            out[i] = out[i - 1]
    return out


CASES[running_max_fill] = [(t([1.0, 3.0, 2.0, 5.0]),), (t([5.0, 4.0, 3.0, 2.0]),)]


def sum_positive_rows(x):
    total = torch.zeros(x.shape[1])
    for row in x:
        if row.sum() > 0:
            total += row
    return total


CASES[sum_positive_rows] = [(t([[1.0, 2.0], [-3.0, 1.0], [0.5, 0.5]]),),
                            (t([[-1.0, -2.0], [-3.0, 1.0], [-0.5, 0.1]]),)]


def first_row_over(x, threshold):
    for i, row in enumerate(x):
        if row.max() > threshold:
            return i
    return -1


CASES[first_row_over] = [(t([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), t(3.5)),
                         (t([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), t(0.0)),
                         (t([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), t(10.0))]


def masked_dot(xs, ys):
    total = 0.0
    for a, b in zip(xs, ys):
        if a * b > 0:
            total += a * b
    return total


CASES[masked_dot] = [(t([1.0, -2.0, 3.0]), t([1.0, 2.0, 3.0])),
                     (t([-1.0, -2.0]), t([1.0, 2.0]))]


def accumulate_until_limit(x, n, limit):
    acc = torch.zeros_like(x)
    for i in range(n):
        acc = acc + x * i
        if acc.sum() > limit:
            break
    return acc


CASES[accumulate_until_limit] = [(t([1.0, 1.0]), t(10), t(5.0)), (t([1.0, 1.0]), t(3), t(100.0)),
                                 (t([1.0, 1.0]), t(0), t(5.0))]


def skip_negative_rows(x):
    total = torch.zeros(x.shape[1])
    count = 0
    for row in x:
        if row.min() < 0:
            continue
        total = total + row
        count += 1
    return total, count


CASES[skip_negative_rows] = [(t([[1.0, 2.0], [-3.0, 1.0], [0.5, 0.5]]),),
                             (t([[-1.0, 2.0], [-3.0, 1.0]]),)]


def scaled_rows_stack(x):
    outs = []
    for i in range(x.shape[0]):
        outs.append(x[i] * i)
    return torch.stack(outs)


CASES[scaled_rows_stack] = [(t([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]),)]


def clipped_rows_stack(x):
    outs = []
    for row in x:
        if row.norm() > 1:
            row = row / row.norm()
        outs.append(row)
    return torch.stack(outs)


CASES[clipped_rows_stack] = [(t([[3.0, 4.0], [0.3, 0.4]]),), (t([[0.1, 0.1], [0.2, 0.0]]),)]


def powers_list(x, n):
    outs = []
    for i in range(n):
        outs.append(x ** i)
    return torch.stack(outs)


CASES[powers_list] = [(t([1.0, 2.0]), t(3)), (t([1.0, 2.0]), t(1))]


def topk_by_loop(x, k):
    x = x.clone()
    values = []
    indices = []
    for _ in range(k):
        i = torch.argmax(x)
        values.append(x[i])
        indices.append(i)
        x[i] = float("-inf")
    return torch.stack(values), torch.stack(indices)


CASES[topk_by_loop] = [(t([3.0, 1.0, 4.0, 1.0, 5.0]), 2), (t([3.0, 1.0, 4.0, 1.0, 5.0]), 3)]


def rnn_cell_loop(xs, w, u):
    h = torch.zeros(u.shape[0])
    for step in range(xs.shape[0]):
        h = torch.tanh(w @ xs[step] + u @ h)
    return h


CASES[rnn_cell_loop] = [(t([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]), t([[0.5, -0.5], [0.1, 0.2]]),
                         t([[0.3, 0.0], [0.0, 0.3]]))]


def rnn_until_saturated(xs, w):
    h = torch.zeros(w.shape[0])
    steps = 0
    for x in xs:
        h = torch.tanh(w @ x + h)
        steps += 1
        if h.abs().max() > 0.95:
            break
    return h, steps


CASES[rnn_until_saturated] = [(t([[1.0, 1.0], [1.0, 1.0], [1.0, 1.0], [1.0, 1.0]]),
                               t([[2.0, 2.0], [0.1, 0.1]])),
                              (t([[0.1, 0.0], [0.0, 0.1], [0.1, 0.1]]),
                               t([[0.1, 0.1], [0.1, 0.1]]))]


def last_scaled(x, n):
    for i in range(n):
        last = x * i
    return last


CASES[last_scaled] = [(t([1.0, 2.0]), t(3)), (t([1.0, 2.0]), t(1)), (t([1.0, 2.0]), t(0))]


def grid_sum(n, m):
    total = 0
    for i in range(n):
        for j in range(m):
            total += i * j
    return total


CASES[grid_sum] = [(t(0), t(3)), (t(3), t(4)), (t(2), t(0))]


def odd_range_sum(n):
    total = 0
    for i in range(1, n, 2):
        total += i
    return total


CASES[odd_range_sum] = [(t(0),), (t(1),), (t(10),), (t(7),)]


def count_positive_len(x):
    count = 0
    for i in range(len(x)):
        if x[i] > 0:
            count += 1
    return count


CASES[count_positive_len] = [(t([1.0, -1.0, 2.0]),), (t([-1.0, -1.0, -2.0]),)]


def countdown(n):
    out = 0
    for i in range(n - 1, -1, -1):
        out = out * 2 + i
    return out


CASES[countdown] = [(t(0),), (t(1),), (t(5),)]


def matmul_renorm(x, w, n):
    for i in range(n):
        x = x @ w
        if x.norm() > 10:
            x = x / x.norm()
    return x


CASES[matmul_renorm] = [(t([1.0, 1.0]), t([[2.0, 0.0], [0.0, 3.0]]), t(5)),
                        (t([1.0, 1.0]), t([[0.5, 0.0], [0.0, 0.5]]), t(3)),
                        (t([1.0, 1.0]), t([[2.0, 0.0], [0.0, 3.0]]), t(0))]


def float_total(x):
    total = 0.0
    for v in x:
        total += float(v)
    return total


CASES[float_total] = [(t([1.5, 2.5, -1.0]),), (t([0.0]),)]


def argmax_by_loop(x):
    best = float("-inf")
    best_i = -1
    for i, v in enumerate(x):
        if v > best:
            best = v
            best_i = i
    return best_i


CASES[argmax_by_loop] = [(t([1.0, 3.0, 2.0]),), (t([5.0, 3.0, 2.0]),), (t([1.0, 1.0, 2.0]),)]


def horner(coeffs, x):
    result = torch.zeros_like(x)
    for c in coeffs:
        result = result * x + c
    return result


CASES[horner] = [(t([1.0, -2.0, 3.0]), t([0.0, 1.0, 2.0]))]


def return_inside_range(x, n):
    for i in range(n):
        x = x * 2
        if x.sum() > 20:
            return x, i
    return x, -1


CASES[return_inside_range] = [(t([1.0, 1.0]), t(10)), (t([1.0, 1.0]), t(2)),
                              (t([1.0, 1.0]), t(0))]


def fix_negatives_inplace(x):
    for i in range(x.shape[0]):
        if x[i] < 0:
            x[i] += 10
    return x


CASES[fix_negatives_inplace] = [(t([1.0, -2.0, 3.0]),), (t([1.0, 2.0, 3.0]),)]


def bubble_sort(x):
    x = x.clone()
    n = x.shape[0]
    for i in range(n):
        for j in range(n - i - 1):
            if x[j] > x[j + 1]:
                x[j], x[j + 1] = x[j + 1].clone(), x[j].clone()
    return x


CASES[bubble_sort] = [(t([3.0, 1.0, 2.0, 0.0]),), (t([0.0, 1.0, 2.0, 3.0]),)]


def moving_average_exit(x, tol):
    avg = x[0]
    for i in range(1, x.shape[0]):
        new_avg = 0.9 * avg + 0.1 * x[i]
        if torch.abs(new_avg - avg) < tol:
            break
        avg = new_avg
    return avg


CASES[moving_average_exit] = [(t([1.0, 1.0, 1.0, 5.0]), t(0.01)),
                              (t([1.0, 5.0, 9.0, 2.0]), t(0.01))]


def range_of_item(x, n):
    for i in range(n.item()):
        x = x + 1
    return x


CASES[range_of_item] = [(t([0.0]), t(0)), (t([0.0]), t(3))]


def range_of_int(x, n):
    for i in range(int(n)):
        x = x * 2
    return x


CASES[range_of_int] = [(t([1.0]), t(0)), (t([1.0]), t(4))]


def list_of_tensors_input(xs):
    total = torch.zeros_like(xs[0])
    for x in xs:
        if x.sum() > 0:
            total = total + x
    return total


CASES[list_of_tensors_input] = [([t([1.0, 2.0]), t([-3.0, 1.0])],),
                                ([t([-1.0, -2.0]), t([3.0, 1.0])],)]


def nested_break_continue(x):
    count = 0
    for row in x:
        if row[0] < 0:
            continue
        for v in row:
            if v > 5:
                break
            count += 1
    return count


CASES[nested_break_continue] = [(t([[1.0, 6.0, 2.0], [-1.0, 2.0, 2.0], [1.0, 2.0, 3.0]]),),
                                (t([[7.0, 1.0, 1.0], [-1.0, 0.0, 0.0]]),)]


def cumulative_cap(x, cap):
    out = x.clone()
    running = 0
    for i in range(x.shape[0]):
        running = running + x[i]
        if running > cap:
            out[i] = 0
    return out, running


CASES[cumulative_cap] = [(t([1.0, 2.0, 3.0]), t(2.5)), (t([1.0, 2.0, 3.0]), t(10.0))]


def prefix_slices(x, n):
    y = x.clone()
    y[:n] = 0
    total = torch.zeros(())
    for i in range(n):
        total = total + x[: i + 1].sum()
    return x[:n].sum(), x[n:n + 2].sum(), y, total


CASES[prefix_slices] = [(t([1.0, 2.0, 3.0]), t(2)), (t([1.0, 2.0, 3.0]), t(0)),
                        (t([1.0, 2.0, 3.0]), t(5))]


def runs_of_equal_values(x):
    runs = 0
    previous = None
    for v in x:
        if previous is None or v != previous:
            runs += 1
        previous = v
    return runs


CASES[runs_of_equal_values] = [(t([1, 1, 2, 2, 3, 1]),)]


def long_total_in_loop(x, n):
    total = torch.zeros((), dtype=torch.int64)
    for _ in range(n):
        total = total + x.long().sum()
    return total


CASES[long_total_in_loop] = [(t([1.5, 2.5]), t(2)), (t([1.5, 2.5]), t(0))]


def float64_total_from_zeros(x, n):
    total = torch.zeros(())
    for i in range(n):
        total = total + x[i]
    return total


CASES[float64_total_from_zeros] = [(t([1.0, 2.0, 3.0], torch.float64), t(2)),
                                   (t([1.0, 2.0, 3.0], torch.float64), t(3))]


def triangle_differences(n):
    s = 0
    for i in range(n):
        for j in range(i, n):
            s += j - i
    return s


CASES[triangle_differences] = [(t(4),), (t(0),), (t(6),)]
