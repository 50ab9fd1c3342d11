"""Python control flow under torch.export and torch.compile, through `transpiler.convert`.

    python examples/torch_control_flow.py          # needs: pip install "eager2graph[torch]"
    python examples/torch_control_flow.py --quick  # torch.compile with backend="aot_eager":
                                                   # the same graph, no Inductor code generation

A model whose forward halves its input while the sum is above a limit: a `while` on a tensor's
value, which plain PyTorch cannot export ("Could not guard on data-dependent expression") and
which breaks the graph under torch.compile. Converted, the loop is a `while_loop` and the `if`
a `cond` in the exported program, so `.module()` is right for inputs that run the loop another
number of times; gradients flow through both.
"""

from __future__ import annotations

import sys

try:
    import torch
except ImportError as error:
    raise SystemExit(f"examples/torch_control_flow.py runs converted functions under PyTorch, "
                     f"which cannot be imported ({error}). Install the extra with: "
                     f'pip install "eager2graph[torch]"') from None

from transpiler import convert


@convert
def clipped_steps(x, limit):
    steps = 0
    while x.sum() > limit:
        x = x * 0.5
        steps += 1
    if steps > 2:
        x = x + 1.0
    return x, steps


class Clip(torch.nn.Module):
    def forward(self, x, limit):
        return clipped_steps(x, limit)


def control_flow_ops(module: torch.fx.GraphModule) -> list[str]:
    """The control-flow operators of ``module`` and of the graphs nested in it (a loop that
    may be differentiated is the true branch of a ``cond``)."""
    found = set()
    for node in module.graph.nodes:
        if isinstance(node.target, torch._ops.HigherOrderOperator):
            found.add(node.target.name())
    for child in module.children():
        if isinstance(child, torch.fx.GraphModule):
            found.update(control_flow_ops(child))
    return sorted(found)


def main() -> None:
    example = (torch.ones(4), torch.tensor(3.0))
    program = torch.export.export(Clip(), example)
    print("exported program's control flow:", ", ".join(control_flow_ops(program.graph_module)))
    model = program.module()
    for scale, limit in ((1.0, 3.0), (1.0, 10.0), (8.0, 1.0)):
        x = torch.full((4,), scale)
        got_x, got_steps = model(x, torch.tensor(limit))
        want_x, want_steps = clipped_steps(x, torch.tensor(limit))  # eager: runs as Python
        print(f"x = {scale} * ones(4), limit {limit}: steps {int(got_steps)}, "
              f"x[0] {float(got_x[0]):.3f}; same as Python: "
              f"{int(got_steps) == want_steps and torch.allclose(got_x, want_x)}")
    backend = "aot_eager" if "--quick" in sys.argv[1:] else "inductor"
    compiled = torch.compile(clipped_steps, fullgraph=True, backend=backend)  # no graph break
    x = torch.full((4,), 8.0, requires_grad=True)
    got_x, got_steps = compiled(x, torch.tensor(1.0))
    got_x.sum().backward()
    print(f"torch.compile(fullgraph=True): steps {int(got_steps)}, gradient {x.grad.tolist()}")


if __name__ == "__main__":
    main()
