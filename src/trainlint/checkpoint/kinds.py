"""What a file is, from its name and first bytes: the checkpoint kinds discovery asks about for
every file it meets, kept apart from the readers (this module imports nothing heavy)."""

from __future__ import annotations

import struct

CKPT_SUFFIXES = {
    ".pt",
    ".pth",
    ".ckpt",
    ".bin",
    ".safetensors",
    ".pkl",
    ".pickle",
    ".tar",
    ".distcp",
    ".model",
    ".h5",
    ".gguf",
    ".pdparams",
}
LFS_HEAD = b"version https://git-lfs.github.com/spec/v1"
ZIP_HEAD = b"PK\x03\x04"
LEGACY_MAGIC = b"\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19"  # torch.save before zip files
MAX_SAFETENSORS_HEADER = 100 * 1024 * 1024


def content_kind(head: bytes) -> str | None:
    """What the first bytes say the file is: torch-zip, torch-legacy, pickle, safetensors,
    lfs-pointer, html, zip, or None."""
    if head.startswith(ZIP_HEAD):
        return "torch-zip" if b"data.pkl" in head[:512] else "zip"
    if head.startswith(LEGACY_MAGIC):
        return "torch-legacy"
    if head[:1] == b"\x80" and head[1:2] in (b"\x02", b"\x03", b"\x04", b"\x05"):
        return "pickle"
    if looks_like_safetensors(head):
        return "safetensors"
    if head.startswith(LFS_HEAD):
        return "lfs-pointer"
    low = head[:1024].lstrip().lower()
    if low.startswith((b"<!doctype html", b"<html", b"<?xml")) or b"<html" in low[:256]:
        return "html"
    if _old_pickle(head):
        return "pickle"
    return None


def _old_pickle(head: bytes) -> bool:
    """A protocol 0/1 pickle (no PROTO header): torch.load runs these too, so they must be caught.
    True when the first bytes walk as a pickle (to STOP, or cut off only by the end of ``head``)."""
    if not head or head[:1] not in b"(}])cdlNIFLSVUTXJKMGhjqrpgaesut.0":
        return False
    from ..picklewalk import walk

    res = walk(head)
    return res.opcodes >= 2 and (res.complete or (res.error or "").startswith("truncated"))


def kind_is_zip(head: bytes) -> bool:
    return head.startswith(ZIP_HEAD)


def looks_like_safetensors(head: bytes) -> bool:
    if len(head) < 10:
        return False
    (n,) = struct.unpack_from("<Q", head)
    # an absurd length before a JSON header is still a safetensors file (with a corrupt header),
    # unless those 8 bytes are JSON text themselves: pandas' {"loss":{"0":2.5,..}} is no checkpoint
    if n > MAX_SAFETENSORS_HEADER and head[:2] == b'{"' and head[:8].isascii():
        return False
    return 2 <= n <= MAX_SAFETENSORS_HEADER and head[8:9] == b"{" or n > MAX_SAFETENSORS_HEADER and head[8:10] == b'{"'
