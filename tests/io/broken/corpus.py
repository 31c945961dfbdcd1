"""A corpus of broken workbooks, generated (no binary blobs): each case builds one file and names
the text its error must contain (the sheet and cell, or what was refused).

Every case must end in a clear ValidationError (CLI: exit 2 and `error: ...` lines), never a
traceback and never a hang.
"""
from __future__ import annotations

import zipfile
from dataclasses import dataclass
from typing import Callable

import openpyxl

from tcoapp.io.default_scenario import default_scenario
from tcoapp.io.workbook_write import write_scenario

DEVICE_KEYS = ["name", "vendor", "memory_gb", "mem_bw_gb_s", "peak_tflops_bf16", "tdp_w", "idle_w", "price_usd",
               "devices_per_server", "server_price_usd", "server_overhead_w", "source"]
DEVICE_ROW = ["XPU-9", "Acme", 96, 4000, 800, 600, 80, 20000, 4, 30000, 1500, "corpus device"]
CURVE_KEYS = ["curve", "device", "model", "batch", "tokens_per_s_per_device", "tokens_per_s_per_user", "power_w"]
CURVE_ROWS = [["c1", "XPU-9", "Llama-3.3-70B", 1, 90, 90, 300], ["c1", "XPU-9", "Llama-3.3-70B", 8, 600, 75, 420]]


def plans_rows(**changes):
    rows = {"device": "XPU-9", "model": "Llama-3.3-70B", "curve": "c1", "batch": 8, "device_count": 16,
            "utilization": 0.6, "price_usd_per_million_output_tokens": 1.0}
    rows.update(changes)
    return rows


def hand_made(path, plans=None, names=("Plan A",), devices=None, curves=None, extra=None, mutate=None):
    """A small valid hand-made workbook; `mutate(wb)` breaks it."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Plans"
    ws.append(["key", "unit", *names])
    for key, value in (plans or plans_rows()).items():
        ws.append([key, "", *([value] * len(names))])
    dev = wb.create_sheet("Devices")
    dev.append(DEVICE_KEYS)
    dev.append([""] * len(DEVICE_KEYS))
    for row in devices or [DEVICE_ROW]:
        dev.append(row)
    cur = wb.create_sheet("Curves")
    cur.append(CURVE_KEYS)
    cur.append([""] * len(CURVE_KEYS))
    for row in curves or CURVE_ROWS:
        cur.append(row)
    if extra:
        wb.create_sheet(extra)
    if mutate:
        mutate(wb)
    wb.save(path)
    return path


def _set(sheet, coordinate, value):
    def mutate(wb):
        wb[sheet][coordinate] = value
    return mutate


def _patch_member(src, dst, member, transform):
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for item in zin.infolist():
            data = zin.read(item.filename)
            zout.writestr(item, transform(data) if item.filename == member else data)
    return dst


def billion_laughs(path):
    src = hand_made(path.with_suffix(".src.xlsx"))
    lol = (b'<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol">'
           + b"".join(b'<!ENTITY lol%d "%s">' % (i, (b"&lol%d;" % (i - 1) if i > 1 else b"&lol;") * 10)
                      for i in range(1, 10))
           + b"]>\n")

    def transform(data):
        return lol + _body(data).replace(b"<sheetData>", b"<sheetData>&lol9;", 1)
    return _patch_member(src, path, "xl/worksheets/sheet1.xml", transform)


def laughs_after_comment(path):
    """A DTD after a long comment slips past the prolog scan: defusedxml must still refuse it."""
    src = hand_made(path.with_suffix(".src.xlsx"))
    pad = b"<!--" + b"x" * 70_000 + b"-->"
    return _patch_member(src, path, "xl/workbook.xml",
                         lambda d: pad + b'<!DOCTYPE w [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;">]>'
                         + _body(d).replace(b"<sheets>", b"<sheets>&b;", 1))


def _body(data: bytes) -> bytes:
    return data.split(b"?>", 1)[1] if data.startswith(b"<?xml") else data


def entity_after_padding(path):
    """The DTD is legal only at the top; a plain entity reference deep in the file still fails to parse."""
    src = hand_made(path.with_suffix(".src.xlsx"))
    return _patch_member(src, path, "xl/workbook.xml", lambda d: d.replace(b"<sheets>", b"<sheets>&xxe;", 1))


def zip_bomb(path):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", "<Types/>")
        with z.open("xl/worksheets/sheet1.xml", "w", force_zip64=True) as member:
            chunk = b"<row/>" * (1 << 20)
            for _ in range(50):  # 300 MB of zeros-like XML, compresses ~1000:1
                member.write(chunk)
    return path


def truncated(path):
    data = write_default(path.with_suffix(".full.xlsx")).read_bytes()
    path.write_bytes(data[: len(data) // 2])
    return path


def not_a_zip(path):
    path.write_text("name,value\nthis is a CSV,1\n")
    return path


def write_default(path):
    write_scenario(default_scenario(), path)
    return path


def uncached_formula(path):
    return hand_made(path, mutate=_set("Plans", "C6", "=8*2"))


def forged_dimension(path):
    src = hand_made(path.with_suffix(".src.xlsx"))
    return _patch_member(src, path, "xl/worksheets/sheet1.xml",
                         lambda d: d.replace(b'<dimension ref="A1:C8"', b'<dimension ref="A1:XFD1048576"'))


def huge_sheet(path):
    """Values far from the data (column XFD): read in bounded time (only cells holding a value count) and
    reported, not silently ignored."""
    src = hand_made(path.with_suffix(".src.xlsx"))
    cell = b'<c r="XFD%d" t="n"><v>1</v></c>'
    rows = b"".join(b'<row r="%d">' % r + cell % r + b"</row>" for r in range(20, 400))
    return _patch_member(src, path, "xl/worksheets/sheet2.xml", lambda d: d.replace(b"</sheetData>", rows + b"</sheetData>"))


def newer_schema(path):
    write_default(path.with_suffix(".src.xlsx"))
    wb = openpyxl.load_workbook(path.with_suffix(".src.xlsx"))
    about = wb["About"]
    for row in about.iter_rows(min_col=1, max_col=2):
        if row[0].value == "schema_version":
            row[1].value = 99
    wb.save(path)
    return path


def _orphan_column(wb):
    wb["Plans"]["E5"] = 64  # a value under an empty plan-name cell


def _units_row_entry(wb):
    wb["Devices"]["C2"] = 4000  # an entry typed into the units row


def _calibration_twice(wb):
    ws = wb.create_sheet("Calibration")
    for row in (["key", "unit", "value"], ["eta_mem", "fraction", 0.7], ["eta_mem", "fraction", 0.8]):
        ws.append(row)


def _tiers_twice(wb):
    ws = wb.create_sheet("PriceTiers")
    for row in (["price_tiers", "min_tokens_per_s_per_user", "price_usd_per_million_output_tokens"], ["", "", ""],
                ["t", 10, 1.0], ["t", 10, 2.0]):
        ws.append(row)


def _patch_cell(old: bytes, new: bytes, member="xl/worksheets/sheet1.xml"):
    """A builder: the hand-made workbook with one cell's XML replaced (what no writer would produce)."""
    def build(path):
        src = hand_made(path.with_suffix(".src.xlsx"))
        def transform(data):
            assert old in data, old
            return data.replace(old, new, 1)
        return _patch_member(src, path, member, transform)
    return build


def flipped_compressed_bytes(path):
    """Bytes flipped inside a deflated part: the zip directory is intact, the data does not inflate."""
    src = hand_made(path.with_suffix(".src.xlsx"))
    data = bytearray(src.read_bytes())
    with zipfile.ZipFile(src) as archive:
        info = archive.getinfo("xl/workbook.xml")
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    for i in range(3, 8):
        data[start + i] ^= 0xFF
    path.write_bytes(bytes(data))
    return path


def _swapped_empty_tables(wb):
    """Curves and PriceTiers with each other's header and no entries: both sheet names are wrong."""
    curves = wb["Curves"]
    wb.remove(curves)
    wb.create_sheet("Curves").append(["price_tiers", "min_tokens_per_s_per_user", "price_usd_per_million_output_tokens"])
    wb.create_sheet("PriceTiers").append(CURVE_KEYS)


def _empty_chartsheet(wb):
    wb.create_chartsheet("Chart1")   # no chart in it: openpyxl itself fails to read it back


def _denormal_efficiency(wb):
    """Found by the fuzzer: 5e-324 is > 0, and every metric of every plan came out null."""
    ws = wb.create_sheet("Calibration")
    for row in (["key", "unit", "value"], ["eta_comm", "fraction", 5e-324]):
        ws.append(row)


@dataclass(frozen=True)
class Case:
    name: str
    build: Callable
    expect: tuple[str, ...]   # substrings of the error text


CASES = (
    Case("wrong_type", lambda p: hand_made(p, plans_rows(utilization="high")), ("Plans!C7", "utilization", "'high'")),
    Case("blank_required", lambda p: hand_made(p, plans_rows(device="")), ("Plans!C2", "device", "required")),
    Case("negative_price", lambda p: hand_made(p, plans_rows(price_usd_per_million_output_tokens=-1)),
         ("Plans!C8", "price_usd_per_million_output_tokens", "-1")),
    Case("negative_device_price", lambda p: hand_made(p, devices=[DEVICE_ROW[:7] + [-5] + DEVICE_ROW[8:]]),
         ("Devices!H3", "price_usd")),
    Case("nan_text", lambda p: hand_made(p, plans_rows(utilization="nan")), ("Plans!C7", "not a finite number")),
    Case("inf_text", lambda p: hand_made(p, plans_rows(device_count="inf")), ("Plans!C6", "device_count")),
    Case("unknown_key", lambda p: hand_made(p, plans_rows(gpu_count=8)), ("Plans!A9", "gpu_count", "unknown key")),
    Case("unknown_device_column", lambda p: hand_made(p, mutate=_set("Devices", "M1", "colour")),
         ("Devices", "colour", "unknown key")),
    Case("duplicated_plan_names", lambda p: hand_made(p, names=("Same", "Same")), ("Plans!D1", "used twice")),
    Case("dangling_device", lambda p: hand_made(p, plans_rows(device="NoSuchGPU")), ("Plans!C2", "NoSuchGPU", "no device")),
    Case("dangling_curve", lambda p: hand_made(p, plans_rows(curve="nope")), ("Plans!C4", "nope", "measured curve")),
    Case("duplicate_curve_batch", lambda p: hand_made(p, curves=CURVE_ROWS + [CURVE_ROWS[0]]), ("Curves!D5", "batch")),
    Case("no_plans_sheet", lambda p: hand_made(p, mutate=lambda wb: setattr(wb["Plans"], "title", "Plan")),
         ("'Plans' is missing",)),
    Case("orphan_plan_column", lambda p: hand_made(p, mutate=_orphan_column), ("Plans!E5", "Plans!E1", "no plan name")),
    Case("entry_in_units_row", lambda p: hand_made(p, mutate=_units_row_entry), ("Devices!C2", "units row")),
    Case("calibration_key_twice", lambda p: hand_made(p, mutate=_calibration_twice), ("Calibration!A3", "repeated")),
    Case("price_tier_twice", lambda p: hand_made(p, mutate=_tiers_twice), ("PriceTiers!B4", "already has a tier")),
    Case("uncached_formula", uncached_formula, ("Plans!C6", "formula", "no saved value")),
    Case("billion_laughs", billion_laughs, ("refused", "sheet1.xml", "DTD")),
    Case("laughs_after_comment", laughs_after_comment, ("refused", "entities")),
    Case("undefined_entity", entity_after_padding, ("xl/workbook.xml", "not well-formed XML", "undefined entity")),
    Case("zip_bomb", zip_bomb, ("refused", "over the 128 MB limit")),
    Case("truncated_zip", truncated, ("truncated",)),
    Case("not_a_zip", not_a_zip, ("not an .xlsx",)),
    Case("huge_sheet", huge_sheet, ("Devices!XFD20: holds a value but Devices!XFD1 has no key",)),
    Case("flipped_compressed_bytes", flipped_compressed_bytes, ("damaged", "does not decompress")),
    Case("integer_of_400_digits", _patch_cell(b'<c r="C6" t="n"><v>16</v>', b'<c r="C6" t="n"><v>' + b"9" * 400 + b"</v>"),
         ("Plans!C6 device_count = 9999", "(400 digits)", "between 1 and 100,000,000")),
    Case("long_text_in_number_cell", lambda p: hand_made(p, plans_rows(utilization="x" * 32_767)),
         ("Plans!C7 utilization = 'xxxx", "(32,767 characters) is not a number", "between 0.001 and 1")),
    Case("ttft_of_zero", lambda p: hand_made(p, curves=[r + [0.0] for r in CURVE_ROWS],
                                             mutate=_set("Curves", "H1", "ttft_s")),
         ("Curves!H3 ttft_s = 0", "must be a number > 0")),
    Case("plan_name_over_excel_limit", _patch_cell(b"<t>Plan A</t>", b"<t>" + b"P" * 100_000 + b"</t>"),
         ("Plans!C1: holds 100,000 characters of text", "at most 32,767 (Excel's limit)")),
    Case("swapped_empty_sheet_names", lambda p: hand_made(p, plans_rows(curve=""), mutate=_swapped_empty_tables),
         ("Curves!A1 price_tiers: unknown key", "PriceTiers!A1 curve: unknown key")),
    Case("stored_number_nan", _patch_cell(b'<c r="C6" t="n"><v>16</v>', b'<c r="C6" t="n"><v>nan</v>'),
         ("Plans!C6: the stored number 'nan' is not a number",)),
    Case("control_character_in_xml", _patch_cell(b"<t>Plan A</t>", b"<t>Plan\x01A</t>"),
         ("Plans!C1: holds a control character",)),
    Case("empty_chartsheet", lambda p: hand_made(p, mutate=_empty_chartsheet),
         ("sheet 'Chart1' is a chart sheet", "only worksheets")),
    Case("denormal_efficiency", lambda p: hand_made(p, mutate=_denormal_efficiency),
         ("Calibration!C2 eta_comm = 5e-324", ">= 0.01 and <= 1")),
    Case("newer_schema", newer_schema, ("About!B4", "newer tcoapp", "schema")),
)
