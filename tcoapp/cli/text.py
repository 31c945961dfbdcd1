"""`tcoapp compute FILE` without --json: the plans as a person reads them, within 100 columns.

First the ranking (cost per million output tokens at the target, lowest first) with a plain
sentence when the plans do not serve the same model and workload; then one block per plan: what it
runs, its metrics grouped with readable labels and units, its pools and its notes.
"""
from __future__ import annotations

import textwrap

from ..engine.decision import summary as decision
from ..engine.decision.summary import OBJECTIVES
from ..engine.decision.choice import decide
from ..present.agentic_text import agentic_sentence
from ..present.anchor import anchor_sentence
from ..present.config_gains import gains_sentence
from ..present.decision_text import objective_value, ranked_label, reason
from ..present.labels import in_sentence
from ..engine.pipeline.compute import METRIC_KEYS
from ..engine.quantities.metrics import METRIC_BY_KEY, TEXT_GROUPS
from ..present.class_lines import class_lines
from ..present.values import metric_value, percent, usd

WIDTH = 100
GROUPS = TEXT_GROUPS  # the metric table's text_group column
LABEL_WIDTH = 36


def _wrap(text: str, indent: str, first: str | None = None) -> list[str]:
    return textwrap.wrap(text, WIDTH, initial_indent=indent if first is None else first, subsequent_indent=indent,
                         break_long_words=True, break_on_hyphens=False)


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[:width - 1] + "…"


_SHORT = {"cost_per_million_output_tokens_usd": "cost/Mtok", "npv_usd": "NPV", "equity_npv_usd": "equity NPV",
          "revenue_usd_per_rack_per_year": "rev/rack/yr", "revenue_usd_per_mw_per_year": "rev/MW/yr"}


def _columns(objective: str) -> tuple[str, ...]:
    """The ranking's number columns: the objective first, then what a buyer also reads."""
    others = (("npv_usd", "irr", "payback_months") if objective not in ("npv_usd", "equity_npv_usd")
              else ("cost_per_million_output_tokens_usd", "irr", "payback_months"))
    return (objective,) + tuple(k for k in others if k != objective)


def _cell(result, key: str) -> str:
    m = result.metrics
    if key in _SHORT and key not in METRIC_BY_KEY:   # revenue per MW: the decision's own quantity
        return "n/a"
    text = metric_value(key, result.metric_or_none(key), m)
    for long, short in ((" per Mtok", ""), (" per year", ""), (" months", " mo"), (" per rack", "")):
        text = text.replace(long, short)
    return text


def ranking_lines(scenario, results, objective: str | None = None) -> list[str]:
    """The decision (engine/decision/choice.py in words), then every plan ranked by its objective."""
    d = decide(scenario, results, objective)
    lines = _wrap("Decision: " + reason(d), "  ", "")
    lines += _wrap(f"Plans ranked by {ranked_label(d)} "
                   f"({'lowest' if OBJECTIVES[d.objective][2] == 'low' else 'highest'} first): {d.basis}.", "  ", "")
    note = decision.comparability_note(scenario.plans)
    if note:
        lines += _wrap(note + ".", "  ")
    lines.append("")
    keys = _columns(d.objective)
    heads = [_SHORT.get(k, METRIC_BY_KEY[k].label if k in METRIC_BY_KEY else k) for k in keys]
    head = f"{'#':>2}  {'plan':<42}" + "".join(f" {h:>12}" for h in heads)
    lines += [head, "-" * len(head)]
    for rank, s in enumerate(d.summaries, 1):
        r = results[s.index]
        cells = [objective_value(d.objective, s.value).replace(" per Mtok", "").replace(" per MW per year", "")
                 .replace(" per rack per year", "")] + [_cell(r, k) for k in keys[1:]]
        lines.append(f"{rank if s.exists else '-':>2}  {_cut(s.name, 42):<42}" + "".join(f" {c:>12}" for c in cells))
        if s.fleet and s.fleet != s.device:
            lines.append(_cut(f"    {s.fleet}", WIDTH))
    return lines


def plan_lines(plan, result) -> list[str]:
    title = f"== {result.name} "
    lines = [_cut(title + "=" * max(0, WIDTH - len(title)), WIDTH)]
    shape = (f"{decision.workload_text(decision.workload_of(plan))} tokens per request" if not plan.workloads else
             (f"A mix of {len(plan.workloads)} request classes ({', '.join(c.class_ for c in plan.workloads)})"
              if len(plan.workloads) > 1 else f"One request class ({plan.workloads[0].class_})"))
    lines += _wrap(f"{shape}. {decision.reason(plan, result, with_notes=False)}", "  ")
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
            lines += _frontier_lines(result) + _anchor_lines(result) + _gains_lines(result) + _agentic_lines(result)
    classes = class_lines(result)
    if classes:
        lines.append("Request classes")
        for line in classes:
            lines += _wrap(line, "    ", "  ")
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
        why = ("a mix of request classes: see one class's" if getattr(result, "workloads", ()) else
               "a fleet of several pools" if len(result.pools) > 1 else
               "a measured curve" if result.pools and result.pools[0].curve else "no configuration meets the target")
        return [label + f"n/a ({why})"]
    text = (f"{percent(result.frontier_share)} of {result.frontier.tokens_per_s_per_device:,.0f} tokens/s "
            f"({result.frontier.text})")
    return _labelled("Share of its frontier", text)


def _anchor_lines(result) -> list[str]:
    """published_anchor: the nearest shipped measurement and the plan's ratio to it (generated curves)."""
    label = f"  {'Published anchor':<{LABEL_WIDTH}}"
    anchor = getattr(result, "published_anchor", None)
    if getattr(result, "workloads", ()):
        return [label + "n/a (a mix of request classes)"]
    if not anchor:
        return [] if not str(result.point.source).startswith("generated") else [label + "none in the shipped measurements"]
    return _labelled("Published anchor", anchor_sentence(anchor))


def _gains_lines(result) -> list[str]:
    """configuration_gains: the plan's tokens/s per device as the validated base x each configuration gain."""
    gains = getattr(result, "configuration_gains", None)
    return _labelled("Configuration gains", gains_sentence(gains)) if gains else []


def _agentic_lines(result) -> list[str]:
    """The agentic answer of a plan with an agentic request class (none otherwise)."""
    answer = getattr(result, "agentic", None)
    return _labelled("Agentic sessions", agentic_sentence(answer)) if answer else []


def _labelled(title: str, sentence: str) -> list[str]:
    """`sentence` wrapped under a block's label column, its first line after `title`."""
    label = f"  {title:<{LABEL_WIDTH}}"
    return _wrap(sentence, " " * len(label), label)


def compute_text(scenario, results, objective: str | None = None) -> str:
    """The whole text of `tcoapp compute FILE`: the decision and the ranking, then one block per plan,
    no line over 100."""
    lines = ranking_lines(scenario, results, objective)
    for plan, result in zip(scenario.plans, results):
        lines += [""] + plan_lines(plan, result)
    return "\n".join(lines)


__all__ = ["compute_text", "percent", "WIDTH"]
