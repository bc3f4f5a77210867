from trainlint import __version__


def test_version_cli(cli):
    r = cli("--version")
    assert r.code == 0 and __version__ in r.out


def test_gallery_verdicts(cli, evidence):
    r = cli("doctor", evidence / "qwen-qlora-gallery", "--format", "json")
    verdicts = {Path_parent(rep["source"]): rep["verdict"] for rep in r.json()["reports"]}
    assert verdicts["healthy"] == "PASS"
    for bad in ("lr_hot", "lr_zero", "fp16_nan"):
        assert verdicts[bad] == "FAIL", bad
    assert r.code == 1


def Path_parent(source: str) -> str:
    from pathlib import Path

    return Path(source).parent.name
