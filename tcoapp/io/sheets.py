"""Names and layout constants of the scenario workbook (docs/workbook_format.md), shared by reader and writer."""
from __future__ import annotations

PLANS = "Plans"
DEVICES = "Devices"
MODELS = "Models"
CURVES = "Curves"
PRICE_TIERS = "PriceTiers"
CALIBRATION = "Calibration"
POOLS = "Pools"
WORKLOADS = "Workloads"
UNCERTAINTY = "Uncertainty"
MONTE_CARLO = "MonteCarlo"
MONTE_CARLO_DRAWS = "MonteCarloDraws"
RESULTS = "Results"
CASH_FLOW = "CashFlow"
CONSTANTS = "Constants"
ABOUT = "About"
CHECKS = "Checks"
SUMMARY = "Summary"
BRIDGE = "Bridge"
PRINTED_TABLES = "PrintedTables"

INPUT_SHEETS = (PLANS, POOLS, WORKLOADS, DEVICES, MODELS, CURVES, PRICE_TIERS, CALIBRATION, UNCERTAINTY)
OUTPUT_SHEETS = (SUMMARY, RESULTS, CASH_FLOW, CHECKS, CONSTANTS, ABOUT, MONTE_CARLO, MONTE_CARLO_DRAWS, BRIDGE,
                 PRINTED_TABLES)
KNOWN_SHEETS = INPUT_SHEETS + OUTPUT_SHEETS

FIRST_PLAN_COLUMN = 3   # C: column A holds the key, B the unit
FIRST_ENTRY_ROW = 3     # table sheets: row 1 keys, row 2 units

# About sheet: key in column A, value in column B
ABOUT_APP_KEY = "app"
ABOUT_VERSION_KEY = "app_version"
ABOUT_SCHEMA_KEY = "schema_version"
ABOUT_WRITTEN_KEY = "written_utc"

# Refuse hostile or absurd files before parsing (an exported 20-plan workbook with 5,000 curve
# points unpacks to about 2 MB).
MAX_UNCOMPRESSED_BYTES = 128 * 1024 * 1024
MAX_COMPRESSION_RATIO = 200
MAX_MEMBER_BYTES = 64 * 1024 * 1024    # one XML part
MAX_CELLS = 1_000_000                  # input cells holding a value or a formula, over all sheets (~90,000 curve points)
MAX_SHARED_STRINGS = 1_000_000         # strings in the shared string table (an exported workbook has a few thousand)
MAX_PLANS = 1_000                      # plan columns on Plans
XML_PROLOG_SCAN_BYTES = 64 * 1024      # where a DOCTYPE / ENTITY declaration would sit
