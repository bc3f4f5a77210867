"""Kinds a blind sample of outside logs (probe round 28b: the repositories find_files lists for
``gnn.log``, ``vit.log``, ``seq2seq.log``, ``nmt.log``, ``xgboost.log``, ``forecast.log``,
``segmentation.log``, ``nerf.log`` and ``wav2vec.log``, labelled before trainlint read them) found
read wrong: pixelNeRF's training line prints the word ``loss`` once, then its coarse and fine terms
and their total as ``key:value`` pairs (``loss rc:0.2196 rf:0.2424 t:0.4620``); the reader took
``loss rc`` as one name and judged the coarse term alone. Each fixture is made up in the shape of
the real file (repository, path and commit recorded with it; no copied lines) and asserts the
series read: names, steps, first and last values, and which is the loss."""

from __future__ import annotations

from _consolekit import read_lines as _read
from _consolekit import series_ends as _series

EPOCHS = 4
BATCHES = 30  # printed every second batch


def _terms(k: int) -> tuple[float, float]:
    """The coarse and fine terms after record ``k``: from about 0.23 each, falling."""
    coarse = round(0.05 + 0.18 * 0.97**k, 6)
    return coarse, round(coarse * 0.95, 6)


def _pixelnerf_log() -> list[str]:
    """tahoora/Vit_Nerf vit.log @d0d3bd3d9605af03afe28c7955a9d926906b226d (pixelNeRF's train.py with a
    ViT encoder): ``E e B b loss rc:.. rf:.. t:..  lr ..`` every second batch, ``t`` the sum of the
    coarse (``rc``) and fine (``rf``) colour terms; every tenth batch an ``*** Eval:`` line in the same
    shape (its ``lr`` printed with no value), then the visualisation's min/max and ``psnr`` lines."""
    lines = ["EXPERIMENT NAME: srn_car_exp", "lambda coarse 1.0 and fine 1.0", "using vanilla rgb loss"]
    k = 0
    for e in range(EPOCHS):
        for b in range(0, BATCHES, 2):
            rc, rf = _terms(k)
            lines.append(f"E {e} B {b} loss rc:{rc} rf:{rf} t:{rc + rf}  lr 0.0001")
            if b % 10 == 0:
                lines.append(f"*** Eval: E {e} B {b} loss rc:{rc * 0.9} rf:{rf * 0.9} t:{(rc + rf) * 0.9}  lr")
                lines += ["generating visualization", "c rgb min 0.001 max 0.999", f"psnr {12 + k / 10}"]
            k += 1
    return lines


def test_a_loss_word_before_its_terms_and_their_total_is_judged_on_the_total(tmp_path):
    run = _read(tmp_path, _pixelnerf_log(), "vit.log")
    assert run.format == "console/general"
    assert run.roles["loss"] == "loss" and run.roles["eval_loss"] == "Eval_loss"
    n = EPOCHS * BATCHES // 2
    first, last = _terms(0), _terms(n - 1)
    assert _series(run, "loss") == (n, 1.0, float(n), sum(first), sum(last))
    assert _series(run, "loss/rc")[3:] == (first[0], last[0])
    assert _series(run, "loss/rf")[3:] == (first[1], last[1])
    assert _series(run, "Eval_loss")[0] == EPOCHS * 3
    assert "loss_rc" not in run.series and "t" not in run.series
