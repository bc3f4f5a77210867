"""Kaldi nnet3's training job logs (``exp/.../log/train.<iter>.<job>.log``).

``nnet3-train`` / ``nnet3-chain-train`` log every ``--print-interval`` minibatches ``LOG
(nnet3-chain-train[5.5]:PrintStatsForThisPhase():nnet-training.cc:271) Average objective function
for 'output' for minibatches 10-19 is -0.56 + -0.006 = -0.57 over 64000 frames.`` (chain models add
the regularisation terms after ``+``; the total after ``=``). The objective is a log-likelihood,
the higher the better: the loss is its negative, at the phase's last minibatch (counted from 1).
Other outputs (``output-xent``, the chain model's cross-entropy regulariser) are kept as their
objective, ``objf_<output>``.
"""

from __future__ import annotations

from .text import NUM, Capture, Line, lazy_regex

_PHASE = lazy_regex(
    r"\bAverage objective function for '([\w\-]+)' for minibatches \d+-(\d+) is (%s)(?: \+ [^=]*= (%s))? over "
    % (NUM, NUM)
)


def kaldi_log(lines: list[Line]) -> Capture | None:
    """The per-phase objective lines of one nnet3 training job: ``loss`` the negated objective of
    ``'output'``."""
    cap = Capture("kaldi-nnet3")
    for line in lines:
        m = _PHASE.search(line.final)
        if m is None:
            continue
        step, value = float(m[2]) + 1, float(m[4] if m[4] is not None else m[3])
        if m[1] == "output":
            cap.add("loss", step, -value)
        else:
            cap.add("objf_" + m[1].replace("-", "_"), step, value)
        cap.lines.append(line.no)
    if len(cap.cols.get("loss", ((), ()))[0]) < 2:
        return None
    cap.meta["objective"] = "loss"
    cap.meta["objective_why"] = "Kaldi's objective for 'output' is a log-likelihood: the loss is its negative"
    return cap


RECOGNISERS = ((kaldi_log, "objective function for '"),)
