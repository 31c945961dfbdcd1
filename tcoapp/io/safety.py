"""Refuse hostile or broken .xlsx files before parsing them: not a zip, truncated, or a zip bomb.

openpyxl parses the XML with defusedxml when it is installed (a dependency of tcoapp), which
refuses entity-expansion (billion laughs) and external-entity attacks; `check_defused()` asserts it.
"""
from __future__ import annotations

import os
import zipfile

from ..engine.errors import Problem, ValidationError
from .sheets import MAX_COMPRESSION_RATIO, MAX_UNCOMPRESSED_BYTES


def fail(path, message: str) -> ValidationError:
    return ValidationError([Problem(os.path.basename(str(path)), "", message)])


def check_defused() -> None:
    import openpyxl.xml

    if not openpyxl.xml.DEFUSEDXML:
        raise RuntimeError("defusedxml is not installed: refusing to parse workbooks with an unsafe XML parser")


def check_archive(path) -> None:
    """Raise ValidationError unless `path` is a sane, complete .xlsx (zip) archive."""
    if not os.path.exists(path):
        raise fail(path, "file not found")
    if not zipfile.is_zipfile(path):
        raise fail(path, "not an .xlsx workbook (not a zip archive, or truncated)")
    try:
        with zipfile.ZipFile(path) as archive:
            infos = archive.infolist()
            total = sum(info.file_size for info in infos)
            packed = sum(info.compress_size for info in infos) or 1
            if total > MAX_UNCOMPRESSED_BYTES:
                raise fail(path, f"refused: unpacks to {total / 1e6:.0f} MB, over the {MAX_UNCOMPRESSED_BYTES / 1e6:.0f} MB limit")
            if total / packed > MAX_COMPRESSION_RATIO and total > 10 * 1024 * 1024:
                raise fail(path, f"refused: compression ratio {total / packed:.0f}:1 looks like a zip bomb")
            bad = archive.testzip()
            if bad is not None:
                raise fail(path, f"damaged archive: member {bad!r} fails its checksum")
    except zipfile.BadZipFile as exc:
        raise fail(path, f"damaged or truncated workbook ({exc})") from None
