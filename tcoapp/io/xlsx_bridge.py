"""The Bridge sheet: why plan B's cost per million output tokens differs from plan A's, as live formulas
(docs/model.md, "Cost bridge"; the engine's `finance/bridge.py`).

Two input cells name the plans (any two plan names of the Plans sheet; the first two plans when
written). Each part's row reads both plans' Results values (INDEX over the Results row at the plan's
column, found by MATCH on the Plans header), then B - A. `other` is the total less the listed parts,
so the steps from A's cost add up to B's cost exactly; the check row shows that sum's difference.
"""
from __future__ import annotations

from openpyxl.utils import get_column_letter
from openpyxl.worksheet.datavalidation import DataValidation

from ..engine.finance.bridge import BRIDGE_PARTS, TOTAL, part_key
from ..engine.quantities.finance import YEAR_QUANTITIES
from ..engine.plan.scenario import Scenario
from . import sheets as S
from .xlsx_layout import Layout
from .xlsx_na import NA
from .xlsx_styles import LABEL_HEADER, header, key_cell, label_cell, put, section, widths

PLAN_ROWS = {"plan_a": 3, "plan_b": 4}
COLUMN_ROW = 5        # the plans' columns on Plans and Results (MATCH)
FIRST_PART_ROW = 7
A, B, STEP = "C", "D", "E"
# an opex part is named by its year row (the quantity table); capex and the remainder are the bridge's own parts
LABELS = {"capex": "Capex per token (capital recovery)", "other": "Other (the total less the parts above)",
          **{q.opex_part: q.label for q in YEAR_QUANTITIES if q.opex_part}}


def bridge_rows() -> dict[str, int]:
    rows = {part: FIRST_PART_ROW + i for i, part in enumerate(BRIDGE_PARTS)}
    rows["total"] = FIRST_PART_ROW + len(BRIDGE_PARTS)
    rows["check"] = rows["total"] + 1
    return rows


def _plan_pickers(ws, scenario: Scenario, names: str) -> None:
    """The two plan-name cells (a drop-down of the Plans header) and their column helpers (MATCH)."""
    plans = [p.name for p in scenario.plans] or [""]
    picks = {"plan_a": plans[0], "plan_b": plans[1] if len(plans) > 1 else plans[0]}
    choose = DataValidation(type="list", formula1=names, allow_blank=False)
    ws.add_data_validation(choose)
    for key, row in PLAN_ROWS.items():
        key_cell(ws, row, key, "A plan name of the Plans sheet (row 1).")
        label_cell(ws, row, 2, "Plan A (from)" if key == "plan_a" else "Plan B (to)")
        put(ws, row, 3, picks[key], "input")
        choose.add(f"C{row}")
    key_cell(ws, COLUMN_ROW, "plan_column", "Helper: the plan's column among the plans (MATCH on the Plans header).")
    label_cell(ws, COLUMN_ROW, 2, "Helper: plan column")
    for col, row in ((A, PLAN_ROWS["plan_a"]), (B, PLAN_ROWS["plan_b"])):
        put(ws, COLUMN_ROW, 3 if col == A else 4, f"=MATCH($C${row},{names},0)", "formula")


def write_bridge(ws, scenario: Scenario, layout: Layout) -> None:
    n = max(len(scenario.plans), 1)
    last = get_column_letter(S.FIRST_PLAN_COLUMN + n - 1)
    names = f"{S.PLANS}!$C$1:${last}$1"
    header(ws, 1, 1, "key", "Cost bridge between two plans (docs/model.md, \"Cost bridge\"): type two plan names.")
    header(ws, 1, 2, LABEL_HEADER)
    for col, text in ((3, "Plan A"), (4, "Plan B"), (5, "B - A")):
        header(ws, 1, col, text)
    _plan_pickers(ws, scenario, names)
    section(ws, FIRST_PART_ROW - 1, "Cost per million output tokens (USD/Mtok): plan A, plan B and the step from A to B",
            5)
    rows = bridge_rows()
    listed = [p for p in BRIDGE_PARTS if p != "other"]

    def value(col: str, key: str) -> str:
        row = layout.result_rows[key]
        return f"INDEX({S.RESULTS}!$C${row}:${last}${row},1,{col}${COLUMN_ROW})"

    for part in BRIDGE_PARTS:
        row = rows[part]
        key_cell(ws, row, part)
        label_cell(ws, row, 2, LABELS[part], "USD/Mtok")
        for col in (A, B):
            if part == "other":
                parts = f"{col}{rows[listed[0]]}:{col}{rows[listed[-1]]}"
                core = f'IF(AND(ISNUMBER({col}{rows["total"]}),COUNT({parts})=ROWS({parts})),' \
                       f'{col}{rows["total"]}-SUM({parts}),{NA})'
            else:
                core = value(col, part_key(part))
            put(ws, row, 3 if col == A else 4, f"={core}", "formula", "USD/Mtok")
        step = (f"IF(AND(ISNUMBER(D{rows['total']}),ISNUMBER(C{rows['total']}),COUNT(E{rows[listed[0]]}:E{rows[listed[-1]]})"
                f"=ROWS(E{rows[listed[0]]}:E{rows[listed[-1]]})),D{rows['total']}-C{rows['total']}"
                f"-SUM(E{rows[listed[0]]}:E{rows[listed[-1]]}),{NA})" if part == "other"
                else f"IF(AND(ISNUMBER(D{row}),ISNUMBER(C{row})),D{row}-C{row},{NA})")
        put(ws, row, 5, f"={step}", "formula", "USD/Mtok")
    total = rows["total"]
    key_cell(ws, total, "total")
    label_cell(ws, total, 2, "Cost per million output tokens", "USD/Mtok")
    for col in (A, B):
        put(ws, total, 3 if col == A else 4, f"={value(col, TOTAL)}", "formula", "USD/Mtok")
    put(ws, total, 5, f"=IF(AND(ISNUMBER(D{total}),ISNUMBER(C{total})),D{total}-C{total},{NA})", "formula", "USD/Mtok")
    check = rows["check"]
    key_cell(ws, check, "check", "Plan A's cost + every step - plan B's cost: 0 (up to rounding).")
    label_cell(ws, check, 2, "Check: A + steps - B", "USD/Mtok")
    first, last_step = rows[BRIDGE_PARTS[0]], rows[BRIDGE_PARTS[-1]]
    put(ws, check, 5, f"=IF(ISNUMBER(E{total}),C{total}+SUM(E{first}:E{last_step})-D{total},{NA})", "formula", "USD/Mtok")
    ws.freeze_panes = "C2"
    widths(ws, {1: 16, 2: 40, 3: 22, 4: 22, 5: 22})
