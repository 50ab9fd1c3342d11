"""Figures for the whole corpus: ``python -m tests.jax_programs.measure [--x64] [names...]``
prints every input that is wrong or raises, failures grouped by their first line, and the
totals. ``--x64`` turns ``jax_enable_x64`` on first: the corpus then runs on float64/int64."""

from __future__ import annotations

import sys
import time


def main(argv: list[str]) -> None:
    import jax
    if "--x64" in argv:
        jax.config.update("jax_enable_x64", True)
    from tests import jax_programs

    names = [a for a in argv if not a.startswith("--")] or None
    start = time.perf_counter()
    results = {}
    for name in names or jax_programs.programs():
        t0 = time.perf_counter()
        results[name] = jax_programs.run_all([name])[name]
        if "--times" in argv:
            print(f"{time.perf_counter() - t0:6.2f}s {name}")
    elapsed = time.perf_counter() - start
    groups: dict[str, list[str]] = {}
    wrong = []
    inputs = passed = 0
    for name, outcomes in results.items():
        for o in outcomes:
            inputs += 1
            passed += o.status == "ok"
            if o.status == "wrong":
                wrong.append(f"{name}[{o.index}]: {o.detail}")
            elif o.status == "error":
                groups.setdefault(o.detail, []).append(f"{name}[{o.index}]")
    failing = sorted({n for n, os in results.items() if any(o.status != "ok" for o in os)})
    print(f"programs {len(results)}, failing {len(failing)}; inputs {passed} of {inputs} pass; "
          f"{len(wrong)} wrong; {elapsed:.1f}s")
    print("\nWRONG VALUES:" if wrong else "\nno wrong values")
    for line in wrong:
        print("  " + line)
    print("\nERRORS by first line:")
    for line, where in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        print(f"  [{len(where)}] {line[:300]}\n      {', '.join(where)}")


if __name__ == "__main__":
    main(sys.argv[1:])
