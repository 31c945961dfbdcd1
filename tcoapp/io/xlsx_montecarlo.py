"""The Monte Carlo sheets of the exported workbook (docs/workbook_format.md, "MonteCarlo").

`MonteCarlo`: the run (draws, seed), per plan and metric the mean, P5..P95 and the share of draws
where the metric exists, P(NPV > 0), the pairwise P(A's NPV > B's), the uncertain inputs with their
distributions and sampled statistics, each input's rank correlation with NPV, and the NPV histogram (table and chart). `MonteCarloDraws`:
one row per draw (the first 100,000 of a larger run: `Simulation.kept`), the key metrics of every plan (engine values; "never" / "n/a" where a metric does
not exist), then the model error's draws: each stream's z and each pool's multiplier (the MonteCarlo sheet's
model error table says how one makes the other). Both are outputs: the reader ignores them; they are recomputed on export.
"""
from __future__ import annotations

import numpy as np
from openpyxl.utils import get_column_letter

from ..engine.quantities.metrics import DRAW_METRICS, METRIC_BY_KEY
from ..engine.uncertainty.fields import UNCERTAINTY_FIELDS
from ..engine.uncertainty.inputs import target_field
from ..engine.uncertainty.report import SUMMARY_METRICS
from ..engine.uncertainty.statistics import PERCENTILES, rank_correlations
from . import sheets as S
from .xlsx_bulk import PendingRows
from .xlsx_montecarlo_chart import write_npv_histogram
from .xlsx_styles import header, put, section, set_text, unit_cell, widths

STATS = ("mean",) + tuple(f"p{p}" for p in PERCENTILES) + ("share_defined",)
INPUT_COLUMNS = tuple(f.name for f in UNCERTAINTY_FIELDS)


def write_monte_carlo(ws, sim, scenario) -> None:
    """The summary sheet (see module docstring)."""
    last = 3 + len(STATS)
    section(ws, 1, f"Monte Carlo: {sim.draws:,} draws, seed {sim.seed} (engine values; recomputed on export, "
                   "never read back)", last)
    monte_carlo_status(ws, 2, last)
    row = _summary(ws, 3, sim)
    row = _pairwise(ws, row + 1, sim)
    row = _inputs(ws, row + 1, sim, scenario)
    row = _correlations(ws, row + 1, sim)
    row = _model_error(ws, row + 1, sim)
    write_npv_histogram(ws, row + 1, sim, f"{get_column_letter(len(INPUT_COLUMNS) + 6)}3")
    ws.freeze_panes = "A2"
    widths(ws, {1: 28, 2: 38, 3: 14, **{c: 14 for c in range(4, 4 + max(len(STATS), len(INPUT_COLUMNS) + 3))}})


STATUS_CURRENT = "current: simulated from the Uncertainty rows shown"


def monte_carlo_status(ws, row: int, last_col: int) -> None:
    """Whether the Uncertainty rows are still those simulated (the Checks sheet's montecarlo_check)."""
    from openpyxl.formatting.rule import FormulaRule

    from .xlsx_checks import GREEN, MONTE_CARLO_CHECK, RED

    set_text(ws.cell(row=row, column=1), MONTE_CARLO_CHECK)
    put(ws, row, 2, f"={MONTE_CARLO_CHECK}", "formula")
    put(ws, row, 3, f'=IF({MONTE_CARLO_CHECK}=0,"{STATUS_CURRENT}","STALE: the Uncertainty sheet changed since this '
                    f'simulation: run tcoapp simulate on the file (see the Checks sheet)")', "formula")
    area = f"A{row}:{get_column_letter(max(last_col, 3))}{row}"
    ws.conditional_formatting.add(area, FormulaRule(formula=[f"{MONTE_CARLO_CHECK}>0"], fill=RED))
    ws.conditional_formatting.add(area, FormulaRule(formula=[f"{MONTE_CARLO_CHECK}=0"], fill=GREEN))


def _summary(ws, row: int, sim) -> int:
    row = _headers(ws, row, ("plan", "metric", "unit") + STATS)
    for plan in sim.plans:
        for key in SUMMARY_METRICS:
            unit = METRIC_BY_KEY[key].unit
            stats = sim.summary(plan.name, key)
            set_text(ws.cell(row=row, column=1), plan.name)
            set_text(ws.cell(row=row, column=2), key)
            unit_cell(ws, row, 3, unit)
            for col, name in enumerate(STATS, start=4):
                value = stats[name]
                missing = "never" if key == "payback_months" else "n/a"
                put(ws, row, col, missing if value is None else value, "engine",
                    "fraction" if name == "share_defined" else unit)
            row += 1
        _pair_row(ws, row, plan.name, "prob_npv_positive", "fraction", sim.prob_positive(plan.name))
        row += 1
    return row


def _pairwise(ws, row: int, sim) -> int:
    row = _headers(ws, row, ("plan a", "plan b", "unit", "prob_a_higher_npv"))
    for a in sim.plans:
        for b in sim.plans:
            if a is b:
                continue
            _pair_row(ws, row, a.name, b.name, "fraction", sim.prob_higher(a.name, b.name))
            row += 1
    return row


def _inputs(ws, row: int, sim, scenario) -> int:
    """Every uncertain input: its sheet row (as entered) and the sampled mean, P5 and P95."""
    row = _headers(ws, row, INPUT_COLUMNS + ("unit", "sampled mean", "sampled p5", "sampled p95"))
    seen = {}
    for plan in sim.plans:
        for d in plan.inputs:
            seen.setdefault(id(d.row), d)
    for d in seen.values():
        unit = target_field(d.row.key)[1].unit
        for col, name in enumerate(INPUT_COLUMNS, start=1):
            value = getattr(d.row, name)
            put(ws, row, col, value, "engine", unit if name in ("low", "mode", "high", "mean", "sd") else "")
        unit_cell(ws, row, len(INPUT_COLUMNS) + 1, unit)
        for col, value in enumerate((np.mean(d.values), np.percentile(d.values, 5), np.percentile(d.values, 95)),
                                    start=len(INPUT_COLUMNS) + 2):
            put(ws, row, col, float(value), "engine", unit)
        row += 1
    return row


def _correlations(ws, row: int, sim) -> int:
    row = _headers(ws, row, ("plan", "input", "unit", "rank correlation with npv_usd"))
    for plan in sim.plans:
        corr = rank_correlations({**{d.row.key: d.values for d in plan.inputs}, **dict(plan.model_error)},
                                 plan.metric("npv_usd"))
        for key, value in corr.items():
            _pair_row(ws, row, plan.name, key, "ratio", value)
            row += 1
    return row


def _model_error(ws, row: int, sim) -> int:
    """Each pool's model error: the sd of its log error and the share of that variance each stream carries
    (multiplier = exp(sd x sum of sqrt(share) x z), z the stream's column on MonteCarloDraws); none: a row
    saying so."""
    row = _headers(ws, row, ("plan", "pool", "unit", "model error: sd of ln(tokens/s per device)", "stream", "share"))
    found = False
    for plan in sim.plans:
        for pool, e in plan.error_pools:
            for stream, share in e.streams:
                set_text(ws.cell(row=row, column=1), plan.name)
                set_text(ws.cell(row=row, column=2), pool)
                unit_cell(ws, row, 3, "ratio")
                put(ws, row, 4, e.sigma, "engine", "")
                set_text(ws.cell(row=row, column=5), stream)
                put(ws, row, 6, share, "engine", "fraction")
                row += 1
                found = True
    if not found:
        set_text(ws.cell(row=row, column=1), "no model error drawn (measured curves, --no-model-error, or "
                                              "factor.model_error rows)")
        row += 1
    return row


def _headers(ws, row: int, names) -> int:
    """A header row; the next row."""
    for col, text in enumerate(names, start=1):
        header(ws, row, col, text)
    return row + 1


def _pair_row(ws, row: int, first: str, second: str, unit: str, value) -> None:
    """Two labels, a unit and one engine value."""
    set_text(ws.cell(row=row, column=1), first)
    set_text(ws.cell(row=row, column=2), second)
    unit_cell(ws, row, 3, unit)
    put(ws, row, 4, value, "engine", unit if unit == "fraction" else "")


def draw_columns(sim, scenario=None, results=None) -> list[tuple[str, str, list]]:
    """The draws sheet's columns after `draw`: (header, unit, a value per kept draw): every plan's key metrics;
    where a plan borrows, every plan's equity NPV at the decision's one hurdle rate (decision/choice.py); then
    the model error (docs/model.md, "How the model's errors correlate"): each stream's standard normal
    draw z (one column per architecture and stack, configuration, or plan: plans in a group share it), and
    each plan's pools' multiplier of tokens/s per device, exp(sd x sum of sqrt(share) x z) by the table on
    the MonteCarlo sheet."""
    out = [(f"{plan.name}: {key}", METRIC_BY_KEY[key].unit, _texts(plan, key)) for plan in sim.plans for key in DRAW_METRICS]
    out += _at_hurdle(sim, scenario, results)
    streams: dict[str, np.ndarray] = {}
    for plan in sim.plans:
        for name, z in plan.model_error:
            streams.setdefault(name, z)
    out += [(f"{name} (z)", "", [float(v) for v in z]) for name, z in streams.items()]
    for plan in sim.plans:
        pools = len(plan.error_pools)
        for pool, m in plan.error_multipliers():
            where = f"{plan.name}, pool {pool}" if pools > 1 else plan.name
            out.append((f"{where}: model error multiplier", "ratio", [float(v) for v in m]))
    return out


def _at_hurdle(sim, scenario, results) -> list[tuple[str, str, list]]:
    """Each plan's equity NPV at the hurdle rate the decision ranks financed plans at, per draw (none where no
    plan borrows): its equity cash flows discounted at that rate, as the decision discounts them."""
    from ..engine.decision.choice import hurdle_rate
    from ..engine.finance.cashflow import npv_usd
    rate = hurdle_rate(scenario.plans) if scenario is not None and results is not None else None
    if rate is None:
        return []
    out = []
    for plan, r in zip(sim.plans, results):
        if plan.equity_cash_flow_usd is None or r.inputs is None:
            continue
        npv = npv_usd(rate, plan.equity_cash_flow_usd[:sim.kept], np.full(sim.kept, float(r.inputs.discounting)))
        out.append((f"{plan.name}: equity_npv_usd at the hurdle rate {rate:.4g}", "USD",
                    [float(v) if np.isfinite(v) else "n/a" for v in npv]))
    return out


def printed_draw_columns(sim) -> int:
    """The columns of the draws sheet's print area (its two header rows): `draw` and the plans' metrics; the
    model error's columns after them are data to recompute from, like the draw rows, and print no page."""
    return 1 + len(sim.plans) * len(DRAW_METRICS)


def write_draws(ws, sim, scenario=None, results=None) -> PendingRows | None:
    """One row per draw (row 3 on), a column per `draw_columns`; rows after the first are spliced in bulk."""
    header(ws, 1, 1, "draw")
    unit_cell(ws, 2, 1, "")
    columns = draw_columns(sim, scenario, results)
    for col, (title, unit, _) in enumerate(columns, start=2):
        header(ws, 1, col, title)
        unit_cell(ws, 2, col, unit)
    pending = PendingRows(ws.title, S.FIRST_ENTRY_ROW, 1 + len(columns))
    values = [v for _, _, v in columns]
    for i in range(sim.kept):
        row = [i + 1] + [column[i] for column in values]
        if i == 0:
            for col, (value, (_title, unit, _)) in enumerate(zip(row[1:], columns), start=2):
                put(ws, S.FIRST_ENTRY_ROW, col, value, "engine", unit)
            put(ws, S.FIRST_ENTRY_ROW, 1, 1, "engine", "")
        else:
            pending.rows.append(row)
    ws.freeze_panes = "B3"
    metrics = printed_draw_columns(sim)
    widths(ws, {1: 8, **{c: 22 if c <= metrics else 14 for c in range(2, 2 + len(columns))}})
    return pending


def _texts(plan, key: str) -> list:
    """The draws as cells: payback "never" where the draw has cash flows (an NPV), else "n/a"."""
    has_flows = np.isfinite(plan.metric("npv_usd"))
    return [float(v) if np.isfinite(v) else ("never" if key == "payback_months" and flows else "n/a")
            for v, flows in zip(np.asarray(plan.metric(key), float), has_flows)]
