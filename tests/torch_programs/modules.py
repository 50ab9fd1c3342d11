"""``nn.Module`` classes whose ``forward`` has data-dependent control flow (the module itself
is exported and compiled, its ``forward`` converted)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

from tests.torch_programs import t

CASES = {}

_x4 = torch.linspace(-1.0, 1.0, 4)


class GatedMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 2)

    def forward(self, x):
        h = self.fc1(x)
        if h.mean() > 0:
            h = F.relu(h)
        else:
            h = torch.tanh(h)
        return self.fc2(h)


CASES[GatedMLP] = [(_x4.unsqueeze(0),), (-_x4.unsqueeze(0) * 3,), (torch.full((1, 4), 2.0),),
                   (torch.full((1, 4), -2.0),)]


class AdaptiveDepth(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = nn.Linear(4, 4)
        self.max_steps = 10

    def forward(self, x):
        steps = 0
        while x.norm() > 1.0 and steps < self.max_steps:
            x = 0.5 * torch.tanh(self.layer(x))
            steps += 1
        return x, steps


CASES[AdaptiveDepth] = [(_x4 * 0.1,), (_x4 * 10,), (torch.full((4,), 3.0),)]


class EarlyStopRNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = nn.RNNCell(3, 5)

    def forward(self, xs, threshold):
        h = torch.zeros(1, 5)
        for t_ in range(xs.shape[0]):
            h = self.cell(xs[t_].unsqueeze(0), h)
            if h.abs().max() > threshold:
                break
        return h


CASES[EarlyStopRNN] = [(torch.linspace(-2, 2, 12).reshape(4, 3), t(0.3)),
                       (torch.linspace(-2, 2, 12).reshape(4, 3), t(5.0))]


class ResidualIfHelps(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(4, 4) for _ in range(3)])

    def forward(self, x):
        for layer in self.layers:
            y = layer(x)
            if y.norm() < x.norm():
                x = x + y
        return x


CASES[ResidualIfHelps] = [(_x4,), (_x4 * 100,), (torch.zeros(4),)]


class TemperatureSoftmax(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("temperature", torch.tensor(2.0))

    def forward(self, logits):
        if logits.max() > 5:
            return F.softmax(logits / self.temperature, dim=-1)
        return F.softmax(logits, dim=-1)


CASES[TemperatureSoftmax] = [(t([1.0, 2.0, 3.0]),), (t([1.0, 8.0, 3.0]),)]


class NoGradNormalizer(nn.Module):
    def forward(self, x):
        with torch.no_grad():
            if x.std() > 1:
                x = (x - x.mean()) / x.std()
        return x


CASES[NoGradNormalizer] = [(t([1.0, 5.0, 9.0]),), (t([1.0, 1.1, 1.2]),)]


class WeightSignBranch(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.tensor([0.5, -1.0, 0.25]))

    def forward(self, x):
        if (self.weight * x).sum() > 0:
            return x * self.weight
        return x - self.weight


CASES[WeightSignBranch] = [(t([1.0, 0.0, 1.0]),), (t([0.0, 1.0, 0.0]),)]


class EarlyExitClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([nn.Linear(4, 4) for _ in range(3)])
        self.confidence = 0.6

    def forward(self, x):
        for i, block in enumerate(self.blocks):
            x = torch.relu(block(x)) + x
            if F.softmax(x, dim=-1).max() > self.confidence:
                return x, i
        return x, len(self.blocks)


CASES[EarlyExitClassifier] = [(_x4,), (t([5.0, 0.0, 0.0, 0.0]),), (torch.zeros(4),)]


class ThresholdClamp(nn.Module):
    def __init__(self, threshold=1.5):
        super().__init__()
        self.threshold = threshold

    def forward(self, x):
        if x.abs().max() > self.threshold:
            x = x.clamp(-self.threshold, self.threshold)
        return x


CASES[ThresholdClamp] = [(t([0.5, 3.0]),), (t([0.5, 1.0]),)]


class RepeatedLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = nn.Linear(4, 4)

    def forward(self, x, steps):
        for _ in range(steps):
            x = torch.tanh(self.layer(x))
        return x


CASES[RepeatedLayer] = [(_x4, t(0)), (_x4, t(1)), (_x4, t(5))]


class DictOutput(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(4, 3)

    def forward(self, x):
        logits = self.head(x)
        probs = F.softmax(logits, dim=-1)
        if probs.max() > 0.5:
            label = probs.argmax()
        else:
            label = torch.tensor(-1)
        return {"logits": logits, "label": label}


CASES[DictOutput] = [(_x4,), (_x4 * 20,), (-_x4 * 20,)]


class HelperMethodLoop(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.tensor(0.7))

    def _step(self, x):
        return x * self.scale + 0.1

    def forward(self, x):
        n = 0
        while x.sum() > 1.0:
            x = self._step(x)
            n += 1
        return x, n


CASES[HelperMethodLoop] = [(t([1.0, 2.0]),), (t([0.1, 0.2]),), (t([10.0, 20.0]),)]


class GRUWithMask(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = nn.GRUCell(2, 3)

    def forward(self, xs, lengths):
        h = torch.zeros(xs.shape[0], 3)
        for step in range(xs.shape[1]):
            new_h = self.cell(xs[:, step], h)
            mask = (step < lengths).unsqueeze(1)
            h = torch.where(mask, new_h, h)
        if h.norm() > 1.0:
            h = h / h.norm()
        return h


CASES[GRUWithMask] = [(torch.linspace(-1, 1, 12).reshape(2, 3, 2), t([3, 1])),
                      (torch.linspace(-3, 3, 12).reshape(2, 3, 2), t([2, 0]))]


class ClippedUpdate(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("running", torch.zeros(2))

    def forward(self, x):
        update = x - self.running
        if update.norm() > 1.0:
            update = update / update.norm()
        return self.running + update


CASES[ClippedUpdate] = [(t([3.0, 4.0]),), (t([0.3, 0.4]),)]


class BatchLoopBranch(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(3, 3)

    def forward(self, batch):
        outs = []
        for sample in batch:
            y = self.proj(sample)
            if y.sum() > 0:
                outs.append(y)
            else:
                outs.append(-y)
        return torch.stack(outs)


CASES[BatchLoopBranch] = [(torch.linspace(-2, 2, 9).reshape(3, 3),),
                          (torch.linspace(2, -2, 9).reshape(3, 3),)]
