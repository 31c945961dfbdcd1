"""Seeded mutations of real workbooks, at the level of the .xlsx parts (fast: no openpyxl round trip).

A base workbook is unpacked once into {member: bytes}; each mutant changes one or two things and is
packed again. Families: type swaps, extreme numbers, deletions, renamed sheets, huge strings,
formulas and injections in inputs (Plans, Pools, Devices, Models, Curves, PriceTiers, Calibration,
Uncertainty and the Checks output sheet), the year keys of the Plans sheet and the purchase years of
Pools rows, merged cells, byte flips inside the zip, XML attacks, broken cell XML. Every mutant is described in words so a failure names what was done.
"""
from __future__ import annotations

import io
import random
import re
import zipfile
from dataclasses import dataclass
from typing import Callable

from tcoapp.engine.quantities.inputs import PLAN_FIELDS, POOL_FIELDS
from tcoapp.io.xlsx_inputs import plan_rows

CELL = re.compile(rb'<c r="([A-Z]{1,3})([0-9]+)"[^>]*?(?:/>|>.*?</c>)', re.S)
ROW = re.compile(rb'<row r="[0-9]+"[^>]*?(?:/>|>.*?</row>)', re.S)
SHEET = re.compile(rb'<sheet [^>]*?name="([^"]*)"[^>]*?/>')

INPUT_SHEETS = ("Plans", "Pools", "Devices", "Models", "Curves", "PriceTiers", "Calibration", "Uncertainty", "Checks")
# the Plans rows of the "years" keys (and `years` itself); the Pools column of purchase_year
YEAR_KEYS = tuple(f.name for f in PLAN_FIELDS if f.group == "years" or f.name in ("years", "residual_value_fraction"))
YEAR_VALUES = ("0", "1", "2", "49", "50", "51", "-1", "0.5", "2.5", "1e9", "-0.99", "-1", "10", "11", "1e-12")

EXTREME_NUMBERS = ("1e308", "-1e308", "1.7976931348623157e308", "5e-324", "-0", "0", "-1", "1e-300", "1e30",
                   "9" * 400, "-" + "9" * 50, "nan", "inf", "-inf", "1e999", "0x10", "1,5", " 12 ", "")
TEXTS = ("", " ", "high", "TRUE", "1e3", "NaN", "-", "8 GPUs", "H100-SXM", "Llama-3.1-8B", "\u00e9\u00e8\u4e2d",
         "a" * 40_000, "x" * 32_768, "=1+1", "@SUM(A1)", "+cmd|' /C calc'!A0", "-2+3", "=HYPERLINK(\"http://x\")",
         "<script>", "&amp;", "]]>", "\u202e", "null", "None", "0.5%", "50%")
FORMULAS = ("1/0", "A1", "SUM(C2:C9)", "NA()", "Plans!C2*2", "INDIRECT(\"Z99\")", "REPT(\"x\",32767)",
            "WEBSERVICE(\"http://x\")", "1E+308*10")
BOMB = (b'<?xml version="1.0"?>\n<!DOCTYPE r [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">'
        b'<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;">]>\n')
XXE = b'<?xml version="1.0"?>\n<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n'


@dataclass(frozen=True)
class Mutant:
    family: str
    description: str
    data: bytes


def unpack(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {info.filename: archive.read(info.filename) for info in archive.infolist()}


def pack(members: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return out.getvalue()


def sheet_members(members: dict[str, bytes]) -> dict[str, str]:
    """Sheet name -> its part, from workbook.xml and its relationships (attributes in any order)."""
    by_id = {}
    for rel in re.findall(rb"<Relationship [^>]*>", members.get("xl/_rels/workbook.xml.rels", b"")):
        rid, target = re.search(rb'Id="([^"]+)"', rel), re.search(rb'Target="/?(?:xl/)?([^"]+)"', rel)
        if rid and target:
            by_id[rid.group(1)] = "xl/" + target.group(1).decode()
    result = {}
    for match in re.finditer(rb'<sheet [^>]*?name="([^"]*)"[^>]*?r:id="([^"]+)"', members.get("xl/workbook.xml", b"")):
        if match.group(2) in by_id:
            result[match.group(1).decode()] = by_id[match.group(2)]
    return result


def _escape(text: str) -> bytes:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").encode()


def cell_xml(ref: bytes, kind: str, value: str) -> bytes:
    if kind == "n":
        return b'<c r="%s" t="n"><v>%s</v></c>' % (ref, value.encode())
    if kind == "s":
        return b'<c r="%s" t="inlineStr"><is><t xml:space="preserve">%s</t></is></c>' % (ref, _escape(value))
    if kind == "b":
        return b'<c r="%s" t="b"><v>%s</v></c>' % (ref, value.encode())
    if kind == "f":
        return b'<c r="%s"><f>%s</f></c>' % (ref, _escape(value))
    if kind == "fv":   # a formula with a cached value, as a spreadsheet application saves it
        formula, cached = value.split("|", 1)
        return b'<c r="%s"><f>%s</f><v>%s</v></c>' % (ref, _escape(formula), cached.encode())
    return b'<c r="%s"/>' % ref


class Mutator:
    def __init__(self, seed: int):
        self.rng = random.Random(seed)

    def mutants(self, bases: dict[str, bytes], count: int):
        families = [(name, getattr(self, name)) for name in sorted(dir(self)) if name.startswith("m_")]
        unpacked = {label: unpack(data) for label, data in bases.items()}
        for i in range(count):
            label = self.rng.choice(sorted(bases))
            family, mutate = families[i % len(families)]
            members = dict(unpacked[label])
            result = mutate(members, bases[label])
            if result is None:
                continue
            description, data = result
            yield Mutant(family[2:], f"{label}: {description}", data)

    # --- helpers ------------------------------------------------------------------------------
    def _input_sheet(self, members):
        sheets = {n: p for n, p in sheet_members(members).items() if n in INPUT_SHEETS and p in members}
        if not sheets:
            return None, None
        name = self.rng.choice(sorted(sheets))
        return name, sheets[name]

    def _replace_cell(self, members, make: Callable[[bytes], tuple[str, bytes]]):
        name, part = self._input_sheet(members)
        if name is None:
            return None
        cells = list(CELL.finditer(members[part]))
        if not cells:
            return None
        cell = self.rng.choice(cells)
        ref = cell.group(1) + cell.group(2)
        what, xml = make(ref)
        data = members[part]
        members[part] = data[:cell.start()] + xml + data[cell.end():]
        return f"{name}!{ref.decode()} {what}", pack(members)

    # --- families -------------------------------------------------------------------------------
    def m_far_cell(self, members, _):
        """A value in a far cell (XFD1048576, a far row or column) of ANY sheet, About and the output
        sheets included: reading stays bounded by what the sheets hold (time and memory)."""
        sheets = {n: p for n, p in sheet_members(members).items() if p in members}
        if not sheets:
            return None
        name = self.rng.choice(sorted(sheets))
        part = sheets[name]
        row = self.rng.choice([1_048_576, self.rng.randrange(100_000, 1_048_577)])
        col = self.rng.choice([16_384, self.rng.randrange(1_000, 16_385), 1])
        letters = ""
        n = col
        while n:
            n, r = divmod(n - 1, 26)
            letters = chr(65 + r) + letters
        ref = f"{letters}{row}".encode()
        kind, value = self.rng.choice([("n", "1"), ("s", "far"), ("f", "1+1"), ("b", "1")])
        data = members[part].replace(b"<sheetData/>", b"<sheetData></sheetData>")
        last = [int(m) for m in re.findall(rb'<row [^>]*?r="(\d+)"', data)]
        if last and max(last) >= row:
            return None
        members[part] = data.replace(b"</sheetData>", b'<row r="%d">' % row + cell_xml(ref, kind, value) + b"</row></sheetData>", 1)
        return f"{name}!{ref.decode()} = {kind} {value!r} (far cell)", pack(members)

    def m_type_swap(self, members, _):
        kind = self.rng.choice("nsbf")
        value = {"n": self.rng.choice(["1", "0.5", "8", "100000"]), "s": self.rng.choice(TEXTS[:12]),
                 "b": self.rng.choice(["1", "0"]), "f": "1+1"}[kind]
        return self._replace_cell(members, lambda ref: (f"as {kind} {value[:20]!r}", cell_xml(ref, kind, value)))

    def m_extreme_number(self, members, _):
        value = self.rng.choice(EXTREME_NUMBERS)
        return self._replace_cell(members, lambda ref: (f"= number {value[:20]!r}", cell_xml(ref, "n", value)))

    def m_text_value(self, members, _):
        value = self.rng.choice(TEXTS)
        return self._replace_cell(members, lambda ref: (f"= text {value[:20]!r} ({len(value)} chars)",
                                                        cell_xml(ref, "s", value)))

    def m_formula(self, members, _):
        formula = self.rng.choice(FORMULAS)
        if self.rng.random() < 0.5:
            cached = self.rng.choice(["1", "0", "-5", "1e308", "#DIV/0!"])
            kind, value = ("fv", f"{formula}|{cached}") if not cached.startswith("#") else ("f", formula)
        else:
            kind, value = "f", formula
        return self._replace_cell(members, lambda ref: (f"= formula {value[:30]!r}", cell_xml(ref, kind, value)))

    def m_blank_cell(self, members, _):
        return self._replace_cell(members, lambda ref: ("emptied", cell_xml(ref, "", "")))

    def m_delete_row(self, members, _):
        name, part = self._input_sheet(members)
        if name is None:
            return None
        rows = list(ROW.finditer(members[part]))
        if not rows:
            return None
        row = self.rng.choice(rows)
        members[part] = members[part][:row.start()] + members[part][row.end():]
        return f"{name}: deleted {row.group(0)[:20]!r}", pack(members)

    def m_delete_sheet(self, members, _):
        sheets = SHEET.findall(members["xl/workbook.xml"])
        if not sheets:
            return None
        victim = self.rng.choice(sheets)
        members["xl/workbook.xml"] = re.sub(rb'<sheet [^>]*?name="' + re.escape(victim) + rb'"[^>]*?/>', b"",
                                            members["xl/workbook.xml"], count=1)
        return f"sheet {victim.decode()!r} deleted from the workbook", pack(members)

    def m_rename_sheet(self, members, _):
        sheets = SHEET.findall(members["xl/workbook.xml"])
        if len(sheets) < 2:
            return None
        a, b = self.rng.sample(sheets, 2)
        if self.rng.random() < 0.5:   # swap two names
            wb = members["xl/workbook.xml"].replace(b'name="%s"' % a, b'name="\0"').replace(b'name="%s"' % b, b'name="%s"' % a)
            members["xl/workbook.xml"] = wb.replace(b'name="\0"', b'name="%s"' % b)
            return f"sheets {a.decode()!r} and {b.decode()!r} swapped names", pack(members)
        new = self.rng.choice([b"plans", b"Sheet1", b"Plans ", b"Curve", b"Results"])
        members["xl/workbook.xml"] = members["xl/workbook.xml"].replace(b'name="%s"' % a, b'name="%s"' % new, 1)
        return f"sheet {a.decode()!r} renamed {new.decode()!r}", pack(members)

    def m_renamed_input_sheet(self, members, _):
        """An input sheet under another name (read by its row 1 as its table, or refused in one line)."""
        sheets = [s for s in SHEET.findall(members["xl/workbook.xml"]) if s.decode() in INPUT_SHEETS[:-1]]
        if not sheets:
            return None
        old = self.rng.choice(sheets)
        new = self.rng.choice([old + b" (2)", b"Fleet", b"Sheet1", old.lower() + b" copy"])
        members["xl/workbook.xml"] = members["xl/workbook.xml"].replace(b'name="%s"' % old, b'name="%s"' % new, 1)
        return f"sheet {old.decode()!r} renamed {new.decode()!r}", pack(members)

    def m_blank_key_cell(self, members, _):
        """A row's key (column A: a Plans key, a table row's name or plan) emptied, its values left."""
        name, part = self._input_sheet(members)
        if name is None:
            return None
        cells = [c for c in CELL.finditer(members[part]) if c.group(1) == b"A" and int(c.group(2)) >= 2]
        if not cells:
            return None
        cell = self.rng.choice(cells)
        ref = cell.group(1) + cell.group(2)
        members[part] = members[part][:cell.start()] + cell_xml(ref, "", "") + members[part][cell.end():]
        return f"{name}!{ref.decode()} key emptied", pack(members)

    def m_merged_cells(self, members, _):
        name, part = self._input_sheet(members)
        if name is None:
            return None
        ref = self.rng.choice([b"A1:B2", b"C1:D1", b"C2:C9", b"A3:Z3", b"B2:D40"])
        data = members[part]
        if b"</sheetData>" not in data:
            return None
        members[part] = data.replace(b"</sheetData>", b'</sheetData><mergeCells count="1"><mergeCell ref="%s"/></mergeCells>' % ref, 1)
        return f"{name}: merged {ref.decode()}", pack(members)

    def m_byte_flip(self, members, original):
        data = bytearray(original)
        flips = self.rng.randint(1, 8)
        for _ in range(flips):
            data[self.rng.randrange(len(data))] ^= 1 << self.rng.randrange(8)
        return f"{flips} bit(s) flipped in the zip", bytes(data)

    def m_truncate(self, members, original):
        cut = self.rng.randrange(1, len(original))
        return f"truncated at byte {cut} of {len(original)}", original[:cut]

    def m_xml_attack(self, members, _):
        name, part = self._input_sheet(members)
        if name is None:
            return None
        kind = self.rng.choice(["bomb", "xxe", "entity ref", "deep nesting", "junk"])
        body = members[part].split(b"?>", 1)[1] if members[part].startswith(b"<?xml") else members[part]
        if kind == "bomb":
            members[part] = BOMB + body.replace(b"<sheetData>", b"<sheetData>&c;", 1)
        elif kind == "xxe":
            members[part] = XXE + body.replace(b"<sheetData>", b"<sheetData>&x;", 1)
        elif kind == "entity ref":
            members[part] = body.replace(b"<sheetData>", b"<sheetData>&undefined;", 1)
        elif kind == "deep nesting":
            members[part] = body.replace(b"<sheetData>", b"<sheetData>" + b"<x>" * 5000 + b"</x>" * 5000, 1)
        else:
            members[part] = body[: len(body) // 2] + b"\x00\x01<<>>"
        return f"{name}: XML {kind}", pack(members)

    def m_broken_cell_xml(self, members, _):
        kind = self.rng.choice(["bad ref", "bad type", "string index", "control char", "date"])
        xml = {"bad ref": lambda ref: b'<c r="ZZZZ99999999" t="n"><v>1</v></c>',
               "bad type": lambda ref: b'<c r="%s" t="q"><v>1</v></c>' % ref,
               "string index": lambda ref: b'<c r="%s" t="s"><v>99999</v></c>' % ref,
               "control char": lambda ref: b'<c r="%s" t="inlineStr"><is><t>a\x02b</t></is></c>' % ref,
               "date": lambda ref: b'<c r="%s" t="d"><v>not-a-date</v></c>' % ref}[kind]
        return self._replace_cell(members, lambda ref: (kind, xml(ref)))

    def m_year_key(self, members, _):
        """A year key of a plan (years, ramp, price changes, depreciation) or a pool's purchase year."""
        parts = sheet_members(members)
        value = self.rng.choice(YEAR_VALUES)
        if self.rng.random() < 0.7 and parts.get("Plans") in members:
            part, row = parts["Plans"], plan_rows()[self.rng.choice(YEAR_KEYS)]
            ref = b"%s%d" % (self.rng.choice([b"C", b"D"]), row)
        elif parts.get("Pools") in members:
            part = parts["Pools"]
            column = [f.name for f in POOL_FIELDS].index("purchase_year")
            ref = b"%s%d" % (bytes([ord("A") + column]), self.rng.randint(3, 5))  # row 1 keys, row 2 units
        else:
            return None
        cells = {m.group(1) + m.group(2): m for m in CELL.finditer(members[part])}
        xml = cell_xml(ref, "n", value)
        data = members[part]
        if ref in cells:
            members[part] = data[:cells[ref].start()] + xml + data[cells[ref].end():]
        else:  # an empty cell: put it at the end of its row, or the row at the end of the sheet
            row_tag = re.search(rb'<row r="%s"[^>]*?>' % ref.lstrip(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ"), data)
            if row_tag is None and b"</sheetData>" in data:
                members[part] = data.replace(b"</sheetData>", b'<row r="%s">%s</row></sheetData>'
                                             % (ref.lstrip(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ"), xml), 1)
            elif row_tag is not None and b"/>" not in row_tag.group(0)[-2:]:
                members[part] = data[:row_tag.end()] + xml + data[row_tag.end():]
            else:
                return None
        return f"{'Pools' if part == parts.get('Pools') else 'Plans'}!{ref.decode()} = {value}", pack(members)

    def m_two_changes(self, members, original):
        first = self.m_extreme_number(members, original)
        if first is None:
            return None
        second = self._replace_cell(unpack(first[1]), lambda ref: ("= text 'x'", cell_xml(ref, "s", "x")))
        return (f"{first[0]}; {second[0]}", second[1]) if second else first
