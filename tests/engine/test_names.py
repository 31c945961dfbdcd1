"""One name per quantity (tcoapp/engine/quantities/names.py): a key's rows carry one label and one unit
between them, every surface reads them there, and the GUI's years table types none of its own."""
from collections import defaultdict

from tcoapp.engine.quantities import names
from tcoapp.engine.quantities.finance import YEAR_QUANTITIES
from tcoapp.engine.quantities.table import ROWS


def test_a_key_has_one_label():
    labels = defaultdict(set)
    for row in ROWS:
        if row.label:
            labels[row.key].add(row.label)
    assert not {key: found for key, found in labels.items() if len(found) > 1}


def test_a_key_has_one_unit():
    """A finance input's choice is read as its index (unit "code"): the field's unit is the one shown."""
    units = defaultdict(set)
    for row in ROWS:
        if row.unit != names.CODE_UNIT:
            units[row.key].add(row.unit)
    assert not {key: found for key, found in units.items() if len(found) > 1}


def test_every_year_row_is_named():
    """The yearly rows (CashFlow, the GUI years table, `compute --json` years) are named by the table,
    and their levelized plan values after them."""
    assert all(q.label for q in YEAR_QUANTITIES), [q.key for q in YEAR_QUANTITIES if not q.label]
    assert names.label("capex_usd") == "Capex"
    assert names.label("colocation_usd_per_year") == "Colocation per year"   # named after its year row
    assert names.label("staff_usd_per_year") == "Staff"   # a row's own label (the Plans input) comes first
    assert names.label("balloon_usd_per_year") == "Balloon repayment per year"


def test_the_years_table_reads_the_table():
    from tcoapp.gui import years_table
    rows = (*years_table.ROWS, *years_table.REPLACEMENT_ROWS, *years_table.INDEX_ROWS, *years_table.DEBT_ROWS)
    assert all(isinstance(key, str) and names.label(key) and names.unit(key) for key in rows)
    assert years_table._shown_unit("utilization") == "%" and years_table._shown_unit("capex_usd") == "USD"
