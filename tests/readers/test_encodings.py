"""Console logs that are not UTF-8: a Chinese Windows console's GBK, a Japanese one's Shift-JIS,
a Western one's cp1252 are decoded (``safeio.legacy_text``, named in the run's notes); UTF-8
with a stray byte stays UTF-8; binary stays unrecognised."""

from __future__ import annotations

import os

import pytest

from trainlint import safeio
from trainlint.api import doctor
from trainlint.readers import read_run, sniff

GBK = "".join(f"第{i}轮 训练损失: {2.5 - i * 0.05:.4f}\n" for i in range(1, 31))
SJIS = "".join(f"エポック {i}/30 損失: {2.5 - i * 0.05:.4f} 検証損失: {2.6 - i * 0.05:.4f}\n" for i in range(1, 31))
CP1252 = "".join(
    f"Époque {i}/30 - perte d'entraînement: {2.5 - i * 0.05:.4f} - perte de validation: {2.6 - i * 0.05:.4f}\n"
    for i in range(1, 31)
)


@pytest.mark.parametrize(
    ("text", "encoding", "decoded", "loss"),
    [
        (GBK, "gbk", "GB18030", "train_loss"),
        (SJIS, "shift_jis", "cp932", "loss"),
        (CP1252, "cp1252", "cp1252", "train_loss"),
    ],
)
@pytest.mark.parametrize("name", ["train.log", "train_output.txt"])
def test_a_legacy_encoded_console_log_is_read_as_in_utf8(tmp_path, text, encoding, decoded, loss, name):
    p = tmp_path / name
    p.write_bytes(text.encode(encoding))
    assert sniff(p).name == "console"
    run = read_run(p)
    s = run.series[loss]
    assert (len(s), s.steps[0], s.steps[-1], s.values[0], s.values[-1]) == (30, 1, 30, 2.45, 1.0)
    assert any(n.startswith(f"not UTF-8: decoded as {decoded}") for n in run.notes)
    utf8 = tmp_path / "utf8.log"
    utf8.write_text(text, encoding="utf-8")
    assert sorted(read_run(utf8).series) == sorted(run.series)  # the same names as in UTF-8


def test_utf8_with_a_stray_byte_stays_utf8():
    data = ("epoch 1 loss: 0.5 — 训练损失 " * 20).encode() + b"\xe9"
    text, notes = safeio.decode(data)
    assert text.startswith("epoch 1 loss: 0.5 — 训练损失") and text.endswith("\ufffd")
    assert notes == ["1 undecodable byte(s), first at offset " + str(len(data) - 1) + "; replaced"]
    assert safeio.decode(b"epoch 1 loss: 0.5\n\xe9p\n")[0] == "epoch 1 loss: 0.5\n\xe9p\n"  # cp1252: ASCII kept


def test_binary_stays_unrecognised(tmp_path):
    blob = os.urandom(1 << 16)
    assert safeio.legacy_text(blob.replace(b"\x00", b"\x01")) is None  # no legacy encoding reads noise
    assert safeio.legacy_text(b"\x00" + GBK.encode("gbk")) is None  # a NUL: binary
    assert safeio.legacy_text(b"\x80\x02]]]]((((" * 50) is None  # a pickle: control bytes, no NUL
    p = tmp_path / "weights.bin"
    p.write_bytes(b"\x00\x01" + blob)
    assert sniff(p) is None
    assert doctor(p).reports[0].verdict.value == "NOT-CHECKED"
