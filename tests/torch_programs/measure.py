"""Figures for the whole corpus: ``python -m tests.torch_programs.measure [kind-or-name ...]``.

Prints, per path (converted on real tensors, torch.export, torch.compile), the inputs passing
(N of M), every wrong value, and the failures grouped by their error's type and first line.
"""

from __future__ import annotations

import collections
import sys
import time

from tests.torch_programs import PATHS, programs, run_program


def main(selected: list[str]) -> None:
    chosen = {name: p for name, p in programs().items()
              if not selected or any(name == s or name.startswith(s + ".") for s in selected)}
    totals = {path: [0, 0] for path in PATHS}
    wrong, groups = [], collections.defaultdict(lambda: collections.defaultdict(set))
    failing = collections.defaultdict(set)
    timings = []
    for name, program in chosen.items():
        start = time.perf_counter()
        results = run_program(program)
        timings.append((time.perf_counter() - start, name))
        for path, outcomes in results.items():
            for args_index, outcome in enumerate(outcomes):
                totals[path][1] += 1
                if outcome.status == "pass":
                    totals[path][0] += 1
                    continue
                failing[path].add(name)
                if outcome.status == "wrong":
                    wrong.append((path, name, args_index, outcome.detail))
                else:
                    groups[outcome.detail][path].add(name)
        print(f"{name} ({timings[-1][0]:.1f} s): " + ", ".join(
            f"{path} {sum(o.status == 'pass' for o in outcomes)}/{len(outcomes)}"
            for path, outcomes in results.items()), flush=True)
    print(f"\n{len(chosen)} programs, {sum(len(p.inputs) for p in chosen.values())} inputs")
    for path, (passed, total) in totals.items():
        print(f"{path}: {passed} of {total} inputs pass; {len(failing[path])} programs fail")
    print(f"\nWRONG VALUES: {len(wrong)}")
    for path, name, index, detail in wrong:
        print(f"  [{path}] {name} input #{index}: {detail}")
    print("\nFAILURES BY CAUSE")
    for detail, by_path in sorted(groups.items(), key=lambda item: -sum(
            len(v) for v in item[1].values())):
        print(f"- {detail}")
        for path, names in sorted(by_path.items()):
            print(f"    {path} ({len(names)}): {', '.join(sorted(names))}")
    try:
        from tests.transpiler.test_torch_programs import KNOWN_FAILURES
    except ImportError:
        KNOWN_FAILURES = None
    if KNOWN_FAILURES is not None:
        errors = {name for names in failing.values() for name in names} - \
            {name for _, name, _, _ in wrong}
        print("\nAGAINST KNOWN_FAILURES (tests/transpiler/test_torch_programs.py)")
        print("  failing, not listed:", sorted(errors - set(KNOWN_FAILURES)))
        print("  listed, passing:", sorted(set(KNOWN_FAILURES) & set(chosen) - errors))
    print("\nSLOWEST")
    for seconds, name in sorted(timings, reverse=True)[:10]:
        print(f"  {seconds:6.2f} s {name}")
    print(f"total {sum(s for s, _ in timings):.1f} s")


if __name__ == "__main__":
    main(sys.argv[1:])
