"""``if``/``elif``/``else``, ternaries, ``and``/``or``/``not`` on tensor values."""

import torch
import torch.nn.functional as F

from tests.torch_programs import t

CASES = {}


def relu_or_negate(x):
    if x.sum() > 0:
        return torch.relu(x)
    else:
        return -x


CASES[relu_or_negate] = [(t([1.0, -2.0, 3.0]),), (t([-1.0, -2.0, 0.5]),), (t([0.0, 0.0, 0.0]),)]


def clip_by_max(x, threshold):
    if x.max() > threshold:
        x = x / x.max() * threshold
    return x


CASES[clip_by_max] = [(t([1.0, 5.0, 2.0]), t(3.0)), (t([1.0, 2.0, 2.5]), t(3.0)),
                      (t([[4.0, 1.0], [0.5, 8.0]]), t(2.0))]


def sign_label(x):
    if x.mean() > 0:
        label = 1
    elif x.mean() < 0:
        label = -1
    else:
        label = 0
    return label


CASES[sign_label] = [(t([1.0, 2.0]),), (t([-1.0, -2.0]),), (t([1.0, -1.0]),)]


def scale_by_sign(x):
    scale = 2.0 if x.sum() > 0 else 0.5
    return x * scale


CASES[scale_by_sign] = [(t([1.0, 2.0]),), (t([-3.0, 2.0]),)]


def both_positive(x, y):
    if x.sum() > 0 and y.sum() > 0:
        return x + y
    return x - y


CASES[both_positive] = [(t([1.0, 2.0]), t([3.0, 4.0])), (t([1.0, 2.0]), t([-3.0, -4.0])),
                        (t([-1.0, -2.0]), t([3.0, 4.0])), (t([-1.0, -2.0]), t([-3.0, 1.0]))]


def either_extreme(x, y):
    if x.max() > 5 or y.min() < -5:
        return torch.zeros_like(x)
    return x * y


CASES[either_extreme] = [(t([6.0, 1.0]), t([0.0, 1.0])), (t([1.0, 1.0]), t([-6.0, 1.0])),
                         (t([1.0, 2.0]), t([3.0, 4.0]))]


def abs_if_not_all_positive(x):
    if not (x > 0).all():
        x = x.abs()
    return x


CASES[abs_if_not_all_positive] = [(t([1.0, 2.0]),), (t([-1.0, 2.0]),), (t([0.0, 3.0]),)]


def nan_guard(x):
    if torch.isnan(x).any():
        x = torch.nan_to_num(x, nan=0.0)
    return x.sum()


CASES[nan_guard] = [(t([1.0, float("nan"), 2.0]),), (t([1.0, 2.0, 3.0]),)]


def nested_ranges(x):
    if x.sum() > 0:
        if x.max() > 10:
            y = x / 10
        else:
            y = x * 2
    else:
        if x.min() < -10:
            y = x / 10
        else:
            y = -x
    return y


CASES[nested_ranges] = [(t([20.0, 1.0]),), (t([2.0, 1.0]),), (t([-20.0, 1.0]),),
                        (t([-2.0, 1.0]),)]


def where_then_normalize(x):
    y = torch.where(x > 0, x, torch.zeros_like(x))
    if y.sum() > 1:
        y = y / y.sum()
    return y


CASES[where_then_normalize] = [(t([0.5, -1.0, 2.0]),), (t([0.2, -1.0, 0.3]),),
                               (t([-1.0, -1.0, -1.0]),)]


def scalar_item_branch(x):
    if x.item() > 0.5:
        return x * 2
    return x / 2


CASES[scalar_item_branch] = [(t(0.7),), (t(0.2),), (t(-3.0),)]


def collatz_step(n):
    if n % 2 == 0:
        return n // 2
    else:
        return 3 * n + 1


CASES[collatz_step] = [(t(6),), (t(7),), (t(1),)]


def flag_offset(x, flag):
    if flag:
        return x + 1
    return x - 1


CASES[flag_offset] = [(t([1.0, 2.0]), t(True)), (t([1.0, 2.0]), t(False))]


def int32_matrix(m):
    if m.sum() > 10:
        return m * 2
    else:
        return m + 1


CASES[int32_matrix] = [(t([[1, 2], [3, 4]], torch.int32),), (t([[5, 2], [3, 4]], torch.int32),),
                       (t([[0, 0], [0, 1]], torch.int32),)]


def normalize_if_long(x):
    norm_sq = torch.dot(x, x)
    if norm_sq > 1:
        x = x / torch.sqrt(norm_sq)
    return x


CASES[normalize_if_long] = [(t([3.0, 4.0], torch.float64),), (t([0.3, 0.4], torch.float64),)]


def size_word(x):
    if x.abs().sum() > 100:
        return "big"
    return "small"


CASES[size_word] = [(t([1.0, 2.0]),), (t([100.0, 2.0]),)]


def extreme_and_where(x):
    if x.sum() >= 0:
        return x.max(), x.argmax()
    else:
        return x.min(), x.argmin()


CASES[extreme_and_where] = [(t([1.0, 5.0, 2.0]),), (t([-1.0, -5.0, 2.0]),)]


def stats_dict(x):
    result = {"value": x, "clipped": torch.tensor(False)}
    if x.abs().max() > 1.0:
        result["value"] = x.clamp(-1.0, 1.0)
        result["clipped"] = torch.tensor(True)
    return result


CASES[stats_dict] = [(t([0.5, 2.0]),), (t([0.5, -0.2]),)]


def spread_bucket(x):
    s = x.std()
    if s < 0.5:
        bucket = torch.tensor(0)
    elif s < 2.0:
        bucket = torch.tensor(1)
    elif s < 10.0:
        bucket = torch.tensor(2)
    else:
        bucket = torch.tensor(3)
    return bucket


CASES[spread_bucket] = [(t([1.0, 1.1, 1.2]),), (t([0.0, 1.0, 2.0]),), (t([0.0, 5.0, 10.0]),),
                        (t([0.0, 50.0, 100.0]),)]


def defined_in_one_branch(x):
    if x.sum() > 0:
        y = x * 2
    return y + 1


CASES[defined_in_one_branch] = [(t([1.0, 2.0]),), (t([-1.0, -2.0]),)]


def float_mean_branch(x):
    if float(x.mean()) > 0.0:
        return x - x.mean()
    return x


CASES[float_mean_branch] = [(t([1.0, 3.0]),), (t([-1.0, -3.0]),)]


def near_zero(x):
    if abs(x.sum()) < 1e-3:
        return torch.zeros_like(x)
    return x / x.sum()


CASES[near_zero] = [(t([1.0, -1.0]),), (t([1.0, 3.0]),), (t([-1.0, -3.0]),)]


def chained_comparison(x):
    s = x.sum()
    if 0 < s < 10:
        return x * 10
    return x


CASES[chained_comparison] = [(t([1.0, 2.0]),), (t([-1.0, -2.0]),), (t([10.0, 2.0]),)]


def truthy_tensor(x):
    if x.sum():
        return x / x.sum()
    return x


CASES[truthy_tensor] = [(t([1.0, 3.0]),), (t([1.0, -1.0]),)]


def any_positive(x):
    if (x > 0).any():
        return x.clamp(min=0)
    return x.exp()


CASES[any_positive] = [(t([-1.0, 2.0]),), (t([-1.0, -2.0]),)]


def sign_multiplier(x):
    y = x * (1 if x[0] > 0 else -1)
    return y


CASES[sign_multiplier] = [(t([1.0, 2.0]),), (t([-1.0, 2.0]),)]


def optional_bias(x, bias=None):
    if bias is not None and bias.sum() > 0:
        x = x + bias
    return x


CASES[optional_bias] = [(t([1.0, 2.0]), None), (t([1.0, 2.0]), t([1.0, 1.0])),
                        (t([1.0, 2.0]), t([-1.0, -1.0]))]


def inplace_branch(x):
    if x.sum() > 0:
        x += 1
    else:
        x -= 1
    return x


CASES[inplace_branch] = [(t([1.0, 2.0]),), (t([-1.0, -2.0]),)]


def inplace_method_branch(x):
    y = x.clone()
    if y.mean() > 0:
        y.add_(1)
    else:
        y.mul_(2)
    return y


CASES[inplace_method_branch] = [(t([1.0, 2.0]),), (t([-1.0, -2.0]),)]


def softmax_with_temperature(logits):
    if logits.max() - logits.min() > 10:
        temperature = 2.0
    else:
        temperature = 1.0
    return F.softmax(logits / temperature, dim=-1)


CASES[softmax_with_temperature] = [(t([1.0, 2.0, 3.0]),), (t([1.0, 20.0, 3.0]),),
                                   (t([[0.0, 15.0], [1.0, 2.0]]),)]


def no_grad_standardize(x):
    with torch.no_grad():
        if x.std() > 1:
            x = (x - x.mean()) / x.std()
    return x


CASES[no_grad_standardize] = [(t([1.0, 5.0, 9.0]),), (t([1.0, 1.5, 2.0]),)]


def bool_mask_count(mask):
    if mask.sum() > 2:
        return "many"
    elif mask.any():
        return "some"
    return "none"


CASES[bool_mask_count] = [(t([True, True, True, False]),), (t([False, True, False, False]),),
                          (t([False, False, False, False]),)]


def int64_parity_vector(v):
    if (v % 2 == 0).all():
        return v // 2
    return v * 3 + 1


CASES[int64_parity_vector] = [(t([2, 4, 6]),), (t([2, 3, 6]),)]


def elementwise_if_loss(pred, target):
    diff = pred - target
    if diff.abs().mean() < 1.0:
        loss = 0.5 * (diff ** 2).mean()
    else:
        loss = diff.abs().mean() - 0.5
    return loss


CASES[elementwise_if_loss] = [(t([1.0, 2.0]), t([1.5, 2.5])), (t([1.0, 2.0]), t([5.0, -3.0]))]


def return_python_bool(x):
    return bool(x.sum() > 0)


CASES[return_python_bool] = [(t([1.0, 2.0]),), (t([-1.0, -2.0]),)]


def compare_two_tensors(a, b):
    if torch.equal(a, b):
        return a
    if torch.allclose(a, b, atol=0.1):
        return (a + b) / 2
    return torch.maximum(a, b)


CASES[compare_two_tensors] = [(t([1.0, 2.0]), t([1.0, 2.0])), (t([1.0, 2.0]), t([1.05, 2.0])),
                              (t([1.0, 2.0]), t([3.0, 0.0]))]


def converted_dtype_branch(x):
    if x.sum() > 0:
        return x.float() / 2
    return x.double().clamp(min=0).float()


CASES[converted_dtype_branch] = [(t([1, 2]),), (t([-1, -2]),), (t([3, -1], torch.int32),)]


def cast_counts_branch(x):
    if (x > 0).sum() > 1:
        return (x > 0).int().sum()
    return (x < 0).int().sum()


CASES[cast_counts_branch] = [(t([1.0, 5.0]),), (t([-1.0, 1.0]),)]


def formatted_print_branch(x):
    if x.sum() > 0:
        print(f"positive sum {x.sum():.2f}")
        return x * 2
    print("not positive: %.1f" % x.sum())
    return -x


CASES[formatted_print_branch] = [(t([1.0]),), (t([-1.0]),)]


def slice_bound_from_outside(x, k):
    if x.sum() > 0:
        return x[:k].sum()
    return x[k:].sum()


CASES[slice_bound_from_outside] = [(t([1.0, 2.0, 3.0]), t(2)), (t([-1.0, -2.0, 3.0]), t(1)),
                                   (t([1.0, 2.0, 3.0]), t(-1))]
