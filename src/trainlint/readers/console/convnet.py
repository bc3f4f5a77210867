"""The console of cuda-convnet and cuda-convnet2 (Alex Krizhevsky's ``convnet.py`` on ``gpumodel.py``,
2011-14, and the wrappers and forks built on them, e.g. noccn's ``ccn-train``).

``gpumodel.py`` prints one line a training batch: ``print_iteration`` the position, ``"%d.%d..." %
(epoch, batchnum)`` (cuda-convnet2: ``"%d.%d (%.2f%%)..."``, the epoch's progress added), then
``print_costs`` each cost layer's name and its values, ``"%s: " % name`` and ``", ".join("%6f" %
v)``, then ``print_train_time`` ``"(%.3f sec)"``: ``12.351... logprob:  0.693156, 0.324219 (0.698
sec)``. A logistic-regression cost (``logprob``, the usual name of its layer) prints its negative
log-probability, then its error rate (cuda-convnet2: top-1, then top-k). A NaN or inf cost ends the
line with ``^ got nan or inf!`` instead of the time, and the run. Every ``--test-freq`` batches the
test batches' costs follow a ``======================Test output======================`` line, in
the same ``name:  v, v`` shape, at the step of the training batch before them.

The loss is the first value of the cost layers (their sum when there are several); the test cost's
first value is the evaluation loss. The batch numbers are data-batch file numbers (``--train-range
1-800``), not a count: a point's step is the count of training lines.
"""

from __future__ import annotations

from .text import NUM, Capture, Line, lazy_regex

_COSTS = r"(?:[A-Za-z_][\w\-]*:\s+%s(?:,\s*%s)*\s*)+" % (NUM, NUM)
_TRAIN = lazy_regex(
    r"^\d+\.\d+(?: \(\s*[\d.]+%%\))?\.\.\.\s+(%s)(?:\^ got nan(?: or inf)?!|\(%s sec\))\s*$" % (_COSTS, NUM)
)
_TEST_HEAD = "=Test output="
_TEST = lazy_regex(r"^(%s)$" % _COSTS)
_COST = lazy_regex(r"([A-Za-z_][\w\-]*):\s+(%s(?:,\s*%s)*)" % (NUM, NUM))
_EXTRA = ("error", "error_topk")  # a logreg cost's values after its log-probability


def _costs(cells: str, prefix: str) -> dict[str, float]:
    """Each cost layer's values, by name: the first under the layer's name, a logreg's error rates after."""
    out: dict[str, float] = {}
    for name, values in _COST.findall(cells):
        nums = [float(v) for v in values.split(",")]
        out[prefix + name] = nums[0]
        out.update((f"{prefix}{name}_{extra}", v) for extra, v in zip(_EXTRA, nums[1:]))
    return out


def convnet_log(lines: list[Line]) -> Capture | None:
    """The training and test cost lines of a cuda-convnet run; the cost layers' first values the loss."""
    cap, step, test_next = Capture("cuda-convnet"), 0, False
    names: list[str] = []
    for line in lines:
        text = line.final
        if test_next and (m := _TEST.match(text.strip())):
            cap.add_all(float(step), _costs(m[1], "test_"))
            cap.lines.append(line.no)
            test_next = False
        elif m := _TRAIN.match(text):
            step, test_next = step + 1, False
            names = names or [n for n, _ in _COST.findall(m[1])]
            cap.add_all(float(step), _costs(m[1], ""))
            cap.lines.append(line.no)
        elif _TEST_HEAD in text:
            test_next = step > 0
    if step < 2:
        return None
    cap.meta["objective"] = "+".join(names)
    cap.meta["objective_why"] = (
        "cuda-convnet's cost layers' values (a logreg layer's first: its negative log-probability)"
    )
    if len(names) == 1 and "test_" + names[0] in cap.cols:  # the evaluation loss is one series
        cap.meta["eval_objective"] = "test_" + names[0]
        cap.meta["eval_objective_why"] = "cuda-convnet's test output: the cost layer's value on the test batches"
    return cap


RECOGNISERS = ((convnet_log, "... "),)
