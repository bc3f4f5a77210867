"""What every dataset source reports: a file that cannot be read at all, and one bad row."""

from __future__ import annotations

import msgspec


class DataError(Exception):
    """The dataset cannot be read at all; the message says why, in one line."""


class Bad(msgspec.Struct):
    kind: str  # "json" (malformed), "utf8" (non-UTF-8 bytes), "row" (not an object / wrong width)
    message: str
    offset: int | None = None  # byte offset in the file (non-UTF-8)
