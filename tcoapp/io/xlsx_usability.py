"""What makes the exported workbook easy to work in (FAST / ICAEW habits): dropdowns on the input
cells that name a catalog entry or a choice, and named ranges for every Plans input row (print setup:
xlsx_print)."""
from __future__ import annotations

from openpyxl.utils import get_column_letter, quote_sheetname
from openpyxl.workbook.defined_name import DefinedName
from openpyxl.worksheet.datavalidation import DataValidation

from ..engine.quantities.inputs import PLAN_FIELD_BY_NAME, POOL_FIELDS
from . import sheets as S

LIST_SOURCES = {"device": S.DEVICES, "prefill_device": S.DEVICES, "decode_device": S.DEVICES, "model": S.MODELS,
                "curve": S.CURVES, "price_tiers": S.PRICE_TIERS}
LAST_ROW = 1_048_576
LISTS_COLUMN = 8  # Constants sheet column where the unique name lists start (one column per list)


def write_lists(constants_ws, scenario) -> dict[str, str]:
    """Unique names of devices, models, curves and price tables on the Constants sheet; their ranges."""
    lists = {S.DEVICES: list(dict.fromkeys(scenario.all_device_names())), S.MODELS: list(scenario.all_model_names()),
             S.CURVES: list(scenario.curves), S.PRICE_TIERS: list(scenario.price_tiers)}
    ranges = {}
    for offset, (sheet, names) in enumerate(lists.items()):
        col = LISTS_COLUMN + offset
        letter = get_column_letter(col)
        constants_ws.cell(row=1, column=col, value=f"{sheet} names")
        for row, name in enumerate(names, start=2):
            constants_ws.cell(row=row, column=col).value = name
            constants_ws.cell(row=row, column=col).data_type = "s"
        last = max(2, len(names) + 1)
        ranges[sheet] = f"{quote_sheetname(constants_ws.title)}!${letter}$2:${letter}${last}"
    return ranges


def _validation(formula: str, prompt: str) -> DataValidation:
    dv = DataValidation(type="list", formula1=formula, allow_blank=True, showErrorMessage=True, errorStyle="warning",
                        error="Not in the list: the engine will look the name up in the shipped catalog too.",
                        errorTitle="tcoapp", prompt=prompt, showInputMessage=False)
    return dv


def add_dropdowns(plans_ws, pools_ws, plan_rows: dict[str, int], n_plans: int, n_pools: int, ranges) -> None:
    if n_plans:
        last = get_column_letter(S.FIRST_PLAN_COLUMN + n_plans - 1)
        first = get_column_letter(S.FIRST_PLAN_COLUMN)
        for key, row in plan_rows.items():
            field = PLAN_FIELD_BY_NAME[key]
            if key in LIST_SOURCES:
                dv = _validation(ranges[LIST_SOURCES[key]], field.help)
            elif field.type == "choice":
                dv = _validation(f'"{",".join(field.choices)}"', field.help)
            else:
                continue
            plans_ws.add_data_validation(dv)
            dv.add(f"{first}{row}:{last}{row}")
    if pools_ws is not None:
        table_dropdowns(pools_ws, POOL_FIELDS, ranges)


def table_dropdowns(ws, fields, ranges) -> None:
    """Dropdowns on a long table's columns naming a device or a choice, to the sheet's last row (a row added below
    the exported ones has them too)."""
    for col, field in enumerate(fields, start=1):
        if field.name == "device":
            dv = _validation(ranges[S.DEVICES], field.help)
        elif field.type == "choice":
            dv = _validation(f'"{",".join(field.choices)}"', field.help)
        else:
            continue
        ws.add_data_validation(dv)
        letter = get_column_letter(col)
        dv.add(f"{letter}{S.FIRST_ENTRY_ROW}:{letter}{LAST_ROW}")


def add_named_ranges(workbook, plan_rows: dict[str, int], n_plans: int) -> None:
    """in_<key> = the Plans row of that input over every plan (e.g. in_utilization)."""
    if not n_plans:
        return
    first, last = get_column_letter(S.FIRST_PLAN_COLUMN), get_column_letter(S.FIRST_PLAN_COLUMN + n_plans - 1)
    for key, row in plan_rows.items():
        name = f"in_{key}"
        workbook.defined_names[name] = DefinedName(name, attr_text=f"{S.PLANS}!${first}${row}:${last}${row}")
