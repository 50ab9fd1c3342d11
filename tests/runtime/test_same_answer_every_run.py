"""A training script with default settings gives the same bytes in every fresh process.

With ``jit_compile=None`` the compiled tier compiles in the background and takes over at a
call that depends on timing (or never, when the loop ends first). Each run below is a fresh
interpreter training a small model for 500 Adam steps; the final parameters must be the same
bytes whether the tier took over at a fixed step or whenever its compile ended (or never), and
the same as ``jit_compile=False``.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("numba")

TRAINING = textwrap.dedent("""
    import hashlib, sys
    import numpy as np
    import runtime as rt
    from transpiler import function

    setting, take_over_at = sys.argv[1], int(sys.argv[2])
    rng = np.random.RandomState(0)
    layers = [(rt.Variable(rng.randn(m, n).astype(np.float32) * 0.3),
               rt.Variable(np.zeros(n, np.float32))) for m, n in ((16, 32), (32, 4))]
    variables = [v for layer in layers for v in layer]
    optimizer = rt.optimizers.Adam(0.01)
    x = rt.constant(rng.randn(64, 16).astype(np.float32))
    labels = rt.constant(np.eye(4, dtype=np.float32)[rng.randint(0, 4, 64)])
    options = {} if setting == "default" else {"jit_compile": setting == "jit"}

    @function(**options)
    def train_step(x, labels):
        with rt.GradientTape() as tape:
            h = x
            for w, b in layers[:-1]:
                h = rt.tanh(rt.matmul(h, w) + b)
            w, b = layers[-1]
            logits = rt.matmul(h, w) + b
            loss = rt.reduce_mean(rt.nn.softmax_cross_entropy_with_logits(labels, logits))
            if loss > 1.0:
                loss = loss + 1e-3 * rt.reduce_sum(rt.square(layers[0][0]))
        gradients = tape.gradient(loss, variables)
        optimizer.apply_gradients(zip(gradients, variables))
        return loss

    losses = []
    for step in range(500):
        if step == take_over_at:
            train_step.get_concrete_function(x, labels).wait_for_jit()
        losses.append(train_step(x, labels).numpy())
    report = train_step.get_concrete_function(x, labels).jit_report.splitlines()[0]
    state = b"".join(v.numpy().tobytes() for v in variables) + np.array(losses).tobytes()
    print(hashlib.sha256(state).hexdigest(), report)
""")


def train(setting: str, take_over_at: int, folder) -> tuple[str, str]:
    """(digest of the final parameters and losses, the tier's report) of a fresh process
    (the script in a file: converted functions need their source)."""
    script = folder / "training.py"
    if not script.exists():
        script.write_text(TRAINING)
    environment = {**os.environ, "XDG_CACHE_HOME": str(folder / "cache")}
    done = subprocess.run([sys.executable, str(script), setting, str(take_over_at)],
                          capture_output=True, text=True, env=environment, timeout=300,
                          cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    assert done.returncode == 0, done.stderr
    assert done.stderr == "", done.stderr
    digest, report = done.stdout.strip().split(" ", 1)
    return digest, report


def test_default_settings_give_the_same_bytes_in_every_process(tmp_path):
    plan, _ = train("plan", -1, tmp_path)
    early, early_report = train("default", 100, tmp_path)  # the tier waited for at step 100
    first, _ = train("default", -1, tmp_path)               # whenever the compile ends
    second, _ = train("default", -1, tmp_path)
    assert early_report.startswith("compiled tier:") and "exact" in early_report, early_report
    assert early == first == second == plan


def test_a_function_result_never_changes_within_a_process():
    """The same inputs before and after the default tier took over, in this process."""
    import numpy as np

    import runtime as rt

    def model(x, w):
        return rt.reduce_sum(rt.nn.softmax(rt.tanh(rt.matmul(x, w)) * 3.0) ** 2, axis=1)
    rng = np.random.default_rng(1)
    x, w = rng.standard_normal((32, 24)).astype(np.float32), rng.standard_normal((24, 9))
    fn = rt.function(model)
    before = fn(x, w).numpy().tobytes()
    assert fn.get_concrete_function(x, w).wait_for_jit(120)
    assert fn.get_concrete_function(x, w).jit_report.startswith("compiled tier:")
    assert fn(x, w).numpy().tobytes() == before
    assert hashlib.sha256(before).hexdigest()  # bytes, not a tolerance
