"""The decision report a finance committee reads (docs/user_guide.md, "Decision report"), as HTML:
the ranked plans with their reasons and breakevens, the charts (images the caller renders, named
here), the assumptions of every plan including the costs not entered, the sources of the devices,
models and prices, and the Monte Carlo summary when the scenario has uncertain inputs.

Pure text: `gui/report_pdf.py` lays it out with Qt (QTextDocument) and prints it to PDF, for File >
Export report and `tcoapp report FILE --out report.pdf` alike.
"""
from __future__ import annotations

import datetime
from html import escape

from ..io.versions import APP_VERSION
from ..engine import decision
from ..engine.compute import not_entered
from ..engine.quantities.inputs import PLAN_FIELD_BY_NAME
from .values import choice_label, metric_value, percent, plain, usd

RANK_BY = "cost_per_million_output_tokens_usd"
CHARTS = (("cost_chart", "Cost per million output tokens at the target, per plan"),
          ("cashflow_chart", "Cumulative cash flow by year, per plan"))
ASSUMPTION_KEYS = ("device", "model", "input_tokens", "output_tokens", "min_tokens_per_s_per_user", "max_ttft_s",
                   "serving_search", "sizing_mode", "utilization", "years", "discount_rate", "pue",
                   "electricity_usd_per_kwh", "price_usd_per_million_output_tokens", "price_usd_per_million_input_tokens",
                   "price_tiers", "price_change_per_year", "other_capex_fraction", "residual_value_fraction", "tax_rate")


def _e(text) -> str:
    return escape(str(text))


def _input_text(plan, key: str) -> str:
    field = PLAN_FIELD_BY_NAME[key]
    value = getattr(plan, key)
    if value is None or value == "":
        return "not set"
    if field.unit.startswith("fraction"):
        return percent(float(value)) + (" per year" if field.unit.endswith("/yr") else "")
    if field.type in ("int", "float"):
        unit = f" {field.unit}" if field.unit and field.unit != "ratio" else ""
        return f"{plain(float(value))}{unit}"
    if field.type == "choice":
        return choice_label(value)
    return str(value)


def report_html(scenario, results, title: str, simulation_json: dict | None = None) -> str:
    """The whole report; `simulation_json` is `engine.uncertainty.report.simulation_json` of a run (or
    None). Images are referenced by the names in CHARTS."""
    plans = scenario.plans
    summaries = decision.summarize(plans, results, RANK_BY, scenario.all_device_names())
    order = decision.ranked(summaries, RANK_BY)
    parts = [f"<h1>Decision report: {_e(title)}</h1>",
             f"<p>tcoapp {APP_VERSION}, {datetime.date.today().isoformat()}. Plans ranked by cost per million output "
             "tokens at their interactivity target (lowest first). Every number is computed by the tcoapp engine "
             "from the scenario's inputs; estimates are marked in the sources.</p>"]
    parts += _headline(plans, order, summaries)
    parts += _ranking(order, results)
    parts += _reasons(order)
    parts.append("<h2>Charts</h2>")
    for name, caption in CHARTS:
        parts.append(f"<p><b>{_e(caption)}</b><br><img src='{name}' width='640'></p>")
    parts += _assumptions(plans)
    if simulation_json is not None:
        parts += _monte_carlo(simulation_json)
    parts += _sources(scenario, plans)
    return "<html><body>" + "\n".join(parts) + "</body></html>"


def _headline(plans, order, summaries) -> list[str]:
    out = []
    best = order[0] if order and order[0].exists else None
    if best is not None:
        out.append(f"<p><b>Best: {_e(best.name)}</b>, {_e(metric_value(RANK_BY, best.value))}.</p>")
    else:
        out.append("<p><b>No plan has a cost per million output tokens</b>: see the reasons below.</p>")
    for note in (decision.comparability_note(plans), decision.frontier_headline(summaries)):
        if note:
            out.append(f"<p><b>Caution:</b> {_e(note)}.</p>")
    return out


def _ranking(order, results) -> list[str]:
    head = ("<tr><th>#</th><th>Plan</th><th>Cost per Mtok</th><th>NPV</th><th>IRR</th><th>Payback</th>"
            "<th>Breaks even at output price</th><th>Breaks even at utilization</th><th>Share of frontier</th></tr>")
    rows = []
    for rank, s in enumerate(order, 1):
        r = results[s.index]
        m = r.metrics
        cells = [str(rank) if s.exists else "–", _e(s.name),
                 _e(metric_value(RANK_BY, r.metric_or_none(RANK_BY))),
                 _e(metric_value("npv_usd", r.metric_or_none("npv_usd"), m)),
                 _e(metric_value("irr", r.metric_or_none("irr"), m).replace(" per year", "")),
                 _e(metric_value("payback_months", r.metric_or_none("payback_months"), m)),
                 _e(decision.breakeven_price_text(s)), _e(decision.breakeven_utilization_text(s)),
                 "n/a" if s.frontier_share != s.frontier_share else _e(percent(s.frontier_share))]
        rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    return ["<h2>Ranked plans</h2>",
            "<table border='1' cellspacing='0' cellpadding='3'>" + head + "".join(rows) + "</table>"]


def _reasons(order) -> list[str]:
    out = ["<h2>Why each plan stands where it does</h2>"]
    for s in order:
        notes = "".join(f"<br>&#9888; {_e(n)}." for n in s.notes)
        frontier = ("" if s.frontier_share != s.frontier_share else
                    f"<br>Frontier: {_e(decision.frontier_text(s))}.")
        out.append(f"<p><b>{_e(s.name)}</b>: {_e(s.reason)}{frontier}{notes}</p>")
    return out


def _assumptions(plans) -> list[str]:
    head = "<tr><th>Input</th>" + "".join(f"<th>{_e(p.name)}</th>" for p in plans) + "</tr>"
    rows = []
    for key in ASSUMPTION_KEYS:
        label = PLAN_FIELD_BY_NAME[key].label
        rows.append(f"<tr><td>{_e(label)}</td>" + "".join(f"<td>{_e(_input_text(p, key))}</td>" for p in plans)
                    + "</tr>")
    missing = "".join(f"<td>{_e(', '.join(not_entered(p)) or 'none')}</td>" for p in plans)
    rows.append(f"<tr><td><b>Costs not entered (0: left out of opex and cost per token)</b></td>{missing}</tr>")
    return ["<h2>Assumptions</h2>",
            "<p>The inputs each plan is computed from. A cost left at 0 is <b>not entered</b>: it is left out, so "
            "the plan's costs are understated by it until a quote is entered.</p>",
            "<table border='1' cellspacing='0' cellpadding='3'>" + head + "".join(rows) + "</table>"]


def _monte_carlo(sim: dict) -> list[str]:
    head = "<tr><th>Plan</th><th>P(NPV &gt; 0)</th><th>NPV P10</th><th>NPV P50</th><th>NPV P90</th></tr>"
    rows = []
    for p in sim["plans"]:
        npv = p["npv_usd"]
        cells = [_e(p["name"]), _e(percent(p["prob_npv_positive"]))] + [
            "n/a" if npv[k] is None else _e(usd(npv[k])) for k in ("p10", "p50", "p90")]
        rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    names = [p["name"] for p in sim["plans"]]
    pairs = {(d["a"], d["b"]): d["prob_a_higher_npv"] for d in sim["pairwise"]}
    beats = "<tr><th>P(row beats column)</th>" + "".join(f"<th>{_e(n)}</th>" for n in names) + "</tr>"
    for a in names:
        beats += f"<tr><td>{_e(a)}</td>" + "".join(
            "<td>–</td>" if a == b else f"<td>{_e(percent(pairs[(a, b)]))}</td>" for b in names) + "</tr>"
    return ["<h2>Uncertainty (Monte Carlo)</h2>",
            f"<p>{sim['draws']:,} draws, seed {sim['seed']}, over the scenario's Uncertainty sheet (the same draws "
            "for every plan).</p>",
            "<table border='1' cellspacing='0' cellpadding='3'>" + head + "".join(rows) + "</table>",
            "<p>The probability that the row plan's NPV is higher than the column plan's:</p>",
            "<table border='1' cellspacing='0' cellpadding='3'>" + beats + "</table>"]


def _sources(scenario, plans) -> list[str]:
    out = ["<h2>Sources</h2><ul>"]
    devices = dict.fromkeys(d for p in plans for d in [p.device] + [q.device for q in p.pools] if d)
    for name in devices:
        try:
            d = scenario.device(name)
        except KeyError:
            continue
        est = f" Estimated: {d.estimated_fields.replace(';', ', ')}." if getattr(d, "estimated_fields", "") else ""
        out.append(f"<li><b>Device {_e(name)}</b>: {_e(d.source or 'no source given')}.{_e(est)}</li>")
    for name in dict.fromkeys(p.model for p in plans):
        try:
            m = scenario.model(name)
        except KeyError:
            continue
        out.append(f"<li><b>Model {_e(name)}</b>: {_e(m.source or 'no source given')}.</li>")
    for name in dict.fromkeys(p.price_tiers for p in plans if p.price_tiers):
        tiers = scenario.price_tiers.get(name)
        if tiers is not None:
            out.append(f"<li><b>Price tiers {_e(name)}</b>: {_e(tiers.source or 'no source given')}.</li>")
    for row in getattr(scenario, "uncertainty", ()):
        out.append(f"<li><b>Uncertain {_e(row.key)}</b> ({_e(row.plan)}): {_e(row.source or 'ASSUMPTION')}.</li>")
    out.append("</ul><p>The catalog's sources and estimates: docs/catalog.md; the equations: docs/model.md.</p>")
    return out
