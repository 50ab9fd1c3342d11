"""The reference samples through PyTorch (issue 26):
``python -m tests.torch_programs.reference_samples [module-or-sample ...]`` (all: 7 minutes).

The samples' inputs were written to take every branch, so they are the widest check that
``torch.export.export`` and ``torch.compile(fullgraph=True)`` of a converted function give what
plain Python gives. The eligible samples and inputs are those of the JAX test
(``tests/transpiler/test_jax_staging.py``): pure Python, no state, no expected refusal, no
chosen dtype, tensor arguments that are numbers or lists. Unlike it, an input on which Python
raises is kept: a value there is a wrong value, an error passes. Prints, per path, the inputs
passing, every wrong value, and the refusals grouped by their error.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import importlib
import io
import sys
import time
import warnings
from typing import Any, Callable

import torch

from tests.torch_programs import (CALL_TIMEOUT_SECONDS, Calls, Outcome, _call, _outcome,
                                  _signature, _time_limit)
from transpiler import convert

MODULES = ("samples_if", "samples_while", "samples_for", "samples_break_continue",
           "samples_return", "samples_logical", "samples_nested", "samples_misc",
           "samples_calls")

PATHS = ("export", "compile")


def as_tensor(value) -> torch.Tensor:
    """A Python number or list as the tensor a PyTorch user would pass: ints int64, floats
    float32 (the JAX test's float dtype), bools bool."""
    return torch.tensor(value, dtype=torch.int64) if type(value) is int else torch.tensor(value)


@dataclasses.dataclass
class Group:
    """Inputs of one sample that differ only in their tensor arguments: they share a compile
    (and an export per signature). The other arguments are closed over, as Python values."""

    name: str  # "module.function"
    fn: Callable
    chosen: tuple[int, ...]  # the arguments passed as tensors
    inputs: list[tuple]  # Python arguments, all equal outside ``chosen``

    def staged(self) -> Callable:
        """``convert(fn)`` taking only the tensor arguments."""
        converted, template = convert(self.fn), list(self.inputs[0])

        def call(*tensors):
            args = list(template)
            for index, tensor in zip(self.chosen, tensors):
                args[index] = tensor
            return converted(*args)
        return call

    def tensors(self, args: tuple) -> tuple:
        return tuple(as_tensor(args[i]) for i in self.chosen)


def groups(modules=MODULES, names=None) -> list[Group]:
    """The eligible inputs of ``modules`` (of the samples named ``names``, when given), grouped."""
    found: dict[Any, Group] = {}
    for module_name in modules:
        for case in importlib.import_module(f"tests.reference.{module_name}").CASES:
            name = f"{module_name}.{case.fn.__name__}"
            if not case.graph or case.state is not None or case.refusal is not None \
                    or case.dtype is not None or (names is not None and name not in names):
                continue
            for args in case.inputs:
                chosen = tuple(range(len(args)) if case.tensor_params is None
                               else case.tensor_params)
                if not all(isinstance(args[i], (int, float, list)) for i in chosen):
                    continue
                static = tuple((i, repr(v)) for i, v in enumerate(args) if i not in chosen)
                key = (case.fn, chosen, static)
                if key not in found:
                    found[key] = Group(name, case.fn, chosen, [])
                found[key].inputs.append(args)
    return list(found.values())


def run_group(group: Group, paths=PATHS) -> dict[str, list[Outcome]]:
    """Every input of ``group`` through each path, against plain Python on the Python values.
    Warnings are the caller's to handle; what the functions print is dropped."""
    results = {path: [] for path in paths}
    with contextlib.redirect_stdout(io.StringIO()):
        expected = [_call(group.fn, args) for args in group.inputs]
        staged = group.staged()
        if "export" in paths:
            exported = {}
            for args, exp in zip(group.inputs, expected):
                tensors = group.tensors(args)
                sig = _signature(tensors)
                if sig not in exported:
                    try:
                        with _time_limit(CALL_TIMEOUT_SECONDS * 2):
                            exported[sig] = ("value", torch.export.export(
                                Calls(staged), tensors).module())
                    except Exception as error:  # noqa: BLE001 - a refusal, counted
                        exported[sig] = ("raise", error)
                kind, module = exported[sig]
                got = (kind, module) if kind == "raise" else _call(module, tensors)
                results["export"].append(_outcome(exp, got))
        if "compile" in paths:
            torch._dynamo.reset()  # every group's wrapper has the same code object
            compiled = torch.compile(staged, fullgraph=True, backend="aot_eager")
            for args, exp in zip(group.inputs, expected):
                results["compile"].append(_outcome(exp, _call(compiled, group.tensors(args))))
    return results


def main(selected: list[str]) -> None:
    chosen = [g for g in groups() if not selected or any(
        g.name == s or g.name.startswith(s + ".") for s in selected)]
    totals = {path: [0, 0] for path in PATHS}
    wrong, refusals = [], collections.defaultdict(lambda: collections.defaultdict(list))
    start = time.perf_counter()
    for group in chosen:
        began = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            results = run_group(group)
        for path, outcomes in results.items():
            for args, outcome in zip(group.inputs, outcomes):
                totals[path][1] += 1
                totals[path][0] += outcome.status == "pass"
                if outcome.status == "wrong":
                    wrong.append(f"[{path}] {group.name}{args}: {outcome.detail}")
                elif outcome.status == "error":
                    refusals[outcome.detail][path].append(group.name)
        print(f"{group.name} ({time.perf_counter() - began:.1f} s): " + ", ".join(
            f"{path} {sum(o.status == 'pass' for o in outcomes)}/{len(outcomes)}"
            for path, outcomes in results.items()), flush=True)
    print(f"\n{len(chosen)} groups, {sum(len(g.inputs) for g in chosen)} inputs, "
          f"{time.perf_counter() - start:.0f} s")
    for path, (passed, total) in totals.items():
        print(f"{path}: {passed} of {total} inputs pass")
    print(f"\nWRONG VALUES: {len(wrong)}")
    for line in wrong:
        print(f"  {line}")
    print("\nREFUSALS BY ERROR")
    for detail, by_path in sorted(refusals.items(), key=lambda item: -sum(
            len(v) for v in item[1].values())):
        print(f"- {detail}")
        for path, names in sorted(by_path.items()):
            counts = collections.Counter(names)
            print(f"    {path} ({len(names)} inputs): "
                  + ", ".join(f"{name} x{n}" for name, n in sorted(counts.items())))


if __name__ == "__main__":
    main(sys.argv[1:])
