"""The header line of a delimited table: its delimiter and names, as the csv module reads them,
for both the CSV log reader and the dataset reader."""

from __future__ import annotations

import pytest

from trainlint.dataset.sources import _dialect
from trainlint.delimited import header, header_lines


@pytest.mark.parametrize(
    "text, names, delim",
    [
        ("step,loss\n1,2\n", ["step", "loss"], ","),
        ("step;loss;a,b\n1;2;3\n2;3;4\n", ["step", "loss", "a,b"], ";"),  # a comma in a name
        ('step,loss,"acc,top1"\n1,2,3\n', ["step", "loss", "acc,top1"], ","),
        ('step,"lo""ss"\n1,2\n', ["step", 'lo"ss'], ","),
        ('step,"a\nb"\n1,2\n', ["step", "a\nb"], ","),
        ("\n\nstep\tloss\n1\t2\n", ["step", "loss"], "\t"),
        ("step,loss;x\n", ["step", "loss;x"], ","),  # no rows to judge by: the commonest first
        ('"a;b;c;d",step,loss\n"x;y",1,2\n', ["a;b;c;d", "step", "loss"], ","),  # ';' only inside quotes
    ],
)
def test_header_names_and_delimiter(text, names, delim):
    assert header(text, ",\t;") == (names, delim)


def test_a_line_with_no_candidate_is_no_header():
    assert header("just words here\n1 2\n", ",;") is None
    assert header("", ",") is None


def test_header_lines_counts_line_breaks_in_names():
    assert header_lines(["step", "a\nb", "c\nd\ne"]) == 4


def test_a_row_that_fits_two_delimiters_is_not_enough():
    """One row could be as wide with "," as with ";" when a quoted name holds a line break;
    three rows decide."""
    text = 'step;loss;",,\n,;";,\n0;2.0;10;11\n1;1.99;11;12\n2;1.98;12;13\n'
    names, delim = header(text, ",;")
    assert delim == ";" and names == ["step", "loss", ",,\n,;", ","]


def test_the_dataset_reader_chooses_by_width_too(tmp_path):
    p = tmp_path / "d.csv"
    head = b"text;label\nhello, world, again;1\nbye, now;0\n"
    assert _dialect(p, head) == ";"
    assert _dialect(tmp_path / "d.tsv", b"a,b\n") == "\t"
    assert _dialect(p, b"nothing\n") == ","
