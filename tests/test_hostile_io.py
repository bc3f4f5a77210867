"""Resource bounds by design (trainlint.safeio), per-input isolation (trainlint.isolate) and the
CLI's last line of defence: each of the failures issue 20 lists, reproduced and fixed."""

from __future__ import annotations

import json
import os
import time
import zlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trainlint import api, safeio
from trainlint.isolate import InputTimeout, judge_isolated, time_limit
from trainlint.model import Run, check_meta
from trainlint.verdict import Report


def _jsonl(path: Path, n: int = 30) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps({"step": i, "loss": 2.0 - 0.03 * i}) + "\n" for i in range(n)))
    return path


# ----------------------------------------------------------------------------- bounded lines
def test_a_long_line_is_damage_with_its_offset_and_reading_goes_on(tmp_path):
    p = tmp_path / "x.log"
    p.write_bytes(b"a\n" + b"x" * 5000 + b"\nb\nc")
    read = safeio.read_text(p, max_line=1000)
    assert read.text.split("\n") == ["a", "", "b", "c"]  # line numbers hold
    ((kind, msg, ev),) = read.damage
    assert kind == "long-line" and ev == {
        "count": 1,
        "first_line": 2,
        "first_offset": 2,
        "limit": 1000,
    }
    assert "line 2 at byte 2 (5001 bytes)" in msg


def test_long_line_across_chunks_and_at_the_end(tmp_path, monkeypatch):
    monkeypatch.setattr(safeio, "CHUNK", 7)
    p = tmp_path / "x.log"
    p.write_bytes(b"ok\n" + b"y" * 50 + b"\nmid\n" + b"z" * 40)
    read = safeio.read_text(p, max_line=20)
    assert read.text.split("\n") == ["ok", "", "mid", ""]
    assert [d[2]["first_offset"] for d in read.damage] == [3]
    assert read.damage[0][2]["count"] == 2


def test_jsonl_reader_skips_a_huge_line_and_reads_past_it(tmp_path, monkeypatch):
    monkeypatch.setattr(safeio, "MAX_LINE", 1000)
    p = _jsonl(tmp_path / "m.jsonl", 10)
    with open(p, "a") as fh:
        fh.write('{"step": 10, "note": "' + "q" * 5000 + '"}\n')
        fh.write("".join(json.dumps({"step": i, "loss": 1.0}) + "\n" for i in range(11, 20)))
    monkeypatch.setattr(safeio.read_text, "__defaults__", (1000,))
    run = api.read_run(p)
    assert len(run.get("loss")) == 19
    assert any(d.kind == "long-line" and d.evidence["first_line"] == 11 for d in run.damage)


# ----------------------------------------------------------------------------- bounded JSON
def test_json_limits_give_a_reason_not_an_exception():
    with pytest.raises(safeio.JSONLimit, match="nested more than"):
        safeio.loads_json("[" * 100_000 + "]" * 100_000)
    with pytest.raises(safeio.JSONLimit, match="6000 digits"):
        safeio.loads_json('{"seed": ' + "1" * 6000 + "}")
    assert safeio.loads_json('{"sha": "' + "1" * 6000 + '"}')["sha"] == "1" * 6000  # digits in a string are fine
    with pytest.raises(safeio.JSONLimit, match="nested deeper"):
        safeio.loads_json('{"a": ' * 3000 + "1" + "}" * 3000)  # deep without a run of brackets
    assert safeio.loads_json("[[1], [2]]") == [[1], [2]]


def test_json_memory_estimate_refuses_a_flood_of_tiny_values(monkeypatch):
    monkeypatch.setattr(safeio, "JSON_MIN_BUDGET", 1 << 20)
    with pytest.raises(safeio.JSONLimit, match="values"):
        safeio.loads_json("[" + "[1]," * 200_000 + "[1]]")


def test_utf16_is_decoded_and_named(tmp_path):
    p = tmp_path / "trainer_state.json"
    hist = [{"step": 10 * i, "loss": 2.0 / i} for i in range(1, 20)]
    p.write_bytes(json.dumps({"global_step": 190, "log_history": hist}).encode("utf-16"))
    rep = api.doctor([p]).reports[0]
    assert rep.verdict.value == "PASS" and any("UTF-16" in n for n in rep.notes)


def test_max_steps_that_is_not_a_plan_is_ignored():
    run = Run(
        source="x.jsonl",
        format="jsonl",
        meta={"max_steps": float("inf"), "num_train_epochs": 3, "warmup_steps": "x", "logging_steps": True},
    )
    check_meta(run)
    assert run.meta == {"num_train_epochs": 3} and len(run.notes) == 3


# ----------------------------------------------------------------------------- files that are not files
def test_fifo_is_never_opened(tmp_path):
    run = tmp_path / "run"
    _jsonl(run / "metrics.jsonl")
    os.mkfifo(run / "trainer_state.json")
    start = time.monotonic()
    res = api.doctor([run])
    assert time.monotonic() - start < 30
    assert [r.verdict.value for r in res.reports] == ["PASS"]
    assert res.extra["skipped"] == {
        "a FIFO (named pipe), not a regular file": {
            "count": 1,
            "paths": [str(run / "trainer_state.json")],
        }
    }
    named = api.doctor([run / "trainer_state.json"])
    assert named.reports[0].unjudged == "a FIFO (named pipe), not a regular file: not opened"
    assert named.exit_code == 2
    with pytest.raises(safeio.NotRegular):
        safeio.open_regular(run / "trainer_state.json")


def test_symlink_loop_and_links_out_of_the_folder(tmp_path):
    outside = _jsonl(tmp_path / "elsewhere" / "other.jsonl")
    run = tmp_path / "run"
    _jsonl(run / "metrics.jsonl")
    os.symlink("b.jsonl", run / "a.jsonl")
    os.symlink("a.jsonl", run / "b.jsonl")
    os.symlink(outside, run / "out.jsonl")
    os.symlink("metrics.jsonl", run / "inside.jsonl")  # inside the folder: judged
    res = api.doctor([run])
    assert sorted(Path(r.source).name for r in res.reports) == [
        "inside.jsonl",
        "metrics.jsonl",
    ]
    assert res.extra["skipped"]["symlink loop"]["count"] == 2
    assert res.extra["skipped"]["symlink out of the scanned folder (use --follow-links)"]["count"] == 1
    followed = api.doctor([run], api.Options(follow_links=True))
    assert "out.jsonl" in {Path(r.source).name for r in followed.reports}


def test_followed_folder_links_stop_at_a_loop(tmp_path):
    run = tmp_path / "run"
    _jsonl(run / "sub" / "metrics.jsonl")
    os.symlink(run, run / "sub" / "again")
    res = api.doctor([run], api.Options(follow_links=True))
    assert [Path(r.source).name for r in res.reports] == ["metrics.jsonl"]
    assert res.extra["skipped"]["symlink loop"]["count"] == 1


# ----------------------------------------------------------------------------- zip bombs
def test_inflate_stops_at_the_declared_size_and_at_the_cap():
    raw = zlib.compressobj(9, zlib.DEFLATED, -15)
    data = raw.compress(b"\0" * (8 << 20)) + raw.flush()
    with pytest.raises(safeio.InflateLimit) as exc:
        safeio.inflate_bounded(data, declared=100)
    assert exc.value.evidence()["declared_size"] == 100 and exc.value.inflated <= (1 << 20) + 100
    with pytest.raises(safeio.InflateLimit):
        safeio.inflate_bounded(data, declared=-1, cap=1 << 20)
    assert len(safeio.inflate_bounded(data, declared=8 << 20)) == 8 << 20


# ----------------------------------------------------------------------------- isolation
def test_time_limit_interrupts_a_blocking_call():
    with pytest.raises(InputTimeout), time_limit(0.2):
        time.sleep(5)
    with time_limit(None):
        pass


def test_a_raising_or_hanging_input_becomes_its_own_not_checked_report(tmp_path, monkeypatch):
    monkeypatch.delenv("TRAINLINT_DEBUG", raising=False)
    good = _jsonl(tmp_path / "a" / "metrics.jsonl")
    _jsonl(tmp_path / "b" / "metrics.jsonl")
    _jsonl(tmp_path / "c" / "metrics.jsonl")
    from trainlint.discover import Item

    real = Item.judge

    def flaky(task, options):  # one input's judgement raises, another hangs
        name = Path(task.target).parent.name
        if name == "b":
            raise TypeError("unsupported operand type(s) for /: 'NoneType' and 'float'")
        if name == "c":
            time.sleep(30)
        return real(task, options)

    monkeypatch.setattr(Item, "judge", flaky)
    start = time.monotonic()
    res = api.doctor([tmp_path], api.Options(timeout_per_input=1.0))
    assert time.monotonic() - start < 20
    by = {Path(r.source).parent.name: r for r in res.reports}
    assert by["a"].verdict.value == "PASS" and by["a"].source == str(good)
    assert by["b"].unjudged.startswith("internal error while reading: TypeError: unsupported operand")
    assert by["c"].unjudged == "timed out after 1 s while reading (--timeout-per-input)"
    assert res.exit_code == 2


class _Task:
    """A task as isolate sees one: a target and judge(options)."""

    def __init__(self, judge):
        self.target, self.judge = "x", judge


def test_judge_isolated_passes_reports_through_and_catches_what_escapes(monkeypatch):
    monkeypatch.delenv("TRAINLINT_DEBUG", raising=False)
    rep = Report(source="x", kind="log")
    assert judge_isolated(_Task(lambda options: [rep, rep]), api.Options()) == [rep, rep]

    def boom(options):
        raise KeyError("k")

    (out,) = judge_isolated(_Task(boom), api.Options())
    assert out.source == "x" and out.unjudged.startswith("internal error while reading: KeyError")
    (slow,) = judge_isolated(_Task(lambda options: time.sleep(5)), api.Options(timeout_per_input=0.2))
    assert slow.unjudged == "timed out after 0.2 s while reading (--timeout-per-input)"


def test_an_escaping_internal_error_exits_2_with_one_line(tmp_path, cli, monkeypatch):
    """Anything that escapes a command is an internal error: exit 2 and a hint, never 1 or a traceback."""
    hook = tmp_path / "sitecustomize.py"
    hook.write_text(
        "import trainlint.api as a\ndef boom(*args, **kw):\n    raise KeyError('surprise')\na.doctor = boom\n"
    )
    r = cli(
        "doctor",
        str(tmp_path),
        env={"PYTHONPATH": f"{tmp_path}{os.pathsep}{Path(__file__).parents[1] / 'src'}"},
    )
    assert r.code == 2, r.err
    assert "Traceback" not in r.err
    assert "internal error: KeyError: 'surprise'" in r.err and "report it" in r.err


@pytest.mark.parametrize("command", ["doctor", "ckpt", "data", "series"])
def test_a_named_fifo_is_not_checked_by_every_command(tmp_path, cli, command):
    fifo = tmp_path / ("model.pt" if command == "ckpt" else "metrics.jsonl")
    os.mkfifo(fifo)
    r = cli(command, str(fifo))
    assert r.code == 2, (r.out, r.err)
    assert "a FIFO (named pipe), not a regular file" in r.out


KMSG = Path("/proc/kmsg")  # a regular file by its mode; reading it (as root) waits for the kernel
needs_procfs = pytest.mark.skipif(not KMSG.exists(), reason="no /proc/kmsg here")


@needs_procfs
def test_pseudo_files_are_told_apart_without_opening_them(tmp_path):
    assert safeio.file_kind(KMSG) == "pseudo" and safeio.file_kind("/proc") == "pseudo"
    assert safeio.file_kind("/proc/self/status") == "pseudo"
    if Path("/sys/kernel").is_dir():
        assert safeio.file_kind("/sys/kernel") == "pseudo"
    assert safeio.file_kind(tmp_path) == "dir" and safeio.file_kind("/dev/null") == "device"
    (tmp_path / "a.txt").write_text("x")
    assert safeio.file_kind(tmp_path / "a.txt") == "file"
    with pytest.raises(safeio.NotRegular):
        safeio.open_regular("/proc/self/status")
    assert safeio.read_head(KMSG) == b""


@needs_procfs
def test_a_pseudo_file_named_to_doctor_is_not_checked_at_once(tmp_path):
    api.doctor(str(tmp_path / "nope"))  # the modules doctor imports, imported before the clock starts
    start = time.monotonic()
    result = api.doctor(str(KMSG))
    assert time.monotonic() - start < 1.0  # nothing is opened: a stat and a report
    (report,) = result.reports
    assert report.unjudged == "a kernel pseudo-file (procfs, sysfs, devfs), not a regular file: not opened"
    assert result.exit_code == 2


@needs_procfs
@pytest.mark.parametrize("command", ["doctor", "ckpt", "data", "series"])
def test_a_named_pseudo_file_is_not_checked_by_every_command(cli, command):
    r = cli(command, str(KMSG))  # the runner's timeout fails the test if it blocks
    assert r.code == 2, (r.out, r.err)
    assert "a kernel pseudo-file (procfs, sysfs, devfs), not a regular file" in r.out
    assert "Traceback" not in r.err


@needs_procfs
def test_a_walk_skips_pseudo_files_and_folders_even_through_followed_links(tmp_path):
    _jsonl(tmp_path / "run" / "metrics.jsonl")
    (tmp_path / "run" / "kmsg.log").symlink_to(KMSG)
    (tmp_path / "proc").symlink_to("/proc")
    res = api.doctor(tmp_path, api.Options(follow_links=True))
    assert [Path(r.source).name for r in res.reports] == ["metrics.jsonl"]
    skipped = res.extra["skipped"]["a kernel pseudo-file (procfs, sysfs, devfs), not a regular file"]
    assert sorted(skipped["paths"]) == [str(tmp_path / "proc"), str(tmp_path / "run" / "kmsg.log")]


def test_pickle_lengths_are_checked_against_the_stream(tmp_path, monkeypatch):
    """A BINBYTES8 length of 2^62 read from a file never becomes a 2^62-byte read request."""
    import struct

    from trainlint import picklewalk

    p = tmp_path / "evil.pkl"
    p.write_bytes(b"\x80\x04\x8e" + struct.pack("<Q", 1 << 62) + b"abc.")
    asked = []
    real_read = picklewalk._Bounded.read

    def spy(self, n=-1):
        out = real_read(self, n)
        asked.append(len(out))
        return out

    monkeypatch.setattr(picklewalk._Bounded, "read", spy)
    res = picklewalk.walk_file(p)
    assert res.error.startswith("truncated") and max(asked) <= p.stat().st_size


def test_a_non_finite_step_is_null_in_strict_json():
    from trainlint.verdict import Finding, Severity

    f = Finding("TL001", "x", "nan", Severity.FAIL, "m", step=float("-inf"))
    assert f.to_dict()["step"] is None
    assert Finding("TL001", "x", "nan", Severity.FAIL, "m", step=3.0).to_dict()["step"] == 3


def _lines_reference(data: bytes, max_line: int) -> tuple[bytes, list[tuple[int, int, int]]]:
    """What bounded reading must give: each line (its newline counted) kept, or cut out and listed."""
    parts, long, offset = [], [], 0
    lines = data.split(b"\n")
    for i, line in enumerate(lines):
        last = i == len(lines) - 1
        piece = line if last else line + b"\n"
        if len(piece) > max_line:
            long.append((i + 1, offset, len(piece)))
            parts.append(b"" if last else b"\n")
        else:
            parts.append(piece)
        offset += len(piece)
    return b"".join(parts), long


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from([b"a", b"bb", b"\n", b"cccccccc", b"\n\n", b"x" * 30]), max_size=40).map(b"".join),
    st.integers(1, 40),
    st.integers(1, 24),
)
def test_bounded_bytes_equals_a_line_by_line_reading(tmp_path_factory, data, max_line, chunk):
    """Whole-chunk reading gives what splitting into lines gives, whatever the chunk size
    (smaller or larger than the line limit) and wherever lines cross chunk boundaries."""
    path = tmp_path_factory.mktemp("b") / "log.txt"
    path.write_bytes(data)
    with pytest.MonkeyPatch.context() as mp, open(path, "rb") as fh:
        mp.setattr(safeio, "CHUNK", chunk)
        assert safeio._bounded_bytes(fh, max_line) == _lines_reference(data, max_line)


def test_a_fifo_named_as_model_weights_beside_a_tokenizer_is_never_opened(tmp_path):
    """The embedding-size probe reads safetensors headers: a FIFO named model.safetensors must not
    block it (a plain open() would wait for a writer forever)."""
    import subprocess
    import sys

    os.mkfifo(tmp_path / "model.safetensors")
    code = "import sys; from pathlib import Path; from trainlint.tokenizer.embedding import embedding_rows; "
    code += "print(embedding_rows(Path(sys.argv[1])))"
    proc = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.strip() == "None", proc.stderr


# Modules that may read a file without safeio, and why: none of these files is the user's input.
DIRECT_READS_ALLOWED = {
    "report/html.py": "the package's own page template",
    "checkpoint/security.py": "the package's own allowlist",
    "environment/versions.py": "the package's own known-bad table",
    "environment/probe.py": "the machine's /proc and cgroup files",
    "environment/gpu.py": "an installed framework's version.py",
    "safeio.py": "the process's own mount table (/proc/self/mountinfo), to know the pseudo-file systems",
}
_WRITE_MODES = set("wax")


def _direct_reads(path: Path) -> list[int]:
    """Lines of ``path`` that open or read a file without safeio: open() for reading,
    Path.read_text/read_bytes, io/gzip/bz2/lzma.open."""
    import ast

    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        if isinstance(f, ast.Name) and f.id == "open":
            mode = (
                node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "mode"), None)
            )
            if not (isinstance(mode, ast.Constant) and _WRITE_MODES & set(str(mode.value))):
                out.append(node.lineno)
        elif isinstance(f, ast.Attribute) and f.attr in ("read_text", "read_bytes"):
            if not (isinstance(f.value, ast.Name) and f.value.id == "safeio"):
                out.append(node.lineno)
        elif isinstance(f, ast.Attribute) and f.attr == "open" and isinstance(f.value, ast.Name):
            if f.value.id in ("io", "gzip", "bz2", "lzma"):
                out.append(node.lineno)
    return out


def test_every_file_is_read_through_safeio():
    """A file is opened by safeio (open_regular, read_bytes, read_str, load_json_file, ...): a FIFO,
    socket or device is never opened and JSON is bounded. The test finds what it looks for."""
    src = Path(safeio.__file__).parent
    found = {
        p.relative_to(src).as_posix(): lines
        for p in sorted(src.rglob("*.py"))
        if (lines := _direct_reads(p)) and p.relative_to(src).as_posix() not in DIRECT_READS_ALLOWED
    }
    assert found == {}
    assert _direct_reads(src / "environment" / "probe.py") and _direct_reads(src / "report" / "html.py")


def test_companion_files_that_are_fifos_are_not_opened(tmp_path):
    """A FIFO where a run folder's companion or config file would be: never opened (the read
    would block), the file is left out or named as unreadable."""
    from trainlint.environment.trainconfig import ConfigReadError, read_config
    from trainlint.readers.grouping import link_companions
    from trainlint.yamlfile import load_yaml

    run = tmp_path / "run"
    _jsonl(run / "metrics.csv")
    for name in ("hparams.yaml", "config.json", "cfg.yaml"):
        os.mkfifo(run / name)
    with pytest.raises(safeio.NotRegular):
        load_yaml(run / "hparams.yaml")
    with pytest.raises(ConfigReadError):
        read_config(run / "cfg.yaml")
    from trainlint.model import Run

    r = Run(source=str(run), format="csv")
    start = time.monotonic()
    link_companions(r, run)
    assert time.monotonic() - start < 10 and "hparams" not in r.meta


def test_json_error_messages_read_as_english():
    """Issue 33: a JSON error read 'Unterminated string starting at at column 10'."""
    from trainlint.safeio import json_error

    with pytest.raises(json.JSONDecodeError) as info:
        json.loads('{"text": "unterminated')
    assert json_error(info.value) == "Unterminated string starting at line 1 column 10"
    assert json_error(info.value, line=False) == "Unterminated string starting at column 10"
    with pytest.raises(json.JSONDecodeError) as info:
        json.loads('\n[1, "a", }')
    assert json_error(info.value) == f"{info.value.msg} at line 2 column {info.value.colno}"  # no dangling "at"


def test_a_malformed_dataset_row_names_its_column_once(cli, tmp_path):
    bad = tmp_path / "rows.jsonl"
    bad.write_text('{"text": "a"}\n{"text": "unterminated\n')
    out = cli("data", bad).out
    assert "2: Unterminated string starting at column 10" in out and "at at" not in out, out
