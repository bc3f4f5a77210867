"""The ``train.log`` of VITS and the voice models built on its training loop (so-vits-svc,
VITS2 and MB-iSTFT-VITS forks, singing-voice conversion repositories).

``utils.get_logger`` writes ``<time>\\t<model dir>\\tINFO\\t<message>``; every ``log_interval``
steps ``train.py`` logs ``Train Epoch: N [P%]`` and then the list of its losses with the
global step and the learning rate appended, unnamed:
``logger.info([x.item() for x in losses] + [global_step, lr])`` (so-vits-svc 4.x:
``Losses: [..], step: N, lr: X``). The names are the ones ``train.py`` gives the list, by its
length: VITS ``[loss_disc, loss_gen, loss_fm, loss_mel, loss_dur, loss_kl]``, so-vits-svc
``[loss_disc, loss_gen, loss_fm, loss_mel, loss_kl]``, MB-iSTFT-VITS adds ``loss_subband``. The
first is the discriminator's loss; the rest are the generator's terms, whose sum is the
generator's objective (``loss_gen_all`` in ``train.py``): the reader adds it, the loss judged.
A list of another length is not guessed at.
"""

from __future__ import annotations

from .text import NUM, Capture, Line, lazy_regex

_EPOCH = lazy_regex(r"\bTrain Epoch: (\d+) \[")
_LIST = lazy_regex(r"(?:^|\s)\[(%s(?:, %s){3,})\]\s*$" % (NUM, NUM))
_LOSSES = lazy_regex(r"\bLosses: \[(%s(?:, %s)+)\], step: (\d+), lr: (%s)" % (NUM, NUM, NUM))
_TERMS = {
    5: ("loss_disc", "loss_gen", "loss_fm", "loss_mel", "loss_kl"),
    6: ("loss_disc", "loss_gen", "loss_fm", "loss_mel", "loss_dur", "loss_kl"),
    7: ("loss_disc", "loss_gen", "loss_fm", "loss_mel", "loss_dur", "loss_kl", "loss_subband"),
}


def vits_log(lines: list[Line]) -> Capture | None:
    """The loss lists logged after ``Train Epoch: N [P%]`` lines, named as ``train.py`` names them."""
    cap = Capture("vits-train-log")
    epoch, waiting = 0, False  # the epoch of the last header, whether its list is still to come
    for line in lines:
        text = line.final
        m = _EPOCH.search(text)
        if m is not None:
            epoch, waiting = int(m[1]), True
            continue
        if not waiting:  # lines between a header and its list (a warning, a blank) do not part them
            continue
        point = _point(text)
        if point is None:
            continue
        step, lr, terms = point
        values = dict(zip(_TERMS[len(terms)], terms))
        values["loss_gen_all"] = sum(terms[1:])
        values["learning_rate"] = lr
        values["epoch"] = float(epoch)
        cap.add_all(step, values)
        cap.lines.append(line.no)
        waiting = False  # one list per header
    return cap if len(cap.lines) >= 2 else None


def _point(text: str) -> tuple[float, float, list[float]] | None:
    """(global step, lr, the loss terms) of a list line, or None."""
    m = _LOSSES.search(text)
    if m is not None:
        terms, step, lr = [float(v) for v in m[1].split(", ")], float(m[2]), float(m[3])
    else:
        m = _LIST.search(text)
        if m is None:
            return None
        values = [float(v) for v in m[1].split(", ")]
        terms, step, lr = values[:-2], values[-2], values[-1]
    if len(terms) not in _TERMS or not step.is_integer() or step < 0:
        return None
    return step, lr, terms


RECOGNISERS = ((vits_log, "Train Epoch: "),)
