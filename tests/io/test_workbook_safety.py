"""Safety of saving and parsing: atomic save, hardened XML parser."""
import errno
import os

import openpyxl
import openpyxl.writer.excel
import pytest

from tcoapp.engine.core.errors import TcoError, ValidationError
from tcoapp.io import atomic
from tcoapp.io.atomic import SaveError, atomic_write
from tcoapp.io.safety import check_defused
from tcoapp.io.workbook_read import read_scenario
from tcoapp.io.workbook_write import write_scenario

from .workbook_scenarios import seeded_scenarios


@pytest.fixture()
def scenarios():
    return seeded_scenarios(2, seed=5)


def _leftovers(folder, keep):
    return sorted(p.name for p in folder.iterdir() if p.name != keep)


def test_openpyxl_parses_with_defusedxml():
    import openpyxl.xml
    assert openpyxl.xml.DEFUSEDXML is True
    check_defused()


def test_crash_midway_through_save_keeps_the_old_file(tmp_path, scenarios, monkeypatch):
    path = tmp_path / "model.xlsx"
    write_scenario(scenarios[0], path)
    before = path.read_bytes()

    real_write = atomic.os.fdopen

    def failing_fdopen(fd, mode):
        handle = real_write(fd, mode)

        class Half:
            def write(self, data):
                handle.write(bytes(data)[: len(data) // 2])
                raise OSError(errno.ENOSPC, "No space left on device")

            def __getattr__(self, name):
                return getattr(handle, name)

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                handle.close()
        return Half()

    monkeypatch.setattr(atomic.os, "fdopen", failing_fdopen)
    with pytest.raises(SaveError, match="No space left on device.*unchanged"):
        write_scenario(scenarios[1], path)
    assert path.read_bytes() == before
    assert _leftovers(tmp_path, "model.xlsx") == []
    assert read_scenario(path) == scenarios[0]


def test_failure_at_fsync_keeps_the_old_file(tmp_path, scenarios, monkeypatch):
    path = tmp_path / "model.xlsx"
    write_scenario(scenarios[0], path)
    before = path.read_bytes()

    def no_fsync(fd):
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(atomic.os, "fsync", no_fsync)
    with pytest.raises(SaveError):
        write_scenario(scenarios[1], path)
    assert path.read_bytes() == before
    assert _leftovers(tmp_path, "model.xlsx") == []


def test_exception_while_building_never_touches_the_file(tmp_path, scenarios, monkeypatch):
    path = tmp_path / "model.xlsx"
    write_scenario(scenarios[0], path)
    before = path.read_bytes()

    def boom(*args, **kwargs):
        raise RuntimeError("crash inside openpyxl")

    monkeypatch.setattr(openpyxl.Workbook, "save", boom)
    monkeypatch.setattr(openpyxl.writer.excel.ExcelWriter, "save", boom)  # the writer's own save path
    with pytest.raises(RuntimeError):
        write_scenario(scenarios[1], path)
    assert path.read_bytes() == before
    assert _leftovers(tmp_path, "model.xlsx") == []


def test_save_error_is_a_user_error(tmp_path):
    assert issubclass(SaveError, TcoError)
    with pytest.raises(SaveError, match="does not exist"):
        atomic_write(tmp_path / "no" / "such" / "dir.xlsx", lambda h: h.write(b"x"))


def test_atomic_write_keeps_permissions(tmp_path):
    path = tmp_path / "f.bin"
    path.write_bytes(b"old")
    os.chmod(path, 0o640)
    atomic_write(path, lambda h: h.write(b"new"))
    assert path.read_bytes() == b"new" and (os.stat(path).st_mode & 0o777) == 0o640


def test_control_characters_in_text_are_a_clear_error(tmp_path, scenarios):
    scenario = scenarios[0]
    bad = scenario.with_plans([scenario.plans[0].with_(name="bell\x07")])
    with pytest.raises(ValidationError, match=r"Plans!C1"):
        write_scenario(bad, tmp_path / "x.xlsx")
    assert not (tmp_path / "x.xlsx").exists()


def test_control_characters_in_bulk_curve_rows_are_a_clear_error(tmp_path, scenarios):
    """Curve points after the first are written by the fast bulk writer: same rule, same error."""
    from dataclasses import replace

    scenario = scenarios[0]
    curves = dict(scenario.curves)
    name, curve = next(iter(curves.items()))
    curves[name] = replace(curve, device="dev\x01ice")
    bad = replace(scenario, curves=curves)
    with pytest.raises(ValidationError, match=r"Curves!B"):
        write_scenario(bad, tmp_path / "x.xlsx")
    assert not (tmp_path / "x.xlsx").exists()


def test_bulk_writer_escapes_text_and_refuses_control_characters():
    from tcoapp.io.xlsx_bulk import cell_xml
    from tcoapp.io.xlsx_styles import CellKindError

    assert cell_xml('r="A4"', "=1+1 <b>&", "Curves", "A4") == \
        '<c r="A4" t="inlineStr"><is><t>=1+1 &lt;b&gt;&amp;</t></is></c>'
    assert cell_xml('r="D4"', 0.1 + 0.2, "Curves", "D4") == '<c r="D4" t="n"><v>0.30000000000000004</v></c>'
    assert cell_xml('r="D4"', float("nan"), "Curves", "D4") == '<c r="D4" />'
    with pytest.raises(CellKindError, match="Curves!A4"):
        cell_xml('r="A4"', "a\x01b", "Curves", "A4")


def test_bulk_curve_texts_go_to_a_shared_string_table_and_read_back_exactly(tmp_path, scenarios):
    """The bulk rows' texts are shared strings (as Excel writes them): escaped, spaces kept, '=' not a formula."""
    import zipfile
    from dataclasses import replace

    from tcoapp.io.workbook_read import read_scenario

    scenario = next(s for s in scenarios if s.curves)
    name, curve = next(iter(scenario.curves.items()))
    odd = replace(curve, source=" =1+1 <b>&amp; \u00e9 ")
    edited = replace(scenario, curves={**scenario.curves, name: odd})
    write_scenario(edited, tmp_path / "s.xlsx")
    with zipfile.ZipFile(tmp_path / "s.xlsx") as archive:
        table = archive.read("xl/sharedStrings.xml").decode()
        assert "sharedStrings" in archive.read("[Content_Types].xml").decode()
    assert '<t xml:space="preserve"> =1+1 &lt;b&gt;&amp;amp; \u00e9 </t>' in table
    assert read_scenario(tmp_path / "s.xlsx").curves[name].source == odd.source.strip()  # the reader trims cells


def _bad_checksum(path, member: str) -> None:
    """`path` with the stored checksum of `member` changed (its bytes intact): only unpacking it tells."""
    import zipfile
    data = bytearray(path.read_bytes())
    info = zipfile.ZipFile(path).getinfo(member)
    name = member.encode()
    central = data.index(b"PK\x01\x02")
    while data[central + 46:central + 46 + len(name)] != name:
        central = data.index(b"PK\x01\x02", central + 4)
    crc = (info.CRC ^ 1).to_bytes(4, "little")
    data[central + 16:central + 20] = crc
    data[info.header_offset + 14:info.header_offset + 18] = crc
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("member", ["xl/worksheets/sheet1.xml", "xl/worksheets/sheet2.xml", "xl/styles.xml"])
def test_a_part_failing_its_checksum_is_refused_whether_or_not_the_reader_reads_it(tmp_path, scenarios, member):
    # sheet1 (Results) is an output sheet (only its column A is looked at), sheet2 (Plans) an input sheet kept unpacked
    # for the cell reader (archive_parts.py), styles.xml read but not kept: each is checked before anything is read
    path = tmp_path / "model.xlsx"
    write_scenario(scenarios[0], path)
    _bad_checksum(path, member)
    with pytest.raises(ValidationError, match=f"damaged .*'{member}'"):
        read_scenario(path)
