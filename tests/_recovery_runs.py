"""Tiny real training runs with a poisoned window of steps (targets x1e4 under plain SGD:
the weights blow up to NaN), for the recovery tests of the framework callbacks and of a plain
loop. Each forward in training mode records the sample indices of its batch."""

from __future__ import annotations

import torch

N_FEATURES, N_SAMPLES, BATCH, LR = 8, 2048, 32, 0.02
POISON = 1e4


def data(seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(N_SAMPLES, N_FEATURES, generator=g)
    w = torch.randn(N_FEATURES, generator=g)
    return x, x @ w + 0.1 * torch.randn(N_SAMPLES, generator=g)


class Net(torch.nn.Module):
    """An MLP whose n-th training forward (n from 1) scales the targets by POISON when n is
    in ``poison``; ``seen[n]`` holds the sample indices of that forward's batch."""

    def __init__(self, poison=()) -> None:
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(N_FEATURES, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
        self.poison, self.calls, self.seen = set(poison), 0, {}

    def loss(self, x, labels, idx):
        if self.training:
            self.calls += 1
            self.seen[self.calls] = [int(i) for i in idx]
            if self.calls in self.poison:
                labels = labels * POISON
        return ((self.net(x).squeeze(-1) - labels) ** 2).mean()

    def forward(self, x, labels=None, idx=None):
        return {"loss": self.loss(x, labels, idx)}


def replay_sgd(seen: dict[int, list[int]], skipped: set[int], steps: int) -> Net:
    """The model plain SGD gives on the batches a run's loader yielded, without the skipped
    ones (a rollback discards their updates): from the same seed, in the same order."""
    x, y = data()
    torch.manual_seed(0)
    net = Net()
    opt = torch.optim.SGD(net.parameters(), lr=LR)
    for n in range(1, steps + 1):
        if n in skipped:
            continue
        idx = torch.tensor(seen[n])
        opt.zero_grad()
        net.loss(x[idx], y[idx], idx).backward()
        opt.step()
    return net


def rank_worker(rank: int, world: int, port: int, out: str, steps: int, window: list[int]) -> None:
    """One rank of a gloo process group running a plain recovering loop; only rank 1's
    batches are poisoned in ``window``. Writes the actions it took to OUT/rank<rank>.json."""
    import json
    import os

    from trainlint.integrations.recover import recovering

    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    torch.distributed.init_process_group("gloo", rank=rank, world_size=world)
    torch.set_num_threads(1)
    x, y = data()
    torch.manual_seed(0)
    net = Net(window if rank == 1 else ())
    opt = torch.optim.SGD(net.parameters(), lr=LR)
    rec = recovering(net, opt)
    for step in range(1, steps + 1):
        idx = torch.arange((step - 1) * BATCH, step * BATCH) % len(y)
        opt.zero_grad()
        loss = net.loss(x[idx], y[idx], idx)
        loss.backward()
        opt.step()
        rec.observe(step, loss=loss.item())
        if rec.should_stop:
            break
    actions = [[a.code, a.fault_step, a.restored_step, a.skipped_steps, a.outcome] for a in rec.actions]
    with open(os.path.join(out, f"rank{rank}.json"), "w") as fh:
        json.dump({"actions": actions, "steps": step}, fh)
    torch.distributed.destroy_process_group()


def sgd_cpu_args(output_dir, **over):
    """The Trainer arguments of a tiny CPU run the tests replay: plain SGD at a constant LR, no
    clipping to speak of, a log line per step, no saves, no reports, no NaN filter; ``over``
    sets the rest (``max_steps``, ``learning_rate``, ``per_device_train_batch_size``, ...)."""
    import transformers

    base = dict(
        output_dir=str(output_dir),
        lr_scheduler_type="constant",
        optim="sgd",
        max_grad_norm=1e9,
        logging_steps=1,
        report_to=[],
        save_strategy="no",
        use_cpu=True,
        disable_tqdm=True,
        logging_nan_inf_filter=False,
        seed=0,
    )
    return transformers.TrainingArguments(**{**base, **over})


def lightning_cpu_trainer(tmp_path, steps: int, callback, **extra):
    """A Lightning Trainer for a tiny CPU run the tests replay: ``steps`` steps with ``callback``,
    no logger, checkpoints, progress bar or model summary (``extra``: more Trainer arguments)."""
    import lightning as L

    return L.Trainer(
        max_steps=steps,
        callbacks=[callback],
        logger=False,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
        default_root_dir=str(tmp_path),
        accelerator="cpu",
        **extra,
    )
