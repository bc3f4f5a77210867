"""Tiny training runs under data-parallel DDP on CPU (gloo), for the DDP tests of the framework
callbacks. Run as a script, once per framework, with every scenario in one launch (the imports
cost more than the training):

    torchrun --nproc_per_node 2 _ddp_runs.py hf OUT nan,healthy,off      # HF Trainer
    python _ddp_runs.py lightning OUT nan,healthy,off --devices 2         # Lightning starts rank 1

and without torchrun (``--devices 1`` for Lightning) for the single-process reference run.
A scenario: ``healthy``; ``nan`` (the loss of one rank, the last, turns NaN from step NAN_STEP on;
guard with stop_on="FAIL"); ``off`` (the same NaN, guard with no stop policy); ``recover`` (a NaN
at step NAN_STEP alone, callback with recover=True). Every rank writes
OUT/<scenario>/rank<r>.json: the world size, the last global step, whether the callback stopped
the run, and its report's findings; the guard's log goes where the callback puts it
(OUT/<scenario>/trainlint-guard.jsonl)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import torch

N_FEATURES, GLOBAL_BATCH, STEPS, NAN_STEP, LR = 8, 16, 40, 25, 0.05
N_SAMPLES = GLOBAL_BATCH * STEPS  # one epoch, in order: step k trains on rows 16k..16k+15 in any world


class BatchShard(torch.utils.data.Sampler):
    """Rank r of w takes the r-th w-th of each global batch (the rows of step k are the same in
    one process and in two), as the Trainer's own sharding of a sequential sampler does."""

    def __iter__(self):
        dist = torch.distributed
        rank, world = (dist.get_rank(), dist.get_world_size()) if dist.is_initialized() else (0, 1)
        per = GLOBAL_BATCH // world
        for k in range(STEPS):
            yield from range(k * GLOBAL_BATCH + rank * per, k * GLOBAL_BATCH + (rank + 1) * per)

    def __len__(self) -> int:
        dist = torch.distributed
        return N_SAMPLES // (dist.get_world_size() if dist.is_initialized() else 1)


def data() -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(0)
    x = torch.randn(N_SAMPLES, N_FEATURES, generator=g)
    w = torch.randn(N_FEATURES, generator=g)
    return x, x @ w + 0.1 * torch.randn(N_SAMPLES, generator=g)


def poisoned(loss: torch.Tensor, step: int, scenario: str, rank: int, world: int) -> torch.Tensor:
    """The loss, NaN on the last rank from NAN_STEP on (at NAN_STEP alone for ``recover``)."""
    if scenario == "healthy" or rank != world - 1 or step < NAN_STEP:
        return loss
    if step == NAN_STEP or scenario != "recover":
        return loss * float("nan")
    return loss


def write_result(out: Path, rank: int, world: int, step: int, callback) -> None:
    report = callback.report
    result = {
        "world": world,
        "step": step,
        "stopped": bool(getattr(callback, "should_stop", False) or callback.guard.should_stop),
        "verdict": report.verdict.value if report is not None else None,
        "findings": sorted({(f.code, f.severity.value) for f in report.findings}) if report is not None else None,
    }
    (out / f"rank{rank}.json").write_text(json.dumps(result))


def hf(out: Path, scenario: str) -> None:
    import transformers
    from _recovery_runs import sgd_cpu_args

    from trainlint.integrations.hf import GuardCallback

    world = int(os.environ.get("WORLD_SIZE", "1"))

    class Tiny(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lin = torch.nn.Linear(N_FEATURES, 1)
            self.calls = 0

        def forward(self, x, labels=None):
            self.calls += 1  # the step this forward belongs to (no accumulation)
            loss = ((self.lin(x).squeeze(-1) - labels) ** 2).mean()
            rank = int(os.environ.get("RANK", "0"))
            return {"loss": poisoned(loss, self.calls, scenario, rank, world)}

    torch.manual_seed(0)
    x, y = data()
    rows = [{"x": x[i], "labels": y[i]} for i in range(N_SAMPLES)]
    args = sgd_cpu_args(
        out,
        max_steps=STEPS,
        per_device_train_batch_size=GLOBAL_BATCH // world,
        learning_rate=LR,
        train_sampling_strategy="sequential",
    )
    callback = GuardCallback(stop_on=None if scenario == "off" else "FAIL", recover=scenario == "recover")
    trainer = transformers.Trainer(model=Tiny(), args=args, train_dataset=rows, callbacks=[callback])
    trainer.train()
    write_result(out, trainer.args.process_index, world, trainer.state.global_step, callback)


def lightning(out: Path, scenario: str, devices: int) -> None:
    import lightning as L
    from _recovery_runs import lightning_cpu_trainer

    from trainlint.integrations.lightning import GuardCallback

    class Module(L.LightningModule):
        def __init__(self) -> None:
            super().__init__()
            self.lin = torch.nn.Linear(N_FEATURES, 1)

        def training_step(self, batch, idx):
            xb, yb = batch
            loss = ((self.lin(xb).squeeze(-1) - yb) ** 2).mean()
            return poisoned(loss, self.global_step + 1, scenario, self.global_rank, self.trainer.world_size)

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=LR)

    torch.manual_seed(0)
    x, y = data()
    rows = torch.utils.data.TensorDataset(x, y)
    loader = torch.utils.data.DataLoader(rows, batch_size=GLOBAL_BATCH // devices, sampler=BatchShard())
    callback = GuardCallback(stop_on=None if scenario == "off" else "FAIL", recover=scenario == "recover")
    trainer = lightning_cpu_trainer(
        out,
        STEPS,
        callback,
        devices=devices,
        strategy="ddp" if devices > 1 else "auto",
        num_sanity_val_steps=0,
        use_distributed_sampler=False,
    )
    trainer.fit(Module(), loader)
    write_result(out, trainer.global_rank, trainer.world_size, trainer.global_step, callback)


def main(argv: list[str]) -> None:
    framework, out, scenarios = argv[0], Path(argv[1]), argv[2].split(",")
    devices = int(argv[argv.index("--devices") + 1]) if "--devices" in argv else 1
    torch.set_num_threads(1)
    for scenario in scenarios:
        folder = out / scenario
        folder.mkdir(parents=True, exist_ok=True)
        if framework == "hf":
            hf(folder, scenario)
        else:
            lightning(folder, scenario, devices)
    dist = torch.distributed
    if dist.is_initialized():  # left to interpreter exit, gloo's threads can abort rank 0 (SIGABRT)
        dist.barrier()
        dist.destroy_process_group()
    # Every result is written. Under load a rank still aborted in torch's C++ teardown at interpreter
    # exit ("terminate called without an active exception", SIGABRT, after destroy_process_group):
    # the rank ends here, without the static destructors; an exception above still fails the launch.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main(sys.argv[1:])
