"""An Excel export of a history (``df.to_excel('history.xlsx')``) read from its first sheet's XML
with the standard library; a zip bomb, a workbook without sheets and entity declarations are
refused in one line."""

from __future__ import annotations

import zipfile

import pytest

from trainlint.api import doctor
from trainlint.readers import ReadError, read_run, sniff

MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
PKG = "http://schemas.openxmlformats.org/package/2006/relationships"


def _col(k: int) -> str:
    return "ABCDEFGH"[k]


def _workbook(path, header, rows, *, sheets=True, sheet_xml=None):
    """The members openpyxl writes for pandas' to_excel: workbook.xml naming Sheet1, its
    relationship to /xl/worksheets/sheet1.xml, shared strings for the header (the index's header
    cell left out), numbers as t="n" cells."""
    strings = [h for h in header if h]
    cells = "".join(f'<c r="{_col(k)}1" t="s" s="1"><v>{strings.index(h)}</v></c>' for k, h in enumerate(header) if h)
    body = [f'<row r="1">{cells}</row>']
    for i, row in enumerate(rows, 2):
        body.append(
            f'<row r="{i}">'
            + "".join(f'<c r="{_col(k)}{i}" t="n"><v>{v}</v></c>' for k, v in enumerate(row))
            + "</row>"
        )
    sheet = sheet_xml or f'<worksheet xmlns="{MAIN}"><sheetData>{"".join(body)}</sheetData></worksheet>'
    sst = "".join(f"<si><t>{s}</t></si>" for s in strings)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("[Content_Types].xml", "<Types/>")
        if sheets:
            zf.writestr(
                "xl/workbook.xml",
                f'<workbook xmlns="{MAIN}" xmlns:r="{REL}"><sheets>'
                '<sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>',
            )
            zf.writestr(
                "xl/_rels/workbook.xml.rels",
                f'<Relationships xmlns="{PKG}"><Relationship Id="rId1" Target="/xl/worksheets/sheet1.xml"'
                ' Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet"/>'
                "</Relationships>",
            )
            zf.writestr("xl/worksheets/sheet1.xml", sheet)
        else:
            zf.writestr("xl/workbook.xml", f'<workbook xmlns="{MAIN}"><sheets/></workbook>')
        zf.writestr("xl/sharedStrings.xml", f'<sst xmlns="{MAIN}" count="{len(strings)}">{sst}</sst>')
    return path


def test_a_pandas_excel_export_reads_every_column(tmp_path):
    rows = [(i, 2.5 - 0.05 * i, 2.6 - 0.04 * i) for i in range(30)]
    path = _workbook(tmp_path / "history.xlsx", ["", "loss", "val_loss"], rows)
    run = read_run(path)
    assert run.format == "xlsx" and sorted(run.series) == ["loss", "val_loss"]
    loss = run.series["loss"]
    assert (len(loss.steps), float(loss.values[0]), float(loss.values[-1])) == (30, 2.5, pytest.approx(1.05))
    rep = doctor([path]).reports[0]
    assert rep.summary["roles"]["loss"] == "loss" and rep.summary["roles"]["eval_loss"] == "val_loss"


def test_an_epoch_column_is_the_step(tmp_path):
    rows = [(i, i + 1, 2.0 / (i + 1)) for i in range(20)]
    run = read_run(_workbook(tmp_path / "log.xlsx", ["", "epoch", "train_loss"], rows))
    s = run.series["train_loss"]
    assert (float(s.steps[0]), float(s.steps[-1]), float(s.values[-1])) == (1.0, 20.0, 0.1)


def test_a_sheet_naming_no_loss_is_unclaimed(tmp_path):
    path = _workbook(tmp_path / "budget.xlsx", ["", "cost", "month"], [(i, 10.0 * i, i) for i in range(5)])
    assert sniff(path) is None


def test_a_zip_bomb_a_workbook_without_sheets_and_entities_are_refused(tmp_path):
    bomb = f'<worksheet xmlns="{MAIN}"><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c></row>'
    bomb += " " * (40 << 20) + "</sheetData></worksheet>"
    for name, kw, why in [
        ("bomb.xlsx", {"sheet_xml": bomb}, "inflates past"),
        ("empty.xlsx", {"sheets": False}, "without sheets"),
        ("ent.xlsx", {"sheet_xml": '<!DOCTYPE x [<!ENTITY a "loss">]><worksheet/>'}, "DOCTYPE"),
    ]:
        path = _workbook(tmp_path / name, ["", "loss"], [(0, 1.0), (1, 0.5)], **kw)
        assert path.stat().st_size < 1 << 20
        assert sniff(path) is None
        with pytest.raises(ReadError, match=why):
            read_run(path, "xlsx")
