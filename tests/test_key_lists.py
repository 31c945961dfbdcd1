"""No module types a list of quantity-table keys by hand (issue 27): every list of keys another module
needs is a view of the table's flow columns (tcoapp/engine/quantities/). A literal tuple, list or set of
three or more strings that are all keys of the table, outside the table's package, fails here unless it
is in ALLOWED below with the reason it is not a view."""
from __future__ import annotations

import ast
from pathlib import Path

from tcoapp.engine.quantities.table import ALL_KEYS, ROWS, scopes_of

ROOT = Path(__file__).resolve().parents[1] / "tcoapp"
TABLE_PACKAGE = ROOT / "engine" / "quantities"
MIN_KEYS = 3
UNITS = frozenset(r.unit for r in ROWS if r.unit)

# (file, first key of the literal): why it is not derived from the table
ALLOWED = {
    ("io/xlsx_cached.py", "opex_usd"): "the cash outflows the CashFlow sheet caches with a minus sign",
    # the serving configuration's fields (a ServingConfig subset): owned by the serving search / pools
    # code the `chain` and `search` branches rework
    ("engine/performance/frontier.py", "tensor_parallel"): "the frontier's configuration columns",
    ("engine/serving/freeze.py", "tensor_parallel"): "the searched configuration frozen into a pool",
    ("engine/plan/pools_from_curve.py", "tensor_parallel"): "the configuration a measured curve states",
    ("gui/performance_view.py", "batch"): "the sweep table's configuration columns",
    ("engine/performance/curve_fit.py", "weight_precision"): "the precisions a curve fit must share",
    # efficiency-factor subsets a fit varies (a choice of the fitting method, not a property of a key)
    ("engine/performance/calibration.py", "eta_mem"): "the factors a one-point calibration fits",
    ("engine/performance/curve_fit.py", "eta_mem"): "the factors a curve fit varies",
    ("engine/performance/curve_fit.py", "moe_compute_efficiency"): "the factors a MoE curve's fit varies, MoE ones first",
    ("engine/performance/error_components.py", "weight_precision"): "a measurement row's configuration fields "
                                                                       "that group its model error",
    ("engine/plan/scenario.py", "device"): "the plan fields that name a device bought in year 0",
    ("io/cross_validated.py", "line"): "the stored cross-validated predictions' CSV columns (a file format)",
    ("io/agentic_measurements.py", "tensor_parallel"): "the agentic measurements CSV's number columns (a file format)",
    ("engine/finance/metrics.py", "capex_usd"): "the year rows the capex per year reads (_levelized_costs), which "
                                                "the cost-only path computes",
    ("engine/finance/metrics.py", "cash_flow_usd"): "the year rows the NPV-only path computes: the cash flow, the "
                                                    "taxable income its tax reads and the rows _years_to_tax reads",
    ("engine/finance/metrics.py", "discounted_payback_months"): "the returns a Monte Carlo draw does not keep, left "
                                                                "out of its finance (with_extra_returns=False)",
    ("present/report_html.py", "npv_usd"): "the report's ranking columns beside the objective, in print order",
    # the Monte Carlo key routing, rewritten by the `chain` branch (uncertainty/plan_draws.py)
    ("engine/uncertainty/keys.py", "prefix_cache_hit_rate"): "plan keys that move a generated operating point",
    # chart axes and column orders of one view
    ("gui/perf_data.py", "batch"): "the performance chart's axis choices",
    ("gui/performance_view.py", "tokens_per_s_per_device"): "the axes drawn on a log scale",
    ("gui/plan_editor.py", "device"): "the plan fields that name a device (a catalog drop-down)",
    ("gui/pools_editor.py", "pool"): "the Pools editor's column order",
    ("gui/catalog_view.py", "source"): "catalog columns shown wide (free text)",
    ("io/curves_table.py", "device"): "the Curves sheet's per-curve columns, in sheet order",
    ("io/xlsx_inputs.py", "source"): "free-text columns written wide",
    ("io/xlsx_inputs.py", "name"): "text columns a spreadsheet must not read as numbers",
    ("io/xlsx_cached.py", "pool"): "a pool's identity cells (text, no cached number)",
    ("present/report_html.py", "model"): "the inputs the HTML report prints, in its order",
    ("cli/text.py", "npv_usd"): "the ranking's columns beside the objective, in print order",
    ("cli/text.py", "cost_per_million_output_tokens_usd"): "the ranking's columns beside NPV or equity NPV as "
                                                           "objective, in print order; and the ranking's "
                                                           "abbreviated column headers (cost/Mtok, NPV: a "
                                                           "terminal's width)",
    # lists that hold keys among other names (found since a list need not hold keys only)
    ("api/scenario.py", "curve"): "the curve DataFrame's identity and configuration columns, in frame order",
    ("engine/performance/accuracy.py", "family"): "the accuracy report's grouping choices (row attributes)",
    ("engine/performance/measured.py", "name"): "a measured curve's scalar attributes compared for equality",
    ("io/curve_files/formats.py", "curve"): "a curve file's identity columns (the file format's own names)",
    ("io/curve_files/rows.py", "batch"): "the curve-file columns read as a point's values (file names: tpot, ttft)",
    ("io/xlsx_cashflow.py", "equity_npv_usd"): "the CashFlow summary cells, in sheet order (helper cells among them)",
    ("io/xlsx_layout.py", "equity_npv_usd"): "the CashFlow financing block's cell order (helper cells among them)",
    ("io/xlsx_layout.py", "payback_year_fraction"): "the CashFlow block's helper and summary cells, in sheet order",
    ("io/xlsx_montecarlo.py", "plan"): "the MonteCarlo sheet's model error table's columns, in sheet order",
    ("io/xlsx_na.py", "plan_check"): "the Results rows no formula can make n/a (a property of the workbook's formulas)",
    ("io/xlsx_na.py", "price_index"): "the CashFlow rows no formula can make n/a (a property of the workbook's formulas)",
    # rows of one view, in its order (each row's label and unit are the table's)
    ("gui/years_table.py", "utilization"): "the years table's rows, in display order",
    ("gui/years_table.py", "debt_drawn_usd"): "the years table's debt rows, in display order",
    # text beside keys that is not the key's name: a sheet's own help, abbreviations
    ("io/xlsx_cashflow.py", "capex_usd"): "the CashFlow sheet's help of its rows: the sheet's sign convention and "
                                          "formulas (the table's help describes the quantity)",
    ("io/xlsx_results.py", "batch"): "the Results sheet's help of the operating-point rows (over the plan's pools)",
    ("io/xlsx_results.py", "pool"): "the Results sheet's help of a pool's identity rows",
    ("gui/performance_view.py", "tensor_parallel"): "the sweep table's abbreviated column headers (TP, EP)",
}


def _strings(nodes) -> list[str]:
    return [e.value for e in nodes if isinstance(e, ast.Constant) and isinstance(e.value, str)]


def _readable(node) -> bool:
    """A text a person reads beside a key: a label or help (a space, a capital first letter) or a unit."""
    text = node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else ""
    return bool(text) and (" " in text or text[:1].isupper() or text in UNITS)


def _labelled(node) -> bool:
    """A (key, label) or (key, label, unit) tuple: a table key, then a readable name typed beside it."""
    values = _strings(node.elts)
    return (2 <= len(node.elts) <= 3 and len(values) == len(node.elts) and values[0] in ALL_KEYS
            and values[1] not in ALL_KEYS and (" " in values[1] or values[1][:1].isupper()))


def _literals(path: Path):
    """Every literal tuple, list or set holding MIN_KEYS or more table keys, whatever else it holds (a list
    with one non-key string among its keys is still a hand-typed key list); every dictionary mapping MIN_KEYS
    or more table keys to text (a hand-typed table of labels, units or help); every (key, label) or (key,
    label, unit) tuple (a key named by hand beside the table's own label)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)) and len(node.elts) >= MIN_KEYS:
            values = _strings(node.elts)
            if sum(v in ALL_KEYS for v in values) >= MIN_KEYS:
                yield node.lineno, values
        if isinstance(node, ast.Dict):
            named = [k.value for k, v in zip(node.keys, node.values) if isinstance(k, ast.Constant)
                     and k.value in ALL_KEYS and (isinstance(v, ast.JoinedStr) or _readable(v))]
            if len(named) >= MIN_KEYS:
                yield node.lineno, named
        if isinstance(node, ast.Tuple) and _labelled(node):
            yield node.lineno, _strings(node.elts)


def _stray():
    found = {}
    for path in sorted(ROOT.rglob("*.py")):
        if TABLE_PACKAGE in path.parents:
            continue
        for line, values in _literals(path):
            found.setdefault((path.relative_to(ROOT).as_posix(), values[0]), []).append((line, values))
    return found


def test_no_hand_typed_key_list_outside_the_table():
    stray = {where: hits for where, hits in _stray().items() if where not in ALLOWED}
    assert not stray, "key lists typed by hand (derive them from tcoapp/engine/quantities/): " + "; ".join(
        f"{file}:{line} {values}" for (file, _), hits in stray.items() for line, values in hits)


def test_every_allowed_list_still_exists():
    """An allow-list entry whose literal is gone is removed, so the list only shrinks."""
    assert not set(ALLOWED) - set(_stray())


def test_the_scan_sees_a_stray_list(tmp_path):
    """The scan is not vacuous: a hand-typed opex list is found."""
    module = tmp_path / "m.py"
    module.write_text('PARTS = ("energy_usd", "colocation_usd", "maintenance_usd")\nOK = ("a", "b", "c")\n'
                      'MIXED = {"not a key", "energy_usd", "colocation_usd", "maintenance_usd"}\n')
    assert [values for _, values in _literals(module)] == [["energy_usd", "colocation_usd", "maintenance_usd"],
                                                           ["not a key", "energy_usd", "colocation_usd", "maintenance_usd"]]


def test_the_scan_sees_a_label_table_and_a_labelled_tuple(tmp_path):
    """A dictionary naming keys by hand (labels, units or help) and a (key, label, unit) tuple are found;
    a dictionary of values keyed by keys (a record's defaults) is not."""
    module = tmp_path / "m.py"
    module.write_text('LABELS = {"energy_usd": "Energy", "colocation_usd": "Colocation", "rent_usd": "Rent"}\n'
                      'UNITS = {"energy_usd": "USD", "utilization": "fraction", "output_tokens": "tokens"}\n'
                      'ROW = ("capex_usd", "Capex paid (tranches)", "USD")\n'
                      'VALUES = {"device": "b200", "weight_precision": "fp8", "kv_precision": "fp8"}\n')
    assert [values for _, values in _literals(module)] == [["energy_usd", "colocation_usd", "rent_usd"],
                                                           ["energy_usd", "utilization", "output_tokens"],
                                                           ["capex_usd", "Capex paid (tranches)", "USD"]]


def test_every_key_has_a_scope():
    assert all(scopes_of(key) for key in ("capex_usd", "insurance_usd", "eta_mem", "npv_usd", "price_usd")
               if key in ALL_KEYS)
    assert set(scopes_of("capex_usd")) >= {"pool quantity", "plan quantity", "year", "metric"}
