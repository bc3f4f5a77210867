"""What ``doctor --dataset DATA --tokenizer DIR`` hands to the log rules (TL099) and the
tokenizer rules (TL243). Computed once per (dataset, tokenizer) and cached."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from ..options import Options


def file_stamp(path: Path | None) -> tuple[int, int]:
    """(modification time in ns, size) of a file, (0, 0) when there is none: a cache key that
    changes when the file does."""
    try:
        st = path.stat() if path is not None else None
    except OSError:
        return 0, 0
    return (st.st_mtime_ns, st.st_size) if st is not None else (0, 0)


@functools.lru_cache(maxsize=8)
def _entropy(
    dataset: str, tokenizer: str | None, stamps: tuple[tuple[int, int], tuple[int, int]]
) -> tuple[float | None, str]:
    from .dataset_judge import entropy_for

    return entropy_for(Path(dataset), Path(tokenizer) if tokenizer else None)


def log_extra(options: Options) -> dict[str, Any]:
    """``extra`` for judge_run: the vocabulary size or class count the user gave, and the label
    entropy of ``options.dataset`` (or why there is none)."""
    sizes = {k: v for k, v in (("vocab_size", options.vocab_size), ("num_classes", options.num_classes)) if v}
    dataset = options.dataset
    if dataset is None:
        return sizes
    return {**sizes, **entropy_extra(dataset, options.tokenizer)}


def entropy_extra(dataset: Any, tokenizer: Any = None) -> dict[str, Any]:
    """``extra`` for TL099: the label entropy of ``dataset`` (tokenized with ``tokenizer`` when
    given), or why there is none."""
    try:
        value, why = _entropy(
            str(dataset),
            str(tokenizer) if tokenizer else None,
            (file_stamp(Path(dataset)), file_stamp(Path(tokenizer) if tokenizer else None)),
        )
    except Exception as exc:  # the log must still be judged; TL099 says why it could not run  # noqa: BLE001
        value, why = None, f"could not read {dataset}: {type(exc).__name__}: {str(exc)[:200]}"
    if value is None:
        return {"label_entropy_reason": why}
    return {"label_entropy": value, "label_entropy_source": why}


def data_format(dataset: Path | None) -> str | None:
    """The row format of a dataset, from its first readable row (None when unknown)."""
    if dataset is None:
        return None
    from ..dataset.shape import detect
    from ..dataset.sources import open_source
    from .dataset_judge import dataset_parts

    try:
        source = open_source(dataset_parts(Path(dataset))[0])
        for _, row, _ in source.rows:
            if isinstance(row, dict):
                fmt = detect(row).format
                return None if fmt == "unknown" else fmt
    except Exception:  # unknown format: TL243 simply cannot compare  # noqa: BLE001
        return None
    return None
