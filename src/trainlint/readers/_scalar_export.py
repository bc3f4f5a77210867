"""The name of one scalar tag exported from TensorBoard's dashboard ("download data": a JSON list
of ``[wall_time, step, value]`` or a CSV ``Wall time,Step,Value``): the export holds no name, so
the series is named after the file. TensorBoard names it ``run-<run>-tag-<tag>.json|csv`` (a
``/`` in either written ``_``); a file renamed after its metric (``train_loss.csv``) names it too."""

from __future__ import annotations

import re
from pathlib import Path

from ..roles import role_of

_TB_NAME = re.compile(r"^run[-_](?P<run>.*?)[-_]tag[-_](?P<tag>.+)$")
# a run named after its split (Keras' "train" and "validation" runs): the tag's split
RUN_SPLIT = re.compile(r"(?:^|[-_.])(train|training|val|valid|validation|eval|test)$", re.I)
NAMELESS = "Value"


def export_name(path: Path) -> tuple[str, str]:
    """(the series' name, the note that says where it came from)."""
    stem = path.stem
    m = _TB_NAME.match(stem)
    if m:
        tag, split = m["tag"], RUN_SPLIT.search(m["run"])
        name = f"{split[1]}/{tag}" if split else tag
        return name, f"a TensorBoard scalar export: the series {name!r} is named by its file name's tag"
    if "loss" in stem.lower() or role_of(stem) is not None:
        return stem, f"a TensorBoard scalar export: the series is named {stem!r} after its file"
    why = "its file name names no metric: its values are read as 'Value', not taken as the loss"
    return NAMELESS, f"a TensorBoard scalar export; {why} (use --map loss=Value if they are one)"
