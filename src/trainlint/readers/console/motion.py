"""The ``log.txt`` of first-order-model and the motion-transfer models built on its logger
(AliaksandrSiarohin/first-order-model, articulated-animation, Thin-Plate-Spline-Motion-Model and
their forks).

``logger.py`` (``Logger.log_scores``) writes one line an epoch: the epoch zero-filled, then the
epoch's mean of each loss term, ``"; ".join("%s - %.5f" % (name, value))``:
``00000012) perceptual - 54.56717; equivariance_value - 0.20584; warp_loss - 0.47446``. The
names are the keys of the generator's losses dict (``perceptual``, ``equivariance_value``,
``equivariance_jacobian``, ``warp_loss``, ``bg``, ...); ``train.py`` minimises their sum
(``loss = sum(loss_values)``), so the loss judged is the sum of the terms printed. A
discriminator's term (``disc_gan``, merged into the same dict when a GAN loss is on) is another
network's objective: left out of the sum.
"""

from __future__ import annotations

from ...role_structure import discriminator_part, parse
from .text import NUM, Capture, Line, lazy_regex

_LINE = lazy_regex(r"^(\d{3,})\) ((?:[A-Za-z_][\w.]* - %s(?:; |\s*$))+)$" % NUM)
_TERM = lazy_regex(r"([A-Za-z_][\w.]*) - (%s)" % NUM)


def log_scores(lines: list[Line]) -> Capture | None:
    """The per-epoch loss terms of a first-order-model ``log.txt``, their sum the objective."""
    cap = Capture("first-order-model-log")
    for line in lines:
        m = _LINE.match(line.final)
        if m is None:
            continue
        cap.add_all(float(m[1]), {name: float(v) for name, v in _TERM.findall(m[2])})
        cap.lines.append(line.no)
    terms = [n for n in cap.cols if not discriminator_part(parse("loss_" + n).part)]
    if len(cap.lines) < 2 or not terms:
        return None
    cap.meta["objective"] = "+".join(terms)
    cap.meta["objective_why"] = (
        "first-order-model's Logger prints each loss term's epoch mean; train.py minimises their sum"
    )
    return cap


RECOGNISERS = ((log_scores, ") "),)
