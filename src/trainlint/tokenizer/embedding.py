"""The embedding size of a model folder, from safetensors headers (plain JSON; no tensor is read)."""

from __future__ import annotations

import re
import struct
from pathlib import Path
from typing import Any

from ..checkpoint.kinds import MAX_SAFETENSORS_HEADER
from ..safeio import load_json_file, loads_json, open_regular

EMBED = re.compile(r"(^|\.)(embed_tokens|wte|word_embeddings|tok_embeddings|embeddings\.word_embeddings)\.weight$")


def _header(path: Path) -> dict[str, Any]:
    try:
        with open_regular(path) as fh:  # a FIFO named *.safetensors is never opened for reading
            raw = fh.read(8)
            if len(raw) < 8:
                return {}
            (size,) = struct.unpack("<Q", raw)
            if size > MAX_SAFETENSORS_HEADER:
                return {}
            doc = loads_json(fh.read(size))
    except (OSError, ValueError):  # JSONLimit is a ValueError
        return {}
    return doc if isinstance(doc, dict) else {}


def _candidates(folder: Path) -> list[tuple[Path, str | None]]:
    index = folder / "model.safetensors.index.json"
    if index.is_file():
        try:
            weight_map = load_json_file(index).get("weight_map", {})
        except (OSError, ValueError, AttributeError):
            weight_map = {}
        if isinstance(weight_map, dict):
            return [(folder / str(f), name) for name, f in sorted(weight_map.items()) if EMBED.search(name)]
    return [(p, None) for p in sorted(folder.glob("*.safetensors"))[:8]]


def embedding_rows(folder: Path) -> tuple[int, str, str] | None:
    """(rows of the input embedding, tensor name, file name), or None when not found."""
    for path, wanted in _candidates(folder):
        header = _header(path)
        names = [wanted] if wanted else sorted(n for n in header if EMBED.search(n))
        for name in names:
            shape = header.get(name, {}).get("shape") if isinstance(header.get(name), dict) else None
            if isinstance(shape, list) and len(shape) == 2 and isinstance(shape[0], int):
                return shape[0], name, path.name
    return None
