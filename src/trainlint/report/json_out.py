"""The JSON contract (see CONTRACTS.md and schema/report.schema.json)."""

from __future__ import annotations

import json
from typing import IO

from ..verdict import Result


def render_json(result: Result, stream: IO[str]) -> None:
    json.dump(result.to_dict(), stream, indent=2, allow_nan=False)
    stream.write("\n")
