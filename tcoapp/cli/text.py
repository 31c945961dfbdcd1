"""`tcoapp compute FILE` without --json: the plans as a person reads them, within 100 columns.

First the ranking (cost per million output tokens at the target, lowest first) with a plain
sentence when the plans do not serve the same model and workload; then one block per plan: what it
runs, its metrics grouped with readable labels and units, its pools and its notes.
"""
from __future__ import annotations

import textwrap

from ..engine import decision
from ..engine.compute import METRIC_KEYS
from ..engine.quantities.metrics import METRIC_BY_KEY, TEXT_GROUPS
from ..present.values import metric_value, percent, usd

WIDTH = 100
RANK_BY = "cost_per_million_output_tokens_usd"
GROUPS = TEXT_GROUPS  # the metric table's text_group column
LABEL_WIDTH = 36


def _wrap(text: str, indent: str, first: str | None = None) -> list[str]:
    return textwrap.wrap(text, WIDTH, initial_indent=indent if first is None else first, subsequent_indent=indent,
                         break_long_words=True, break_on_hyphens=False)


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[:width - 1] + "…"


def ranking_lines(plans, results) -> list[str]:
    summaries = decision.summarize(plans, results, RANK_BY)
    order = decision.ranked(summaries, RANK_BY)
    lines = ["Plans ranked by cost per million output tokens at the target (lowest first)"]
    note = decision.comparability_note(plans)
    if note:
        lines += _wrap(note + ".", "  ")
    lines.append("")
    head = f"{'#':>2}  {'plan':<46} {'cost/Mtok':>11} {'NPV':>16} {'IRR':>9} {'payback':>10}"
    lines += [head, "-" * len(head)]
    for rank, s in enumerate(order, 1):
        m = results[s.index].metrics
        cost = metric_value(RANK_BY, results[s.index].metric_or_none(RANK_BY)).replace(" per Mtok", "")
        npv = metric_value("npv_usd", results[s.index].metric_or_none("npv_usd"), m)
        irr = metric_value("irr", results[s.index].metric_or_none("irr"), m).replace(" per year", "")
        payback = metric_value("payback_months", results[s.index].metric_or_none("payback_months"), m)
        payback = payback.replace(" months", " mo")
        lines.append(f"{rank if s.exists else '-':>2}  {_cut(s.name, 46):<46} {cost:>11} {npv:>16} {irr:>9} "
                     f"{payback:>10}")
    return lines


def plan_lines(plan, result) -> list[str]:
    title = f"== {result.name} "
    lines = [_cut(title + "=" * max(0, WIDTH - len(title)), WIDTH)]
    lines += _wrap(f"{decision.workload_text(decision.workload_of(plan))} tokens per request. "
                   f"{decision.reason(plan, result, with_notes=False)}", "  ")
    for heading, keys in GROUPS:
        rows = [k for k in keys if k in METRIC_KEYS]
        if not rows:
            continue
        lines.append(heading)
        for key in rows:
            label = METRIC_BY_KEY[key].label
            value = metric_value(key, result.metric_or_none(key), result.metrics)
            lines.append(_cut(f"  {label:<{LABEL_WIDTH}}{value}", WIDTH))
        if heading == "Operating point":
            lines += _frontier_lines(result)
    pools = result.pool_rows()
    if len(pools) > 1:
        lines.append("Pools")
        for row in pools:
            count = "no" if row["device_count"] is None else f"{row['device_count']:,.0f}"
            capex = "" if row.get("capex_usd") is None else f", capex {usd(row['capex_usd'])}"
            lines += _wrap(f"{row['role']} {row['pool']!r}: {count} x {row['device']}, "
                           f"{row.get('servers') or 0:,.0f} servers in {row.get('racks') or 0:,.0f} racks{capex}",
                           "    ", "  ")
    if result.warnings:
        lines.append("Notes")
        for w in result.warnings:
            lines += _wrap(w, "    ", "  - ")
    return lines


def _frontier_lines(result) -> list[str]:
    """frontier_share: the plan's tokens/s per device over the best its device reaches at the target."""
    label = f"  {'Share of its frontier':<{LABEL_WIDTH}}"
    if result.frontier is None or result.frontier_share != result.frontier_share:
        why = ("a fleet of several pools" if len(result.pools) > 1 else
               "a measured curve" if result.pools and result.pools[0].curve else "no configuration meets the target")
        return [label + f"n/a ({why})"]
    text = (f"{percent(result.frontier_share)} of {result.frontier.tokens_per_s_per_device:,.0f} tokens/s "
            f"({result.frontier.text})")
    return _wrap(text, " " * len(label), label)


def compute_text(plans, results) -> str:
    """The whole text of `tcoapp compute FILE`: ranking, then one block per plan, no line over 100."""
    lines = ranking_lines(plans, results)
    for plan, result in zip(plans, results):
        lines += [""] + plan_lines(plan, result)
    return "\n".join(lines)


__all__ = ["compute_text", "percent", "WIDTH"]
