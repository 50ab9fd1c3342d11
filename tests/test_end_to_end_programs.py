"""The programs of examples/end_to_end.py run as the fresh processes it times, and each system
computes the same losses (the table compares times of the same computation)."""

import importlib.util
import os
import sys
import tempfile

import pytest

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples")
sys.path.insert(0, EXAMPLES)
try:
    import end_to_end
finally:
    sys.path.remove(EXAMPLES)

HAS_JAX = importlib.util.find_spec("jax") is not None


# The MLP (the script's default program) runs in test_examples, every setting in a fresh
# process (cold and warm kernel cache, plan, JAX), its losses compared there.
@pytest.mark.parametrize("name", sorted(set(end_to_end.PROGRAMS) - {"mlp"}))
def test_each_program_gives_the_same_loss_on_every_system(name, monkeypatch):
    monkeypatch.syspath_prepend(EXAMPLES)  # the fit's inputs come from examples/local_fit.py
    program = end_to_end.PROGRAMS[name]
    ours, jax_script, _ = program.scripts
    with tempfile.TemporaryDirectory() as folder:
        argument = program.argument(folder)
        cache = tempfile.mkdtemp(dir=folder)
        settings = ("default", "plan")
        losses = {setting: float(end_to_end.run_once(ours, 3, setting, argument, cache,
                                                     folder)[2])
                  for setting in settings}
        assert len(set(losses.values())) == 1, losses  # the same bits whatever the tier
        if HAS_JAX and name == "fit":  # one JAX process: each costs seconds
            jax_loss = float(end_to_end.run_once(jax_script, 3, "-", argument, cache, folder)[2])
            assert jax_loss == pytest.approx(losses["plan"], rel=1e-4)
