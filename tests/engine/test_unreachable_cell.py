"""Rows whose target no modelled configuration reaches (predicted 0) are their own cell: they build no
band and are not in their regime x class cell, yet are counted, outside every band, and in the
subtotals at -100 % (docs/model.md, "How sure it is")."""
from __future__ import annotations

import pytest

from tcoapp.cli.accuracy import lofo_table
from tcoapp.engine.performance import interval_cells
from tcoapp.engine.performance.accuracy import Accuracy, RowResult


def _row(line: int, predicted: float) -> RowResult:
    return RowResult(line, "B200-SXM", "Llama-3.3-70B", "B200", measured=100.0, predicted=predicted, config={},
                     kind="dense", scenario="interactive", vendor="NVIDIA", source_family=f"f{line % 5}")


REACHED = [_row(i, 100.0 * (0.8 + 0.4 * ((i * 7) % 11) / 10)) for i in range(60)]
UNREACHED = [_row(100 + i, 0.0) for i in range(10)]


def test_unreachable_rows_build_no_band():
    alone = interval_cells.build_cells(REACHED)
    both = interval_cells.build_cells(REACHED + UNREACHED)
    assert both["interactive/dense"] == alone["interactive/dense"]
    assert both["*"][0] == len(REACHED)


def test_unreachable_rows_are_their_own_cell_in_the_coverage_and_outside_every_band():
    cover = interval_cells.coverage(REACHED + UNREACHED)
    assert cover[interval_cells.UNREACHED_CELL] == {"n": len(UNREACHED), "inside_share": 0.0}
    assert cover["interactive/dense"]["n"] == len(REACHED)
    assert cover["overall"]["n"] == len(REACHED) + len(UNREACHED)
    assert cover["overall"]["inside_share"] == pytest.approx(
        cover["interactive/dense"]["inside_share"] * len(REACHED) / (len(REACHED) + len(UNREACHED)))


def test_the_accuracy_table_prints_the_unreachable_cell_and_counts_it_in_the_subtotals():
    lines = lofo_table(Accuracy(tuple(REACHED + UNREACHED), ()))
    cells = {line[:32].strip(): line[32:].split() for line in lines[1:]}
    assert cells["interactive dense all"][0] == str(len(REACHED))
    assert cells["unreachable interactive"][0] == cells["unreachable all"][0] == str(len(UNREACHED))
    assert cells["unreachable all"][1:] == ["100.0", "100.0", "-100.0"]
    assert cells["overall"][0] == cells["interactive"][0] == str(len(REACHED) + len(UNREACHED))
    assert cells["overall"][2] == "100.0"     # the unreachable rows' -100 % is in the overall p90
