"""The Workloads sheet: a plan's request classes (docs/workbook_format.md, "Workloads"), in long format like Pools,
with live formulas for the closed-form figures of each class and of its plan's mix.

Written only when some plan has classes (a workbook without classes is byte for byte what it was before the sheet
existed). The input columns are the field table's (engine/quantities/inputs.py, REQUEST_CLASS_FIELDS); the formula
columns to their right are outputs the reader skips: the prices a class pays (its own, else its plan's), the input
price after the prefix-cache split, the revenue of one request at the mean lengths, the blended price per million
tokens, and the share-weighted mix of the plan. An agentic class's hit rate and prompt lengths follow from its
sessions (an engine outcome), so its formula cells read #N/A, and so does its plan's mix.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from openpyxl.utils import get_column_letter

from ..engine.quantities.inputs import REQUEST_CLASS_FIELDS
from ..engine.quantities.records import SHARE_TOLERANCE
from ..engine.quantities.row import attribute
from . import sheets as S
from .xlsx_inputs import write_table
from .xlsx_layout import WHOLE, quoted
from .xlsx_styles import header, put, unit_cell

MILLION = 1_000_000
MIX_MARGIN = 1_000   # rows past the exported ones the mix formulas still read (a class added below)


@dataclass(frozen=True)
class Output:
    key: str
    unit: str
    help: str
    formula: Callable[["_Refs"], str]


class _Refs:
    """Cell references of one Workloads row: its input cells by key, its output cells by key, its plan's Plans cells
    (found by the row's `plan` text and the key in Plans column A: a row moved or sorted keeps its plan)."""

    def __init__(self, row: int, last_row: int):
        self.row, self.last = row, last_row

    def __call__(self, key: str) -> str:
        return f"{COLUMN_LETTER[key]}{self.row}"

    def column(self, key: str) -> str:
        letter = COLUMN_LETTER[key]
        return f"${letter}${S.FIRST_ENTRY_ROW}:${letter}${self.last}"

    def literal(self, key: str) -> str:
        """This row's cell `key` as a MATCH / SUMIF pattern matching only its own text (a plan named "H?00 *" must not
        match "H100 x"): the wildcards ~ * ? escaped, live."""
        return f'SUBSTITUTE(SUBSTITUTE(SUBSTITUTE({self(key)},"~","~~"),"*","~*"),"?","~?")'

    def plan(self, key: str) -> str:
        return (f"INDEX({S.PLANS}!{WHOLE},MATCH({quoted(key)},{S.PLANS}!$A:$A,0),"
                f"MATCH({self.literal('plan')},{S.PLANS}!$1:$1,0))")

    def own_or_plan(self, key: str) -> str:
        """The class's cell, or its plan's value where the cell is empty."""
        return f"IF(LEN({self(key)})=0,{self.plan(key)},{self(key)})"

    def mix(self, key: str) -> str:
        """The sum of column `key` over the rows of this row's plan."""
        return f'SUMIF({self.column("plan")},"="&{self.literal("plan")},{self.column(key)})'

    def mix_unbalanced(self) -> str:
        """True where the plan's shares, or the shares its mix counts, do not add to 1."""
        return (f"OR(ABS({self.mix('share')}-1)>{SHARE_TOLERANCE},"
                f"ABS({self.mix('share_counted')}-1)>{SHARE_TOLERANCE})")

    def agentic(self) -> str:
        return f"LEN({self('session_turns')})>0"


OUTPUTS = (
    Output("hit_rate_used", "fraction", "Share of the class's input tokens read from the prefix cache: its "
           "prefix_cache_hit_rate, else its plan's. #N/A for an agentic class (its hit rate is an outcome of its "
           "sessions and the KV memory: the engine's, on Results and in the JSON).",
           lambda r: f"IF({r.agentic()},NA(),{r.own_or_plan('prefix_cache_hit_rate')})"),
    Output("input_price_used_usd_per_million", "USD/Mtok", "Price per million uncached input tokens the class pays: "
           "its own, else its plan's.", lambda r: r.own_or_plan("price_usd_per_million_input_tokens")),
    Output("cached_input_price_used_usd_per_million", "USD/Mtok", "Price per million cached input tokens the class "
           "pays: its own, else its plan's, else (both empty) its input price.",
           lambda r: (f"IF(LEN({r('price_usd_per_million_cached_input_tokens')})>0,"
                      f"{r('price_usd_per_million_cached_input_tokens')},"
                      f"IF(LEN({r.plan('price_usd_per_million_cached_input_tokens')})>0,"
                      f"{r.plan('price_usd_per_million_cached_input_tokens')},{r('input_price_used_usd_per_million')}))")),
    Output("output_price_used_usd_per_million", "USD/Mtok", "Price per million output tokens the class pays: its "
           "own, else its plan's.", lambda r: r.own_or_plan("price_usd_per_million_output_tokens")),
    Output("effective_input_price_usd_per_million", "USD/Mtok", "Input price per million input tokens after the "
           "cache split: hit rate x cached price + (1 - hit rate) x input price.",
           lambda r: (f"{r('hit_rate_used')}*{r('cached_input_price_used_usd_per_million')}"
                      f"+(1-{r('hit_rate_used')})*{r('input_price_used_usd_per_million')}")),
    Output("revenue_usd_per_request", "USD", "Revenue of one request at the mean lengths: (input_tokens x effective "
           "input price + output_tokens x output price) / 1e6 (a lognormal's mean is the mean typed).",
           lambda r: (f"({r('input_tokens')}*{r('effective_input_price_usd_per_million')}"
                      f"+{r('output_tokens')}*{r('output_price_used_usd_per_million')})/{MILLION}")),
    Output("blended_price_usd_per_million_tokens", "USD/Mtok", "The class's revenue per million tokens, input and "
           "output together: revenue per request / (input_tokens + output_tokens) x 1e6.",
           lambda r: f"{r('revenue_usd_per_request')}/({r('input_tokens')}+{r('output_tokens')})*{MILLION}"),
    Output("share_counted", "fraction", "The row's share, counted in its plan's mix. A class row added by hand "
           "(without these formulas) is not: its plan's mix reads #N/A until tcoapp saves the workbook, as it does "
           "while the plan's shares do not add to 1.", lambda r: r("share")),
    Output("share_x_revenue_usd", "USD", "share x revenue per request (the mix's sum runs over this column).",
           lambda r: f"{r('share')}*{r('revenue_usd_per_request')}"),
    Output("share_x_tokens", "tokens", "share x (input_tokens + output_tokens) (#N/A for an agentic class).",
           lambda r: f"IF({r.agentic()},NA(),{r('share')}*({r('input_tokens')}+{r('output_tokens')}))"),
    Output("share_x_output_tokens", "tokens", "share x output_tokens (#N/A for an agentic class).",
           lambda r: f"IF({r.agentic()},NA(),{r('share')}*{r('output_tokens')})"),
    Output("mix_revenue_usd_per_request", "USD", "The plan's mix: the sum over its classes of share x revenue per "
           "request (the same on each of the plan's rows); #N/A while the plan's shares do not add to 1 or a row of "
           "it has no formulas.", lambda r: f"IF({r.mix_unbalanced()},NA(),{r.mix('share_x_revenue_usd')})"),
    Output("mix_blended_price_usd_per_million_tokens", "USD/Mtok", "The plan's mix: revenue per million tokens, "
           "input and output together (mix revenue per request / the mix's mean tokens per request x 1e6).",
           lambda r: f"{r('mix_revenue_usd_per_request')}/{r.mix('share_x_tokens')}*{MILLION}"),
    Output("mix_revenue_usd_per_million_output_tokens", "USD/Mtok", "The plan's mix: revenue per million output "
           "tokens (input revenue included), comparable with a single-class plan's output price.",
           lambda r: f"{r('mix_revenue_usd_per_request')}/{r.mix('share_x_output_tokens')}*{MILLION}"),
)
OUTPUT_KEYS = frozenset(o.key for o in OUTPUTS)
COLUMN_LETTER = {key: get_column_letter(col) for col, key in enumerate(
    [f.name for f in REQUEST_CLASS_FIELDS] + [o.key for o in OUTPUTS], start=1)}


def has_workloads(scenario) -> bool:
    """Whether the workbook has a Workloads sheet: some plan has request classes."""
    return any(plan.workloads for plan in scenario.plans)


def class_records(scenario) -> list[dict]:
    """One dict per Workloads row (plans with classes only), in REQUEST_CLASS_FIELDS keys."""
    return [{f.name: getattr(rc, attribute(f.name)) for f in REQUEST_CLASS_FIELDS} | {"plan": plan.name}
            for plan in scenario.plans for rc in plan.workloads]


def write_workloads(ws, scenario) -> dict[tuple[str, str], int]:
    """The Workloads sheet (the input table, then the formula columns); returns the row of each (plan, class)."""
    records = class_records(scenario)
    write_table(ws, REQUEST_CLASS_FIELDS, records)
    last = S.FIRST_ENTRY_ROW + len(records) - 1 + MIX_MARGIN
    first_col = len(REQUEST_CLASS_FIELDS) + 1
    for col, output in enumerate(OUTPUTS, start=first_col):
        header(ws, 1, col, output.key, f"Live formula (not read back).\n{output.help}")
        unit_cell(ws, 2, col, output.unit)
        ws.column_dimensions[get_column_letter(col)].width = max(12, len(output.key) + 2)
        for row in range(S.FIRST_ENTRY_ROW, S.FIRST_ENTRY_ROW + len(records)):
            put(ws, row, col, "=" + output.formula(_Refs(row, last)), "formula", output.unit)
    return {(r["plan"], r["class"]): row for row, r in enumerate(records, start=S.FIRST_ENTRY_ROW)}


def class_figures(plan, rc) -> dict[str, float]:
    """The values of the formula columns of one class (NaN where a formula reads #N/A: an agentic class), from
    the same closed forms: the cached values of the written workbook, and what a recalculation must give."""
    def used(key):
        own = getattr(rc, key)
        return own if own is not None else getattr(plan, key)
    nan = float("nan")
    agentic = rc.session_turns is not None
    hit = nan if agentic else float(used("prefix_cache_hit_rate") or 0.0)
    price_in = float(used("price_usd_per_million_input_tokens") or 0.0)
    cached = rc.price_usd_per_million_cached_input_tokens
    cached = cached if cached is not None else plan.price_usd_per_million_cached_input_tokens
    cached = float(cached) if cached is not None else price_in
    price_out = float(used("price_usd_per_million_output_tokens") or 0.0)
    effective = hit * cached + (1 - hit) * price_in
    tokens_in = float(rc.input_tokens) if rc.input_tokens is not None else nan
    revenue = (tokens_in * effective + rc.output_tokens * price_out) / MILLION
    return {"hit_rate_used": hit, "input_price_used_usd_per_million": price_in,
            "cached_input_price_used_usd_per_million": cached, "output_price_used_usd_per_million": price_out,
            "effective_input_price_usd_per_million": effective, "revenue_usd_per_request": revenue,
            "blended_price_usd_per_million_tokens": revenue / (tokens_in + rc.output_tokens) * MILLION,
            "share_counted": rc.share, "share_x_revenue_usd": rc.share * revenue,
            "share_x_tokens": nan if agentic else rc.share * (tokens_in + rc.output_tokens),
            "share_x_output_tokens": nan if agentic else rc.share * rc.output_tokens}


def mix_figures(plan) -> dict[str, float]:
    """The plan's mix columns (the same on each of its rows)."""
    rows = [class_figures(plan, rc) for rc in plan.workloads]
    revenue = sum(r["share_x_revenue_usd"] for r in rows)
    return {"mix_revenue_usd_per_request": revenue,
            "mix_blended_price_usd_per_million_tokens": revenue / sum(r["share_x_tokens"] for r in rows) * MILLION,
            "mix_revenue_usd_per_million_output_tokens":
                revenue / sum(r["share_x_output_tokens"] for r in rows) * MILLION}


def workloads_values(scenario, rows: dict[tuple[str, str], int]) -> dict[str, float]:
    """The cached value of every formula cell of the Workloads sheet that has one (not the #N/A cells)."""
    out: dict[str, float] = {}
    for plan in scenario.plans:
        mix = mix_figures(plan) if plan.workloads else {}
        for rc in plan.workloads:
            row = rows[(plan.name, rc.class_)]
            for key, value in (class_figures(plan, rc) | mix).items():
                if math.isfinite(value):
                    out[f"{COLUMN_LETTER[key]}{row}"] = value
    return out
