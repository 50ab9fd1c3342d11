"""Hand a graph to JAX: export W2's 100-layer dense model, jit it, time it next to the graph,
and run it with its batch split over 8 devices (host CPUs standing in for GPUs or TPUs).

    python examples/deploy_jax.py            # needs: pip install "eager2graph[jax]"
    python examples/deploy_jax.py --quick

XLA_FLAGS is set before JAX is imported: that is what gives the CPU 8 devices. The model is
W2's layers (examples/benchmark.py) with the batch dimension left open, so the same export
serves 20 images or a sharded batch of 64.
"""

from __future__ import annotations

import os

os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "")
                           + " --xla_force_host_platform_device_count=8").strip()

import argparse  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

try:
    import jax  # noqa: E402
    from jax.sharding import Mesh, NamedSharding, PartitionSpec  # noqa: E402
except ImportError as error:
    raise SystemExit(f"examples/deploy_jax.py runs the exported model in JAX, which cannot be "
                     f"imported ({error}). Install the extra with: "
                     f'pip install "eager2graph[jax]"') from None

import runtime as rt  # noqa: E402
import transpiler  # noqa: E402
from benchmark import LAYERS  # noqa: E402


def dense_model(x):
    x = rt.reshape(x, (-1, 784))
    for w, b in LAYERS[:-1]:
        x = rt.nn.relu(rt.matmul(x, w) + b)
    w, b = LAYERS[-1]
    return rt.matmul(x, w) + b


def per_call_ms(call, repeats: int) -> float:
    call()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def main(quick: bool = False) -> None:
    repeats = 5 if quick else 50
    model = transpiler.function(dense_model, jit_compile=False)
    concrete = model.get_concrete_function(rt.TensorSpec([None, 28, 28], rt.float32))
    exported = jax.jit(rt.export.jax(concrete))

    images = np.random.RandomState(2).randn(64, 28, 28).astype(np.float32)
    expected = concrete(images).numpy()
    on_one = jax.device_put(images, jax.devices()[0])
    mesh = Mesh(np.array(jax.devices()), ("batch",))
    sharded = jax.device_put(images, NamedSharding(mesh, PartitionSpec("batch")))

    rows = [
        ("graph (NumPy plan)", lambda: concrete(images), expected),
        ("jax.jit of the export, 1 device", lambda: exported(on_one).block_until_ready(),
         np.asarray(exported(on_one))),
        (f"jax.jit, batch over {len(jax.devices())} devices",
         lambda: exported(sharded).block_until_ready(), np.asarray(exported(sharded))),
    ]
    print(f"W2's dense model (100 Dense(64, relu) layers), batch of {len(images)} images")
    print(f"{'':38} {'ms / call':>10} {'max |diff| vs graph':>20}")
    for name, call, result in rows:
        difference = float(np.max(np.abs(result - expected)))
        print(f"{name:38} {per_call_ms(call, repeats):10.3f} {difference:20.2e}")
    print(f"devices of the sharded result: {len(exported(sharded).sharding.device_set)}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    main(parser.parse_args().quick)
