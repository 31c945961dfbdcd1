"""One name per key: the label and unit every surface shows for a key of the quantity table (the
Results and CashFlow sheets, the GUI years table, the report, the API's frames). A key is a row in
each scope it is in (`capex_usd` is a pool, plan and year quantity and a metric); its rows carry one
label and one unit between them (tests/engine/test_names.py), read here. A year row's levelized
value (`energy_usd_per_year`) without a row label of its own is named after its year row
("Energy per year")."""
from __future__ import annotations

from .finance import YEAR_QUANTITIES
from .table import ROWS

CODE_UNIT = "code"  # a finance input's choice as its index: the field's own unit is the one shown


def _labels() -> dict[str, str]:
    out: dict[str, str] = {}
    for row in ROWS:
        if row.label:
            out.setdefault(row.key, row.label)
    for q in YEAR_QUANTITIES:
        if q.label:
            out.setdefault(q.annual_key, f"{q.label} per year")
    return out


def _units() -> dict[str, str]:
    out: dict[str, str] = {}
    for row in ROWS:
        if row.unit and row.unit != CODE_UNIT:
            out.setdefault(row.key, row.unit)
    return out


LABEL_BY_KEY: dict[str, str] = _labels()
UNIT_BY_KEY: dict[str, str] = _units()


def label(key: str) -> str:
    """The key's one label ("" where no row names it)."""
    return LABEL_BY_KEY.get(key, "")


def unit(key: str) -> str:
    """The key's one unit ("" where it has none)."""
    return UNIT_BY_KEY.get(key, "")
