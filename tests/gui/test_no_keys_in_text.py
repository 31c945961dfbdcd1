"""What a person reads in the desktop app names labels, not keys, and numbers in fixed notation:
the Decision headline and ranking and every Compare cell and header, on the default scenario and
on samples of each revenue model and a fleet."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

ROOT = Path(__file__).resolve().parents[2]
KEY = re.compile(r"\b[a-z]+_[a-z_]+\b")
SCIENTIFIC = re.compile(r"\d\.?\d*e[+-]?\d")


def _compare_texts(model) -> list[str]:
    texts = [str(model.headerData(r, Qt.Vertical)) for r in range(model.rowCount())]
    for r in range(model.rowCount()):
        for c in range(model.columnCount()):
            value = model.data(model.index(r, c), Qt.DisplayRole)
            if value is not None:
                texts.append(str(value))
    return texts


@pytest.mark.parametrize("sample", [None, "gpu_cloud_financed", "heterogeneous_disaggregated"])
def test_decision_and_compare_show_labels_and_fixed_notation(open_window, sample):
    window = open_window(None if sample is None else str(ROOT / "samples" / f"{sample}.xlsx"))
    view = window.decision
    texts = [view.headline.text(), view.ranking.toPlainText()]
    from PySide6.QtWidgets import QApplication
    from tcoapp.gui.compare_model import CompareModel
    window.tabs.setCurrentIndex(1)                      # Compare plans: built when first shown
    QApplication.processEvents()
    models = window.findChildren(CompareModel)
    assert models
    for model in models:
        texts += _compare_texts(model)
    for text in texts:
        text = re.sub(r"<[^>]+>", " ", text)   # markup aside
        assert not SCIENTIFIC.search(text), text
        found = KEY.search(text)
        assert not found, (found.group(0), text[:200])
