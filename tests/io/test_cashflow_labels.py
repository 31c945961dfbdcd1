"""Every CashFlow line has a written label (docs/workbook_format.md, "CashFlow"): none falls back to its key
with the underscores removed ("Replacement capex usd" read like a key)."""
from tcoapp.io.xlsx_labels import CASHFLOW_LABELS, cashflow_label
from tcoapp.io.xlsx_layout import base_key, cf_keys


def test_every_cashflow_line_has_a_written_label():
    for key in cf_keys(2):
        assert base_key(key) in CASHFLOW_LABELS, key
        label = cashflow_label(key)
        assert not label.lower().endswith(" usd") and "_" not in label, (key, label)
