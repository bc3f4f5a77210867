"""Resource checks: probes on real/fake files, rules on injected numbers."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from trainlint.config import Settings
from trainlint.environment import GIB, MIB
from trainlint.environment.facts import Request, Resources, Subject
from trainlint.environment.probe import add_checkpoints, cgroup_room, meminfo_available, resources, write_test
from trainlint.inspectors.environment import group_report


def judge(res: Resources, settings=None, **req):
    report = group_report("resources", "r", Subject(request=Request(**req), resources=res), settings)
    return report, {f.code: f for f in report.findings}


def test_meminfo_and_cgroup_parsing(tmp_path):
    assert meminfo_available("MemTotal: 100 kB\nMemAvailable:    2048 kB\n") == 2048 * 1024
    assert meminfo_available("MemTotal: 100 kB\n") is None
    (tmp_path / "memory.max").write_text("1073741824\n")
    (tmp_path / "memory.current").write_text("73741824\n")
    assert cgroup_room(tmp_path) == 1_000_000_000
    (tmp_path / "memory.max").write_text("max\n")
    assert cgroup_room(tmp_path) is None


def test_memory_rule_fires_and_passes():
    _r, f = judge(Resources(mem_available=6 * GIB, mem_source="cgroup memory limit"), memory_gb=16)
    assert "6.00 GiB available (cgroup memory limit) < 16.00 GiB required" in f["TL410"].message
    assert f["TL410"].evidence["threshold"] == 16 * GIB
    rep, f = judge(Resources(mem_available=32 * GIB), memory_gb=16)
    assert "TL410" not in f and "TL410" in rep.checks.ran
    rep, _f = judge(Resources(mem_available=32 * GIB))
    assert rep.checks.not_checked["TL410"] == "no --memory given"


def test_disk_for_checkpoints_fail_warn_pass():
    _r, f = judge(Resources(disk_free=20 * GIB, disk_path="/out"), checkpoint_gb=8, keep=3)
    assert f["TL411"].severity.value == "FAIL" and "3 x 8.00 GiB = 24.00 GiB" in f["TL411"].message
    _r, f = judge(Resources(disk_free=26 * GIB, disk_path="/out"), checkpoint_gb=8, keep=3)
    assert f["TL411"].severity.value == "WARN"
    rep, f = judge(Resources(disk_free=100 * GIB, disk_path="/out"), checkpoint_gb=8, keep=3)
    assert f == {} and rep.verdict.value == "PASS"
    rep, _f = judge(Resources(disk_free=1 * GIB), keep=3)
    assert "TL411" in rep.checks.not_checked


def test_disk_size_measured_from_existing_checkpoint(tmp_path):
    ck = tmp_path / "checkpoint-100"
    ck.mkdir()
    (ck / "model.safetensors").write_bytes(b"\0" * 5000)
    res = Resources(disk_free=12000, disk_path=str(tmp_path))
    add_checkpoints(res, tmp_path)
    assert res.checkpoint_bytes == 5000 and res.checkpoints_present == 1
    _r, f = judge(res, keep=3)
    assert f["TL411"].evidence["size_from"].startswith("measured from")


def test_shm_for_workers():
    docker = Resources(shm_total=64 * MIB, shm_free=64 * MIB)
    _r, f = judge(docker, workers=4)
    assert "/dev/shm is 64 MiB for 4 DataLoader workers (< 4 x 256 MiB = 1024 MiB)" in f["TL412"].message
    rep, f = judge(docker, workers=0)
    assert "TL412" in rep.checks.stood_down and f == {}
    rep, f = judge(Resources(shm_total=16 * GIB), workers=8)
    assert f == {}
    s = Settings(thresholds={"TL412": {"per_worker_mib": 8}})
    _r, f = judge(docker, s, workers=4)
    assert "TL412" not in f


def test_open_file_limit():
    _r, f = judge(Resources(nofile_soft=256, nofile_hard=4096))
    assert "soft limit is 256 (< 1024); hard limit 4096" in f["TL413"].message
    _r, f = judge(Resources(nofile_soft=1024, nofile_hard=4096))
    assert "TL413" not in f


def test_write_test_leaves_folder_unchanged(tmp_path):
    (tmp_path / "keep.txt").write_text("x")
    before = sorted(os.listdir(tmp_path))
    ok, how, err = write_test(tmp_path)
    assert ok and err is None and "created and removed" in how
    assert sorted(os.listdir(tmp_path)) == before


def test_write_test_never_creates_missing_folder(tmp_path):
    target = tmp_path / "a" / "b"
    ok, how, _err = write_test(target)
    assert ok and "does not exist" in how and not (tmp_path / "a").exists()


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root can write anywhere")
def test_unwritable_output_dir_fails(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        res = resources(str(ro), test_write=True)
    finally:
        ro.chmod(0o700)
    _r, f = judge(res, output_dir=str(ro))
    assert f["TL414"].severity.value == "FAIL"


def test_unwritable_reported_from_fact():
    _r, f = judge(Resources(writable=False, writable_error="Read-only file system"), output_dir="/mnt/ro")
    assert "/mnt/ro is not writable: Read-only file system" in f["TL414"].message


def test_probe_real_machine_reads_numbers(tmp_path):
    res = resources(str(tmp_path), test_write=True)
    assert res.disk_free and res.disk_free > 0 and res.writable is True
    if Path("/proc/meminfo").exists():
        assert res.mem_available and res.mem_available > 0
    assert res.nofile_soft is not None


def test_output_path_that_is_a_file_fails_for_real(tmp_path):
    f_path = tmp_path / "out"
    f_path.write_text("not a folder")
    res = resources(str(f_path), test_write=True)
    _r, f = judge(res, output_dir=str(f_path))
    assert "is not a folder" in f["TL414"].message and f_path.read_text() == "not a folder"
