"""Readable labels beside the keys of the output sheets (column B: "label (unit)").

A label comes from where the key is defined (the metric table, the Plans, Pools and Devices fields);
the finance intermediates and the CashFlow lines, which have no field, are named here.
"""
from __future__ import annotations

from ..engine.quantities.inputs import DEVICE_FIELDS, PLAN_FIELDS, POOL_FIELDS
from ..engine.quantities.finance import COMPONENT_KEYS, YEAR_QUANTITIES
from ..engine.quantities.metrics import METRIC_BY_KEY
from .xlsx_layout import IRR_ATTEMPTS, IRR_GUESSES, base_key

RESULT_LABELS = {
    "plan_check": "Is this plan current?",
    "hardware_capex_usd": "Hardware capex (devices + servers)",
    "capital_recovery_factor": "Capital recovery factor",
    "input_tokens_per_year": "Input tokens per year",
    "uncached_input_tokens_per_year": "Uncached input tokens per year",
    "cached_input_tokens_per_year": "Cached input tokens per year",
    "uncached_input_revenue_usd_per_year": "Revenue of uncached input tokens per year",
    "cached_input_revenue_usd_per_year": "Revenue of cached input tokens per year",
    "output_revenue_usd_per_year": "Revenue of output tokens per year",
    "colocation_usd_per_year": "Colocation per year",
    "maintenance_usd_per_year": "Maintenance per year",
    "software_usd_per_year": "Software per year",
    "rent_usd_per_year": "Rent per year",
    "staff_usd_per_year": "Staff per year",
    "costs_not_entered": "Costs not entered",
    "prefill_share_of_device_time": "Prefill share of device time",
    "net_usd_per_year": "Net (revenue - opex) per year",
    "owned": "Owned (1) or rented (0)",
    "prefill_share": "Prefill share of device time",
    "server_nameplate_w": "Server nameplate power",
    "device_avg_w": "Average power per device",
    "price_usd_per_million_output_tokens": "Output price (or its tier)",
    "warnings": "Notes from the engine",
    "serving": "Configuration chosen by the search",
    "prediction_interval": "Prediction interval (80 %)",
    "frontier_share": "Share of its frontier (tokens/s per device)",
    **{key: f"Cost per million output tokens: {part.replace('_', ' ')}" for part, key in COMPONENT_KEYS.items()},
    **{q.annual_key: f"{q.label} per year" for q in YEAR_QUANTITIES if q.label},
}
CASHFLOW_LABELS = {
    "discounted_cash_flow_usd": "Discounted cash flow", "cumulative_discounted_cash_flow_usd": "Cumulative discounted cash flow",
    "discounted_payback_year_fraction": "Helper: discounted payback crossing (year)",
    "discounted_payback_months": "Discounted payback",
    "price_index": "Token price index", "electricity_index": "Electricity price index",
    "cost_index": "Cost index (colocation, maintenance, software, staff, rent)", "utilization": "Utilization",
    "output_tokens": "Output tokens", "input_tokens": "Input tokens", "revenue_usd": "Revenue",
    "uncached_input_revenue_usd": "Revenue of uncached input tokens", "cached_input_revenue_usd": "Revenue of cached input tokens",
    "energy_usd": "Energy", "colocation_usd": "Colocation", "maintenance_usd": "Maintenance",
    "software_usd": "Software", "rent_usd": "Rent", "staff_usd": "Staff", "opex_usd": "Opex (outflow)",
    "capex_usd": "Capex (outflow)", "residual_value_usd": "Residual value at the horizon",
    "depreciation_usd": "Depreciation", "disposal_gain_usd": "Gain on the horizon sale (over book value)",
    "taxable_income_usd": "Taxable income",
    "loss_carried_usd": "Loss carried forward", "tax_usd": "Tax", "cash_flow_usd": "Cash flow",
    "cumulative_cash_flow_usd": "Cumulative cash flow", "discount_factor": "Discount factor",
    "payback_year_fraction": "Helper: payback crossing (year)", "flow_last_sign": "Helper: last sign of the flow",
    "flow_sign_change": "Helper: flow changes sign", "cumulative_last_sign": "Helper: last sign of the cumulative flow",
    "cumulative_sign_change": "Helper: cumulative flow changes sign", "npv_usd": "NPV",
    "irr_guess_engine": "Helper: IRR start, the engine's", "irr_guess_flows": "Helper: IRR start from the flows",
    "irr_guess_first_year": "Helper: IRR start from year 1", "irr_guess_last_year": "Helper: IRR start from the last year",
    "irr_floor": "Helper: lowest unique IRR", "irr": "IRR", "payback_months": "Payback",
    "active": "Serving this year",
    "debt_drawn_usd": "Debt drawn", "interest_usd": "Interest", "principal_usd": "Principal repaid",
    "debt_service_usd": "Debt service (interest + principal, the balloon included)",
    "replacement_capex_usd": "Replacements of failed devices (outflow)",
    "depreciation_rate_by_age": "Depreciation rate at this age (the replacements' schedule)",
    "replacement_depreciation_usd": "Depreciation of the replacements",
    "throughput_index": "Throughput index (software speed)", "hardware_price_index": "Hardware price index",
    "replacement_value_fraction": "Value at the horizon of this year's replacements (fraction of price)",
    "replacement_residual_value_usd": "Replacements' value at the horizon",
    "levered_taxable_income_usd": "Taxable income after interest", "levered_loss_carried_usd": "Loss carried (after interest)",
    "levered_tax_usd": "Tax after interest", "equity_cash_flow_usd": "Equity cash flow", "dscr": "DSCR",
    "equity_npv_usd": "Equity NPV", "equity_irr_guess_engine": "Helper: equity IRR start, the engine's",
    **{f"equity_irr_attempt_{i}": f"Helper: equity IRR() from start {i}" for i in range(1, 4)},
    "equity_irr": "Equity IRR", "min_dscr": "Min DSCR",
    "equity_flow_last_sign": "Helper: last sign of the equity flow", "equity_flow_sign_change": "Helper: equity flow changes sign",
    "equity_cumulative_last_sign": "Helper: last sign of the cumulative equity flow",
    "equity_cumulative_sign_change": "Helper: cumulative equity flow changes sign",
    "equity_irr_floor": "Helper: lowest unique equity IRR",
    **{key: f"Helper: IRR() from start {i}" for i, key in enumerate(IRR_ATTEMPTS, start=1)},
    **{q.key: q.label for q in YEAR_QUANTITIES if q.label},
}
assert len(IRR_ATTEMPTS) == len(IRR_GUESSES)
_FIELD_LABELS = {f.name: f.label for fields in (DEVICE_FIELDS, POOL_FIELDS, PLAN_FIELDS) for f in fields}


def _split(key: str) -> tuple[str, str]:
    """ "pool2.capex_usd" -> ("Pool 2: ", "capex_usd")."""
    base = base_key(key)
    return (f"Pool {key[4:key.index('.')]}: ", base) if base != key else ("", key)


def result_label(key: str) -> str:
    prefix, base = _split(key)
    if base in RESULT_LABELS:
        return prefix + RESULT_LABELS[base]
    if base in METRIC_BY_KEY:
        return prefix + METRIC_BY_KEY[base].label
    return prefix + _FIELD_LABELS.get(base, base.replace("_", " ").capitalize())


def cashflow_label(key: str) -> str:
    prefix, base = _split(key)
    return prefix + CASHFLOW_LABELS.get(base, base.replace("_", " ").capitalize())


