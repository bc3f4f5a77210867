"""Scan a dataset and judge it: the glue between sources, the scan, token stats and the
data rules. Also computes the label entropy that ``doctor --dataset`` hands to TL099."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..dataset.errors import DataError
from ..dataset.rows import HashLog
from ..dataset.scan import Scan
from ..dataset.sources import open_source
from ..dataset.tokens import TokenStats, default_max_length, label_entropy, load_tokenizer

if TYPE_CHECKING:
    from ..config import Settings
    from ..verdict import Report

SHARD_SUFFIXES = {".jsonl", ".ndjson", ".json", ".csv", ".tsv", ".parquet"}


def dataset_parts(path: Path) -> list[Path]:
    """A DatasetDict folder (``dataset_dict.json``) is judged split by split."""
    marker = path / "dataset_dict.json"
    if path.is_dir() and marker.is_file():
        try:
            from ..safeio import load_json_file

            splits = load_json_file(marker).get("splits", [])
        except (OSError, ValueError, AttributeError):
            splits = []
        found = [path / s for s in splits if (path / s).is_dir()]
        return found or sorted(p for p in path.iterdir() if (p / "state.json").is_file())
    if path.is_dir() and not any(path.glob("*.arrow")):  # a folder of shards: each file on its own
        shards = sorted(
            p
            for p in path.rglob("*")
            if p.is_file()
            and p.suffix.lower() in SHARD_SUFFIXES
            and not any(part.startswith(".") for part in p.relative_to(path).parts)
        )
        return shards or [path]
    return [path]


def scan_dataset(
    path: Path, tokenizer: Path | None = None, max_length: int | None = None, data_format: str | None = None
) -> Scan:
    """One pass over ``path``. Raises DataError when the data cannot be read at all;
    token problems (no library, no tokenizer.json) are recorded on the scan instead."""
    source = open_source(Path(path))
    tokens: TokenStats | None = None
    reason: str | None = "no --tokenizer given"
    limit_from: str | None = None
    if tokenizer is not None:
        try:
            tok = load_tokenizer(Path(tokenizer))
            if max_length is None:
                max_length, limit_from = default_max_length(Path(tokenizer))
            else:
                limit_from = "--max-length"
            tokens, reason = TokenStats(tok, max_length), None
        except DataError as exc:
            reason = str(exc)
    scan = Scan(source, data_format, tokens)
    scan.tokens_reason = reason
    scan.max_length_from = limit_from
    scan.run()
    if scan.rows == 0 and not any(scan.bad.values()):
        raise DataError("no rows found")
    return scan


def summary(scan: Scan) -> dict[str, Any]:
    out: dict[str, Any] = {
        "rows": scan.rows,
        "row_format": scan.shape.format if scan.shape else None,
        "numbering": scan.source.numbering,
    }
    if scan.tokens is not None:
        out["tokens"] = scan.tokens.distribution()
        out["max_length"] = scan.tokens.max_length
        out["target_entropy_nats"] = scan.tokens.entropy()
    if scan.labels and not scan.label_overflow:
        out["label_entropy_nats"] = label_entropy(scan.labels)
        out["labels"] = len(scan.labels)
    return out


def _scan_or_reason(
    part: Path, tokenizer: Path | None, max_length: int | None, data_format: str | None
) -> tuple[Scan | None, str | None]:
    try:
        return scan_dataset(part, tokenizer, max_length, data_format), None
    except DataError as exc:
        return None, str(exc)
    except MemoryError:
        return None, "ran out of memory reading this dataset"
    except (OSError, ValueError, UnicodeError) as exc:  # a read failing midway: one line, no traceback
        return None, f"cannot read: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"


def judge_dataset(
    path: Path,
    tokenizer: Path | None = None,
    max_length: int | None = None,
    data_format: str | None = None,
    settings: Settings | None = None,
) -> list[Report]:
    """One Report per dataset (per split of a DatasetDict folder, per file of a folder of shards).
    Each part is also compared with the parts before it (rows that appear in both)."""
    from ..engine import run_rules
    from ..safeio import file_kind, not_regular_reason
    from ..verdict import Report

    kind = file_kind(path)
    if kind not in ("file", "dir", "missing"):  # a FIFO or device is never opened
        return [Report(source=str(path), kind="dataset", unjudged=not_regular_reason(kind))]
    reports: list[Report] = []
    earlier: list[tuple[str, HashLog]] = []
    for part in dataset_parts(Path(path)):
        report = Report(source=str(part), kind="dataset")
        scan, reason = _scan_or_reason(part, tokenizer, max_length, data_format)
        if scan is None:
            report.unjudged = reason
            reports.append(report)
            continue
        scan.earlier = list(earlier)
        report.format = scan.source.format
        report.summary = summary(scan)
        report.notes.append(
            f"{scan.rows} rows read, format {report.summary['row_format']}; findings give "
            f"{scan.source.numbering} numbers"
        )
        if scan.tokens is None and tokenizer is not None:
            report.notes.append(f"token checks skipped: {scan.tokens_reason}")
        if scan.bad["blank"]:
            report.notes.append(
                f"{scan.bad['blank'].count} blank or whitespace-only line(s), not rows: {scan.bad['blank'].where()}"
            )
            report.summary["blank_lines"] = scan.bad["blank"].lines
        reports.append(run_rules("dataset", scan, report, settings))
        earlier.append((part.name, scan.hashes))  # only the hashes are kept for the next parts
    return reports


def entropy_for(
    dataset: Path, tokenizer: Path | None = None, data_format: str | None = None
) -> tuple[float | None, str]:
    """(entropy in nats, where it came from) or (None, why not): classification rows give the
    entropy of their labels; other rows the unigram entropy of the target tokens. A folder of
    shards (or a DatasetDict) is pooled; for a DatasetDict only the first split (the training one)."""
    parts = dataset_parts(Path(dataset))
    if (Path(dataset) / "dataset_dict.json").is_file():
        parts = parts[:1]
    labels: Counter[str] = Counter()
    counts = None
    for part in parts:
        try:
            scan = scan_dataset(part, tokenizer, None, data_format)
        except (DataError, OSError, ValueError) as exc:
            return None, f"dataset {part}: {exc}"
        if scan.labels and not scan.label_overflow:
            labels.update(scan.labels)
        elif scan.tokens is None:
            return None, f"needs a tokenizer for the target-token entropy of {part} ({scan.tokens_reason})"
        else:
            counts = scan.tokens.counts if counts is None else counts + scan.tokens.counts
    where = str(dataset) + (f" ({len(parts)} files)" if len(parts) > 1 else "")
    if labels:
        return label_entropy(labels), f"entropy of the {len(labels)} labels in {where}"
    value = TokenStats.entropy_of(counts) if counts is not None else None
    if value is None:
        return None, f"no target tokens in {where}"
    return value, f"unigram entropy of the target tokens in {where}"
