"""The general line reader: the fallback after the specific console recognisers.

A training script's console line is a frame (a timestamp, a level, a logger or file name,
``|`` and ``[...]`` decorations, a tqdm or rich render the line was printed after) around
``name SEP value`` pairs (``loss: 0.5``, ``lr=1e-3``, ``Loss 12.66 (12.39)``, ``acc 95%``)
and counters (``[3/50]``, ``Epoch: [0][10/250]``, ``i=1/530``, ``EPOCH 2 of 30``, or an
``Epoch: 01`` header on a line of its own). This package strips the frame, reads the pairs
and counters, and groups the lines by their *shape* (the set of names they carry):

- the training stream is every record holding the most repeated loss that is not an
  evaluation loss; its step comes from the counters (a step, or an epoch and the count inside
  it), or from the order of the records when the counters do not tell a step apart;
- evaluation streams are repeated shapes whose losses are all evaluation or test losses,
  placed at the training step they were printed after;
- every other shape is listed in the notes, with up to three sample lines: nothing is
  dropped without a word.

A name must repeat (:data:`MIN_REPEAT` records) to count: a config dump of ``name: number``
pairs, each name printed once, never becomes a run.

The stages: :mod:`.lines` (one line to a record), :mod:`.streams` (records to streams),
:mod:`.capture` (the streams to a Capture, with its notes).
"""

from __future__ import annotations

from .capture import general
from .lines import MAX_LINE, MAX_NAMES, MIN_REPEAT, Record, read_line, strip_frame
from .streams import Shape, records, shapes

__all__ = [
    "MAX_LINE",
    "MAX_NAMES",
    "MIN_REPEAT",
    "Record",
    "Shape",
    "general",
    "read_line",
    "records",
    "shapes",
    "strip_frame",
]
