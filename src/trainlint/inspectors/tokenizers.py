"""Tokenizer folders: a folder holding tokenizer.json or tokenizer_config.json."""

from __future__ import annotations

from pathlib import Path

from ..discover import inspector
from ..options import Options
from ..verdict import Report


@inspector("tokenizer", priority=70, folder=True)
class TokenizerInspector:
    def sniff(self, path: Path, head: bytes) -> bool:
        return (path / "tokenizer.json").is_file() or (path / "tokenizer_config.json").is_file()

    def claims(self, folder: Path) -> list[Path]:
        from .tokenizer_folder import TOKENIZER_FILES

        return [folder / n for n in TOKENIZER_FILES if (folder / n).is_file()]

    def judge(self, path: Path, options: Options) -> Report:
        from .dataset_handoff import data_format
        from .tokenizer_folder import judge_tokenizer

        fmt = data_format(options.dataset)
        return judge_tokenizer(path, options.settings, fmt)


# A tokenizer's own JSON files, named on the command line: their content is no training log (the
# JSON-lines reader would read a vocabulary as metrics), and their judge is the folder's.
TOKENIZER_JSON = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "added_tokens.json")


@inspector("tokenizer", priority=45)  # before the log inspector, which would read it as JSON lines
class TokenizerFileInspector:
    def sniff(self, path: Path, head: bytes) -> bool:
        return path.name in TOKENIZER_JSON and head.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] == b"{"

    def judge(self, path: Path, options: Options) -> Report:
        return Report(
            source=str(path),
            kind="tokenizer",
            unjudged=f"a tokenizer file, not a training log: judge the folder that holds it (trainlint tokenizer {path.parent})",
        )
