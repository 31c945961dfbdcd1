"""Import curve: show what a file held (its curves, their points and configuration, and every
warning) before anything is added to the scenario. The same reader as `tcoapp curves`."""
from __future__ import annotations

import math

from PySide6.QtWidgets import (
    QCheckBox, QDialog, QDialogButtonBox, QLabel, QPlainTextEdit, QTableWidget, QTableWidgetItem, QVBoxLayout,
)

from ..engine.plan.pools_from_curve import is_disaggregated

COLUMNS = ("Curve", "Device", "Model", "Points", "Batch", "Tokens/s per device", "Tokens/s per user", "Configuration")


def _span(values) -> str:
    finite = [float(v) for v in values if math.isfinite(v)]
    if not finite:
        return "–"
    lo, hi = min(finite), max(finite)
    return f"{lo:.4g}" if lo == hi else f"{lo:.4g} – {hi:.4g}"


class CurveImportDialog(QDialog):
    """A table of the curves read (one row each), the warnings below, and Add / Cancel."""

    def __init__(self, result, existing=(), parent=None):
        super().__init__(parent)
        self.result = result
        self.setWindowTitle(f"Import curves from {result.path.replace(chr(92), '/').rsplit('/', 1)[-1]}")
        layout = QVBoxLayout(self)
        points = sum(c.batch.size for c in result.curves)
        self.summary = QLabel(f"{result.format} format: {len(result.curves)} curve(s), {points} point(s). "
                              "Check them before adding; each keeps its configuration and source file.")
        self.summary.setWordWrap(True)
        layout.addWidget(self.summary)
        self.table = QTableWidget(len(result.curves), len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        for row, curve in enumerate(result.curves):
            cells = (curve.name, curve.device, curve.model, str(curve.batch.size), _span(curve.batch),
                     _span(curve.tokens_per_s_per_device), _span(curve.tokens_per_s_per_user),
                     "; ".join(f"{k}={v}" for k, v in curve.config))
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                self.table.setItem(row, col, item)
        self.table.setEditTriggers(QTableWidget.NoEditTriggers)
        self.table.resizeColumnsToContents()
        layout.addWidget(self.table)
        replaced = [c.name for c in result.curves if c.name in set(existing)]
        lines = [f"replaces the scenario's curve {name!r}" for name in replaced] + list(result.warnings)
        self.warnings = QPlainTextEdit("\n".join(f"• {w}" for w in lines) or "No warnings.")
        self.warnings.setReadOnly(True)
        layout.addWidget(QLabel(f"Warnings ({len(lines)}):"))
        layout.addWidget(self.warnings)
        deployments = [c for c in result.curves if is_disaggregated(c)]
        self.as_plans = QCheckBox(f"Also add each disaggregated deployment ({len(deployments)}) as a two-pool plan "
                                  "(its prefill and decode pools, devices and configuration, on the generated model)")
        self.as_plans.setVisible(bool(deployments))
        self.as_plans.setChecked(False)
        layout.addWidget(self.as_plans)
        buttons = QDialogButtonBox(QDialogButtonBox.Cancel)
        self.add_button = buttons.addButton(f"Add {len(result.curves)} curve(s)", QDialogButtonBox.AcceptRole)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.resize(1000, 460)
