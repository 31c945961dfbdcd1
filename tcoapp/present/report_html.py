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
from ..engine.decision import summary as decision
from ..engine.pipeline.compute import not_entered
from ..engine.decision.choice import decide
from ..engine.uncertainty.error_swing import MODEL_ERROR_INPUT, tornado_with_model_error
from ..engine.quantities.inputs import PLAN_FIELD_BY_NAME, PLAN_FIELDS
from ..engine.quantities.metrics import METRIC_BY_KEY, TORNADO_METRICS
from ..engine.uncertainty.inputs import DEVICE_FIELD_BY_NAME
from .class_lines import class_lines
from .decision_text import objective_label, objective_value, ranked_label, reason
from .labels import in_sentence, input_label
from ..engine.core.number_format import money
from .agentic_text import agentic_sentence
from .config_gains import assumed_share, gains_sentence
from .values import choice_label, metric_value, percent, plain, usd

CHARTS = (("objective_chart", "The ranking's objective, per plan"),
          ("cashflow_chart", "Cumulative cash flow by year, per plan"))
ASSUMPTION_KEYS = ("model", "input_tokens", "output_tokens", "min_tokens_per_s_per_user", "max_ttft_s",
                   "serving_search", "sizing_mode", "utilization", "years", "discount_rate", "pue",
                   "electricity_usd_per_kwh", "price_usd_per_million_output_tokens", "price_usd_per_million_input_tokens",
                   "prefix_cache_hit_rate", "price_usd_per_million_cached_input_tokens", "price_tiers", "price_change_per_year", "other_capex_fraction", "residual_value_fraction", "tax_rate")
_REVENUE = [f for f in PLAN_FIELDS if f.group == "revenue" and f.type != "choice"]
TOKEN_PRICE_KEYS = frozenset(f.name for f in _REVENUE if "token" in f.name) | {"price_tiers"}   # tokens mode only
HOUR_KEYS = tuple(f.name for f in _REVENUE if "token" not in f.name)                           # device-hours mode
DEBT_KEYS = tuple(f.name for f in PLAN_FIELDS if f.group == "financing")                        # the debt's terms
RISK_DRIVERS = 3
# the financing table's figures: the metrics of the debt (their table rows say "equity" or "DSCR"), then NPV
FINANCING_METRICS = tuple(k for k in METRIC_BY_KEY if k.startswith("equity_") or "dscr" in k) + ("npv_usd",)


def _e(text) -> str:
    return escape(str(text))


def _input_text(plan, key: str) -> str:
    field = PLAN_FIELD_BY_NAME[key]
    value = getattr(plan, key)
    if value is None and key == "price_usd_per_million_cached_input_tokens":
        return "the input price"   # empty: cached input tokens pay the input price
    if value is None or value == "":
        return "not set"
    if field.unit.startswith("fraction"):
        return percent(float(value)) + (" per year" if field.unit.endswith("/yr") else "")
    if field.unit.startswith("USD"):
        rest = field.unit[3:].lstrip("/").replace("/", " per ").replace("h", "hour") if field.unit != "USD" else ""
        return money(float(value)) + (f" per {rest}" if rest else "")
    if field.type in ("int", "float"):
        unit = f" {field.unit}" if field.unit and field.unit != "ratio" else ""
        return f"{plain(float(value))}{unit}"
    if field.type == "choice":
        return choice_label(value)
    return str(value)


def report_html(scenario, results, title: str, simulation_json: dict | None = None,
                objective: str | None = None, decided=None) -> str:
    """The whole report; `simulation_json` is `engine.uncertainty.report.simulation_json` of a run (or
    None); `decided`: the decision where already made (else made here, by `objective` or the plans'
    default). Images are referenced by the names in CHARTS."""
    plans = scenario.plans
    d = decided if decided is not None else decide(scenario, results, objective)
    parts = [f"<h1>Decision report: {_e(title)}</h1>",
             f"<p style='color:#555'>tcoapp {APP_VERSION}, {datetime.date.today().isoformat()}. Every number is "
             "computed by the tcoapp engine from the scenario's inputs; estimates are marked in the sources.</p>"]
    parts += _summary(scenario, results, d)
    parts += _ranking(d, results)
    parts += _financing(plans, results)
    parts += _device_hours(plans)
    parts += _agentic(plans, results)
    parts += _risks(scenario, results, d)
    parts.append("<h2>Charts</h2>")
    for name, caption in CHARTS:
        parts.append(f"<p><img src='{name}' width='640'></p>")
    parts += _reasons(d.summaries)
    parts += _configuration_gains(results)
    parts += _request_classes(results)
    parts += _assumptions(plans)
    if simulation_json is not None:
        parts += _monte_carlo(simulation_json)
    parts += _sources(scenario, plans)
    return "<html><body>" + "\n".join(parts) + "</body></html>"


def _summary(scenario, results, d) -> list[str]:
    """The first page's box: the decision, how sure, what the plans sell and how they are financed."""
    plans = scenario.plans
    hours = sum(p.revenue_mode == "device_hours" for p in plans)
    debt = [p.name for p in plans if float(p.debt_fraction) > 0]
    sells = ("device-hours (GPU-cloud revenue)" if hours == len(plans) else
             f"tokens ({len(plans) - hours} plans) and device-hours ({hours})" if hours else "tokens")
    sure = ("no second plan to compare" if d.p_first_beats_second is None else
            f"P(first beats second) = {percent(d.p_first_beats_second, 2)} over {d.draws:,} paired draws"
            + (" — too close to call" if d.too_close else ""))
    lines = [f"<b>Decision.</b> {_e(reason(d))}",
             f"<b>Ranked by</b> {_e(ranked_label(d))}: {_e(d.basis)} (the plans sell {_e(sells)}"
             + (f" and {len(debt)} of them borrow" if debt else "") + f"). <b>Confidence:</b> {_e(sure)}."]
    for note in (decision.comparability_note(plans), decision.frontier_headline(d.summaries)):
        if note:
            lines.append(f"<b>Caution:</b> {_e(note)}.")
    return ["<table width='100%' cellpadding='6' style='background:#eef5ff; border:1px solid #bcd4f6'><tr><td>"
            + "<br>".join(lines) + "</td></tr></table>"]


def _ranking_columns(d, results) -> tuple[str, ...]:
    financed = any(float(r.inputs.debt_fraction) > 0 for r in results if r.inputs is not None)
    keys = [d.objective, "npv_usd", "irr", "payback_months"]
    if financed:
        keys[1:1] = ["equity_npv_usd", "equity_irr"]
    if d.objective != "cost_per_million_output_tokens_usd":
        keys.append("cost_per_device_hour_usd" if any(s.sells_hours for s in d.summaries)
                    else "cost_per_million_output_tokens_usd")
    return tuple(dict.fromkeys(k for k in keys if k in METRIC_BY_KEY or k == d.objective))


def _ranking(d, results) -> list[str]:
    keys = _ranking_columns(d, results)
    head = ("<tr><th>#</th><th>Plan</th>" + "".join(f"<th>{_e(_label(k))}</th>" for k in keys)
            + "<th>Breaks even at price</th><th>Breaks even at utilization</th></tr>")
    rows = []
    for rank, s in enumerate(d.summaries, 1):
        r = results[s.index]
        name = _e(s.name) + (f"<br><small>{_e(s.fleet)}</small>" if s.fleet and s.fleet != s.device else "")
        cells = [str(rank) if s.exists else "–", name]
        cells += [_e(objective_value(d.objective, s.value)) if k == d.objective else
                  _e(metric_value(k, r.metric_or_none(k), r.metrics).replace(" per year", "")) for k in keys]
        cells += [_e(decision.breakeven_price_text(s)), _e(decision.breakeven_utilization_text(s))]
        rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    return [f"<h2>Ranking by {_e(ranked_label(d))}</h2>",
            "<table border='1' cellspacing='0' cellpadding='3'>" + head + "".join(rows) + "</table>"]


def _label(key: str) -> str:
    return METRIC_BY_KEY[key].label if key in METRIC_BY_KEY else objective_label(key)


def _financing(plans, results) -> list[str]:
    """Equity NPV and IRR, min DSCR and the debt's terms of every plan that borrows."""
    rows = []
    for plan, r in zip(plans, results):
        if float(plan.debt_fraction) <= 0:
            continue
        m = r.metrics
        terms = ", ".join(f"{PLAN_FIELD_BY_NAME[k].label.lower()} {_input_text(plan, k)}" for k in DEBT_KEYS)
        figures = [metric_value(k, r.metric_or_none(k), m).replace(" per year", "") for k in FINANCING_METRICS]
        rows.append("<tr>" + "".join(f"<td>{_e(c)}</td>" for c in [plan.name, terms, *figures]) + "</tr>")
    if not rows:
        return []
    head = "".join(f"<th>{_e(h)}</th>" for h in ["Plan", "Debt terms"] + [_label(k) for k in FINANCING_METRICS])
    return ["<h2>Financing</h2>",
            "<p>Equity NPV and IRR are the equity holder's flows after interest and principal, discounted at the "
            "equity discount rate; min DSCR is the worst year's (revenue - opex - tax) over debt service. Project "
            "NPV and IRR stay unlevered.</p>",
            "<table border='1' cellspacing='0' cellpadding='3'><tr>" + head + "</tr>" + "".join(rows) + "</table>"]


def _agentic(plans, results) -> list[str]:
    """The agentic answer of each plan with an agentic request class (docs/model.md, "Agentic sessions and KV tiers")."""
    rows = [(p, r.agentic) for p, r in zip(plans, results) if getattr(r, "agentic", None)]
    if not rows:
        return []
    return (["<h2>Agentic sessions</h2>", "<p>Sessions, the prefix hit rate each KV tier gives, agents per MW of "
             "facility power and the cost of an agent-hour, per plan with an agentic request class.</p>", "<ul>"]
            + [f"<li><b>{_e(p.name)}</b>: {_e(agentic_sentence(a))}</li>" for p, a in rows] + ["</ul>"])


def _device_hours(plans) -> list[str]:
    """The device-hour prices of plans that sell device-hours."""
    sold = [p for p in plans if p.revenue_mode == "device_hours"]
    if not sold:
        return []
    keys = HOUR_KEYS + ("utilization",)
    head = "<tr><th>Plan</th>" + "".join(f"<th>{_e(PLAN_FIELD_BY_NAME[k].label)}</th>" for k in keys) + "</tr>"
    rows = "".join("<tr><td>" + _e(p.name) + "</td>" + "".join(f"<td>{_e(_input_text(p, k))}</td>" for k in keys)
                   + "</tr>" for p in sold)
    return ["<h2>Device-hour prices</h2>",
            "<p>These plans sell devices by the hour: the reserved share at the reserved price for every hour, the "
            "rest on demand for the hours used (utilization).</p>",
            "<table border='1' cellspacing='0' cellpadding='3'>" + head + rows + "</table>"]


def _risks(scenario, results, d) -> list[str]:
    """What could change the decision: the largest drivers of the leading plans, the model's interval,
    costs left at 0, plans below their frontier."""
    items = [f"<b>Market.</b> {_e(t)}" for t in (d.market, d.market_warning) if t]
    metric = d.objective if d.objective in TORNADO_METRICS or d.objective.startswith("equity_") else "npv_usd"
    for s in [x for x in d.summaries[:2] if x.exists]:
        items += _plan_risks(s, results[s.index], metric)
    missing = {p.name: not_entered(p) for p in scenario.plans}
    if any(missing.values()):
        items.append("Costs left at 0 (not entered: left out, so costs are understated): " + _e("; ".join(
            f"{name}: {', '.join(m)}" for name, m in missing.items() if m)) + ".")
    low = [s for s in d.summaries if s.far_below_frontier]
    if low:
        items.append("Below their frontier (ranked as typed, not at their best): " + _e(", ".join(
            f"{s.name} at {percent(s.frontier_share, 2)}" for s in low)) + ".")
    if not items:
        return []
    return ["<h2>Risks</h2><ul>" + "".join(f"<li>{i}</li>" for i in items) + "</ul>"]


def _plan_risks(s, r, metric: str) -> list[str]:
    """A leading plan's risks: its largest +-20 % drivers of `metric`, and its model interval."""
    items = []
    swings = ([w for w in tornado_with_model_error(r, metric)[:RISK_DRIVERS] if w.span > 0]
              if r.inputs is not None else [])
    if swings:
        words = "; ".join(f"{_driver(w)} moves it "
                          f"{objective_value(metric, w.metric_low)} to {objective_value(metric, w.metric_high)}"
                          for w in swings)
        items.append(f"<b>{_e(s.name)}</b>, {_e(in_sentence(objective_label(metric)))}: {_e(words)}.")
    band = r.prediction_interval
    if band:
        low, high = band["tokens_per_s_per_device"]
        point = r.metrics.tokens_per_s_per_device
        items.append(f"<b>{_e(s.name)}</b>: the model's {percent(band['level'], 2)} interval of tokens/s per "
                     f"device is {_e(percent(low / point - 1, 2))} / +{_e(percent(high / point - 1, 2))} "
                     "of its point (published measurements it never saw; docs/model.md, \"How sure it is\").")
    return items


def _driver(w) -> str:
    """A tornado bar in words: an input +-20 %, or the model's own error at its band's percentiles."""
    if w.input == MODEL_ERROR_INPUT:
        return (f"the model's own error (tokens/s per device {w.low_input:.2f}x to {w.high_input:.2f}x, the 10th and "
                "90th percentiles of its band)")
    return f"{in_sentence(input_label(w.input))} ±20 %"


def _reasons(summaries) -> list[str]:
    out = ["<h2>Why each plan stands where it does</h2>"]
    for s in summaries:
        notes = "".join(f"<br>&#9888; {_e(n)}." for n in s.notes)
        frontier = ("" if s.frontier_share != s.frontier_share or "frontier" in s.reason else
                    f"<br>Frontier: {_e(decision.frontier_text(s))}.")
        out.append(f"<p><b>{_e(s.name)}</b>: {_e(s.reason)}{frontier}{notes}</p>")
    return out


def _configuration_gains(results) -> list[str]:
    """Each plan's tokens/s per device as its validated base x each configuration gain (present/config_gains.py);
    nothing where no plan has them (measured curves, request classes)."""
    rows = [(r.name, r.configuration_gains) for r in results if getattr(r, "configuration_gains", None)]
    if not rows:
        return []
    out = ["<h2>How much of each plan's throughput is assumption</h2>",
           "<p>Each plan's tokens/s per device at its target, as the validated base (its configuration without "
           "speculative decoding, with an FP8 KV cache, aggregated) times the gain of each configuration term "
           "(docs/model.md, \"Configuration gains\").</p><ul>"]
    for name, gains in rows:
        share = assumed_share(gains)
        extra = f" The terms add {percent(share, 2)} of its number." if share is not None and share > 0 else ""
        out.append(f"<li><b>{_e(name)}</b>: {_e(gains_sentence(gains))}.{_e(extra)}</li>")
    return out + ["</ul>"]


def _request_classes(results) -> list[str]:
    """Each plan's request classes, one line each (present/class_lines.py); nothing where no plan has any."""
    blocks = [(r.name, class_lines(r)) for r in results if class_lines(r)]
    if not blocks:
        return []
    out = ["<h2>Request classes</h2>",
           "<p>Plans that serve a mix of request classes: each class at the plan's operating point, its rate and "
           "time to first token at its own latency percentile, its share of the cost and of the revenue "
           "(docs/model.md, \"Request classes\").</p>"]
    for name, lines in blocks:
        out.append(f"<p><b>{_e(name)}</b></p><ul>" + "".join(f"<li>{_e(line)}</li>" for line in lines) + "</ul>")
    return out


def _assumptions(plans) -> list[str]:
    head = "<tr><th>Input</th>" + "".join(f"<th>{_e(p.name)}</th>" for p in plans) + "</tr>"
    rows = [f"<tr><td>Devices</td>" + "".join(f"<td>{_e(_devices(p))}</td>" for p in plans) + "</tr>"]
    tokens = any(p.revenue_mode != "device_hours" for p in plans)
    for key in ASSUMPTION_KEYS:
        if key in TOKEN_PRICE_KEYS and not tokens:
            continue          # token prices this revenue mode does not use
        label = PLAN_FIELD_BY_NAME[key].label
        rows.append(f"<tr><td>{_e(label)}</td>" + "".join(f"<td>{_e(_input_text(p, key))}</td>" for p in plans)
                    + "</tr>")
    missing = "".join(f"<td>{_e(', '.join(not_entered(p)) or 'none')}</td>" for p in plans)
    rows.append(f"<tr><td><b>Costs not entered (0: left out of opex and cost per token)</b></td>{missing}</tr>")
    return ["<h2>Assumptions</h2>",
            "<p>The inputs each plan is computed from. A cost left at 0 is <b>not entered</b>: it is left out, so "
            "the plan's costs are understated by it until a quote is entered.</p>",
            "<table border='1' cellspacing='0' cellpadding='3'>" + head + "".join(rows) + "</table>"]


def _devices(plan) -> str:
    if not plan.pools:
        return plan.device
    return " + ".join(f"{q.device} {q.role}" if q.role != "serve" else q.device for q in plan.pools)


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


def _device_label(key: str) -> str:
    """A device field's label ('TDP' for tdp_w); the catalog's notes column as 'notes'."""
    key = key.strip()
    found = DEVICE_FIELD_BY_NAME.get(key)
    return in_sentence(found.label) if found is not None else key.replace("hw_", "hardware ").replace("_", " ")


def _sources(scenario, plans) -> list[str]:
    """The sources of the devices, models, price tiers and uncertain inputs the plans use."""
    out = ["<h2>Sources</h2><ul>"] + _device_sources(scenario, plans)
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
        out.append(f"<li><b>Uncertain {_e(in_sentence(input_label(row.key)))}</b> ({_e(row.plan)}): "
                   f"{_e(row.source or 'ASSUMPTION')}.</li>")
    out.append("</ul><p>The catalog's sources and estimates: docs/catalog.md; the equations: docs/model.md.</p>")
    return out


def _device_sources(scenario, plans) -> list[str]:
    """A list item per device the plans (and their pools) use: its source and its estimated fields."""
    out = []
    devices = dict.fromkeys(d for p in plans for d in [p.device] + [q.device for q in p.pools] if d)
    for name in devices:
        try:
            d = scenario.device(name)
        except KeyError:
            continue
        est = (f" Estimated: {', '.join(_device_label(k) for k in d.estimated_fields.split(';') if k.strip())}."
               if getattr(d, "estimated_fields", "") else "")
        out.append(f"<li><b>Device {_e(name)}</b>: {_e(d.source or 'no source given')}.{_e(est)}</li>")
    return out
