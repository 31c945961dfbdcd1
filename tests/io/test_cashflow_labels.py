"""Every CashFlow line has a written label (docs/workbook_format.md, "CashFlow"): a quantity's is the
table's (one name per key), a helper cell's the sheet's own; none falls back to its key with the
underscores removed ("Replacement capex usd" read like a key)."""
from tcoapp.engine.quantities import names
from tcoapp.io.xlsx_cashflow import cf_unit
from tcoapp.io.xlsx_labels import CASHFLOW_SHEET_LABELS, RESULT_SHEET_LABELS, cashflow_label, result_label
from tcoapp.io.xlsx_layout import base_key, cf_keys


def test_every_cashflow_line_has_a_written_label():
    for key in cf_keys(2):
        base = base_key(key)
        assert names.label(base) or base in CASHFLOW_SHEET_LABELS, key
        label = cashflow_label(key)
        assert not label.lower().endswith(" usd") and "_" not in label, (key, label)


def test_a_quantity_is_named_by_the_table_on_both_sheets():
    """One name per key: a CashFlow row, a Results row and the table agree (capex_usd is "Capex" everywhere,
    not "Capex (outflow)"), and so do their units."""
    for key in cf_keys(2):
        base = base_key(key)
        if names.label(base):
            assert cashflow_label(base) == names.label(base) == result_label(base), key
            assert cf_unit(base) == (names.unit(base) or "USD"), key
    assert cashflow_label("capex_usd") == "Capex" and cashflow_label("pool2.capex_usd") == "Pool 2: Capex"
    assert result_label("colocation_usd_per_year") == "Colocation per year"   # a year row's levelized value
    assert cf_unit("irr") == names.unit("irr") == "fraction/yr"


def test_the_sheets_own_rows_are_no_quantity():
    """The labels typed in io are only of rows the table does not have (a helper cell, the Results checks)."""
    for key in (*CASHFLOW_SHEET_LABELS, *RESULT_SHEET_LABELS):
        assert not names.label(key), key
