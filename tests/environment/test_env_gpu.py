"""Accelerator checks by reading only: nvidia-smi output (a fake one on PATH) and torch's files."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap

import pytest

from trainlint.environment.facts import Gpu, GpuFacts, Request, Subject
from trainlint.environment.gpu import parse_header_cuda, parse_query, torch_build
from trainlint.inspectors.environment import group_report
from trainlint.rules.environment import visible_devices

QUERY_OUT = (
    "0, NVIDIA H100 80GB HBM3, GPU-aaaa1111, 81559, 3, 550.54.15\n"
    "1, NVIDIA H100 80GB HBM3, GPU-bbbb2222, 81559, 3, 550.54.15\n"
)
HEADER = "| NVIDIA-SMI 550.54.15    Driver Version: 550.54.15    CUDA Version: 12.4     |\n"


def facts(
    n=2, cvd=None, torch_cuda="12.1", driver_cuda="12.4", torch_cuda_source="/site-packages/torch/version.py", **kw
):
    gpus = [Gpu(i, "NVIDIA H100", f"GPU-{i}{i}{i}") for i in range(n)]
    return GpuFacts(
        smi_path="/usr/bin/nvidia-smi",
        driver_version="550.54.15",
        driver_cuda=driver_cuda,
        gpus=gpus,
        cuda_visible_devices=cvd,
        torch_version="2.3.0+cu121",
        torch_cuda=torch_cuda,
        torch_cuda_source=torch_cuda_source,
        **kw,
    )


def judge(g, require_gpu=False):
    rep = group_report("accelerators", "a", Subject(request=Request(require_gpu=require_gpu), gpu=g))
    return rep, {f.code: f for f in rep.findings}


def test_parse_nvidia_smi():
    gpus, driver = parse_query(QUERY_OUT)
    assert [g.index for g in gpus] == [0, 1] and gpus[1].uuid == "GPU-bbbb2222" and driver == "550.54.15"
    assert gpus[0].memory_total_mib == 81559
    assert parse_header_cuda(HEADER) == "12.4" and parse_header_cuda("no header") is None


def test_healthy_gpu_machine_passes():
    rep, f = judge(facts(), require_gpu=True)
    assert f == {} and rep.verdict.value == "PASS"


def test_no_driver_fails_only_when_gpu_required():
    g = GpuFacts(torch_version="2.3.0", torch_cuda="12.1")
    rep, f = judge(g, require_gpu=True)
    assert "nvidia-smi not found" in f["TL420"].message and rep.verdict.value == "FAIL"
    rep, f = judge(g)
    assert "TL420" in rep.checks.stood_down and rep.verdict.value == "PASS"


def test_failing_driver():
    g = facts(smi_error="Failed to initialize NVML: Driver/library version mismatch")
    _r, f = judge(g)
    assert f["TL420"].severity.value == "WARN" and "version mismatch" in f["TL420"].message
    _r, f = judge(g, require_gpu=True)
    assert f["TL420"].severity.value == "FAIL"


def test_cuda_visible_devices():
    gpus = facts(n=2).gpus
    assert visible_devices("1,0", gpus) == (["1", "0"], [], [])
    assert visible_devices("0,3,1", gpus) == (["0"], ["3"], ["1"])
    assert visible_devices("GPU-111", gpus)[0] == ["GPU-111"]
    assert visible_devices("", gpus) == ([], [], [])
    _r, f = judge(facts(cvd="0,3,1"))
    assert "entry '3' does not match any of the 2 GPUs" in f["TL422"].message
    assert f["TL422"].evidence["dropped"] == ["1"]
    _r, f = judge(facts(cvd="-1"), require_gpu=True)
    assert f["TL421"].severity.value == "FAIL" and "hides all 2 GPUs" in f["TL421"].message
    _r, f = judge(facts(cvd=""))
    assert f["TL421"].severity.value == "WARN"


def test_torch_cuda_vs_driver():
    _r, f = judge(facts(torch_cuda="12.8", driver_cuda="11.8"))
    assert f["TL423"].severity.value == "FAIL" and "CUDA 12.8" in f["TL423"].message
    _r, f = judge(facts(torch_cuda="12.8", driver_cuda="12.4"))
    assert f["TL423"].severity.value == "WARN"
    _r, f = judge(facts(torch_cuda="11.8", driver_cuda="12.4"))
    assert "TL423" not in f


def test_cpu_torch_on_gpu_machine():
    _r, f = judge(facts(torch_cuda=None))
    assert f["TL424"].severity.value == "WARN" and "CPU-only" in f["TL424"].message
    _r, f = judge(facts(torch_cuda=None), require_gpu=True)
    assert f["TL424"].severity.value == "FAIL"
    _r, f = judge(GpuFacts(torch_version="2.3.0+cpu", torch_cuda_source="torch version tag"))
    assert f == {}
    rep, f = judge(facts(torch_cuda=None, torch_cuda_source=None))  # build unknown: no guess
    assert f == {} and "could not be read" in rep.checks.not_checked["TL424"]


def test_torch_build_read_without_import():
    code = (
        "import sys; from trainlint.environment.gpu import torch_build; v = torch_build(); "
        "print(v[0] is None or 'torch' not in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert out.stdout.strip() == "True", out.stderr
    version, cuda, _hip, _src = torch_build()
    if version and "+cpu" in version:
        assert cuda is None


def _fake_smi(folder, body: str):
    script = folder / "nvidia-smi"
    script.write_text("#!/bin/sh\n" + textwrap.dedent(body))
    script.chmod(script.stat().st_mode | stat.S_IEXEC)


@pytest.mark.skipif(sys.platform == "win32", reason="shell script")
def test_cli_with_fake_nvidia_smi(tmp_path, cli):
    _fake_smi(
        tmp_path,
        f"""\
        case "$1" in
          --query-gpu*) printf '{QUERY_OUT.strip().replace(chr(10), chr(92) + "n")}\\n' ;;
          *) printf '{HEADER.strip()}\\n' ;;
        esac
        """,
    )
    env = {"PATH": f"{tmp_path}{os.pathsep}{os.environ['PATH']}", "CUDA_VISIBLE_DEVICES": "1,7"}
    r = cli("env", "--format", "json", env=env)
    acc = next(rep for rep in r.json()["reports"] if rep["format"] == "accelerators")
    codes = {f["code"]: f for f in acc["findings"]}
    assert acc["summary"]["driver_cuda"] == "12.4" and len(acc["summary"]["gpus"]) == 2
    assert "'7'" in codes["TL422"]["message"]


@pytest.mark.skipif(sys.platform == "win32", reason="shell script")
def test_cli_broken_driver_with_require_gpu(tmp_path, cli):
    _fake_smi(
        tmp_path,
        """\
        echo "Failed to initialize NVML: Driver/library version mismatch"
        exit 18
        """,
    )
    r = cli("env", "--require-gpu", "--format", "json", env={"PATH": f"{tmp_path}{os.pathsep}{os.environ['PATH']}"})
    acc = next(rep for rep in r.json()["reports"] if rep["format"] == "accelerators")
    assert acc["verdict"] == "FAIL" and "version mismatch" in acc["findings"][0]["message"]
    assert r.code == 1


def test_gpu_memory_already_in_use():
    g = facts(n=2)
    g.gpus[0].memory_total_mib, g.gpus[0].memory_used_mib = 81559, 3
    g.gpus[1].memory_total_mib, g.gpus[1].memory_used_mib = 81559, 40000
    _r, f = judge(g)
    assert "GPU 1 (NVIDIA H100) already has 40000 of 81559 MiB in use (49% > 10%)" in f["TL425"].message
    g.cuda_visible_devices = "0"  # the busy GPU is hidden from this run
    _r, f = judge(g)
    assert "TL425" not in f
