"""Does a text file hold anything a training run writes? Used to tell a file that a reader
claimed only by its name (``debug.log``, ``install.log``, ``notes.txt``) from a training log
in a shape trainlint does not know yet."""

from __future__ import annotations

import re
from pathlib import Path

from ..safeio import open_regular

_HEAD = 256 * 1024
# Files of other tools that are named like logs.
_OTHER_TOOLS = re.compile(
    r"\[wandb_\w+\.py:|^(?:Collecting |Requirement already satisfied|Successfully installed |"
    r"Installing collected packages)|\"tool\":\s*\{\s*\"name\":\s*\"trainlint\"|^(?:def |class |import |from \S+ import )",
    re.MULTILINE,
)
# A training word followed by a number within a few characters: "loss: 0.31", "epoch 3", "step=100".
_TRAINING = re.compile(
    r"(?i)\b(?:loss|epoch|iter(?:ation)?|step|acc(?:uracy)?|lr|learning[_ ]rate|perplexity|ppl|"
    r"grad[_ ]?norm)\b[^\n\d]{0,20}\d"
)


# Names only training logs carry: a damaged one is a damaged log, never "not a log".
_LOG_NAMES = re.compile(
    r"^(trainer_state\.json|trainer_log\.jsonl|metrics\.(csv|json|jsonl)|results\.csv|"
    r"events\.out\.tfevents.*|trainer_\d+_log\.txt|wandb-(history|summary)\.jsonl?|log_history\.json)$",
    re.IGNORECASE,
)


def holds_training_content(path: Path) -> bool:
    """True when the start of the file shows training progress, when its name is one only
    training logs carry, or when it cannot be read (keep it)."""
    if _LOG_NAMES.match(path.name):
        return True
    try:
        with open_regular(path) as fh:  # never a FIFO's open(): NotRegular is an OSError
            text = fh.read(_HEAD).decode("utf-8", errors="replace")
    except OSError:
        return True
    if _OTHER_TOOLS.search(text):
        return False
    return _TRAINING.search(text) is not None
