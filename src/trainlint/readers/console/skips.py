"""Steps a training script says it skipped because the loss or the gradients were NaN or infinite.

A loop that guards itself (``if not torch.isfinite(loss): print("NaN loss detected! Skipping
batch."); continue``) logs only finite losses: the curve looks healthy while batches go bad. Its
own message is the evidence, recorded as one ``skip`` event per log::

    {"type": "skip", "signature": "non-finite-skipped", "line": N, "text": ..., "count": K}

(the first such line, and how many lines say so). The message must say what was non-finite and
that it was skipped on one line, in that order (``NaN detected in gradients of shared.weight.
Skipping update.``). A counter (Megatron's ``number of skipped iterations: 0 | number of nan
iterations: 0``) or a loss scaler's overflow (apex's ``Gradient overflow. Skipping step``,
DeepSpeed's ``OVERFLOW! ... Skipping step``: fp16's normal search for its scale) is no such message.
"""

from __future__ import annotations

from typing import Any

from .text import Line, Needles, lazy_regex

SIGNATURE = "non-finite-skipped"
_SKIPPED = lazy_regex(
    r"(?i)\b(?:nan|inf(?:inity)?|non-?finite)\b[^|\n]{0,40}?"
    r"\b(?:detected|found|encountered|loss(?:es)?|grad(?:ient)?s?)\b[^|\n]{0,60}?\bskip(?:ping|ped|s)?\b"
)


def _says_skipped(text: str) -> bool:
    """The pattern, tried only on lines with a "skip" in them (a log that says "skipping" once
    in a banner has every line looked at otherwise)."""
    return ("kip" in text or "KIP" in text) and _SKIPPED.search(text) is not None


def _may_say_non_finite(text: str) -> bool:
    """Whether the log holds a word the pattern starts with: a few scans of the whole text, where
    the pattern itself costs microseconds a line (DeepSpeed prints ``skipped=0`` on every step
    line, and ``INFO`` holds ``inf``: an ``inf`` not followed by ``o`` is looked for)."""
    low = text.lower()
    return "nan" in low or "finite" in low or low.count("inf") > low.count("info")


def skipped_non_finite(lines: list[Line], holds: Needles) -> list[dict[str, Any]]:
    """The log's ``skip`` event (a list of one), or [] where no line says so."""
    if not any(word in holds for word in ("kip", "KIP")) or not _may_say_non_finite(holds.text):
        return []
    hits = [line for line in lines if _says_skipped(line.final)]
    if not hits:
        return []
    first = hits[0]
    return [
        {
            "type": "skip",
            "signature": SIGNATURE,
            "line": first.no,
            "text": first.final.strip()[:300],
            "count": len(hits),
        }
    ]
