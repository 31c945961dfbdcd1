"""A workbook's parts unpacked once per read.

`check_archive` (safety.py) unpacks every part to check its checksum; the parts the reader reads after it (the
worksheets, the shared strings) are kept, so that the cell reader and the look at the output sheets' column A
(output_rows.py) do not unpack them again: a 5,000-point workbook's Results, CashFlow and Curves were unpacked
twice each, a tenth of its read time.
"""
from __future__ import annotations

import zipfile


def kept_part(name: str) -> bool:
    """Whether the reader reads the part after the check: a worksheet or the shared string table."""
    return name.startswith("xl/worksheets/") and name.endswith(".xml") or name == "xl/sharedStrings.xml"


class PartsArchive(zipfile.ZipFile):
    """A ZipFile whose `read` of a part unpacked already (`parts`: name -> bytes) gives those bytes."""

    def __init__(self, file, parts: dict[str, bytes] | None):
        super().__init__(file)
        self.parts = parts or {}

    def read(self, name, pwd=None) -> bytes:
        data = self.parts.get(name) if isinstance(name, str) and pwd is None else None
        return super().read(name, pwd) if data is None else data
