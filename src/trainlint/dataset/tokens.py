"""Token statistics with the ``tokenizers`` library (optional, imported lazily), offline
from ``tokenizer.json``: length distribution, rows over the max length and the tokens
they lose, rows whose target is empty or cut away, and the unigram entropy (nats) of
the target tokens."""

from __future__ import annotations

import itertools
import math
import re
from array import array
from pathlib import Path
from typing import Any

import numpy as np

from ..safeio import load_json_file
from .rows import Rows
from .sources import DataError

BATCH = 1024
UNLIMITED = 10**18


def load_tokenizer(folder: Path) -> Any:
    path = folder / "tokenizer.json" if folder.is_dir() else folder
    if not path.is_file():
        raise DataError(f"no tokenizer.json in {folder} (the tokenizers library reads only that file)")
    try:
        from tokenizers import Tokenizer
    except ImportError:
        raise DataError("token checks need the tokenizers library (pip install 'trainlint[data]')") from None
    try:
        tok = Tokenizer.from_file(str(path))
    except Exception as exc:  # the Rust side raises plain Exception  # noqa: BLE001
        raise DataError(f"tokenizer.json does not load: {str(exc).splitlines()[0][:200]}") from None
    tok.no_truncation()
    tok.no_padding()
    return tok


def _json(path: Path) -> dict[str, Any]:
    try:
        out = load_json_file(path)
        return out if isinstance(out, dict) else {}
    except (OSError, ValueError):
        return {}


def default_max_length(folder: Path) -> tuple[int | None, str]:
    """The max length a trainer would use: tokenizer_config's model_max_length when it is a
    real number, else the model config's max_position_embeddings."""
    folder = folder if folder.is_dir() else folder.parent
    mml = _json(folder / "tokenizer_config.json").get("model_max_length")
    if isinstance(mml, (int, float)) and 0 < mml < UNLIMITED:
        return int(mml), "model_max_length in tokenizer_config.json"
    cfg = _json(folder / "config.json")
    mpe = cfg.get("max_position_embeddings") or cfg.get("n_positions")
    if isinstance(mpe, int) and mpe > 0:
        return mpe, "max_position_embeddings in config.json"
    return None, "no --max-length and no usable model_max_length or max_position_embeddings"


def _special_pattern(tokenizer: Any) -> re.Pattern[str] | None:
    """One regex for every special added token (longest first), or None."""
    try:
        added = tokenizer.get_added_tokens_decoder().values()
    except AttributeError:  # tokenizers older than 0.19
        return None
    specials = sorted({t.content for t in added if t.special and t.content}, key=len, reverse=True)
    return re.compile("|".join(map(re.escape, specials))) if specials else None


class TokenStats:
    def __init__(self, tokenizer: Any, max_length: int | None) -> None:
        self.tok = tokenizer
        self.max_length = max_length
        self.specials = len(tokenizer.encode("", add_special_tokens=True).ids)
        self.counts = np.zeros(tokenizer.get_vocab_size(with_added_tokens=True), dtype=np.int64)
        self.lengths = array("q")
        self.pending: list[tuple[int, list[tuple[str, bool]]]] = []
        self.over, self.masked, self.cut = Rows(), Rows(), Rows()
        self.lost = 0
        self.target_tokens = 0
        self.special_re = _special_pattern(tokenizer)
        self.special_rows = Rows()
        self.special_seen: dict[str, int] = {}

    def _specials_in(self, number: int, segments: list[tuple[str, bool]]) -> None:
        found = [m.group() for text, _ in segments for m in self.special_re.finditer(text)]
        if found:
            self.special_rows.add(number)
            for tok in found:
                if tok in self.special_seen or len(self.special_seen) < 50:
                    self.special_seen[tok] = self.special_seen.get(tok, 0) + 1

    def add(self, number: int, segments: list[tuple[str, bool]]) -> None:
        if self.special_re is not None:
            self._specials_in(number, segments)
        self.pending.append((number, segments))
        if len(self.pending) >= BATCH:
            self.flush()

    def flush(self) -> None:
        if not self.pending:
            return
        texts = [t for _, segs in self.pending for t, _ in segs]
        encode = getattr(self.tok, "encode_batch_fast", self.tok.encode_batch)  # no offsets: faster
        encoded = iter(encode(texts, add_special_tokens=False)) if texts else iter(())
        targets: list[list[int]] = []
        for number, segs in self.pending:
            self._row(number, [(next(encoded).ids, is_t) for _, is_t in segs], targets)
        self.pending = []
        if targets:
            ids = np.fromiter(itertools.chain.from_iterable(targets), dtype=np.int64)
            if len(ids):
                self.counts += np.bincount(ids, minlength=len(self.counts))[: len(self.counts)]

    def _row(self, number: int, segs: list[tuple[list[int], bool]], targets: list[list[int]]) -> None:
        total, before, target = self.specials, None, 0
        for ids, is_target in segs:
            if is_target:
                if before is None:
                    before = total
                target += len(ids)
                targets.append(ids)
            total += len(ids)
        self.lengths.append(total)
        self.target_tokens += target
        if target == 0:
            self.masked.add(number)
        limit = self.max_length
        if limit is not None and total > limit:
            self.over.add(number)
            self.lost += total - limit
            if target and before is not None and before >= limit:
                self.cut.add(number)

    def entropy(self) -> float | None:
        """Unigram entropy (nats) of the target tokens: the loss of predicting token frequencies."""
        return self.entropy_of(self.counts)

    @staticmethod
    def entropy_of(counts: np.ndarray) -> float | None:
        n = int(counts.sum())
        if n == 0:
            return None
        p = counts[counts > 0] / n
        return max(0.0, float(-(p * np.log(p)).sum()))

    def distribution(self) -> dict[str, Any]:
        lengths = np.frombuffer(self.lengths, dtype=np.int64)
        if not len(lengths):
            return {}
        p50, p90, p99 = np.percentile(lengths, [50, 90, 99])
        return {
            "rows": int(len(lengths)),
            "mean": float(lengths.mean()),
            "p50": float(p50),
            "p90": float(p90),
            "p99": float(p99),
            "max": int(lengths.max()),
            "min": int(lengths.min()),
            "total_tokens": int(lengths.sum()),
            "target_tokens": int(self.target_tokens),
        }


def label_entropy(labels: dict[str, int]) -> float | None:
    n = sum(labels.values())
    if n == 0:
        return None
    return max(0.0, float(-sum(c / n * math.log(c / n) for c in labels.values() if c)))
