"""The quantity table: every key of tcoapp, one row per scope it is in (docs/workbook_format.md, "Results").

- `row.py`: the one row type `Row` (key, scope, unit, label, help) and its kinds, each adding only its
  own columns (an input `Field`, an efficiency `Factor`, a finance `Quantity`, a result `Metric`);
- `inputs.py`: the inputs (plan, pool, device, model, curve, price-tier fields);
- `finance.py`: the finance layer's per-pool, per-plan and per-year quantities and its typed records;
- `metrics.py`: the result metrics and the typed `Metrics` record generated from them;
- `factor_rows.py`: the efficiency factors of the generated curve, one row each (default, range, fit scope
  and bounds, provenance); `factors.py` their views (the generated `EfficiencyFactors` record is
  `factor_types.py`);
- `expr.py`: a row's equation written once (numpy for the engine, the Results formula for the workbook);
- `constants.py`: the named constants those equations and the workbook's Constants sheet use;
- `table.py`: all rows as one table, `ROWS`, with its scopes and its columns (the key-list test checks
  the code against it).

Every list of keys another module needs is a view of the rows' flow columns, defined beside its
table (opex parts, cost-bar segments, bridge parts, CashFlow rows, cached rows, JSON keys, Checks
marks, sizing reads, tornado swings, Monte Carlo lists); tests/test_key_lists.py forbids retyping one.
Importing this package imports nothing else: read the module you need.
"""
