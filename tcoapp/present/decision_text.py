"""The decision in words (engine/decision/choice.py): its objective's label, each plan's value, the
reason and the `decision` block of `tcoapp compute --json`. The command line, the desktop app and
the report all read these, so they say the same thing."""
from __future__ import annotations

import math

from ..engine.decision.summary import OBJECTIVES
from ..engine.decision.choice import CONFIDENT, Decision
from .labels import in_sentence, input_label
from ..engine.core.number_format import money, number, percent

def objective_label(objective: str) -> str:
    return OBJECTIVES[objective][0]


def objective_value(objective: str, value: float) -> str:
    """The objective's value as read: '$0.0622 per Mtok', '-$26,000', '$1,234,567 per MW per year'."""
    if value is None or not math.isfinite(value):
        return "n/a"
    unit = OBJECTIVES[objective][1]
    if unit == "USD/Mtok":
        return f"{money(value)} per Mtok"
    if unit.startswith("USD"):
        rest = unit[3:].lstrip("/")
        return money(value) + (" per " + rest.replace("/", " per ").replace("yr", "year") if rest else "")
    return f"{number(value)} {unit}"


MODEL_ERROR_DRAWN = "the model's error (shared by architecture and configuration: docs/model.md)"


def _driver_text(name: str) -> str:
    if name.startswith("model error: "):
        return f"a measurement of the throughput at this target of {name[len('model error: '):]} (the model's error)"
    return f"a firmer {in_sentence(input_label(name))} (the Uncertainty sheet)"


def ranked_label(d: Decision) -> str:
    """The objective as a sentence names it: 'NPV', 'equity NPV at one hurdle rate of 15 %'."""
    label = in_sentence(objective_label(d.objective))
    if d.hurdle_rate is not None:
        label += f" at one hurdle rate of {percent(d.hurdle_rate, 3)}"
    return label


def per_mw_text(d: Decision, s) -> str:
    """' ($57.5M per MW of facility power)' for an NPV ranking of plans sized by a site; empty otherwise."""
    if (d.objective not in ("npv_usd", "equity_npv_usd") or not d.by_site or not (s.facility_mw > 0)
            or not math.isfinite(s.value)):
        return ""
    return f" ({money(s.value / s.facility_mw)} per MW of facility power)"


def both_views(d: Decision) -> str:
    """'MI355X makes the cheapest tokens; GB200 earns the most on this 1 MW site.' where the first plan by
    cost per token is not the first by NPV; empty where they agree."""
    if d.other_first is None or d.first is None:
        return ""
    first = d.first.name
    cheap, earner = (d.other_first, first) if d.other_objective == "cost_per_million_output_tokens_usd" else (first, d.other_first)
    where = f" on this {d.site}" if d.site else " (by NPV)"
    return f"{cheap} makes the cheapest tokens; {earner} earns the most{where}."


def reason(d: Decision) -> str:
    """One paragraph: where cost per token and NPV disagree both in one sentence, who is first and by
    how much, how sure, and when too close what would separate; then what the returns assume of the
    market, with the warning where they are high enough that demand and price drive them."""
    return " ".join(t for t in (both_views(d), _reason(d), market_text(d)) if t)


def market_text(d: Decision) -> str:
    """What the returns assume of the market, then the warning where they are extreme (may be empty)."""
    return " ".join(t for t in (d.market, d.market_warning) if t)


def decision_text(d: Decision) -> str:
    """The decision without the market sentences: both views, who is first, how sure."""
    return " ".join(t for t in (both_views(d), _reason(d)) if t)


def _reason(d: Decision) -> str:
    first, second = d.first, d.second
    label = ranked_label(d)
    if first is None:
        return f"No plan has a value for {label}: see each plan's reason."
    head = f"{first.name} is first by {label}: {objective_value(d.objective, first.value)}{per_mw_text(d, first)}"
    if second is None or d.p_first_beats_second is None:
        return head + " (no other plan has a value to compare)."
    gap = _gap(d.objective, first.value, second.value)
    versus = f"{second.name} {objective_value(d.objective, second.value)}{gap}"
    drawn = MODEL_ERROR_DRAWN + (" and the Uncertainty sheet's inputs" if d.with_inputs else "")
    sure = f"first in {percent(d.p_first_beats_second, 2)} of {d.draws:,} paired draws of {drawn}"
    if not d.drawn_moves:
        sure += (f" (nothing drawn moves {label}: add rows to the Uncertainty sheet for the inputs that are "
                 "uncertain)")
    if not d.too_close:
        return f"{head}, ahead of {versus}; {sure}."
    what = (" What would separate them: " + "; ".join(_driver_text(n) for n in d.separators) + "."
            if d.separators else " Nothing drawn separates them: they differ only where the model is the same.")
    return (f"Too close to call by {label} between {first.name} and {second.name} ({first.name} "
            f"{objective_value(d.objective, first.value)}{per_mw_text(d, first)}, {versus}): {first.name} is {sure}, below "
            f"{percent(CONFIDENT, 2)}.{what}")


def _gap(objective: str, a: float, b: float) -> str:
    if OBJECTIVES[objective][1] == "USD/Mtok" and b > 0:
        return f", {percent(abs(b - a) / b, 2)} apart"
    return f", {money(abs(a - b))} apart"


def decision_json(d: Decision) -> dict:
    """The `decision` block of `tcoapp compute --json`."""
    p = d.p_first_beats_second
    first = d.first
    per_mw = (first.value / first.facility_mw if first is not None and per_mw_text(d, first) else None)
    return {"objective": d.objective, "ranked": list(d.ranked),
            "p_first_beats_second": None if p is None else round(p, 4), "too_close": d.too_close,
            "reason": reason(d), "basis": d.basis, "hurdle_rate": d.hurdle_rate,
            "first_value_per_mw": per_mw,
            "other_view": None if d.other_first is None else {"objective": d.other_objective, "first": d.other_first}}
