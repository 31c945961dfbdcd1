"""A workbook written by an earlier version, whose column B holds the labels of then ("Device count",
"Step overhead (device)", "Capex (outflow)"), reads as one written now: rows are found by their key
(column A), labels are never read (docs/workbook_format.md)."""
import openpyxl

from tcoapp.io import sheets as S
from tcoapp.io.default_scenario import default_scenario
from tcoapp.io.workbook_read import read_scenario
from tcoapp.io.workbook_write import write_scenario

OLD = {"device_count": "Device count (devices)", "step_overhead_s": "Step overhead (device) (s)",
       "layer_overhead_s": "Layer overhead (device) (s)", "capex_usd": "Capex (outflow) (USD)",
       "opex_usd": "Opex (outflow) (USD)", "batch": "Batch (operating point) (sequences)"}


def _with_old_labels(path) -> int:
    """Column B of every sheet, where its key had another label before, set to that label; how many."""
    book = openpyxl.load_workbook(path)
    changed = 0
    for ws in book.worksheets:
        for row in ws.iter_rows(min_col=1, max_col=2):
            key = row[0].value
            if isinstance(key, str) and key.split(".")[-1] in OLD and len(row) > 1:
                row[1].value = OLD[key.split(".")[-1]]
                changed += 1
    book.save(path)
    return changed


def test_a_file_with_the_earlier_labels_reads_the_same(tmp_path):
    path = tmp_path / "earlier.xlsx"
    scenario = default_scenario()
    write_scenario(scenario, path)
    now = read_scenario(path)
    assert _with_old_labels(path) >= 3
    book = openpyxl.load_workbook(path, read_only=True)
    assert any(cell == "Device count (devices)" for row in book[S.PLANS].iter_rows(max_col=2, values_only=True)
               for cell in row)
    assert read_scenario(path) == now
