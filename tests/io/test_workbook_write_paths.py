"""The export's shortcuts (issue 47) write what the longer ways write, part for part, on every sample: the kept
analyst work not loaded where there is none to copy (kept_work._nothing_to_copy), styles set by their ids looked up
once (xlsx_styles.styled), texts set without openpyxl's value setter (xlsx_styles.set_text), a CashFlow block's year
0 from its year template (xlsx_cashflow._BlockFormulas.year_zero), a sheet's style ids looked up once per style
(xlsx_fast_rows.FastRowsWriter._ids), the comments written from the cells' own (xlsx_fast_comments, not through
openpyxl's CommentRecords and writer) and openpyxl's parts kept in memory, not zipped and unzipped before the rows
are spliced (workbook_write.saved_parts): the same parts, in the same order, zipped alike."""
from __future__ import annotations

import datetime
import glob
import io
import os
import sys
import zipfile

import pytest

from tcoapp.io import kept_work, workbook_write, xlsx_fast_rows, xlsx_styles
from tcoapp.io.workbook_read import read_scenario
from tcoapp.io.workbook_write import build_workbook, usable_results, write_scenario
from tcoapp.io.xlsx_cashflow import _BlockFormulas
from tcoapp.io.xlsx_na import YEAR_BEFORE

SAMPLES = sorted(glob.glob(os.path.join(os.path.dirname(__file__), "..", "..", "samples", "*.xlsx")))
WRITTEN = datetime.datetime(2026, 1, 2, 3, 4, 5)   # the About sheet's date and the save's time: the same in both


class _Now(datetime.datetime):
    @classmethod
    def now(cls, tz=None):
        return WRITTEN


def _descriptor_styled(cell, **values) -> None:
    """The longer way: openpyxl's style descriptors (cell.font = ..., in the order styled sets them)."""
    for attribute in ("font", "fill", "alignment"):
        if values.get(attribute) is not None:
            setattr(cell, attribute, values[attribute])


def _setter_text(cell, text: str) -> None:
    """The longer way: set_text through openpyxl's value setter."""
    problem = xlsx_styles.unwritable_text(text)
    if problem:
        raise xlsx_styles.CellKindError(f"{cell.parent.title}!{cell.coordinate}: {problem}")
    cell.value = text
    cell.data_type = "s"


class _Forgetful(dict):
    """A style-id cache that never finds: every cell's id from openpyxl's cell.style_id."""

    def get(self, key, default=None):
        return default

    def __setitem__(self, key, value):
        pass


def _everywhere(monkeypatch, original, replacement) -> None:
    """`original` replaced in every tcoapp.io module that holds it (imported by name)."""
    for name, module in list(sys.modules.items()):
        if name.startswith("tcoapp.io") and module is not None:
            for attribute, value in list(vars(module).items()):
                if value is original:
                    monkeypatch.setattr(module, attribute, replacement)


def _longer_ways(monkeypatch) -> None:
    monkeypatch.setattr(kept_work, "_nothing_to_copy", lambda data, workbook: False)
    _everywhere(monkeypatch, xlsx_styles.styled, _descriptor_styled)
    _everywhere(monkeypatch, xlsx_styles.set_text, _setter_text)
    monkeypatch.setattr(_BlockFormulas, "year_zero", lambda self: self.year_cells(0))
    monkeypatch.setattr(xlsx_fast_rows.FastRowsWriter, "_ids", lambda self: _Forgetful())
    monkeypatch.setattr(workbook_write, "fast_comments", lambda book, ws: False)
    monkeypatch.setattr(workbook_write, "saved_parts", _stored_zip)


def _stored_zip(workbook) -> bytes:
    """The longer way: openpyxl's save into a stored (uncompressed) zip, unzipped again by splice_rows."""
    data = io.BytesIO()
    archive = zipfile.ZipFile(data, "w", zipfile.ZIP_STORED, allowZip64=True)
    workbook.properties.modified = datetime.datetime.now(tz=datetime.timezone.utc).replace(tzinfo=None)
    workbook_write._InMemoryWriter(workbook, archive).save()
    return data.getvalue()


_ZIP_FIELDS = ("compress_type", "external_attr", "create_system", "create_version", "extract_version", "flag_bits",
               "internal_attr", "extra", "comment")


def _entries(path) -> list[tuple]:
    with zipfile.ZipFile(path) as archive:
        return [(info.filename, *(getattr(info, field) for field in _ZIP_FIELDS)) for info in archive.infolist()]


def _parts(path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


@pytest.mark.parametrize("sample", SAMPLES, ids=[os.path.basename(s)[:-5] for s in SAMPLES])
def test_every_part_is_the_longer_ways(sample, tmp_path, monkeypatch):
    scenario = read_scenario(sample)
    monkeypatch.setattr(workbook_write.datetime, "datetime", _Now)   # docProps/core.xml's save time
    write_scenario(scenario, tmp_path / "short.xlsx", written=WRITTEN)
    with monkeypatch.context() as longer:
        _longer_ways(longer)
        write_scenario(scenario, tmp_path / "long.xlsx", written=WRITTEN)
    short, long = _parts(tmp_path / "short.xlsx"), _parts(tmp_path / "long.xlsx")
    assert list(short) == list(long)
    for name in short:
        assert short[name] == long[name], name
    assert _entries(tmp_path / "short.xlsx") == _entries(tmp_path / "long.xlsx")   # zipped alike
    assert any(name.startswith("xl/comments/") for name in short)


def test_the_parts_kept_are_those_zipped(tmp_path):
    """saved_parts holds what openpyxl's writer puts into a zip, part for part in order; splice_rows zips either alike."""
    scenario = read_scenario(SAMPLES[0])
    built = lambda: build_workbook(scenario, usable_results(scenario), WRITTEN)[0]   # noqa: E731
    parts = workbook_write.saved_parts(built())
    with zipfile.ZipFile(io.BytesIO(_stored_zip(built()))) as archive:
        zipped = {name: archive.read(name) for name in archive.namelist()}
    assert list(parts) == list(zipped) and len(parts) > 20
    differ = [name for name in parts if parts[name] != zipped[name]]
    assert differ == ["docProps/core.xml"] or not differ   # the save's time may tick between the two saves


def test_a_sample_takes_the_shortcuts():
    """The comparison above means something: a sample as read has nothing to copy, and its year 0 comes from the
    template (the longer ways, patched in above, are then the only difference)."""
    scenario = read_scenario(SAMPLES[0])
    workbook, *_ = build_workbook(scenario, usable_results(scenario))
    assert scenario.kept is not None and kept_work._nothing_to_copy(scenario.kept.source, workbook)


def test_a_name_of_the_analysts_or_a_hidden_sheet_loads_the_file(tmp_path, monkeypatch):
    """Where the file read holds a name the app does not write, or a hidden sheet, the copy decides (and keeps them)."""
    import openpyxl
    from openpyxl.workbook.defined_name import DefinedName

    loaded = []
    open_only = kept_work._open_only
    monkeypatch.setattr(kept_work, "_open_only", lambda data, wanted: loaded.append(wanted) or open_only(data, wanted))
    path = tmp_path / "book.xlsx"
    scenario = read_scenario(SAMPLES[0])
    build_workbook(scenario, usable_results(scenario))
    assert loaded == []
    write_scenario(scenario, path, written=WRITTEN)
    book = openpyxl.load_workbook(path)
    book.defined_names["my_rate"] = DefinedName("my_rate", attr_text="Plans!$B$2")
    book.save(path)
    scenario = read_scenario(path)
    workbook, *_ = build_workbook(scenario, usable_results(scenario))
    assert loaded == [set()] and "my_rate" in workbook.defined_names   # loaded, and the name copied

    book = openpyxl.load_workbook(path)
    del book.defined_names["my_rate"]
    book["Bridge"].sheet_state = "hidden"
    book.save(path)
    scenario = read_scenario(path)
    workbook, *_ = build_workbook(scenario, usable_results(scenario))
    assert loaded == [set(), set()] and workbook["Bridge"].sheet_state == "hidden"


@pytest.mark.parametrize("sample", SAMPLES, ids=[os.path.basename(s)[:-5] for s in SAMPLES])
def test_year_zero_is_year_cells_0_in_order(sample):
    scenario = read_scenario(sample)
    _, _, layout, _ = build_workbook(scenario, usable_results(scenario))
    for index in range(len(scenario.plans)):
        cells = _BlockFormulas(layout, index, layout.cf_pools(index))
        own = list(cells.year_cells(0).items())
        cells.year_template()
        assert cells._steady is not None and not any(YEAR_BEFORE in text for text in cells._steady.values())
        assert list(cells.year_zero().items()) == own, index
