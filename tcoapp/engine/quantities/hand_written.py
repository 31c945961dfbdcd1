"""The CashFlow and Results formula rows written by hand, each with the reason it is not a row of the quantity
table (docs/workbook_format.md, "Rows written by hand"). Every other formula row of those sheets is compiled from
the table: a year row's `expr=` / `pool_expr=` (finance.py, compiled by expr.py to the engine's numpy and to the
formula), a plan or pool quantity's `expr=`, or a rule over one of the table's columns (a plan row that is its
pools' sum, `summed`; a levelized row, `levelized`). tests/io/test_formula_sources.py lists every formula row of
a written workbook and fails on one that is neither.

Keys are base keys (a pool's row "pool2.depreciation_usd" is "depreciation_usd").
"""
from __future__ import annotations

# the reasons, one per kind of row
TAX = ("tax with losses carried forward: a running state each year reads from the year before, capped by "
       "tax_loss_limit (finance/timeline.tax_by_year)")
DEPRECIATION = ("depreciation schedules: straight line, half-year and MACRS tables by a tranche's age "
                "(CHOOSE over the Constants sheet's MACRS percentages), the replacements' depreciation a convolution "
                "over the years before, the horizon sale's gain over book value (finance/depreciation.py)")
DEBT = ("the debt annuity: the balance owed after j level payments, the balloon at the horizon, debt service and "
        "DSCR from the scheduled payments (finance/financing.py)")
RETURNS = ("NPV, IRR, payback, MIRR, ROI and their helpers: sums and root searches over the whole year range (IRR "
           "tried from several starting points, payback the last crossing of zero); the cumulative flows are running "
           "sums of the year before + this year, as the engine's cumsum adds (SUM() over a range would add in "
           "another order)")
LEVELIZED = ("levelized per-year values: the present value over the years x the capital recovery factor "
             "(SUMPRODUCT with the discount factors; mid-year discounting's factor 1 / their sum)")
DEMAND_CAP = ("the throughput index's demand cap: the engine is given a demand-sized plan's demand per year (NaN for "
              "the others), which the workbook has no cell for; the formula reads the sizing mode and the demand per "
              "day on Plans")
PERFORMANCE = "a metric of the operating point (the performance model's), not of the finance layer"
TEXT = "text: the cost inputs left at 0, named in words"
INPUTS = ("a copy or lookup of an input: Plans and Pools cells, the device's economics on Devices (INDEX/MATCH), the "
          "price tier (SUMPRODUCT over PriceTiers), the requests served, the sized device count (sizing.py's search "
          "over whole servers, SERVER_CAPEX its per-server cost)")
WACC = ("the weighted cost of capital: its tax shield is the tax the interest saved over the whole horizon over the "
        "interest paid (finance/financing.shield_rate), a ratio of sums over the year range")
AGENTIC = ("the agentic answer of a plan's first agentic class, read on the first pool that serves users: which pool "
           "that is differs per plan (pipeline/agentic_block.agentic_pool_index), a choice the table's expressions do "
           "not make (io/xlsx_agentic.py)")
STATUS = "the plan's status: whether its formulas are errors or its engine inputs changed (the Checks sheet)"

CASHFLOW: dict[str, str] = {
    "throughput_index": DEMAND_CAP,
    **dict.fromkeys(("depreciation_usd", "depreciation_rate_by_age", "replacement_depreciation_usd",
                     "disposal_gain_usd"), DEPRECIATION),
    **dict.fromkeys(("tax_usd", "loss_carried_usd", "levered_tax_usd", "levered_loss_carried_usd"), TAX),
    **dict.fromkeys(("interest_usd", "principal_usd", "balloon_usd", "debt_service_usd", "dscr", "min_dscr"), DEBT),
    **dict.fromkeys((
        "cumulative_cash_flow_usd", "discounted_cash_flow_usd", "cumulative_discounted_cash_flow_usd",
        "payback_year_fraction", "discounted_payback_year_fraction", "flow_last_sign", "flow_sign_change",
        "cumulative_last_sign", "cumulative_sign_change", "equity_flow_last_sign", "equity_flow_sign_change",
        "equity_cumulative_last_sign", "equity_cumulative_sign_change", "npv_usd", "irr_guess_flows",
        "irr_guess_first_year", "irr_guess_last_year", "irr_floor", "irr", "payback_months",
        "discounted_payback_months", "equity_npv_usd", "equity_irr_floor", "equity_irr"), RETURNS),
}
# (a pool's depreciation is its own row, "pool1.depreciation_usd"; the plan's is the table's expression: see
# CASHFLOW_POOL_ONLY)
CASHFLOW_POOL_ONLY = frozenset({"depreciation_usd"})   # hand-written per pool only
CASHFLOW_PREFIXED = ("irr_attempt_", "equity_irr_attempt_")  # IRR() from each starting point: RETURNS

RESULTS: dict[str, str] = {
    **dict.fromkeys(("plan_check", "master_check"), STATUS),
    "tokens_per_joule": PERFORMANCE,
    **dict.fromkeys(("capital_recovery_factor", "capex_usd_per_year", "racks_in_service", "device_count_in_service"),
                    LEVELIZED),
    "costs_not_entered": TEXT,
    **dict.fromkeys(("npv_usd", "irr", "payback_months", "discounted_payback_months", "mirr", "roi", "equity_npv_usd",
                     "equity_irr", "npv_at_wacc_usd"), RETURNS),
    "unused_tax_loss_usd": TAX,
    "min_dscr": DEBT,
    "wacc": WACC,
    **dict.fromkeys(("agents_per_mw", "cost_per_agent_hour_usd"), AGENTIC),
}


def cashflow_reason(key: str, pool: bool) -> str | None:
    """Why the CashFlow row `key` (a base key; `pool`: a pool's row) is written by hand; None: it is not."""
    if key in CASHFLOW_POOL_ONLY and not pool:
        return None
    if key.startswith(CASHFLOW_PREFIXED):
        return RETURNS
    return CASHFLOW.get(key)


def results_reason(key: str, pool: bool, inputs: frozenset[str]) -> str | None:
    """Why the Results row `key` (a base key; `pool`: a pool's row) is written by hand; None: it is not. `inputs`:
    the pool block's rows that copy or look up an input, or are the sized device count."""
    if pool:
        return INPUTS if key in inputs else None
    return RESULTS.get(key)
