"""Read a scenario workbook (docs/workbook_format.md) into a validated Scenario.

Every input cell is validated and every problem is reported at once, each naming its sheet and
cell and the allowed range. A formula in an input cell is read as the value the spreadsheet
application cached when it saved; a formula with no cached value is an error that says so.
Results and CashFlow are outputs: they are ignored and recomputed, never trusted.
"""
from __future__ import annotations

import dataclasses
import io
import os
from itertools import chain
from typing import Any

from openpyxl.utils import get_column_letter

from ..engine.plan.calibration_scope import QUALITY_ROWS, parse_scope
from ..engine.core.errors import Problem, ValidationError, shown
from ..engine.quantities.inputs import (
    CURVE_POINT_FIELDS, DEVICE_FIELDS, MODEL_FIELDS, PLAN_FIELD_BY_NAME, POOL_FIELDS, PRICE_TIER_FIELDS,
    REQUEST_CLASS_FIELDS,
)
from ..engine.uncertainty.fields import UNCERTAINTY_FIELDS
from ..engine.quantities.factors import factor_problem
from ..engine.performance.factors import ARCHITECTURE_COMPUTE, DEFAULT_FACTORS, FACTOR_NAMES
from ..engine.plan.pools import pool_problems
from ..engine.quantities.records import (
    make_device, make_model, make_plan, make_pool, make_request_class, request_class_problems,
)
from ..engine.plan.scenario import PriceTiers, Scenario, reference_problems
from ..engine.uncertainty.references import uncertainty_problems
from ..engine.quantities.validate import coerce_record, is_blank
from ..engine.quantities.validate_columns import coerce_columns
from . import sheets as S
from .catalog import load_catalog
from .cell_limits import MAX_CELL_TEXT, long_text_problems, text_too_long
from .paused_gc import paused_gc
from .curves_table import curves_from_rows
from .kept_work import find_kept, is_own_row
from .migrate import migrate_sheets, schema_version
from .parse_diagnosis import explain
from .sheet_roles import sheet_roles
from .safety import check_archive, check_defused, fail, file_bytes, zip_mimetype
from .uncertainty_book import read_uncertainty
from .xlsx_workloads import OUTPUT_KEYS as WORKLOAD_OUTPUTS
from .xlsx_cells_read import BadCellReference, BadCellValue, RefusedXml, TooManyCells, TooManyStrings, read_cells


class _Sheet:
    """Cell values of one sheet (cached values), with formulas lacking a cached value flagged.

    Sparse: only cells holding a value or a formula are stored, so empty padding (LibreOffice's
    row 1048576 after a row deletion, Excel's formatted empty cells) costs nothing."""

    def __init__(self, name: str, values: dict[int, dict[int, Any]], formulas: dict[tuple[int, int], str]):
        self.name = name
        self._values = values
        self._formulas = formulas
        self._index()

    def _index(self) -> None:
        values, formulas = self._values, self._formulas
        rows = {r for r, row in values.items() if row} | {r for r, _ in formulas}
        self.row_numbers = sorted(rows)  # rows holding a value or a formula, in order
        self.n_rows = self.row_numbers[-1] if rows else 0
        self.n_cols = max([max(row) for row in values.values() if row] + [c for _, c in formulas], default=0)
        columns: dict[int, set[int]] = {r: set(row) for r, row in values.items() if row}
        for r, c in formulas:
            columns.setdefault(r, set()).add(c)
        self._columns = {r: sorted(cols) for r, cols in columns.items()}

    def cell(self, row: int, col: int) -> Any:
        """1-based row/col; None where the cell is empty."""
        values = self._values.get(row)
        return None if values is None else values.get(col)

    def uncached_formula(self, row: int, col: int) -> str | None:
        raw = self._formulas.get((row, col))
        if raw is not None and self.cell(row, col) is None:
            return raw
        return None

    def has_formulas(self) -> bool:
        return bool(self._formulas)

    def row_values(self, row: int) -> dict[int, Any]:
        """col -> value of the non-empty cells of `row`."""
        return self._values.get(row, {})

    def rows_from(self, first: int):
        """The rows from `first` on that hold a value or a formula, in order."""
        return (r for r in self.row_numbers if r >= first)

    def row_columns(self, row: int) -> list[int]:
        """The columns of `row` holding a value or a formula, in order."""
        return self._columns.get(row, [])

    def cells(self, keep=None):
        """(where, value) of every non-empty cell (only those whose value `keep` holds for: the cell's
        name is made for those alone)."""
        for r in self.row_numbers:   # a row may hold only formulas without a cached value
            for c, value in self._values.get(r, {}).items():
                if keep is None or keep(value):
                    yield self.where(r, c), value

    def long_texts(self):
        """(where, text) of every cell holding more text than a cell may (cell_limits), found in one pass."""
        limit = MAX_CELL_TEXT
        texts = filter(str.__instancecheck__, chain.from_iterable(map(dict.values, self._values.values())))
        if max(map(len, texts), default=0) <= limit:
            return   # none (the usual sheet): told in one pass at C speed, without a Python step per cell
        for r in self.row_numbers:
            row = self._values.get(r)
            if row and any(type(v) is str and len(v) > limit for v in row.values()):
                yield from ((self.where(r, c), v) for c, v in row.items() if text_too_long(v))

    def where(self, row: int, col: int) -> str:
        return f"{self.name}!{get_column_letter(col)}{row}"

    def _dense_area(self) -> None:
        """Refuse a dense view of a sheet whose cells reach far past any table (a value in XFD1048576):
        its rows x columns, not its content, would set the time and memory."""
        if self.n_rows * self.n_cols > DENSE_CELLS:
            row = self.row_numbers[-1]
            col = max(self.row_columns(row), default=self.n_cols)
            raise ValidationError([Problem(self.where(row, col), "", (
                f"a value far outside the sheet's table (it spans {self.n_rows:,} rows x {self.n_cols:,} columns; "
                f"at most {DENSE_CELLS:,} cells are read): clear the cell"))])

    @property
    def values(self) -> list[tuple]:
        """Dense rows (for small sheets such as About: the migration steps read them)."""
        self._dense_area()
        return [tuple(self.cell(r, c) for c in range(1, self.n_cols + 1)) for r in range(1, self.n_rows + 1)]

    @values.setter
    def values(self, rows: list[tuple]) -> None:
        """A migration step rewriting the sheet (dense rows, as `values` gives them)."""
        self._values = {r: {c: v for c, v in enumerate(row, start=1) if v is not None}
                        for r, row in enumerate(rows, start=1)}
        self._index()

    @property
    def formulas(self) -> list[tuple]:
        """Dense rows of what each cell holds: its formula ("=..."), else its value (openpyxl's formula view)."""
        self._dense_area()
        return [tuple(self._formulas.get((r, c), self.cell(r, c)) for c in range(1, self.n_cols + 1))
                for r in range(1, self.n_rows + 1)]

    @formulas.setter
    def formulas(self, rows: list[tuple]) -> None:
        self._formulas = {(r, c): v for r, row in enumerate(rows, start=1) for c, v in enumerate(row, start=1)
                          if isinstance(v, str) and v.startswith("=")}
        self._index()


WANTED_SHEETS = frozenset(S.INPUT_SHEETS) | {S.ABOUT}
DENSE_CELLS = 2_000_000   # a dense view (migrations) of at most this many cells


def _load_sheets(path, data: bytes):
    """The input sheets and About, read with their cached values and their formulas in one pass, and the roles
    of the other sheets (sheet_roles: a renamed input sheet is read under its table's name).

    Output sheets (Results, CashFlow, Constants) and unknown sheets are listed (value None) but not
    parsed. Reading is bounded by what the sheets hold: at most MAX_CELLS cells holding a value or a
    formula over the input sheets, at most MAX_SHARED_STRINGS shared strings; empty rows and cells
    (however far they reach) are skipped, and a sheet's declared dimension is never trusted.
    """
    parts = check_archive(path, data)
    check_defused()
    try:
        names, cells, roles = _read_with_roles(io.BytesIO(data), parts)
    except ValidationError:
        raise
    except TooManyCells as exc:
        raise fail(path, f"refused: sheet {exc.sheet!r} is too large (over {exc.limit:,} cells holding a value in the "
                         "input sheets)") from None
    except TooManyStrings as exc:
        raise fail(path, f"refused: the shared string table holds {exc.count:,}+ strings, over the "
                         f"{exc.limit:,} limit") from None
    except BadCellValue as exc:   # the diagnosis names the cell and what is stored there, as the user sees it
        raise fail(path, explain(io.BytesIO(data)) or f"damaged workbook: {exc} (re-save it from Excel or LibreOffice)") from None
    except BadCellReference as exc:
        raise fail(path, f"damaged workbook: {exc} (re-save it from Excel or LibreOffice)") from None
    except RefusedXml:
        raise fail(path, "refused: the workbook's XML declares entities or a DTD, as an XML bomb (billion laughs) "
                         "does") from None
    except Exception as exc:  # zipfile, expat and value errors for malformed parts
        raise fail(path, explain(io.BytesIO(data)) or _parse_error(exc)) from None
    charts = [name for name, kind in names.items() if kind == "chartsheet"]
    if charts:
        raise fail(path, f"sheet {charts[0]!r} is a chart sheet: a scenario workbook holds only worksheets (delete the "
                         "chart sheet, or move its chart onto a worksheet)")
    if roles.problems:
        raise ValidationError(roles.problems)
    out: dict[str, _Sheet | None] = {}
    for name in names:   # in workbook order; a renamed input sheet under its table's name (its cells name it)
        table = roles.read_as.get(name)
        full = name in WANTED_SHEETS or table is not None
        out[table or name] = _Sheet(name, cells[name].values, cells[name].formulas) if full and name in cells else None
    return out, roles, parts


def _read_with_roles(archive, parts=None):
    """read_cells of the input sheets and About, and row 1 of every other sheet, to tell a renamed input sheet by
    its header row (sheet_roles); such a sheet is then read whole."""
    names, cells = read_cells(archive, WANTED_SHEETS, S.MAX_CELLS, S.MAX_SHARED_STRINGS,
                              headers=lambda name: name not in S.KNOWN_SHEETS, parts=parts)
    roles = sheet_roles({n: _header(cells[n]) for n in cells if n not in WANTED_SHEETS},
                        {n for n in cells if n in WANTED_SHEETS})
    if roles.read_as:
        _, renamed = read_cells(archive, set(roles.read_as), S.MAX_CELLS, S.MAX_SHARED_STRINGS, parts=parts)
        cells.update(renamed)
    return names, cells, roles


def _header(cells) -> list:
    """Row 1 of a sheet read for its header, in column order."""
    row = cells.values.get(1, {})
    return [row[c] for c in sorted(row)]


def _parse_error(exc: BaseException) -> str:
    """One line naming what is wrong; XML-bomb refusals by defusedxml are named as such."""
    cause: BaseException | None = exc
    while cause is not None:
        if type(cause).__module__.startswith("defusedxml"):
            return (f"refused: the workbook's XML declares entities or a DTD ({type(cause).__name__}), "
                    "as an XML bomb (billion laughs) does")
        cause = cause.__cause__ or cause.__context__
    first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else "its parts are damaged"
    return f"cannot read the workbook: {first_line} (re-save it from Excel or LibreOffice)"


def _refuse_opendocument(path, data: bytes) -> None:
    """An .ods file is a different format: say how to get an .xlsx, without library internals."""
    name = os.path.basename(str(path))
    kind = zip_mimetype(io.BytesIO(data))   # "" for a damaged zip: check_archive reports it
    if "opendocument" in kind or str(path).lower().endswith(".ods"):
        raise ValidationError([Problem(name, "", "is an OpenDocument spreadsheet (.ods): tcoapp reads .xlsx workbooks; "
                                                 "in LibreOffice use File > Save As > Excel 2007-365 (.xlsx), then open that")])


@paused_gc()   # many small objects, no garbage cycles worth a collection midway (paused_gc.py)
def read_scenario(path) -> Scenario:
    """Read and validate a scenario workbook; raise ValidationError listing every problem. The file is read
    once (safety.file_bytes): its checks, cells and kept sheets all come from the same bytes."""
    data = file_bytes(path)
    _refuse_opendocument(path, data)
    sheets, roles, parts = _load_sheets(path, data)
    problems: list[Problem] = []
    base = os.path.basename(str(path))
    if S.PLANS not in sheets:
        problems.append(Problem(base, "", f"the required sheet {S.PLANS!r} is missing"))
        raise ValidationError(problems)
    for name in S.INPUT_SHEETS:
        if sheets.get(name) is not None:
            problems.extend(long_text_problems(sheets[name].long_texts()))
    sheets = migrate_sheets(sheets, schema_version(sheets.get(S.ABOUT)))
    catalog = load_catalog()
    devices = _read_table(sheets.get(S.DEVICES), make_device, DEVICE_FIELDS, problems)
    models = _read_table(sheets.get(S.MODELS), make_model, MODEL_FIELDS, problems)
    curves = _read_curves(sheets.get(S.CURVES), problems)
    tiers = _read_price_tiers(sheets.get(S.PRICE_TIERS), problems)
    factors, device_factors, quality = _read_factors(sheets.get(S.CALIBRATION), problems, {*catalog.devices, *devices})
    plans, plan_where, own_rows = _read_plans(sheets[S.PLANS], problems)
    plans, pool_where = _attach_pools(plans, sheets.get(S.POOLS), problems, _plan_names(sheets[S.PLANS]))
    plans = _attach_workloads(plans, sheets.get(S.WORKLOADS), problems, _plan_names(sheets[S.PLANS]))
    uncertainty = read_uncertainty(sheets.get(S.UNCERTAINTY),
                                   lambda sheet, problems: _table_rows(sheet, UNCERTAINTY_FIELDS, problems), problems)
    devices = _overrides_only(_catalog_architectures(devices, sheets.get(S.DEVICES), catalog.devices), catalog.devices)
    models = _overrides_only(models, catalog.models)
    scenario = Scenario(tuple(plans), devices, models, curves, tiers, factors, device_factors=device_factors,
                        calibration_quality=quality, uncertainty=uncertainty, catalog_devices=catalog.devices, catalog_models=catalog.models,
                        spec_acceptance=catalog.spec_acceptance)
    problems.extend(reference_problems(scenario, plan_where, pool_where, _entry_names(sheets) - _built_names(scenario)))
    if not problems:
        problems.extend(uncertainty_problems(scenario))
    if problems:
        raise ValidationError(problems)
    return dataclasses.replace(scenario, kept=find_kept(path, sheets, data, own_rows, roles, parts))


_NAME_COLUMNS = {S.DEVICES: "name", S.MODELS: "name", S.CURVES: "curve", S.PRICE_TIERS: "price_tiers"}


def _entry_names(sheets) -> frozenset[str]:
    """Every name in the name column of Devices, Models, Curves and PriceTiers, valid or not."""
    names = set()
    for sheet_name, key in _NAME_COLUMNS.items():
        sheet = sheets.get(sheet_name)
        if sheet is None:
            continue
        col = next((c for c in sheet.row_columns(1) if str(sheet.cell(1, c) or "").strip() == key), None)
        if col is not None:
            names.update(str(sheet.cell(r, col)).strip() for r in sheet.rows_from(S.FIRST_ENTRY_ROW)
                         if not is_blank(sheet.cell(r, col)))
    return frozenset(names)


def _built_names(scenario: Scenario) -> frozenset[str]:
    return frozenset(scenario.all_device_names()) | frozenset(scenario.all_model_names()) | \
        frozenset(scenario.curves) | frozenset(scenario.price_tiers)


def _catalog_architectures(devices: dict, sheet, shipped) -> dict:
    """A Devices sheet written before the `architecture` column existed (or typed without it): a row
    naming a catalog device computes with that device's architecture, as the same row would with the
    column filled in; a device of the user's own keeps none (eta_compute)."""
    if sheet is None or any(str(sheet.cell(1, c)).strip() == "architecture" for c in sheet.row_columns(1)):
        return devices
    return {name: dataclasses.replace(d, architecture=shipped[name].architecture)
            if name in shipped and not d.architecture else d for name, d in devices.items()}


def _overrides_only(entries: dict, shipped) -> dict:
    """A row identical to the shipped catalog entry (an export writes the entries its plans use) is
    not an override; every other row adds to or overrides the catalog."""
    return {name: entry for name, entry in entries.items() if shipped.get(name) != entry}


def _cell_value(sheet: _Sheet, row: int, col: int, problems: list[Problem], key: str) -> Any:
    formula = sheet.uncached_formula(row, col)
    if formula:
        problems.append(Problem(sheet.where(row, col), key,
                                f"holds the formula {formula} with no saved value: open and save the file in "
                                "a spreadsheet application, or type the value"))
        return None
    return sheet.cell(row, col)


def _keys_in_column_a(sheet: _Sheet, problems: list[Problem]):
    """(row, key) of each key in column A from row 2, blanks skipped; a repeated key is a problem."""
    seen: dict[str, int] = {}
    for row in sheet.rows_from(2):
        key = sheet.cell(row, 1)
        if is_blank(key):
            continue
        key = str(key).strip()
        if key in seen:
            problems.append(Problem(sheet.where(row, 1), key, f"key repeated (first in row {seen[key]})"))
            continue
        seen[key] = row
        yield row, key


def _read_plans(sheet: _Sheet, problems: list[Problem]):
    """Plans: A = key, B = unit, C.. = one plan per column."""
    if str(sheet.cell(1, 1) or "").strip().lower() != "key":
        problems.append(Problem(sheet.where(1, 1), "", "must be 'key' (Plans layout: key, unit, then one plan per column)"))
    columns = [c for c in sheet.row_columns(1) if c >= S.FIRST_PLAN_COLUMN and not is_blank(sheet.cell(1, c))]
    if len(columns) > S.MAX_PLANS:
        raise ValidationError([Problem(sheet.where(1, columns[S.MAX_PLANS]), "", f"refused: {len(columns):,} plans; a "
                                       f"workbook holds at most {S.MAX_PLANS:,} plans (Plans columns)")])
    if not columns:
        problems.append(Problem(sheet.where(1, S.FIRST_PLAN_COLUMN), "", "no plan: put plan names in row 1 from column C"))
    key_rows: dict[str, int] = {}
    own_rows = _unkeyed_own_rows(sheet, columns, problems)
    for row, key in _keys_in_column_a(sheet, problems):
        if key in PLAN_FIELD_BY_NAME:
            key_rows[key] = row
        elif is_own_row(key, PLAN_FIELD_BY_NAME):
            own_rows.append(row)
        else:
            problems.append(Problem(sheet.where(row, 1), key, "unknown key (the Plans keys are listed in the workbook "
                                                              "format reference; a row of your own needs a label that "
                                                              "is not a key)"))
    _orphan_plan_values(sheet, columns, problems, set(own_rows))
    plans, names_seen = [], {}
    cell_of: dict[tuple[int, str], str] = {}
    for index, col in enumerate(columns):
        name = str(sheet.cell(1, col)).strip()
        if name in names_seen:
            problems.append(Problem(sheet.where(1, col), "", f"plan name {name!r} is used twice (also column {get_column_letter(names_seen[name])})"))
        names_seen.setdefault(name, col)
        raw = {key: _cell_value(sheet, row, col, problems, key) for key, row in key_rows.items()}
        where = lambda key, c=col: sheet.where(key_rows[key], c) if key in key_rows else f"{sheet.name}!{get_column_letter(c)} (no row {key!r})"  # noqa: E731
        for key in key_rows:
            cell_of[(index, key)] = where(key)
        plan = make_plan(name, raw, where, problems)
        if plan is not None:
            plans.append(plan)
    plan_where = lambda index, key: cell_of.get((index, key), f"{sheet.name} plan {index + 1}")  # noqa: E731
    return plans, plan_where, tuple(sorted(own_rows))


def _unkeyed_own_rows(sheet: _Sheet, columns: list[int], problems: list[Problem]) -> list[int]:
    """Plans rows with nothing readable in column A that are the analyst's own: an empty key cell with no values
    under plans, or a formula with no saved value (a file never recalculated, as openpyxl writes a kept row),
    which cannot be a key. An empty key cell over plan values is a problem (_blank_key_problem)."""
    return [row for row in sheet.rows_from(2) if is_blank(sheet.cell(row, 1))
            and (sheet.uncached_formula(row, 1) or not _blank_key_problem(sheet, row, columns, problems))]


def _blank_key_problem(sheet: _Sheet, row: int, columns: list[int], problems: list[Problem]) -> bool:
    """A Plans row with an empty key cell but values under plans is an input that lost its key (a helper row of
    your own has a label in column A): a problem naming the cell, and the key its label suggests."""
    filled = [c for c in columns if not is_blank(sheet.cell(row, c)) or sheet.uncached_formula(row, c)]
    if not filled:
        return False
    label = str(sheet.cell(row, 2) or "").strip()
    key = next((f.name for f in PLAN_FIELD_BY_NAME.values() if f.label and
                label.lower() in (f.label.lower(), f.label.lower() + f" ({f.unit})".lower())), None)
    hint = f" (its label {label!r} is the key {key!r})" if key else ""
    problems.append(Problem(sheet.where(row, 1), "", (
        f"is empty but the row holds values for plans ({sheet.where(row, filled[0])}, ...): type the row's key in "
        f"column A{hint}, or, for a row of your own, a label that is not a key")))
    return True


def _orphan_plan_values(sheet: _Sheet, columns: list[int], problems: list[Problem], own_rows=frozenset()) -> None:
    """Values under an empty plan-name cell would be silently ignored: report the first of each column (the
    analyst's own rows are theirs: kept, not read)."""
    named = set(columns)
    first_row: dict[int, int] = {}
    for row in sheet.rows_from(2):
        if row in own_rows:
            continue
        for col in sheet.row_columns(row):
            if col >= S.FIRST_PLAN_COLUMN and col not in named and col not in first_row and (
                    not is_blank(sheet.cell(row, col)) or sheet.uncached_formula(row, col)):
                first_row[col] = row
    for col, row in sorted(first_row.items()):
        problems.append(Problem(sheet.where(row, col), "", f"holds a value but {sheet.where(1, col)} has no plan "
                                                           "name: name the plan in row 1 or clear the column"))


def _units_row_problems(sheet: _Sheet, keys: dict[str, int], problems: list[Problem]) -> None:
    """Row 2 holds units; a number there is an entry typed one row too high (it would be ignored)."""
    for key, col in keys.items():
        value = sheet.cell(2, col)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            problems.append(Problem(sheet.where(2, col), key, f"= {shown(value)}: row 2 is the units row; "
                                                              f"entries start at row {S.FIRST_ENTRY_ROW}"))


def _unkeyed_values(sheet: _Sheet, keyed: set[int], problems: list[Problem], known=frozenset()) -> None:
    """A value in a column with no key in row 1 would be silently ignored: report the first of each column; several
    such columns (a table moved off A1) are one line, naming where its keys are now."""
    first: dict[int, int] = {}
    for row in sheet.rows_from(2):
        for col in sheet.row_columns(row):
            if col not in keyed and col not in first and not is_blank(sheet.cell(row, col)):
                first[col] = row
    if len(first) > 1:
        col, row = min(first.items(), key=lambda item: (item[1], item[0]))
        keys_at = _keys_row(sheet, known)
        moved = f"; its keys are now in row {keys_at}" if keys_at else ""
        problems.append(Problem(sheet.where(row, col), "", f"holds a value, as do {len(first) - 1} more column(s) with no "
                                f"key in row 1: the {sheet.name} table starts at A1 (keys in row 1, units in row 2, "
                                f"entries from row {S.FIRST_ENTRY_ROW}){moved}: move it back"))
        return
    for col, row in first.items():
        problems.append(Problem(sheet.where(row, col), "", f"holds a value but {sheet.where(1, col)} has no key: "
                                                           "put the column's key in row 1 or clear the column"))


def _keys_row(sheet: _Sheet, known) -> int | None:
    """The row below row 1 holding two or more of the table's keys (a moved table's header), if any."""
    for row in sheet.rows_from(2):
        if sum(1 for v in sheet.row_values(row).values() if isinstance(v, str) and v.strip() in known) >= 2:
            return row
    return None


def _table_rows(sheet: _Sheet, fields, problems: list[Problem], outputs=frozenset()):
    """(row number, {key: value}, locator) for each entry row of a table sheet. A column whose key is
    not one of `fields` (nor of the sheet's formula columns, `outputs`: not read) is a problem at its header cell,
    even on a sheet with no entries (the table of another sheet under this sheet's name)."""
    keys = _table_keys(sheet, fields, problems, outputs)
    plain = not sheet.has_formulas()
    columns = list(keys.values())
    names = [f.name for f in fields if f.checks == "identity" and f.required]
    for row in sheet.rows_from(S.FIRST_ENTRY_ROW):
        if plain:  # no formula to check: the cached values are the values (most sheets, a big Curves sheet)
            values = dict(zip(keys, map(sheet.row_values(row).get, columns)))
        else:
            values = {k: _cell_value(sheet, row, c, problems, k) for k, c in keys.items()}
        if all(is_blank(v) for v in values.values()):
            continue
        if _blank_name_problem(sheet, row, keys, values, names, problems):
            continue
        yield row, values, _row_locator(sheet, keys, row)


def _row_locator(sheet: _Sheet, keys: dict, row: int):
    """The locator of an entry row: a key's cell, or the row and the missing column."""
    return lambda key: sheet.where(row, keys[key]) if key in keys else f"{sheet.name}!row {row} (no column {key!r})"


def _table_keys(sheet: _Sheet, fields, problems: list[Problem], outputs=frozenset()) -> dict[str, int]:
    """{key: column} of a table sheet's header row, its problems (unknown or repeated keys, a number in the units row,
    a value in a column with no key) appended in _table_rows' order."""
    known = {f.name for f in fields}
    keys = {}
    for col in sheet.row_columns(1):
        key = sheet.cell(1, col)
        if is_blank(key):
            continue
        key = str(key).strip()
        if key in outputs:
            continue
        if key not in known:
            problems.append(Problem(sheet.where(1, col), key, f"unknown key (the {sheet.name} keys are: "
                                                              f"{', '.join(f.name for f in fields)})"))
        elif key in keys:
            problems.append(Problem(sheet.where(1, col), key, f"key repeated (first in {sheet.where(1, keys[key])})"))
        else:
            keys[key] = col
    _units_row_problems(sheet, keys, problems)
    _unkeyed_values(sheet, set(keys.values()) | set(sheet.row_columns(1)), problems, known)
    return keys


def _table_columns(sheet: _Sheet, fields, problems: list[Problem]):
    """What _table_rows gives, column by column: ({key: the entry rows' values}, their locators, and for each entry
    row the number of problems found before it was read (marks), its problems appended as _table_rows appends them.
    A sheet without formulas is read straight from its rows' cells, a column at a time (a Curves sheet holds tens of
    thousands of rows); a sheet with formulas through _table_rows (each formula without a saved value is named)."""
    if sheet.has_formulas():
        rows, marks = [], []
        for _, values, where in _table_rows(sheet, fields, problems):
            rows.append((values, where))
            marks.append(len(problems))
        return {k: [values.get(k) for values, _ in rows] for k in rows[0][0]} if rows else {}, \
            [where for _, where in rows], marks
    keys = _table_keys(sheet, fields, problems)
    numbers = list(sheet.rows_from(S.FIRST_ENTRY_ROW))
    cells = list(map(sheet.row_values, numbers))
    columns = {k: [row.get(c) for row in cells] for k, c in keys.items()}
    blank = range(len(numbers))
    for column in columns.values():   # the rows blank in every column so far (usually none after the first)
        blank = [i for i in blank if is_blank(column[i])]
    kept, marks = _named_rows(sheet, keys, columns, numbers, set(blank), fields, problems)
    if len(kept) < len(numbers):
        columns = {k: [column[i] for i in kept] for k, column in columns.items()}
    return columns, [_row_locator(sheet, keys, numbers[i]) for i in kept], marks


def _named_rows(sheet: _Sheet, keys: dict, columns: dict, numbers: list, blank: set, fields, problems: list[Problem]):
    """(the indices of the entry rows read, the problems found before each was read): every row but the blank ones
    and those missing a name (_blank_name_problem: appended in row order)."""
    names = [f.name for f in fields if f.checks == "identity" and f.required]
    unnamed = {i for k in names if k in keys for i, v in enumerate(columns[k]) if is_blank(v)} - blank
    kept, marks = [], []
    for i in range(len(numbers)):
        if i in blank:
            continue
        if i in unnamed:
            values = {k: column[i] for k, column in columns.items()}
            if _blank_name_problem(sheet, numbers[i], keys, values, names, problems):
                continue
        kept.append(i)
        marks.append(len(problems))
    return kept, marks


def _blank_name_problem(sheet: _Sheet, row: int, keys: dict, values: dict, names, problems: list[Problem]) -> bool:
    """A table row with values but an empty cell of a key naming the row (a device's name, a pool's plan): the row
    would be lost or misread, so the cell is named."""
    blank = [k for k in names if k in keys and is_blank(values.get(k))]
    if not blank:
        return False
    filled = next(k for k, v in values.items() if not is_blank(v))
    problems.append(Problem(sheet.where(row, keys[blank[0]]), blank[0], (
        f"is empty but the row holds values ({sheet.where(row, keys[filled])} {filled}, ...): "
        f"every {sheet.name} row needs its {' and '.join(k for k in names if k in keys)}; type it, or clear the row")))
    return True


def _read_table(sheet: _Sheet | None, make, fields, problems: list[Problem]) -> dict:
    entries: dict = {}
    if sheet is None:
        return entries
    for row, values, where in _table_rows(sheet, fields, problems):
        entry = make(values, where, problems)
        if entry is None:
            continue
        if entry.name in entries:
            problems.append(Problem(where("name"), "name", f"= {entry.name!r} appears twice in {sheet.name}"))
        entries[entry.name] = entry
    return entries


def _plan_names(sheet: _Sheet) -> frozenset[str]:
    """Every plan name in row 1 of Plans, valid plan or not."""
    return frozenset(str(sheet.cell(1, c)).strip() for c in range(S.FIRST_PLAN_COLUMN, sheet.n_cols + 1)
                     if not is_blank(sheet.cell(1, c)))


def _rows_by_plan(plans: list, sheet: _Sheet, fields, make, problems: list[Problem], named: frozenset[str],
                  outputs=frozenset()):
    """A long table's rows (Pools, Workloads) built by `make` and grouped by the plan their `plan` column names, in row
    order: ({plan: [record]}, {plan: [locator]}, the plans with a row that did not validate). A row naming no plan is a problem, one line per name (a row of a
    plan in `named` that did not validate is skipped: that plan's own cells say what is wrong)."""
    by_plan: dict[str, list] = {}
    where_of: dict[str, list] = {}
    unknown: dict[str, list] = {}
    failed: set[str] = set()
    names = [p.name for p in plans]
    for row, values, where in _table_rows(sheet, fields, problems, outputs):
        record = make(values, where, problems)
        plan_name = str(values.get("plan")).strip()
        if record is None:
            failed.add(plan_name)
            continue
        if plan_name in named and plan_name not in names:
            continue
        if plan_name not in names:
            unknown.setdefault(plan_name, []).append((row, where))
            continue
        where_of.setdefault(plan_name, []).append(where)
        by_plan.setdefault(plan_name, []).append(record)
    for plan_name, rows in unknown.items():  # one line per name: a plan renamed or deleted on Plans only
        listed = ", ".join(str(r) for r, _ in rows)
        problems.append(Problem(rows[0][1]("plan"), "plan", f"= {plan_name!r} (row{'s' if len(rows) > 1 else ''} {listed}): "
                                f"no plan of that name on {S.PLANS} (plans: {', '.join(names) or 'none'}); a plan "
                                f"renamed on Plans is renamed in its {sheet.name} rows too, a deleted plan's "
                                f"{sheet.name} rows are deleted with it"))
    return by_plan, where_of, failed


def _attach_pools(plans: list, sheet: _Sheet | None, problems: list[Problem], named: frozenset[str] = frozenset()):
    """Pools rows grouped onto their plans (in row order); a row naming no plan is a problem (a row of
    a plan in `named` that did not validate is skipped: that plan's own cells say what is wrong)."""
    if sheet is None:
        return plans, lambda plan_index, pool_index, key: f"{S.POOLS} plan {plan_index + 1} pool {pool_index + 1}"
    by_plan, where_of, _ = _rows_by_plan(plans, sheet, POOL_FIELDS, make_pool, problems, named)
    out = []
    for plan in plans:
        pools = tuple(by_plan.get(plan.name, ()))
        plan = plan.with_(pools=pools) if pools else plan
        problems.extend(pool_problems(plan, lambda i, key, n=plan.name: where_of[n][i](key)))
        out.append(plan)
    locate = lambda plan_index, pool_index, key: where_of[out[plan_index].name][pool_index](key)  # noqa: E731
    return out, locate


def _attach_workloads(plans: list, sheet: _Sheet | None, problems: list[Problem], named: frozenset[str] = frozenset()):
    """Workloads rows grouped onto their plans as request classes (in row order); a plan's classes together are
    checked too (shares adding to 1, names unique), the problem naming the plan and its classes' cells."""
    if sheet is None:
        return plans
    by_plan, where_of, failed = _rows_by_plan(plans, sheet, REQUEST_CLASS_FIELDS, make_request_class, problems, named,
                                              WORKLOAD_OUTPUTS)
    out = []
    for plan in plans:
        classes = tuple(by_plan.get(plan.name, ()))
        wheres = where_of.get(plan.name, [])
        cells = lambda key, wheres=wheres: ", ".join(w(key) for w in wheres)  # noqa: E731
        if plan.name not in failed:  # a class whose own cells are wrong: its share is not counted yet
            problems.extend(request_class_problems(plan.name, classes, cells))
        out.append(plan.with_(workloads=classes) if classes else plan)
    return out


def _read_curves(sheet: _Sheet | None, problems: list[Problem]) -> dict:
    """The Curves sheet's points, coerced column by column (validate_columns.py), its problems in the order a
    row-by-row read gives them: each row's own after those found before it was read."""
    if sheet is None:
        return {}
    columns, wheres, marks = _table_columns(sheet, CURVE_POINT_FIELDS, problems)
    records, by_row = coerce_columns(CURVE_POINT_FIELDS, columns, wheres)
    if by_row:   # row i's problems between those found before it was read and those found after
        start = marks[0]
        later = problems[start:]
        del problems[start:]
        for i, (mark, end) in enumerate(zip(marks, marks[1:] + [start + len(later)])):
            problems.extend(by_row.get(i, ()))
            problems.extend(later[mark - start:end - start])
    return curves_from_rows(list(zip(wheres, records)), problems)


def _read_price_tiers(sheet: _Sheet | None, problems: list[Problem]) -> dict:
    if sheet is None:
        return {}
    grouped: dict[str, list] = {}
    thresholds: dict[tuple, str] = {}
    for row, values, where in _table_rows(sheet, PRICE_TIER_FIELDS, problems):
        record = coerce_record(PRICE_TIER_FIELDS, values, where, problems)
        if not record["price_tiers"] or record["min_tokens_per_s_per_user"] is None:
            continue
        tier = (record["price_tiers"], record["min_tokens_per_s_per_user"])
        if tier in thresholds:
            problems.append(Problem(where("min_tokens_per_s_per_user"), "min_tokens_per_s_per_user",
                                    f"= {tier[1]:g}: price table {tier[0]!r} already has a tier from this "
                                    f"tokens/s per user ({thresholds[tier]})"))
            continue
        thresholds[tier] = where("min_tokens_per_s_per_user")
        grouped.setdefault(record["price_tiers"], []).append(record)
    return {
        name: PriceTiers(name, tuple(r["min_tokens_per_s_per_user"] for r in rows),
                         tuple(r["price_usd_per_million_output_tokens"] for r in rows),
                         rows[0].get("source") or "")  # a `source` column, where the field table has one
        for name, rows in grouped.items()
    }


def _read_factors(sheet: _Sheet | None, problems: list[Problem], device_names=()):
    """Calibration: rows of key | unit | value for the efficiency factors, then optionally one column
    per calibration scope (row 1: `DEVICE` or `DEVICE | MODEL_CLASS | STACK`, engine/plan/calibration_scope.py)
    holding the factors calibrated for plans in that scope (a blank cell: the value column's), and
    the fit_* rows saying what each was fitted on and how well. Returns (factors, by scope, quality)."""
    if sheet is None:
        return DEFAULT_FACTORS, {}, {}
    columns = _scope_columns(sheet, problems, device_names)
    changes: dict = {col: {} for col in columns}
    quality: dict = {name: {} for name in columns.values() if name is not None}
    for row, key in _keys_in_column_a(sheet, problems):
        if key in QUALITY_ROWS:
            _read_quality_row(sheet, row, key, columns, quality, problems)
        elif key not in FACTOR_NAMES:
            problems.append(Problem(sheet.where(row, 1), key, f"unknown key (allowed: {', '.join(FACTOR_NAMES)}, "
                                                              f"{', '.join(QUALITY_ROWS)})"))
        else:
            _read_factor_row(sheet, row, key, changes, problems)
    factors = DEFAULT_FACTORS.with_(**_held_ratios(changes[3]))
    return (factors, {name: factors.with_(**changes[col]) for col, name in columns.items() if name is not None},
            {name: q for name, q in quality.items() if q})


def _held_ratios(values: dict) -> dict:
    """A Calibration sheet that sets eta_compute but no arch_compute_* ratio was saved (or typed) before
    the ratios existed: its eta_compute is every architecture's, as when it was saved, so the ratios it
    does not state are held at 1 (docs/model.md, "Achieved compute per architecture")."""
    if "eta_compute" not in values or any(name in values for name in ARCHITECTURE_COMPUTE.values()):
        return values
    return {**values, **{name: 1.0 for name in ARCHITECTURE_COMPUTE.values()}}


def _scope_columns(sheet: _Sheet, problems: list[Problem], device_names) -> dict:
    """{column: calibration scope key} of the Calibration sheet's value column (3: None) and its scope columns."""
    columns = {3: None}
    for col in (c for c in sheet.row_columns(1) if c >= 4):
        name = sheet.cell(1, col)
        if is_blank(name):
            continue
        scope, why = parse_scope(str(name).strip())
        if scope is None:
            problems.append(Problem(sheet.where(1, col), "", f"= {str(name).strip()!r}: {why}"))
        elif scope.device not in device_names:
            problems.append(Problem(sheet.where(1, col), "", f"= {str(name).strip()!r}: no device of that name (a "
                                                             "Calibration column after 'value' names a device)"))
        elif scope.key in columns.values():
            problems.append(Problem(sheet.where(1, col), "", f"= {scope.key!r}: a second column for this scope"))
        else:
            columns[col] = scope.key
    return columns


def _read_quality_row(sheet: _Sheet, row: int, key: str, columns: dict, quality: dict, problems: list[Problem]) -> None:
    """A fit_* row: each scope column's value (text, or a number >= 0) into quality[scope][key]."""
    kind = QUALITY_ROWS[key][1]
    for col, name in columns.items():
        value = sheet.cell(row, col)
        if name is None or is_blank(value):
            continue
        if kind != "str" and (isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0):
            problems.append(Problem(sheet.where(row, col), key, f"= {shown(value)}: must be a number >= 0"))
            continue
        quality[name][key] = str(value) if kind == "str" else int(value) if kind == "int" else float(value)


def _read_factor_row(sheet: _Sheet, row: int, key: str, changes: dict, problems: list[Problem]) -> None:
    """A factor row: the value column's and each scope column's value (blank: the value column's) into changes."""
    for col in changes:
        value = _cell_value(sheet, row, col, problems, key)
        if col != 3 and is_blank(value):
            continue
        error = factor_problem(key, value)
        if error:
            problems.append(Problem(sheet.where(row, col), key, error))
            continue
        changes[col][key] = float(value)
