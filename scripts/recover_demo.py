"""A real recovered run, for README's "Recover instead of stop" section (CPU, ~10 s):

    python scripts/recover_demo.py

A tiny MLP under the Hugging Face Trainer (plain SGD, 80 steps); the targets of steps 50-53
are scaled by 1e4, which blows the weights up to NaN. ``GuardCallback(recover=True)`` rolls
the run back and finishes it. Prints what the callback reported and what ``trainlint doctor``
then says of the output folder (its path shown as ``out/``)."""

from __future__ import annotations

import io
import sys
import tempfile
from pathlib import Path

import torch
import transformers

from trainlint import api
from trainlint.integrations.hf import GuardCallback
from trainlint.report import View, render

STEPS, POISON = 80, range(50, 54)


class Net(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
        self.calls = 0

    def forward(self, x, labels=None):
        if self.training:
            self.calls += 1
            if self.calls in POISON:
                labels = labels * 1e4
        return {"loss": ((self.net(x).squeeze(-1) - labels) ** 2).mean()}


def train(out: Path) -> GuardCallback:
    g = torch.Generator().manual_seed(0)
    x = torch.randn(2048, 8, generator=g)
    y = x @ torch.randn(8, generator=g) + 0.1 * torch.randn(2048, generator=g)
    torch.manual_seed(0)
    torch.set_num_threads(1)
    args = transformers.TrainingArguments(
        output_dir=str(out),
        max_steps=STEPS,
        per_device_train_batch_size=32,
        learning_rate=0.02,
        lr_scheduler_type="constant",
        optim="sgd",
        max_grad_norm=0.0,  # plain SGD, no clipping
        logging_steps=1,
        report_to=[],
        save_strategy="no",
        use_cpu=True,
        disable_tqdm=True,
        logging_nan_inf_filter=False,
        seed=0,
    )
    callback = GuardCallback(stop_on="FAIL", recover=True)
    rows = [{"x": x[i], "labels": y[i]} for i in range(len(y))]
    trainer = transformers.Trainer(model=Net(), args=args, train_dataset=rows, callbacks=[callback])
    trainer.train()
    trainer.save_state()  # trainer_state.json: the run's own log, poisoned window included
    return callback


def main() -> None:
    transformers.logging.set_verbosity_error()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out"
        saved = sys.stdout
        sys.stdout = io.StringIO()  # the Trainer prints every log line
        try:
            callback = train(out)
        finally:
            sys.stdout = saved
        print("callback.report:")
        for f in callback.report.findings:
            if f.code == "TL089":
                print(f"  {f.severity.value} {f.code} {f.message}")
        text = io.StringIO()
        render(api.doctor([out]), "text", text, View(verbosity=1, width=80, color=False))
        print("\n$ trainlint doctor -v out/     # the lists of checks left out")
        print("\n".join(without_checks(text.getvalue().replace(str(out), "out").splitlines())))


def without_checks(lines: list[str]) -> list[str]:
    """The verbose view less its lists of the checks that ran, stood down or could not run."""
    kept, skipping = [], False
    for line in lines:
        if line.startswith(("  checked (", "  stood down", "  not checked")):
            skipping = True
        elif not line.startswith("    ") or not skipping:
            skipping = False
        if not skipping:
            kept.append(line)
    return kept


if __name__ == "__main__":
    main()
