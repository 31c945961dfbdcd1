"""The shipped samples are current (samples/README.md, "Regenerating"): rebuilt from samples/build_samples.py in a
temporary folder, every cell (formula or value, and each formula's cached engine value) equals the shipped
workbook's, and the README is the one the definitions write. Regenerate with `python samples/build_samples.py`."""
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from samples import build_samples  # noqa: E402


def test_one_sample_is_current():
    assert build_samples.check(("years_price_decline.xlsx",)) == []


@pytest.mark.slow
def test_every_sample_and_the_readme_are_current():
    assert build_samples.check() == []


def test_a_stale_sample_is_found(tmp_path):
    """The check sees an edited cell (a test that cannot fail would prove nothing)."""
    import openpyxl
    import shutil

    name = "years_price_decline.xlsx"
    shutil.copy(ROOT / "samples" / name, tmp_path / name)
    book = openpyxl.load_workbook(tmp_path / name)
    book["Plans"]["C2"].value = "edited"
    book.save(tmp_path / name)
    found = build_samples.check((name,), shipped_dir=tmp_path, limit=10**9)
    assert any("Plans!C2" in line for line in found)


def test_a_number_moved_in_its_last_bits_is_the_same_and_one_moved_further_is_found(tmp_path):
    """Numbers compare within build_samples.SAME_NUMBER_REL (numpy's kernels differ in the last bits between
    machines: a cached 0.7^4 was 0.24009999999999992 on one, 0.24009999999999995 on another); a number
    moved by 1e-9 of itself is stale."""
    import openpyxl
    import shutil

    name = "years_price_decline.xlsx"
    for scale, found in ((1 + 4e-16, False), (1 + 1e-9, True)):
        shutil.copy(ROOT / "samples" / name, tmp_path / name)
        book = openpyxl.load_workbook(tmp_path / name)
        cell = next(c for row in book["Plans"].iter_rows() for c in row
                    if isinstance(c.value, float) and not isinstance(c.value, bool) and c.value > 1)
        cell.value *= scale
        book.save(tmp_path / name)
        stale = build_samples.differences(ROOT / "samples" / name, tmp_path / name, limit=10**9)
        assert any(f"Plans!{cell.coordinate}" in line for line in stale) is found, (scale, stale[:3])
    assert build_samples._same(0.24009999999999992, 0.24009999999999995) and not build_samples._same(1, "1")
