"""The corpus of broken workbooks: each gives its clear error naming sheet and cell (or what was
refused), quickly, never a traceback; also through the real CLI in a subprocess."""
import subprocess
import sys
import time

import pytest

from tcoapp.engine.core.errors import LINE_CHARS, ValidationError
from tcoapp.io.workbook_read import read_scenario

from .broken.corpus import CASES, forged_dimension, hand_made


PARSER_INTERNALS = ("invalid literal", "has no attribute", "ParseError", "<v>", "Error -3")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    folder = tmp_path_factory.mktemp("broken")
    return {case.name: (case, case.build(folder / f"{case.name}.xlsx")) for case in CASES}


@pytest.mark.parametrize("name", [c.name for c in CASES])
def test_broken_workbook_gives_clear_error(corpus, name):
    case, path = corpus[name]
    start = time.perf_counter()
    with pytest.raises(ValidationError) as info:
        read_scenario(path)
    assert time.perf_counter() - start < 5, "refusing a broken file must be quick"
    text = str(info.value)
    for expected in case.expect:
        assert expected in text, f"{expected!r} not in {text!r}"
    assert "Traceback" not in text
    assert all(len(line) <= LINE_CHARS for line in text.splitlines()), "a huge value is echoed in full"
    for internal in PARSER_INTERNALS:
        assert internal not in text, f"parser internals in {text!r}"


def test_cli_reports_every_broken_workbook_without_traceback(corpus):
    """`tcoapp compute FILE --json` exits 2 with `error: ...` lines (one subprocess per file)."""
    for name, (case, path) in corpus.items():
        done = subprocess.run([sys.executable, "-m", "tcoapp", "compute", str(path), "--json"],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 2, (name, done.returncode, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert lines and all(line.startswith("error: ") for line in lines), (name, done.stderr)
        assert "Traceback" not in done.stderr and done.stdout == ""
        for expected in case.expect:
            assert expected in done.stderr, (name, expected, done.stderr)


def test_every_problem_reported_at_once(tmp_path):
    from .broken.corpus import plans_rows
    path = hand_made(tmp_path / "many.xlsx", plans_rows(utilization=2, batch="big", pue=0.5))
    with pytest.raises(ValidationError) as info:
        read_scenario(path)
    wheres = {p.where for p in info.value.problems}
    assert {"Plans!C7", "Plans!C5", "Plans!C9"} <= wheres


def test_forged_dimension_is_ignored_and_reads_fast(tmp_path):
    """A sheet claiming A1:XFD1048576 must not make the reader pad a billion cells."""
    path = forged_dimension(tmp_path / "forged.xlsx")
    start = time.perf_counter()
    scenario = read_scenario(path)
    assert time.perf_counter() - start < 2
    assert scenario.plans[0].name == "Plan A"


def test_formula_with_cached_value_is_read_as_its_value(tmp_path):
    """A spreadsheet application saved the formula with its value: the value is used."""
    import zipfile
    src = hand_made(tmp_path / "src.xlsx")
    dst = tmp_path / "cached.xlsx"
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for item in zin.infolist():
            data = zin.read(item.filename)
            if item.filename == "xl/worksheets/sheet1.xml":
                data = data.replace(b'<c r="C6" t="n"><v>16</v></c>', b'<c r="C6"><f>8*4</f><v>32</v></c>')
                assert b"8*4" in data
            zout.writestr(item, data)
    assert read_scenario(dst).plans[0].device_count == 32


def test_problems_on_several_sheets_are_all_reported_in_one_run(tmp_path):
    """A bad key on Plans, a bad value on Devices and an unknown device name: all three at once."""
    from .broken.corpus import DEVICE_ROW, plans_rows
    rows = plans_rows(gpu_count=8)
    rows["device"] = "NoSuchGPU"
    bad_device = DEVICE_ROW[:7] + [-5] + DEVICE_ROW[8:]
    path = hand_made(tmp_path / "several.xlsx", rows, names=("A", "B"), devices=[bad_device])
    with pytest.raises(ValidationError) as info:
        read_scenario(path)
    wheres = {p.where for p in info.value.problems}
    assert {"Plans!A9", "Devices!H3", "Plans!C2", "Plans!D2"} <= wheres, wheres


def test_a_reference_to_an_invalid_entry_is_not_reported_as_missing(tmp_path):
    """The plan names XPU-9, whose Devices row is invalid: one problem (the row), not a dangling name."""
    from .broken.corpus import DEVICE_ROW
    path = hand_made(tmp_path / "one.xlsx", devices=[DEVICE_ROW[:7] + [-5] + DEVICE_ROW[8:]])
    with pytest.raises(ValidationError) as info:
        read_scenario(path)
    assert [p.where for p in info.value.problems] == ["Devices!H3"]


def test_a_failing_diagnosis_leaves_the_readers_own_message(tmp_path, monkeypatch):
    """The diagnosis runs only after openpyxl failed; if it fails too, the error is still clean."""
    import tcoapp.io.parse_diagnosis as diagnosis
    from .broken.corpus import CASES

    def broken(_archive):
        raise RuntimeError("diagnosis bug")
    monkeypatch.setattr(diagnosis, "_sheet_parts", broken)
    case = next(c for c in CASES if c.name == "control_character_in_xml")
    with pytest.raises(ValidationError, match="cannot read the workbook"):
        read_scenario(case.build(tmp_path / "control.xlsx"))
