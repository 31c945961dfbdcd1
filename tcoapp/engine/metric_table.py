"""The one table of every output metric (docs/workbook_format.md): label, unit, which way is better, help.

The CLI, the Results sheet and the GUI take their labels and units from here, as inputs take
theirs from `fields.py`.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Metric:
    key: str
    label: str
    unit: str
    better: str  # "high", "low" or "" (no preferred direction)
    help: str


def _m(key, label, unit, better, help_) -> Metric:
    return Metric(key, label, unit, better, help_)


METRICS: tuple[Metric, ...] = (
    _m("batch", "Batch (operating point)", "sequences", "", "Concurrent sequences per replica at the operating point."),
    _m("tokens_per_s_per_device", "Tokens/s per device", "tokens/s", "high", "Output tokens/s per device at the operating point."),
    _m("tokens_per_s_per_user", "Tokens/s per user", "tokens/s", "high", "Output tokens/s each sequence sees (interactivity)."),
    _m("ttft_s", "Time to first token", "s", "low", "Time from a request's arrival to its first output token."),
    _m("power_w", "Power per device", "W", "", "Device power while serving at the operating point."),
    _m("tokens_per_joule", "Tokens per joule", "tokens/J", "high", "tokens/s per device / power_w (= tokens/s/W)."),
    _m("max_batch_by_memory", "Max batch by memory", "sequences", "", "Largest batch whose weights and KV cache fit in memory."),
    _m("device_count", "Devices", "devices", "", "Accelerators bought (after sizing)."),
    _m("servers", "Servers", "servers", "", "ceil(device_count / devices_per_server)."),
    _m("racks", "Racks", "racks", "low", "ceil(servers / servers_per_rack); empty where a server exceeds the rack power cap."),
    _m("servers_per_rack", "Servers per rack", "servers", "", "min(servers_per_rack_max, floor(rack cap / server nameplate))."),
    _m("it_avg_kw", "Average IT power", "kW", "", "Devices at utilization-weighted power plus server overhead."),
    _m("it_provisioned_kw", "Provisioned IT power", "kW", "", "Servers at nameplate power."),
    _m("capex_usd", "Capex", "USD", "", "Hardware x (1 + other capex fraction)."),
    _m("capex_usd_per_year", "Capex per year (capital recovery)", "USD/yr", "", "(capex - discounted residual) x capital recovery factor."),
    _m("opex_usd_per_year", "Opex per year", "USD/yr", "", "Energy + colocation + maintenance + software + rent + staff; levelized over the years (the year's opex when nothing changes by year)."),
    _m("energy_usd_per_year", "Energy per year", "USD/yr", "", "it_avg_kw x PUE x 8760 h x electricity price; levelized over the years."),
    _m("output_tokens_per_year", "Output tokens per year", "tokens/yr", "high", "tokens/s per device x devices x utilization x seconds per year; levelized over the years."),
    _m("cost_per_million_output_tokens_usd", "Cost per million output tokens", "USD/Mtok", "low", "Levelized: present value of capex less residual plus opex, over the present value of output tokens, x 1e6 (= (capex per year + opex per year) / output tokens when nothing changes by year)."),
    _m("cost_per_million_total_tokens_usd", "Cost per million total tokens", "USD/Mtok", "low", "The same cost over output + input tokens."),
    _m("cost_per_million_input_tokens_usd", "Cost per million input tokens", "USD/Mtok", "low", "The cost share of prefill (the prefill share of device time) over the input tokens; n/a for measured curves, whose prefill share is unknown."),
    _m("revenue_usd_per_year", "Revenue per year", "USD/yr", "high", "Output and input tokens at their prices; levelized over the years."),
    _m("revenue_usd_per_rack_per_year", "Revenue per rack per year", "USD/rack/yr", "high", "Revenue per year / racks."),
    _m("npv_usd", "NPV", "USD", "high", "Cash flows discounted at the discount rate (year 0 undiscounted)."),
    _m("irr", "IRR", "fraction/yr", "high", "Rate at which NPV = 0; empty where none exists."),
    _m("payback_months", "Payback", "months", "low", "The earliest time after which the cumulative cash flow stays >= 0 up to the horizon (a later dip below 0 moves it); 0 where it is never below 0; 'never' where it is below 0 at the horizon."),
    _m("roi", "ROI", "fraction", "high", "Sum of the flows of years 1..n (later tranches' capex added back) / capex - 1."),
    _m("equity_npv_usd", "Equity NPV", "USD", "high", "The equity holder's flows (capex less debt drawn, operations, interest and principal, tax with interest deducted) discounted at equity_discount_rate; = NPV without debt."),
    _m("equity_irr", "Equity IRR", "fraction/yr", "high", "Rate at which the equity NPV = 0; empty where none exists; = IRR without debt."),
    _m("min_dscr", "Min DSCR", "ratio", "high", "Debt service coverage, worst year: (revenue - opex - tax) / (interest + scheduled principal); empty without debt."),
)

METRIC_BY_KEY = {m.key: m for m in METRICS}


def missing_text(key: str, metrics=None) -> str:
    """How a metric that does not exist reads: payback is "never" when the plan has cash flows that
    never turn positive, "n/a" when the plan has no cash flows at all (no operating point, no capex)."""
    if key != "payback_months":
        return "n/a"
    npv = None if metrics is None else metrics.get("npv_usd")
    has_flows = metrics is None or (npv is not None and npv == npv and abs(npv) != float("inf"))
    return "never" if has_flows else "n/a"
