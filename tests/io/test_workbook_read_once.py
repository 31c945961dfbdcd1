"""The reader reads a workbook's file once: its checks, its cells and the analyst's kept sheets come from the
same bytes, even where another program replaces the file while it is read (safety.file_bytes)."""
import builtins
import os
import zipfile
from pathlib import Path

import pytest

from tcoapp.engine.core.errors import ValidationError
from tcoapp.io import kept_work
from tcoapp.io.sheets import MAX_UNCOMPRESSED_BYTES
from tcoapp.io.workbook_read import read_scenario
from tcoapp.io.workbook_write import write_scenario

from .workbook_scenarios import seeded_scenarios


@pytest.fixture()
def workbook(tmp_path):
    path = tmp_path / "plan.xlsx"
    write_scenario(seeded_scenarios(1, seed=11)[0], path)
    return path


def _is(path, argument) -> bool:
    return isinstance(argument, (str, os.PathLike)) and Path(argument) == path


def test_the_file_is_opened_once_and_never_as_a_zip_by_name(workbook, monkeypatch):
    opened, zipped = [], []
    real_open, real_zip = builtins.open, zipfile.ZipFile.__init__

    def counting_open(file, *args, **kwargs):
        if _is(workbook, file):
            opened.append(args)
        return real_open(file, *args, **kwargs)

    def counting_zip(self, file, *args, **kwargs):
        if _is(workbook, file):
            zipped.append(file)
        return real_zip(self, file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", counting_open)
    monkeypatch.setattr(zipfile.ZipFile, "__init__", counting_zip)
    read_scenario(workbook)
    assert len(opened) == 1 and zipped == []


def test_a_file_replaced_while_it_is_read_keeps_the_first_files_sheets(workbook, tmp_path, monkeypatch):
    """Another program saves over the file after the cells were read: the kept bytes are still those read."""
    first = workbook.read_bytes()
    real_find = kept_work.find_kept

    def replace_then_find(*args, **kwargs):
        workbook.write_bytes(b"not a workbook any more")
        return real_find(*args, **kwargs)

    monkeypatch.setattr("tcoapp.io.workbook_read.find_kept", replace_then_find)
    scenario = read_scenario(workbook)
    assert scenario.kept is not None and scenario.kept.source == first


def test_a_folder_is_named_as_one(tmp_path):
    folder = tmp_path / "plan.xlsx"
    folder.mkdir()
    with pytest.raises(ValidationError, match="plan.xlsx.*it is a folder"):
        read_scenario(folder)


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(ValidationError, match="gone.xlsx.*file not found"):
        read_scenario(tmp_path / "gone.xlsx")


def test_a_file_larger_than_its_parts_may_unpack_to_is_refused_unread(tmp_path):
    big = tmp_path / "big.xlsx"
    with open(big, "wb") as handle:      # sparse: no disk is used
        handle.truncate(MAX_UNCOMPRESSED_BYTES + 1)
    with pytest.raises(ValidationError, match=r"big.xlsx.*refused: the file is 128 MB, over the 128 MB"):
        read_scenario(big)
