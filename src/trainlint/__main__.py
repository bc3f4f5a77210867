"""`python -m trainlint`: the same CLI as the `trainlint` script."""

from trainlint.cli import run

run()
