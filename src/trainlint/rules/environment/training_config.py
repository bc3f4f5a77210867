"""Environment rules, group training-config: TL435-TL449: the training configuration (training_args, hparams.yaml, TRL/axolotl)."""

from __future__ import annotations

import math
from typing import Any

from ...registry import Context, NotChecked, StandDown, rule
from ...verdict import Finding
from .common import BASE, _part, gib
from .resources import _checkpoint_size

E = dict(**BASE, group="training-config")


def _cfg(ctx: Context) -> Any:
    return _part(ctx, "config", "no training configuration given")


def _num(value: Any) -> float | None:
    """A config value as a finite float (numbers, and text that spells one); None for anything
    else, a non-finite value and an integer beyond float range included (no plan, no rate)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    try:
        out = float(value)
    except (ValueError, OverflowError):
        return None
    return out if math.isfinite(out) else None


@rule(
    code="TL435",
    name="config-learning-rate-zero",
    severity="FAIL",
    **E,
    summary="The configured learning rate is 0 (or negative).",
    explanation="""
With a learning rate of 0 the optimizer changes nothing: the loss stays flat however long the
run lasts. A negative one climbs the loss instead of descending it. Read from the training
configuration (learning_rate, or lr anywhere in a nested config) before the run starts.""",
)
def config_learning_rate_zero(ctx: Context) -> Finding | None:
    cfg = _cfg(ctx)
    lr = _num(cfg.get("learning_rate"))
    if lr is None:
        given = cfg.get("learning_rate") is not None
        raise NotChecked(
            "the learning rate is not a finite number" if given else "no learning rate in the configuration"
        )
    if lr > 0:
        return None
    what = "0: the weights will never change" if lr == 0 else "negative: the optimizer climbs the loss"
    return ctx.fire(
        f"{cfg.path('learning_rate')} = {lr:g}, the learning rate is {what}",
        value=lr,
        threshold=0.0,
        key=cfg.path("learning_rate"),
    )


@rule(
    code="TL436",
    name="config-warmup-covers-training",
    severity="WARN",
    **E,
    summary="Warm-up lasts as long as (or longer than) the whole run.",
    explanation="""
When warm-up steps reach max_steps, the learning rate is still ramping up when training ends:
the run never trains at the configured rate and the decay phase never happens. Usually a
warm-up meant for a longer run, or warmup_steps confused with warmup_ratio. A warmup_steps
value below 1 is read as a ratio of the run (as recent transformers do).""",
)
def config_warmup_covers_training(ctx: Context) -> Finding | None:
    cfg = _cfg(ctx)
    max_steps = _num(cfg.get("max_steps"))
    if max_steps is None or max_steps <= 0:
        raise NotChecked("max_steps not set (run length given in epochs)")
    ws, wr = _num(cfg.get("warmup_steps")), _num(cfg.get("warmup_ratio"))
    if ws is not None and 0 < ws < 1:  # transformers reads warmup_steps below 1 as a ratio
        warm, key = ws * max_steps, f"{cfg.path('warmup_steps')} = {ws:g} as a ratio"
    elif ws:
        warm, key = ws, cfg.path("warmup_steps")
    elif wr:
        warm, key = wr * max_steps, f"{cfg.path('warmup_ratio')} = {wr:g}"
    elif ws is None and wr is None:
        raise NotChecked("no warm-up configured")
    else:
        raise StandDown("warm-up is 0")
    if warm < max_steps:
        return None
    return ctx.fire(
        f"warm-up of {warm:g} steps ({key}) >= max_steps {max_steps:.0f} "
        f"({cfg.path('max_steps')}): the learning rate never reaches its configured value",
        value=warm,
        threshold=max_steps,
        key=key,
    )


_LOSS_SCALED = {"16", "16-mixed", "fp16-mixed", "fp16", "16bit"}


@rule(
    code="TL437",
    name="config-fp16-without-loss-scaling",
    severity="WARN",
    **E,
    summary="fp16 training without dynamic loss scaling.",
    explanation="""
fp16 gradients underflow to zero (and large ones overflow) unless the loss is scaled. The
Hugging Face Trainer and Lightning's "16-mixed" add a dynamic scaler themselves, so they pass;
Lightning's "16-true" (weights and gradients in fp16, no scaler) and a DeepSpeed fp16 section
with a static loss_scale of 1 (no scaling) fire. Prefer bf16 on hardware that has it, or
mixed precision with a scaler.""",
)
def config_fp16_without_loss_scaling(ctx: Context) -> Finding | None:
    cfg = _cfg(ctx)
    ds = cfg.get("deepspeed_config")
    fp16 = ds.get("fp16") if isinstance(ds, dict) else None
    if isinstance(fp16, dict) and fp16.get("enabled") in (True, "true", "auto"):
        scale = _num(fp16.get("loss_scale", 0))
        if scale == 1:
            return ctx.fire(
                "DeepSpeed fp16 with loss_scale = 1: static scaling of 1 means no loss scaling",
                loss_scale=scale,
                key=cfg.path("deepspeed"),
            )
        return None
    prec = cfg.get("precision")
    if prec is not None and str(prec).lower() in ("16-true", "fp16-true", "half"):
        return ctx.fire(
            f"{cfg.path('precision')} = {prec!r}: pure fp16 without a gradient scaler",
            precision=str(prec),
            key=cfg.path("precision"),
        )
    if prec is not None and str(prec).lower() in _LOSS_SCALED:
        raise StandDown(f"precision {prec!r} uses Lightning's dynamic gradient scaler")
    if cfg.get("fp16") is True and cfg.framework == "hf":
        raise StandDown("fp16 under the Hugging Face Trainer, which adds a dynamic GradScaler")
    if cfg.get("fp16") is None and prec is None:
        raise NotChecked("no precision settings in the configuration")
    return None


@rule(
    code="TL438",
    name="config-nan-loss-filter",
    severity="NOTE",
    **E,
    summary="logging_nan_inf_filter is on: NaN/inf losses will not appear in the log.",
    explanation="""
With logging_nan_inf_filter (the Hugging Face default) the Trainer replaces a NaN or infinite
step loss by the mean of the logging window before logging it, so the logged loss looks finite
while the run is already broken, and a log-based check (TL001) cannot see it. Set it to False
to keep NaNs visible, and watch grad_norm, which is not filtered.""",
)
def config_nan_loss_filter(ctx: Context) -> Finding | None:
    cfg = _cfg(ctx)
    on = cfg.get("logging_nan_inf_filter")
    if on is None:
        raise NotChecked("no logging_nan_inf_filter setting (not Hugging Face TrainingArguments)")
    if on is not True:
        return None
    return ctx.fire(
        "logging_nan_inf_filter = True: NaN/inf losses are replaced in the log by the "
        "window mean, so the log will hide them",
        value=True,
        key=cfg.path("logging_nan_inf_filter"),
    )


def _saves_kept(cfg: Any) -> tuple[int | None, str]:
    """How many checkpoints the run will keep at most, and how that was worked out."""
    strategy = str(cfg.get("save_strategy", "steps")).lower()
    if strategy == "no":
        raise StandDown("save_strategy is 'no': no checkpoints are written")
    limit = cfg.get("save_total_limit")
    if isinstance(limit, int) and not isinstance(limit, bool) and limit > 0:
        return limit, f"{cfg.path('save_total_limit')} = {limit}"
    if limit == 0 and cfg.framework != "hf":  # Lightning save_top_k=0 keeps none; HF 0 = no limit
        raise StandDown(f"{cfg.path('save_total_limit')} = 0: no checkpoints are kept")
    max_steps, every = _num(cfg.get("max_steps")), _num(cfg.get("save_steps"))
    if strategy == "steps" and max_steps and max_steps > 0 and every and every > 0:
        n = math.ceil(max_steps / every)
        return n, f"no save limit: max_steps {max_steps:.0f} / save_steps {every:.0f} = {n} checkpoints"
    return None, "no save limit and the number of saves is unknown"


@rule(
    code="TL439",
    name="config-checkpoints-exceed-disk",
    severity="FAIL",
    **E,
    summary="The checkpoints the configuration keeps will not fit on the disk.",
    explanation="""
Worked out from save_total_limit (or Lightning's save_top_k); without a limit, from
max_steps / save_steps. One more than the limit is counted, since a new checkpoint is written
before the oldest is removed. The checkpoint size comes from --checkpoint-size or an existing
checkpoint folder; checkpoints already in the folder are counted as space the run can reuse.
A full disk stops training at a save and can leave a truncated checkpoint.""",
)
def config_checkpoints_exceed_disk(ctx: Context) -> Finding | None:
    cfg = _cfg(ctx)
    res = _part(ctx, "resources", "free disk space not probed")
    kept, how = _saves_kept(cfg)
    if kept is None:
        raise NotChecked(how)
    size, size_how = _checkpoint_size(ctx, res)
    if size is None:
        raise NotChecked("checkpoint size unknown (--checkpoint-size GB, or an existing checkpoint folder)")
    if res.disk_free is None:
        raise NotChecked("free disk space could not be read")
    peak = (kept + 1) * size
    need = max(peak - res.checkpoints_bytes_total, size)
    if res.disk_free >= need:
        return None
    return ctx.fire(
        f"{how}; up to {kept + 1} x {gib(size)} = {gib(peak)} on disk, {gib(need)} more needed "
        f"but {gib(res.disk_free)} free at {res.disk_path}",
        value=res.disk_free,
        threshold=need,
        kept=kept,
        checkpoint_bytes=size,
        size_from=size_how,
        existing_bytes=res.checkpoints_bytes_total,
    )


def _report_none(value: Any) -> bool:
    if value is None:
        return False
    items = value if isinstance(value, list) else [value]
    return all(str(v).lower() in ("none", "") for v in items)


@rule(
    code="TL440",
    name="config-nothing-logged",
    severity="WARN",
    **E,
    summary="No logger is configured and no log file exists: nothing will be left to judge.",
    explanation="""
report_to is "none" (Hugging Face) or logger is false (Lightning), and no log file that trainlint
can read was found beside the configuration. The loss curve then lives only on the console, and
a failure cannot be diagnosed afterwards. Hugging Face checkpoints carry trainer_state.json,
so with checkpoints saved this stands down. Log somewhere: report_to "tensorboard", a CSV logger,
or keep the console output.""",
)
def config_nothing_logged(ctx: Context) -> Finding | None:
    cfg = _cfg(ctx)
    off = _report_none(cfg.get("report_to")) or cfg.get("logger") is False
    if not cfg.has("report_to") and not cfg.has("logger"):
        raise NotChecked("no report_to / logger setting in the configuration")
    if not off:
        return None
    logs = ctx.subject.log_files
    if logs:
        raise StandDown(f"no logger configured, but log files exist: {', '.join(logs[:3])}")
    if cfg.framework == "hf" and str(cfg.get("save_strategy", "steps")).lower() != "no":
        raise StandDown("report_to none, but checkpoints will carry trainer_state.json with the log history")
    key = cfg.path("report_to") if cfg.has("report_to") else cfg.path("logger")
    return ctx.fire(
        f"{key} = {cfg.get('report_to', cfg.get('logger'))!r} and no log file found: "
        "the loss curve will exist only on the console",
        key=key,
        looked=logs is not None,
    )


def _eval_data(cfg: Any) -> bool:
    data = cfg.get("eval_data")
    if isinstance(data, (int, float)) and not isinstance(data, bool):
        return data > 0
    return bool(data)


@rule(
    code="TL441",
    name="config-eval-never-runs",
    severity="WARN",
    **E,
    summary="An evaluation is asked for but the configuration never runs it.",
    explanation="""
Fires when do_eval or an evaluation set (val_set_size, test_datasets, eval_dataset, a
val_dataset) is configured but eval_strategy is "no", evals_per_epoch is 0 or Lightning's
limit_val_batches is 0; or when eval_strategy is "steps" with eval_steps beyond max_steps.
Without evaluation there is no eval loss, so overfitting cannot be seen in the log.""",
)
def config_eval_never_runs(ctx: Context) -> Finding | None:
    cfg = _cfg(ctx)
    wants = cfg.get("do_eval") is True or _eval_data(cfg)
    strategy = str(cfg.get("eval_strategy", "")).lower()
    max_steps, every = _num(cfg.get("max_steps")), _num(cfg.get("eval_steps"))
    if strategy == "steps" and every is None:
        every = _num(cfg.get("logging_steps"))
    if strategy == "steps" and max_steps and max_steps > 0 and every and every > max_steps:
        return ctx.fire(
            f"eval_steps {every:.0f} > max_steps {max_steps:.0f}: evaluation never runs",
            value=every,
            threshold=max_steps,
        )
    if not wants:
        if not cfg.has("eval_strategy") and not cfg.has("do_eval"):
            raise NotChecked("no evaluation settings in the configuration")
        return None
    off = [
        (k, cfg.get(k))
        for k in ("eval_strategy", "evals_per_epoch", "limit_val_batches")
        if str(cfg.get(k)).lower() in ("no", "0", "0.0")
    ]
    if not off:
        return None
    asked = cfg.path("do_eval") if cfg.get("do_eval") is True else cfg.path("eval_data")
    return ctx.fire(
        f"{asked} asks for evaluation but {cfg.path(off[0][0])} = {off[0][1]!r}: evaluation never runs",
        asked_by=asked,
        disabled_by=cfg.path(off[0][0]),
    )
