"""The training state a recovery rolls back, taken and put back with torch (imported here,
lazily, only when a recovery policy is in use): model weights, optimizer, LR scheduler,
gradient scaler and the RNG states (torch, CUDA, numpy when loaded, Python's ``random``);
and the one collective that makes every rank of a distributed run take the same decision."""

from __future__ import annotations

import copy
import math
import random
import sys
from pathlib import Path
from typing import Any


class Parts:
    """The live objects a snapshot is taken of (any of them may be None)."""

    def __init__(self, model: Any, optimizer: Any = None, scheduler: Any = None, scaler: Any = None) -> None:
        self.model, self.optimizer, self.scheduler, self.scaler = model, optimizer, scheduler, scaler


class Snapshot:
    """One good state: where it was taken (step), what it holds, and its size in bytes."""

    def __init__(self, step: float, state: dict[str, Any], nbytes: int, path: Path | None = None) -> None:
        self.step, self.state, self.nbytes, self.path = step, state, nbytes, path

    def load(self) -> dict[str, Any]:
        if self.path is None:
            return self.state
        import torch

        return torch.load(self.path, map_location="cpu", weights_only=False)


def _to_cpu(obj: Any, reuse: Any = None) -> Any:
    """A deep copy of a state dict with every tensor copied to the CPU, into the tensors of
    ``reuse`` (an older copy of the same structure) where their shape and dtype match: a
    copy into memory already mapped costs a ninth of a fresh one."""
    import torch

    if isinstance(obj, torch.Tensor):
        if isinstance(reuse, torch.Tensor) and reuse.shape == obj.shape and reuse.dtype == obj.dtype:
            return reuse.copy_(obj.detach())
        return obj.detach().to("cpu", copy=True)
    if isinstance(obj, dict):
        old = reuse if isinstance(reuse, dict) else {}
        return {k: _to_cpu(v, old.get(k)) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        old = reuse if isinstance(reuse, type(obj)) and len(reuse) == len(obj) else [None] * len(obj)
        return type(obj)(_to_cpu(v, r) for v, r in zip(obj, old))
    return copy.deepcopy(obj)


def _tensors(obj: Any) -> list[Any]:
    import torch

    if isinstance(obj, torch.Tensor):
        return [obj]
    if isinstance(obj, dict):
        return [t for v in obj.values() for t in _tensors(v)]
    if isinstance(obj, (list, tuple)):
        return [t for v in obj for t in _tensors(v)]
    return []


def all_finite(tensors: list[Any]) -> bool:
    """Every floating-point tensor is finite: one sum per tensor, accumulated in float32 at
    least (a NaN or an infinity makes it non-finite; so do weights so large that their sum
    overflows, which are blown up anyway). A tenth of the time of ``isfinite().all()``."""
    import torch

    for t in tensors:
        if t.is_floating_point():
            acc = t.sum() if t.dtype == torch.float64 else t.sum(dtype=torch.float32)
            if not bool(torch.isfinite(acc)):
                return False
    return True


def rng_state() -> dict[str, Any]:
    import torch

    out: dict[str, Any] = {"torch": torch.get_rng_state(), "python": random.getstate()}
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        out["cuda"] = torch.cuda.get_rng_state_all()
    if "numpy" in sys.modules:
        out["numpy"] = sys.modules["numpy"].random.get_state()
    return out


def set_rng_state(state: dict[str, Any]) -> None:
    import torch

    torch.set_rng_state(state["torch"])
    random.setstate(state["python"])
    if "cuda" in state:
        torch.cuda.set_rng_state_all(state["cuda"])
    if "numpy" in state and "numpy" in sys.modules:
        sys.modules["numpy"].random.set_state(state["numpy"])


def take(parts: Parts, step: float, path: Path | None = None, reuse: Snapshot | None = None) -> Snapshot | None:
    """A snapshot of ``parts`` at ``step`` (None when a weight or optimizer tensor is not
    finite: such a state is not good; checked before anything is copied). With ``path`` it
    is written there, not kept; else it is copied into ``reuse``'s tensors (an evicted
    snapshot) where they fit."""
    live: dict[str, Any] = {"model": parts.model.state_dict()}
    for name in ("optimizer", "scheduler", "scaler"):
        obj = getattr(parts, name)
        if obj is not None:
            live[name] = obj.state_dict()
    weights = _tensors([live["model"], live.get("optimizer")])
    if not all_finite(weights):
        return None
    nbytes = sum(t.numel() * t.element_size() for t in weights)
    old = reuse.state if reuse is not None and reuse.path is None else {}
    state = {name: _to_cpu(value, old.get(name)) for name, value in live.items()}
    state["rng"] = rng_state()
    if path is None:
        return Snapshot(step, state, nbytes)
    import torch

    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save(state, path)
    return Snapshot(step, {}, nbytes, path)


def state_bytes(parts: Parts) -> int:
    """The bytes a snapshot of ``parts`` takes (weights and optimizer state), without taking it."""
    tensors = _tensors(parts.model.state_dict())
    if parts.optimizer is not None:
        tensors += _tensors(parts.optimizer.state_dict())
    return sum(t.numel() * t.element_size() for t in tensors)


def restore(parts: Parts, snap: Snapshot, lr_scale: float) -> tuple[list[float], list[float]]:
    """Put ``snap`` back into ``parts``; the LR scheduler keeps its step count (the schedule
    goes on from the current step); the LR is scaled by ``lr_scale``. Returns the learning
    rates of the optimizer's groups before and after."""
    state = snap.load()
    before = _lrs(parts.optimizer)
    parts.model.load_state_dict(state["model"])
    if parts.optimizer is not None and "optimizer" in state:
        # a copy: on the CPU the optimizer would keep the snapshot's tensors and update them
        parts.optimizer.load_state_dict(_to_cpu(state["optimizer"]))
    if parts.scheduler is not None and "scheduler" in state:
        now = getattr(parts.scheduler, "last_epoch", None)
        parts.scheduler.load_state_dict(state["scheduler"])
        if now is not None:
            parts.scheduler.last_epoch = now
    if parts.scaler is not None and "scaler" in state:
        parts.scaler.load_state_dict(state["scaler"])
    set_rng_state(state["rng"])
    _set_lrs(parts, before, lr_scale)
    return before, _lrs(parts.optimizer)


def _lrs(optimizer: Any) -> list[float]:
    return [float(g["lr"]) for g in optimizer.param_groups] if optimizer is not None else []


def _set_lrs(parts: Parts, current: list[float], scale: float) -> None:
    """The groups' LR as the schedule has it now (restoring the optimizer brought back the
    snapshot's), times ``scale``; a LambdaLR-style scheduler's base LRs scaled too, so that
    its next step keeps the scale."""
    if parts.optimizer is None:
        return
    sched = parts.scheduler
    if sched is not None and hasattr(sched, "base_lrs") and scale != 1.0:
        sched.base_lrs = [b * scale for b in sched.base_lrs]
    for group, lr in zip(parts.optimizer.param_groups, current):
        group["lr"] = lr * scale
    if sched is not None and hasattr(sched, "_last_lr"):
        sched._last_lr = _lrs(parts.optimizer)


def agree(flags: list[int]) -> list[int]:
    """The element-wise maximum of ``flags`` over every rank of an initialised process group
    (the same list on every rank), or ``flags`` itself in a single process."""
    import torch

    dist = torch.distributed
    if not (dist.is_available() and dist.is_initialized()) or dist.get_world_size() == 1:
        return flags
    device = "cuda" if dist.get_backend() == "nccl" else "cpu"
    if device == "cuda":
        device = f"cuda:{torch.cuda.current_device()}"
    t = torch.tensor(flags, dtype=torch.int64, device=device)
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return [int(v) for v in t.tolist()]


def from_rank0(obj: Any) -> Any:
    """Rank 0's ``obj`` on every rank of an initialised process group (``obj`` itself in a
    single process); every rank must call it."""
    import torch

    dist = torch.distributed
    if not (dist.is_available() and dist.is_initialized()) or dist.get_world_size() == 1:
        return obj
    box = [obj]
    dist.broadcast_object_list(box, src=0)
    return box[0]


def rank() -> int:
    import torch

    dist = torch.distributed
    return dist.get_rank() if dist.is_available() and dist.is_initialized() else 0


def finite(value: float | None) -> bool:
    return value is not None and math.isfinite(value)
