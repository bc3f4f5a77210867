"""Training configurations found by `doctor`: HF training_args.bin / training_args.json and
Lightning hparams.yaml, recognised by content and judged by the TL435-TL449 rules."""

from __future__ import annotations

import re
from pathlib import Path

from ..checkpoint.kinds import LEGACY_MAGIC, ZIP_HEAD
from ..discover import inspector
from ..options import Options
from ..verdict import Report

_YAML_KEYS = (b"lr:", b"learning_rate:", b"max_steps:", b"warmup", b"precision:", b"save_top_k:", b"logger:")
_CHECKPOINT = re.compile(r"^(checkpoint|global_step|step)[-_]?\d+$")


def _is_args_pickle(head: bytes) -> bool:
    container = (head.startswith(ZIP_HEAD) and b"data.pkl" in head) or head.startswith(LEGACY_MAGIC)  # torch.save
    return container and b"learning_rate" in head and b"output_dir" in head


def _is_args_json(head: bytes) -> bool:
    text = head.lstrip()
    return (
        text[:1] == b"{"
        and b'"output_dir"' in head
        and b'"learning_rate"' in head
        and (b'"logging_nan_inf_filter"' in head or b'"save_total_limit"' in head or b'"report_to"' in head)
    )


def _copy_in_checkpoint(path: Path) -> bool:
    """A checkpoint-N/ copy of the run's own training_args.bin (judged once, at the top)."""
    return bool(_CHECKPOINT.match(path.parent.name)) and (path.parent.parent / path.name).is_file()


@inspector("training-config", priority=15)
class TrainingConfigInspector:
    def sniff(self, path: Path, head: bytes) -> bool:
        if path.name == "hparams.yaml":  # only when it holds something the rules can judge
            return any(key in head for key in _YAML_KEYS)
        if _is_args_pickle(head) or _is_args_json(head):
            return not _copy_in_checkpoint(path)
        return False

    def judge(self, path: Path, options: Options) -> Report:
        from ..environment.facts import Subject
        from ..environment.probe import resources
        from ..environment.trainconfig import ConfigReadError, read_config
        from .environment import find_log_files, group_report

        try:
            cfg = read_config(path)
        except ConfigReadError as exc:
            return Report(source=str(path), kind="environment", format="training-config", unjudged=str(exc))
        folder = path.parent
        subject = Subject(
            config=cfg, resources=resources(str(folder), test_write=False), log_files=find_log_files([folder])
        )
        report = group_report("training-config", str(path), subject, options.settings, fmt=cfg.format)
        _soften_disk(report)
        report.notes.extend(cfg.notes)
        report.summary = {
            k: v[0] for k, v in cfg.found.items() if isinstance(v[0], (int, float, str, bool)) and k != "eval_data"
        }
        return report


def _soften_disk(report: Report) -> None:
    """Free disk is a fact about this machine now, not about the run found in the folder: WARN."""
    from ..verdict import Severity

    for f in report.findings:
        if f.code == "TL439" and f.severity == Severity.FAIL:
            f.severity = Severity.WARN
            f.message += " (judged from an existing output folder: WARN, not FAIL)"
