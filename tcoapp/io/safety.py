"""Refuse hostile or broken .xlsx files before parsing them: not a zip, truncated, or a zip bomb.

openpyxl parses the XML with defusedxml when it is installed (a dependency of tcoapp), which
refuses entity-expansion (billion laughs) and external-entity attacks; `check_defused()` asserts it.
"""
from __future__ import annotations

import io
import os
import zipfile
import zlib

from ..engine.core.errors import Problem, ValidationError
from .archive_parts import kept_part
from .sheets import MAX_COMPRESSION_RATIO, MAX_MEMBER_BYTES, MAX_UNCOMPRESSED_BYTES, XML_PROLOG_SCAN_BYTES


def fail(path, message: str) -> ValidationError:
    return ValidationError([Problem(os.path.basename(str(path)), "", message)])


def check_defused() -> None:
    import openpyxl.xml

    if not openpyxl.xml.DEFUSEDXML:
        raise RuntimeError("defusedxml is not installed: refusing to parse workbooks with an unsafe XML parser")


def file_bytes(path) -> bytes:
    """The file's bytes, read once: every check and read after it sees the same workbook, even where another
    program replaces the file meanwhile (a save from Excel, a sync client). A file larger than its parts may
    unpack to is refused unread."""
    try:
        size = os.path.getsize(path)
        if os.path.isdir(path):
            raise fail(path, "not an .xlsx workbook: it is a folder")
        if size > MAX_UNCOMPRESSED_BYTES:
            raise fail(path, f"refused: the file is {_mb(size)}, over the {_mb(MAX_UNCOMPRESSED_BYTES)} a workbook's "
                             "parts may unpack to")
        with open(path, "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        raise fail(path, "file not found") from None
    except OSError as exc:
        raise fail(path, f"cannot be read ({exc.strerror or exc})") from None


def check_archive(path, data: bytes) -> dict[str, bytes]:
    """Raise ValidationError unless `data` (the bytes of the file at `path`, read once by `file_bytes`; `path`
    names it in messages) is a sane, complete .xlsx (zip) archive; return the bytes of the parts the reader
    reads next (archive_parts.kept_part), each unpacked here to check it."""
    source = io.BytesIO(data)
    if not zipfile.is_zipfile(source):
        raise fail(path, "not an .xlsx workbook (not a zip archive, or truncated)")
    try:
        with zipfile.ZipFile(source) as archive:
            infos = archive.infolist()
            total = sum(info.file_size for info in infos)
            packed = sum(info.compress_size for info in infos) or 1
            if total > MAX_UNCOMPRESSED_BYTES:
                raise fail(path, f"refused: unpacks to {_mb(total)}, over the {_mb(MAX_UNCOMPRESSED_BYTES)} limit")
            if total / packed > MAX_COMPRESSION_RATIO and total > 10 * 1024 * 1024:
                raise fail(path, f"refused: compression ratio {total / packed:.0f}:1 looks like a zip bomb")
            for info in infos:
                if info.file_size > MAX_MEMBER_BYTES:
                    raise fail(path, f"refused: part {info.filename!r} unpacks to {_mb(info.file_size)}, "
                                     f"over the {_mb(MAX_MEMBER_BYTES)} limit")
            _check_xml_prologs(path, archive, infos)
            return _checked_parts(path, archive)
    except zipfile.BadZipFile as exc:
        raise fail(path, f"damaged or truncated workbook ({exc})") from None
    except zlib.error:  # a flipped byte inside a compressed part
        raise fail(path, "damaged workbook: a compressed part does not decompress (the file is corrupt)") from None
    except ZIP_ERRORS as exc:
        if isinstance(exc, ValidationError):
            raise
        raise fail(path, f"damaged workbook: its zip structure is corrupt ({exc}); restore it from a copy or "
                         "re-save it from the spreadsheet program") from None


def _checked_parts(path, archive: zipfile.ZipFile) -> dict[str, bytes]:
    """Every member unpacked and its checksum checked, in archive order (as ZipFile.testzip does); the bytes of
    those the reader reads next are kept."""
    parts = {}
    for info in archive.infolist():
        try:
            data = archive.read(info.filename)
        except zipfile.BadZipFile:
            raise fail(path, f"damaged archive: member {info.filename!r} fails its checksum") from None
        if kept_part(info.filename):
            parts[info.filename] = data
    return parts


# what the zipfile module raises on a damaged archive (a flipped byte: "zip file version 14.8" is a
# NotImplementedError, an unknown compression method too; a bad length an EOFError or ValueError)
ZIP_ERRORS = (zipfile.BadZipFile, zlib.error, OSError, EOFError, RuntimeError, NotImplementedError, ValueError, KeyError)


def zip_mimetype(path) -> str:
    """The `mimetype` member of a zip (an OpenDocument file has one; an .xlsx does not): "" when there
    is none or the archive is damaged (`check_archive` then says how)."""
    try:
        with zipfile.ZipFile(path) as archive:
            return archive.read("mimetype").decode("ascii", "replace") if "mimetype" in archive.namelist() else ""
    except ZIP_ERRORS:
        return ""


def _mb(size: int) -> str:
    """Sizes in MB of 1,048,576 bytes, as the limits are documented (64 MB, 128 MB)."""
    return f"{size / (1024 * 1024):.0f} MB"


def _check_xml_prologs(path, archive: zipfile.ZipFile, infos) -> None:
    """A genuine .xlsx never declares a DTD or entities: refuse before any parser sees one (billion laughs)."""
    for info in infos:
        if not info.filename.endswith((".xml", ".rels", ".vml")):
            continue
        with archive.open(info) as member:
            head = member.read(XML_PROLOG_SCAN_BYTES).upper()
        if b"<!DOCTYPE" in head or b"<!ENTITY" in head:
            raise fail(path, f"refused: part {info.filename!r} declares an XML DTD or entities, as an XML bomb "
                             "(billion laughs) does; a genuine .xlsx never does")
