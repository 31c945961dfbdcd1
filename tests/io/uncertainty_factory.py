"""An Uncertainty sheet added to the hand-made CLI workbook (tests/cli/workbook_factory.py)."""
import openpyxl

from tcoapp.engine.uncertainty.fields import UNCERTAINTY_FIELDS

from ..cli.workbook_factory import write_workbook

KEYS = [f.name for f in UNCERTAINTY_FIELDS]
GOOD_ROWS = [
    {"plan": "*", "key": "utilization", "distribution": "pert", "low": 0.4, "mode": 0.6, "high": 0.8,
     "source": "ASSUMPTION"},
    {"plan": "Acme big", "key": "price_usd_per_million_output_tokens", "distribution": "triangular",
     "low": 1.0, "mode": 1.5, "high": 2.0, "group": "market"},
    {"plan": "Acme small", "key": "price_usd_per_million_output_tokens", "distribution": "uniform",
     "low": 0.1, "high": 0.3, "group": "market"},
    {"plan": "*", "key": "electricity_usd_per_kwh", "distribution": "lognormal", "mean": 0.1, "sd": 0.02},
    {"plan": "Acme big", "key": "device.price_usd", "distribution": "normal", "mean": 20000, "sd": 2000},
]


def write_uncertain_workbook(path, rows=GOOD_ROWS):
    write_workbook(path)
    wb = openpyxl.load_workbook(path)
    ws = wb.create_sheet("Uncertainty")
    ws.append(KEYS)
    ws.append([f.unit for f in UNCERTAINTY_FIELDS])
    for row in rows:
        ws.append([row.get(k) for k in KEYS])
    wb.save(path)
    return path
