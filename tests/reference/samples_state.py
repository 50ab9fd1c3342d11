"""State outside the function changed under tensor control flow (issue 9 item 3): globals,
attributes of module-level objects, nonlocals of an enclosing function, items of a global dict.

Every case declares a ``State``: each leg starts from ``reset()`` and calls the function twice;
the value ``read()`` returns after each call is compared with Python's (so a graph that leaves a
symbolic tensor behind, or that replays the first trace's value on the second call, fails).
Python's answer is the reference; the only other acceptable outcome is a refusal: an error that
names the changed name and suggests ``rt.Variable``.
"""

from .harness import Refusal, State, case

SMALL = [(3,), (-2,), (0,)]
COUNTS = [(0,), (1,), (4,)]

TOTAL = 0
FLAG = False
STATS = {"calls": 0, "last": 0}


def _refused(name: str) -> Refusal:
    """An error naming ``name`` that points to rt.Variable (issue 9 item 3's alternative)."""
    return Refusal(Exception, rf"{name}.*rt\.Variable|rt\.Variable.*{name}")


def _reset_globals():
    global TOTAL, FLAG
    TOTAL = 0
    FLAG = False
    STATS.update(calls=0, last=0)


def global_in_tensor_if(x):
    global TOTAL
    if x > 0:
        TOTAL = TOTAL + x
    else:
        TOTAL = TOTAL - 1
    return x + 1


def global_in_tensor_loop(n):
    global TOTAL
    for i in range(n):
        TOTAL += i
    return n


def global_in_tensor_while(x):
    global TOTAL
    while x > 0:
        TOTAL += 2
        x -= 1
    return x


def global_bool_in_tensor_if(x):
    global FLAG
    if x > 0:
        FLAG = True
    else:
        FLAG = False
    return x


def global_read_after_tensor_if(x):
    global TOTAL
    if x > 0:
        TOTAL = TOTAL + 10
    return TOTAL + x


def global_dict_item_in_tensor_if(x):
    if x > 0:
        STATS["calls"] += 1
        STATS["last"] = x
    else:
        STATS["last"] = -x
    return x


class Clock:
    """A plain object whose attribute advances while a tensor condition holds."""

    def __init__(self):
        self.t = 0

    def run(self, x, dt):
        while x > 0:
            self.t += dt
            x -= 1
        return x


CLOCK = Clock()


def _reset_clock():
    CLOCK.t = 0


def attribute_in_tensor_while(x, dt):
    while x > 0:
        CLOCK.t += dt
        x -= 1
    return x


def attribute_in_tensor_if(x):
    if x > CLOCK.t:
        CLOCK.t = x
    return CLOCK.t


CLOCK_RUN = CLOCK.run  # a bound method: ``self.t += dt`` inside ``while x > 0``


def _make_counter():
    count = 0

    def bump_if_positive(x):
        nonlocal count
        if x > 0:
            count += 1
        return x

    def read():
        return count

    def reset():
        nonlocal count
        count = 0

    return bump_if_positive, read, reset


bump_if_positive, _read_count, _reset_count = _make_counter()

GLOBALS = State(reset=_reset_globals, read=lambda: (TOTAL, FLAG, dict(STATS)))
CLOCK_STATE = State(reset=_reset_clock, read=lambda: CLOCK.t)
COUNT_STATE = State(reset=_reset_count, read=_read_count)

CASES = [
    case(global_in_tensor_if, SMALL, state=GLOBALS, refusal=_refused("TOTAL")),
    case(global_in_tensor_loop, COUNTS, state=GLOBALS, refusal=_refused("TOTAL")),
    case(global_in_tensor_while, COUNTS, state=GLOBALS, refusal=_refused("TOTAL")),
    case(global_bool_in_tensor_if, SMALL, state=GLOBALS, refusal=_refused("FLAG")),
    case(global_read_after_tensor_if, SMALL, state=GLOBALS, refusal=_refused("TOTAL")),
    case(global_dict_item_in_tensor_if, SMALL, state=GLOBALS, refusal=_refused("STATS")),
    case(attribute_in_tensor_while, [(3, 2), (0, 5), (2, -1)], state=CLOCK_STATE,
         refusal=_refused(r"CLOCK\.t")),
    case(attribute_in_tensor_while, [(3, 2)], dtype="int64", state=CLOCK_STATE,
         refusal=_refused(r"CLOCK\.t")),
    case(attribute_in_tensor_if, SMALL, state=CLOCK_STATE, refusal=_refused(r"CLOCK\.t")),
    case(CLOCK_RUN, [(3, 2), (0, 5)], state=CLOCK_STATE, refusal=_refused(r"self\.t")),
    case(bump_if_positive, SMALL, state=COUNT_STATE, refusal=_refused("count")),
]
