"""Marian NMT's training log (``train.log`` and its console output, behind ``[date time]``).

``Scheduler::update`` logs every ``--disp-freq`` updates ``Ep. <epoch> : Up. <updates> : Sen.
<sentences> : Cost <cost>`` (newer releases ``Cost <avg> * <labels> [@ <batch labels>] after
<labels so far>``), then ``Time``, ``words/s``, ``gNorm <grad norm>`` and with ``--lr-report``
``L.r. <lr>``;
each validation logs ``[valid] Ep. <epoch> : Up. <updates> : <validator> : <value>`` (``:
new best`` / ``: stalled N times``). ``Cost`` is the training criterion (``--cost-type``), the
loss; the step is the update count. A validator that measures the same criterion on the
validation set (``cross-entropy``, ``ce-mean-words``, ``ce-sum``) is the eval loss;
``perplexity``, ``bleu`` and the rest are kept under their names (``valid_bleu``).
"""

from __future__ import annotations

from .text import NUM, Capture, Line, lazy_regex

_TRAIN = lazy_regex(r"\bEp\. ([\d.]+) : Up\. (\d+) : Sen\. [\d,]+ : Cost (%s)(?: \*[^:]*)? : Time " % NUM)
_GNORM = lazy_regex(r" : gNorm (%s)" % NUM)
_LR = lazy_regex(r" : L\.r\. (%s)" % NUM)
_VALID = lazy_regex(r"\[valid\] Ep\. [\d.]+ : Up\. (\d+) : ([\w-]+) : (%s)(?:\s|$)" % NUM)
_EVAL_CE = ("ce-mean-words", "cross-entropy", "ce-sum", "ce-mean")


def marian_log(lines: list[Line]) -> Capture | None:
    """Marian's ``Ep. : Up. : Sen. : Cost`` lines and its ``[valid]`` lines, at their update count."""
    cap = Capture("marian")
    for line in lines:
        text = line.final
        m = _TRAIN.search(text)
        if m is not None:
            step = float(m[2])
            cap.add("Cost", step, float(m[3]))
            cap.add("epoch", step, float(m[1]))
            for name, regex in (("grad_norm", _GNORM), ("learning_rate", _LR)):
                found = regex.search(text, m.end())
                if found is not None:
                    cap.add(name, step, float(found[1]))
            cap.lines.append(line.no)
            continue
        m = _VALID.search(text) if "[valid]" in text else None
        if m is not None:
            cap.add(f"valid_{m[2]}", float(m[1]), float(m[3]))
            cap.lines.append(line.no)
    if len(cap.cols.get("Cost", ((), ()))[0]) < 2:
        return None
    cap.meta["objective"], cap.meta["objective_why"] = "Cost", "Marian's Cost: its training criterion (--cost-type)"
    ev = next((f"valid_{v}" for v in _EVAL_CE if f"valid_{v}" in cap.cols), None)
    if ev is not None:
        cap.meta["eval_objective"] = ev
        cap.meta["eval_objective_why"] = f"Marian's {ev[6:]} validator: the cross-entropy on the validation set"
    return cap


RECOGNISERS = ((marian_log, "Up. "),)
