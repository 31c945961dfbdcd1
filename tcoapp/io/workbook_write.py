"""Write a scenario workbook (docs/workbook_format.md): inputs, live-formula Results and CashFlow, charts, About.

`write_scenario(scenario, path, results=None)` is the one export the CLI and the GUI call. The
file imports back to the identical scenario (`read_scenario(write_scenario(s)) == s`), and a
spreadsheet application recalculating it reproduces every engine number (tests/io, with
LibreOffice). Saving is atomic: the old file survives any failure mid-save.
"""
from __future__ import annotations

import datetime
import io
import os
from typing import Sequence

import openpyxl
from openpyxl.drawing.spreadsheet_drawing import SpreadsheetDrawing
from openpyxl.packaging.relationship import Relationship
from openpyxl.writer.excel import ExcelWriter

from ..engine.pipeline.compute import PlanResult, compute_plan
from ..engine.quantities.metrics import Metrics
from ..engine.performance.curve import missing_point
from ..engine.core.errors import Problem, ValidationError
from ..engine.plan.scenario import Scenario
from ..engine.quantities.inputs import REQUEST_CLASS_FIELDS
from . import sheets as S
from .atomic import atomic_write
from .xlsx_about import append_about_notes, write_about
from .paused_gc import paused_gc
from .xlsx_bulk import PendingRows, splice_rows
from .xlsx_fast_rows import FastRowsWriter
from .xlsx_fast_comments import CommentsPart, comment_records, comments_vml, comments_xml, fast as fast_comments
from .xlsx_cached import all_cached_values, cached_transforms, cashflow_values
from .xlsx_bridge import write_bridge
from .xlsx_cashflow import write_cashflow
from .xlsx_raw_cells import RawCells
from .xlsx_charts import add_charts
from .xlsx_checks import InputRows, add_output_checks, checks_last_column, write_checks
from .xlsx_summary import add_summary_charts, summary_last_row, write_summary
from .xlsx_usability import add_dropdowns, add_named_ranges, table_dropdowns, write_lists
from .xlsx_agentic import has_agentic
from .xlsx_workloads import has_workloads, write_workloads
from .xlsx_print import print_all
from .xlsx_printed_tables import write_printed_tables
from .kept_work import write_kept, write_plans_formulas
from .xlsx_constants import write_constants
from .xlsx_inputs import (
    write_calibration, write_curves, write_devices, write_models, write_plans, write_pools, write_price_tiers,
)
from .xlsx_layout import Layout, cashflow_years
from .xlsx_results import result_rows, write_results
from .xlsx_styles import CellKindError, exact_floats
from .uncertainty_book import write_uncertainty
from .xlsx_monte_carlo_book import add_monte_carlo

SHEET_ORDER = (S.SUMMARY, S.PLANS, S.POOLS, S.RESULTS, S.CASH_FLOW, S.BRIDGE, S.CHECKS, S.DEVICES, S.MODELS,
               S.PRINTED_TABLES, S.CURVES, S.PRICE_TIERS, S.CALIBRATION, S.UNCERTAINTY, S.CONSTANTS, S.ABOUT)


def sheet_order(scenario: Scenario) -> tuple[str, ...]:
    """The sheets written, in order: Workloads after Pools where some plan has request classes (a workbook without
    classes has no Workloads sheet, as before it existed)."""
    if not has_workloads(scenario):
        return SHEET_ORDER
    at = SHEET_ORDER.index(S.POOLS) + 1
    return SHEET_ORDER[:at] + (S.WORKLOADS,) + SHEET_ORDER[at:]


@paused_gc()   # tens of thousands of cells and strings, no garbage cycle worth a collection midway (paused_gc.py)
def write_scenario(scenario: Scenario, path, results: tuple[PlanResult, ...] | None = None,
                   written: datetime.datetime | None = None, about_notes: Sequence[tuple[str, str]] = (),
                   simulation=None) -> None:
    """Write the full scenario workbook to `path` (atomically); compute the results if not given.

    written: the date on the About sheet (default: now, UTC); about_notes: extra (label, text) rows
    for the About sheet (a sample's question, the sources of its numbers); simulation: the Monte
    Carlo run of the MonteCarlo sheets (a scenario with Uncertainty rows and none given is simulated
    with xlsx_monte_carlo_book.EXPORT_DRAWS draws, seed 0).
    """
    if results is not None and len(results) != len(scenario.plans):
        raise ValueError(f"{len(results)} results for {len(scenario.plans)} plans")
    if not str(path).lower().endswith(".xlsx") and not os.path.isdir(str(path)):  # a folder: atomic_write says so
        name = os.path.basename(str(path))
        raise ValidationError([Problem(name, "", "tcoapp writes .xlsx workbooks (Excel, LibreOffice and Numbers open "
                                                 "them, with live formulas): give the file a .xlsx name")])
    results = usable_results(scenario, results)
    workbook, pending, layout, raws = build_workbook(scenario, results, written, about_notes)
    pending += add_monte_carlo(workbook, scenario, results, simulation)
    with exact_floats():
        parts = saved_parts(workbook)
    try:
        transforms = cached_transforms(all_cached_values(workbook, scenario, results, layout))
        for raw in raws:  # the cached values of openpyxl's formula cells first (the raw cells carry theirs), then those
            fill = transforms.get(raw.title, lambda xml: xml)  # cells: the fill does not scan ~15,000 of them
            transforms[raw.title] = lambda xml, raw=raw, fill=fill: raw.insert(fill(xml))
        content = splice_rows(workbook, parts, pending, transforms)
    except CellKindError as exc:
        raise _problem(exc) from None
    atomic_write(path, lambda handle: handle.write(content))


def saved_parts(workbook) -> dict[str, bytes]:
    """openpyxl's save (openpyxl.writer.excel.save_workbook), its parts kept by name in the order written, not
    zipped: splice_rows rewrites every part and zips it then, so it is checksummed and packed once, not twice."""
    parts = _Parts()
    workbook.properties.modified = datetime.datetime.now(tz=datetime.timezone.utc).replace(tzinfo=None)
    _InMemoryWriter(workbook, parts).save()
    return parts.bodies


class _Parts:
    """What openpyxl's ExcelWriter uses of its zip archive (writestr, namelist, close), keeping each part's bytes."""

    def __init__(self):
        self.bodies: dict[str, bytes] = {}

    def writestr(self, name, data) -> None:
        name = getattr(name, "filename", name)
        if name in self.bodies:   # a zip would hold both, a reader would read one: never written so
            raise AssertionError(f"the part {name} written twice")
        self.bodies[name] = data.encode("utf-8") if isinstance(data, str) else bytes(data)

    def namelist(self) -> list[str]:
        return list(self.bodies)

    def close(self) -> None:
        pass


class _InMemoryWriter(ExcelWriter):
    """openpyxl's ExcelWriter with each worksheet's XML written into memory: openpyxl writes it to a temporary
    file, reads it back and deletes it (~1/8 of the save on the 20-plan benchmark); the parts are the same bytes."""

    def write_worksheet(self, ws):  # ExcelWriter.write_worksheet (openpyxl 3.1), not write-only, no temporary file,
        # the rows written as text (xlsx_fast_rows)
        ws._drawing = SpreadsheetDrawing()
        ws._drawing.charts = ws._charts
        ws._drawing.images = ws._images
        writer = FastRowsWriter(ws, out=io.BytesIO())
        writer.write()
        ws._rels = writer._rels
        self._archive.writestr(ws.path[1:], writer.read())
        self.manifest.append(ws)

    def _write_comment(self, ws):  # ExcelWriter._write_comment (openpyxl 3.1), its two parts written as text
        if not fast_comments(self.workbook, ws):  # (xlsx_fast_comments)
            ws._comments = comment_records(ws._comments)
            return super()._write_comment(ws)
        sheet = CommentsPart(len(self._comments) + 1)
        self._comments.append(sheet)
        self._archive.writestr(sheet.path[1:], comments_xml(ws._comments))
        self.manifest.append(sheet)
        ws.legacy_drawing = f"xl/drawings/commentsDrawing{sheet._id}.vml"
        self._archive.writestr(ws.legacy_drawing, comments_vml(ws._comments))
        self.vba_modified.add(ws.legacy_drawing)
        ws._rels.append(Relationship(Id="comments", type=sheet._rel_type, Target=sheet.path))


def usable_results(scenario: Scenario, results=None) -> tuple[PlanResult, ...]:
    """One result per plan with the engine values the Results sheet needs.

    A plan given without a usable result is computed here; a plan the engine cannot compute gets a
    placeholder (every engine value "n/a", the reason in its warnings row), so that saving the
    inputs never fails because of one plan's numbers.
    """
    given = list(results) if results is not None else [None] * len(scenario.plans)
    usable = []
    for plan, result in zip(scenario.plans, given):
        if result is None or result.inputs is None:
            try:
                result = compute_plan(scenario, plan)
            except Exception as exc:  # noqa: BLE001 - recorded in the workbook, the inputs still saved: a save
                # must not lose the user's inputs even to an engine bug (tests/io/test_workbook_export.py)
                result = _not_computed(plan, exc)
        usable.append(result)
    return tuple(usable)


def _not_computed(plan, exc: Exception) -> PlanResult:
    reason = f"not computed: {exc}" if str(exc) else f"not computed: {type(exc).__name__}"
    return PlanResult(plan.name, missing_point("none", reason), Metrics.nan(), warnings=(reason,))


def _problem(exc: CellKindError) -> ValidationError:
    where, message = str(exc).split(": ", 1)
    return ValidationError([Problem(where, "", message)])


def build_workbook(scenario: Scenario, results: tuple[PlanResult, ...], written: datetime.datetime | None = None,
                   about_notes: Sequence[tuple[str, str]] = ()
                   ) -> tuple[openpyxl.Workbook, list[PendingRows], Layout, list[RawCells]]:
    """The workbook, the bulk rows and formula cells to splice in after saving (xlsx_bulk, xlsx_raw_cells) and
    where things are."""
    workbook = openpyxl.Workbook()
    sheets = {name: workbook.create_sheet(name) for name in sheet_order(scenario)}
    workbook.remove(workbook.worksheets[0])
    try:
        plan_rows = write_plans(sheets[S.PLANS], scenario)
        pool_rows = write_pools(sheets[S.POOLS], scenario)
        class_rows = write_workloads(sheets[S.WORKLOADS], scenario) if S.WORKLOADS in sheets else {}
        device_rows = write_devices(sheets[S.DEVICES], scenario)
        model_rows = write_models(sheets[S.MODELS], scenario)
        write_printed_tables(sheets[S.PRINTED_TABLES], {S.DEVICES: sheets[S.DEVICES], S.MODELS: sheets[S.MODELS]},
                    {S.DEVICES: len(device_rows), S.MODELS: len(model_rows)})
        pending = [write_curves(sheets[S.CURVES], scenario)]
        tier_rows = write_price_tiers(sheets[S.PRICE_TIERS], scenario)
        counts = tuple(len(r.pools) for r in results)
        layout = Layout(plan_rows, result_rows(max(max(counts, default=1), 1), bool(class_rows), has_agentic(scenario)),
                        cashflow_years(p.years for p in scenario.plans), counts, pool_rows, device_rows, tier_rows,
                        tuple(p.name for p in scenario.plans), class_rows)
        points = sum(c.batch.size for c in scenario.curves.values())
        checks = write_checks(sheets[S.CHECKS], workbook, scenario, results, layout,
                              InputRows(device_rows, model_rows, points))
        write_results(sheets[S.RESULTS], scenario, results, layout, checks)
        cash_flow = write_cashflow(sheets[S.CASH_FLOW], scenario, layout, [r.metrics.irr for r in results],
                                   cashflow_values(scenario, results, layout),
                                   equity_irr_by_plan=[r.metrics.equity_irr for r in results])
        add_charts(sheets[S.CASH_FLOW], sheets[S.RESULTS], scenario, layout)
        write_bridge(sheets[S.BRIDGE], scenario, layout)
        write_calibration(sheets[S.CALIBRATION], scenario)
        write_uncertainty(sheets[S.UNCERTAINTY], scenario)
        write_constants(sheets[S.CONSTANTS], workbook, layout.max_years)
        ranges = write_lists(sheets[S.CONSTANTS], scenario)
        add_dropdowns(sheets[S.PLANS], sheets[S.POOLS], plan_rows, len(scenario.plans), len(pool_rows), ranges)
        if class_rows:
            table_dropdowns(sheets[S.WORKLOADS], REQUEST_CLASS_FIELDS, ranges)
        add_named_ranges(workbook, plan_rows, len(scenario.plans))
        write_summary(sheets[S.SUMMARY], scenario, layout)
        add_output_checks(checks, scenario, layout, sheets[S.RESULTS], sheets[S.SUMMARY], sheets[S.CASH_FLOW], cash_flow)
        add_summary_charts(sheets[S.SUMMARY], sheets[S.CASH_FLOW], sheets[S.RESULTS], scenario, layout)
        write_about(sheets[S.ABOUT], written)
        if about_notes:
            append_about_notes(sheets[S.ABOUT], about_notes)
        print_all(workbook, scenario, layout, points, checks_last_column(), summary_last_row(scenario))
        write_kept(workbook, getattr(scenario, "kept", None))
        write_plans_formulas(workbook, getattr(scenario, "kept", None))
    except CellKindError as exc:
        raise _problem(exc) from None
    workbook.calculation.fullCalcOnLoad = True  # a spreadsheet application recalculates the cached values
    return workbook, [p for p in pending if p is not None], layout, [cash_flow, checks.detail]
