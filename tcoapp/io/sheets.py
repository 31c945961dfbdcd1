"""Names and layout constants of the scenario workbook (DESIGN section 8), shared by reader and writer."""
from __future__ import annotations

PLANS = "Plans"
DEVICES = "Devices"
MODELS = "Models"
CURVES = "Curves"
PRICE_TIERS = "PriceTiers"
CALIBRATION = "Calibration"
RESULTS = "Results"
CASH_FLOW = "CashFlow"
ABOUT = "About"

INPUT_SHEETS = (PLANS, DEVICES, MODELS, CURVES, PRICE_TIERS, CALIBRATION)
OUTPUT_SHEETS = (RESULTS, CASH_FLOW, ABOUT)
KNOWN_SHEETS = INPUT_SHEETS + OUTPUT_SHEETS

FIRST_PLAN_COLUMN = 3   # C: column A holds the key, B the unit
FIRST_ENTRY_ROW = 3     # table sheets: row 1 keys, row 2 units

MAX_UNCOMPRESSED_BYTES = 200 * 1024 * 1024
MAX_COMPRESSION_RATIO = 200
