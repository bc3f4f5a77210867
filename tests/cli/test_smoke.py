from trainlint import __version__


def test_version_cli(cli):
    r = cli("--version")
    assert r.code == 0 and __version__ in r.out


def test_examples_from_readme(cli):
    """README's "try it" command: one PASS and three FAILs on the bundled examples, exit 1."""
    from pathlib import Path

    r = cli("doctor", Path(__file__).resolve().parents[2] / "examples", "--format", "json")
    verdicts = sorted(rep["verdict"] for rep in r.json()["reports"])
    assert verdicts == ["FAIL", "FAIL", "FAIL", "PASS"] and r.code == 1
