"""Runs that did not finish: stopped early, or crashed."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..model import Run, RunMeta
from ..registry import Context, NotChecked, StandDown, Threshold, rule
from ..verdict import Finding
from .stats import fmt, fstep


def events_of(run: Run, kind: str) -> list[dict[str, Any]]:
    """The run's events of one type (``crash``, ``interrupt``, ``skip`` ...), in the order read."""
    return [e for e in run.events if isinstance(e, dict) and e.get("type") == kind]


def crash_events(run: Run) -> list[dict[str, Any]]:
    return events_of(run, "crash")


def _last_step(run: Run) -> float | None:
    ends = [float(s.steps.max()) for s in run.series.values() if len(s)]
    return max(ends) if ends else None


def _last_epoch(run: Run) -> float | None:
    ep = run.get("epoch")
    if ep is None or len(ep.finite()) == 0:
        return None
    return float(ep.finite().values.max())


def _planned(run: Run, meta: RunMeta) -> tuple[str, float, float] | None:
    """(what, planned, reached) from max_steps or num_train_epochs in the metadata."""
    max_steps, epochs = meta.max_steps, meta.num_train_epochs
    last = _last_step(run)
    if max_steps is not None and max_steps > 0 and last is not None:
        return "steps", float(max_steps), last
    ep = _last_epoch(run)
    if epochs is not None and epochs > 0 and ep is not None:
        return "epochs", float(epochs), ep
    planned, reached = meta.planned_epochs, meta.last_epoch
    if planned is not None and planned > 0 and reached is not None:
        return "epochs", float(planned), float(reached)
    return None


_CHECKPOINT = re.compile(r"checkpoint-(\d+)$")


def checkpoint_snapshot(run: Run) -> str | None:
    """Why a single trainer_state.json without a completion record is the state the Trainer saved
    with a checkpoint: the Trainer writes that file only when it saves, and without the entry
    train() writes when it returns, the save was not the run's end. Says which evidence names
    it: the control state saved with it (transformers 4.39+: should_training_stop false, training
    was to go on), the folder it sits in (checkpoint-N at its global_step), its
    best_model_checkpoint (checkpoint-<global_step>), its step (a multiple of save_steps), or
    none. None for anything else, for a run folder (its newest state is then where the run
    stopped) and for a save the Trainer made as the run was stopped (:func:`stopped_on_purpose`)."""
    meta = run.meta
    step = meta.get("global_step")
    if run.format != "hf-trainer-state" or "run_group" in meta or not isinstance(step, int) or step <= 0:
        return None
    if meta.get("stop_requested") is True:
        return None
    if meta.get("stop_requested") is False:
        return "its saved control state says training was to go on (should_training_stop false)"
    folder = _CHECKPOINT.match(Path(run.source).parent.name)
    if folder and int(folder.group(1)) == step:
        return f"it is {folder.group(0)}/trainer_state.json"
    best = _CHECKPOINT.search(str(meta.get("best_model_checkpoint") or "").replace("\\", "/").rstrip("/"))
    if best and int(best.group(1)) == step:
        return f"its best_model_checkpoint is {best.group(0)}, its own step"
    every = meta.get("save_steps")
    if isinstance(every, (int, float)) and every >= 1 and step % every == 0:
        return f"its step {step} is a multiple of save_steps {fstep(every)}"
    return "a trainer_state.json is written only when the Trainer saves, and this one holds no end of training"


def stopped_on_purpose(run: Run, meta: RunMeta) -> str | None:
    """Why a single trainer_state.json short of its plan records a run stopped on purpose: the
    Trainer's control state saved with it says training was to stop (should_training_stop true,
    which before max_steps only a callback sets), and EarlyStoppingCallback's patience counter,
    when saved, says whether early stopping did it. None otherwise."""
    if run.format != "hf-trainer-state" or "run_group" in run.meta or meta.stop_requested is not True:
        return None
    count, patience = meta.patience_counter, meta.patience
    if count is not None and patience is not None and count >= patience:
        return f"early stopping ended it (patience counter {fstep(count)} of {fstep(patience)})"
    return "a callback ended it (should_training_stop true in its saved control state)"


@rule(
    code="TL080",
    whole_run=True,
    name="run-incomplete",
    category="crash",
    severity="WARN",
    summary="The log ends before the planned end of training, with no completion record.",
    explanation="""
The run planned max_steps steps (or num_train_epochs epochs), the log stops short of that
and holds no completion record (for Hugging Face, the final summary entry with
train_runtime). The job was killed, preempted, ran out of time, or crashed: WARN, and FAIL
when the log ends in a crash signature (see TL081); a crash the log shows was followed by a
relaunch into the same file (a launch that failed at start-up, then one that trained) is not
how it ends. A log ending in a KeyboardInterrupt
traceback was stopped by hand or by a scheduler's SIGINT: a WARN that says so, not a crash. Judgements of the other rules cover
only the part that ran. A single trainer_state.json is written only when the Trainer saves
(checkpoint-N/, or a copy of one): without a completion record it ends where that save was
taken, not where the run ended: a NOTE that says what shows it (should_training_stop false in
its saved control state, the folder, best_model_checkpoint, save_steps). One whose control
state says training was to stop (should_training_stop true before max_steps: early stopping,
with its patience counter, or another callback) records a run stopped on purpose: a NOTE. A
file cut off mid-write shows the run died while saving it: a WARN. The Trainer's output
folder still WARNs: its newest state is where the run stopped.
Try: the scheduler's exit status and the console log's last lines.
A run still training has not ended: the live guard runs this rule when the run ends.""",
    live="end",
    thresholds=[Threshold("tolerance", 0.02, "shortfall (fraction of the plan) still counted as complete")],
)
def run_incomplete(ctx: Context) -> Finding | None:
    run = ctx.subject
    meta = RunMeta.of(run)
    if meta.completed is True:
        raise StandDown("the log holds a completion record")
    plan = _planned(run, meta)
    if plan is None:
        raise NotChecked("planned length unknown (no max_steps or num_train_epochs in the log)")
    what, planned, reached = plan
    cadence = meta.logging_steps if what == "steps" else None
    slack = max(ctx.t("tolerance") * planned, float(cadence) if cadence is not None else 0.0)
    if reached >= planned - slack:
        return None
    # A crash followed by a relaunch into the same log (TL081's WARN) is not how the log ends.
    crashes = [e for e in crash_events(run) if not e.get("resumed")]
    cut = not crashes and any(d.kind == "truncated" for d in run.damage)  # died while writing it
    purpose = None if crashes or cut else stopped_on_purpose(run, meta)
    if purpose:
        return _on_purpose_note(ctx, purpose, planned, reached, what)
    snapshot = None if crashes or cut else checkpoint_snapshot(run)
    if snapshot:
        return _snapshot_note(ctx, snapshot, planned, reached, what)
    sev = "FAIL" if crashes else "WARN"
    why = f"; ends in a crash: {crashes[-1].get('signature', 'crash')}" if crashes else "; no completion record"
    stops = events_of(run, "interrupt")
    if stops and not crashes:
        why += f"; interrupted (KeyboardInterrupt, line {stops[-1].get('line')}): stopped by hand or by a SIGINT"
    why += "; the file is cut off mid-write: the process died while saving it" if cut else ""
    return ctx.fire(
        f"run stopped at {fstep(reached)} of {fstep(planned)} planned {what} ({fmt(reached / planned * 100)}%, "
        f"tolerance {fmt(ctx.t('tolerance') * 100)}%){why}",
        step=_last_step(run),
        severity=sev,
        planned=planned,
        reached=reached,
        unit=what,
        fraction=reached / planned,
        crashed=bool(crashes),
        threshold=ctx.t("tolerance"),
    )


def _on_purpose_note(ctx: Context, why: str, planned: float, reached: float, what: str) -> Finding:
    """A trainer_state.json saved as the run was told to stop before its plan: stopped on purpose."""
    return _short_note(
        ctx,
        f"run stopped on purpose at {fstep(reached)} of {fstep(planned)} planned {what} "
        f"({fmt(reached / planned * 100)}%): {why}",
        (planned, reached, what),
        on_purpose=True,
    )


def _snapshot_note(ctx: Context, why: str, planned: float, reached: float, what: str) -> Finding:
    """A checkpoint's trainer_state.json stops where the checkpoint was taken, by definition: a
    NOTE that the run's end is not in the file, not a run that stopped."""
    return _short_note(
        ctx,
        f"a saved state, not the run's end ({why}): step {fstep(reached)} of {fstep(planned)} planned {what} "
        f"({fmt(reached / planned * 100)}%); where the run ended is not in this file (judge the output folder "
        "or the run's last trainer_state.json)",
        (planned, reached, what),
        snapshot=True,
    )


def _short_note(ctx: Context, message: str, plan: tuple[float, float, str], **flags: bool) -> Finding:
    """TL080's NOTE for a file that stops short of its plan without the run having died."""
    planned, reached, what = plan
    evidence = {"crashed": False, "snapshot": False, **flags}
    return ctx.fire(
        message,
        step=_last_step(ctx.subject),
        severity="NOTE",
        planned=planned,
        reached=reached,
        unit=what,
        fraction=reached / planned,
        threshold=ctx.t("tolerance"),
        **evidence,
    )


@rule(
    code="TL081",
    whole_run=True,
    name="crashed",
    category="crash",
    severity="FAIL",
    summary="The log ends in a traceback or a known fatal message (OOM, NCCL timeout, worker killed).",
    explanation="""
The reader found a crash signature in the log: a Python traceback, CUDA out of memory,
an NCCL timeout, a DataLoader worker killed, or the kernel's "Killed" (a traceback of
KeyboardInterrupt alone is not a crash: the run was stopped; TL080 says so). The run did not
finish; whatever the curves say covers only the part before the crash. A crash that the
log shows was followed by a relaunch into the same file is a WARN, and so is one printed after
the log's normal end (a completion record such as the Trainer's train_runtime summary, with
no training line after it): the training finished, and what failed ran after it (a next
stage, an upload, a logger's teardown). A traceback raised while
the model or a checkpoint was being written (its frames or the line before it say so) is named
as such: after the last training step the training ran to its end, but the run is incomplete
all the same, since what it was saving is missing or partial. A crash before the first loss
line (an out-of-memory error while the model loads) is judged too: the log needs no loss for
this rule. Try: for OOM a
smaller batch, gradient accumulation or checkpointing; for NCCL timeouts a hung rank
(look at every rank's log); for killed workers fewer workers or more host memory; for a
failed save the disk space and the output path, then save again from the last checkpoint.""",
    thresholds=[Threshold("tolerance", 0.02, "shortfall of the plan still counted as trained to the end")],
)
def crashed(ctx: Context) -> Finding | None:
    run = ctx.subject
    found = crash_events(run)
    if not found:
        if not RunMeta.of(run).crash_scanned and not run.events:
            raise NotChecked("this log format carries no crash records")
        return None
    last = found[-1]
    where = f" (line {last['line']})" if last.get("line") is not None else ""
    sig = str(last.get("signature") or "crash")
    text = f": {str(last['text'])[:120]}" if last.get("text") else ""
    at = _last_step(run)
    after = f"; last logged step {fstep(at)}" if at is not None else "; no training step read before it"
    ev: dict[str, Any] = dict(signature=sig, line=last.get("line"), crashes=len(found), last_step=at)
    if all(e.get("resumed") for e in found):
        return ctx.fire(
            f"run crashed with {sig}{where} and was relaunched into the same log{after}",
            step=at,
            severity="WARN",
            resumed=True,
            **ev,
        )
    if last.get("phase") == "saving":
        return _crashed_while_saving(ctx, run, ev, f"{sig}{where}{text}{after}")
    if last.get("after_end") and all(e.get("resumed") or e.get("after_end") for e in found):
        return ctx.fire(
            f"training ran to its normal end, then the process crashed: {sig}{where}{text}{after}; "
            "what ran after training (a next stage, an upload, a logger's teardown) did not finish",
            step=at,
            severity="WARN",
            resumed=False,
            after_end=True,
            **ev,
        )
    return ctx.fire(f"run crashed: {sig}{where}{text}{after}", step=at, resumed=False, **ev)


def _crashed_while_saving(ctx: Context, run: Run, ev: dict[str, Any], what: str) -> Finding:
    """A traceback raised while the model or a checkpoint was written: after the last training step
    (the completion record is there, or the plan was reached) the training ran to its end but its
    output is missing or partial: the run is incomplete all the same."""
    meta = RunMeta.of(run)
    plan = _planned(run, meta)
    trained = meta.completed is True or (plan is not None and plan[2] >= plan[1] * (1 - ctx.t("tolerance")))
    if trained:
        when = "after its last training step"
    elif plan is not None:
        when = f"mid-run ({fstep(plan[2])} of {fstep(plan[1])} planned {plan[0]})"
    else:
        when = "after its last logged step"
    return ctx.fire(
        f"run incomplete: crashed while saving {when}: {what}; the model or checkpoint it was writing is "
        "missing or partial",
        step=ev["last_step"],
        resumed=False,
        phase="saving",
        after_training=trained,
        **ev,
    )
