"""Kinds a blind sample of outside logs (probe round 27a, the LLM fine-tuning and distillation
domain: repositories find_files lists for ``sft.log``, ``distill.log``, ``grpo.log``, ``dpo.log``,
``gpt2.log`` and ``lora.log``, labelled before trainlint read them) found read wrong: a tqdm bar
whose last render the log ends on, cut off before its closing bracket (a terminal's screen copied
at its width), had been left unread, so the run read as ending where the bar had been drawn
before. Each fixture is made up in the shape of the real file (repository, path and commit
recorded with it; no copied lines) and asserts the series read: names, steps, first and last
values, and which is the loss."""

from __future__ import annotations

from _consolekit import read_lines as _read
from _consolekit import series_ends as _series

TOTAL = 10000
FIRST = 6700
RENDERS = 12
CUT_AT = 8200


def _loss(n: int) -> float:
    return round(2.4 - n / 10000, 4)


def _render(n: int, post: str) -> str:
    pct = 100 * n // TOTAL
    bar = "█" * (pct // 5)
    return f"Distilling: {pct:3d}%|{bar:<20}| {n}/{TOTAL} [16:{n % 60:02d}<07:36,  7.03it/s{post}]"


def _post(n: int) -> str:
    return f", loss={_loss(n):.4f}, kl={_loss(n) - 0.1:.4f}, ce={_loss(n) + 0.2:.4f}, lr=1.28e-04"


def _distill_log(last_post: str) -> list[str]:
    """ZimengXiong/distilled-tiny-diffusion distill.log @e15bfeb131b64c601b3bceefbc4176347cd24396:
    a student distilled from a teacher, ``pbar.set_postfix(loss=, kl=, ce=, lr=)`` on a ``Distilling``
    bar; the renders glued on one line between the samples the script prints every thousand
    steps; the screen copied after the run was stopped, its last line the bar's render cut at
    the terminal's width, just before the closing bracket."""
    lines = ["Using device: mps", "Loading teacher model...", "Student params: 1,032,192", ""]
    lines += ["--- Student sample at step 6000 ---", "the the thee one", "---"]
    lines.append("".join(_render(FIRST + k, _post(FIRST + k)) for k in range(RENDERS)))
    lines += ["--- Student sample at step 7000 ---", "Fir, you the not", "---", ""]
    lines.append(_render(CUT_AT, last_post)[:-1])  # the render cut before its "]"
    return lines


def test_a_bar_render_cut_at_the_end_of_the_log_is_read(tmp_path):
    run = _read(tmp_path, _distill_log(_post(CUT_AT)), "distill.log")
    assert run.format == "console/tqdm-postfix"
    assert run.roles["loss"] == "loss"
    points = RENDERS + 1
    last = FIRST + RENDERS - 1
    assert _series(run, "loss") == (points, float(FIRST), float(CUT_AT), _loss(FIRST), _loss(CUT_AT))
    assert _series(run, "kl")[:3] == (points, float(FIRST), float(CUT_AT))
    # the pair the cut render ends in may be cut inside its value: not read
    assert _series(run, "lr")[:3] == (RENDERS, float(FIRST), float(last))

    # a cut render that ends in its loss (perhaps cut inside the value) adds no point at all
    post = f", kl={_loss(CUT_AT) - 0.1:.4f}, ce={_loss(CUT_AT) + 0.2:.4f}, loss={_loss(CUT_AT):.2f}"
    run = _read(tmp_path, _distill_log(post), "distill.log")
    assert _series(run, "loss") == (RENDERS, float(FIRST), float(last), _loss(FIRST), _loss(last))
    assert "kl" in run.series and _series(run, "kl")[0] == RENDERS
