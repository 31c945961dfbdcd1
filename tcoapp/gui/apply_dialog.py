"""The dialog of "Apply to plans...": which plans take the current plan's value of a field."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QListWidget, QListWidgetItem, QVBoxLayout


class ApplyDialog(QDialog):
    """A checkable list of the plans (the current one ticked and fixed: it holds the value already)."""

    def __init__(self, parent, label: str, names, current: int):
        super().__init__(parent)
        self.setWindowTitle(f"Apply {label} to plans")
        self.plans = QListWidget()
        self.plans.setObjectName("apply_plans")
        for i, name in enumerate(names):
            item = QListWidgetItem(name if i != current else f"{name} (this plan: its value)")
            flags = Qt.ItemIsEnabled | (Qt.ItemIsUserCheckable if i != current else Qt.NoItemFlags)
            item.setFlags(flags)
            item.setCheckState(Qt.Checked if i == current else Qt.Unchecked)
            self.plans.addItem(item)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(f"The plans that take this plan's {label} (one undoable step):"))
        layout.addWidget(self.plans)
        layout.addWidget(buttons)

    def chosen(self) -> list[int]:
        return [i for i in range(self.plans.count()) if self.plans.item(i).checkState() == Qt.Checked]


def choose_plans(parent, label: str, names, current: int) -> list[int]:
    """The plans ticked (empty where cancelled)."""
    dialog = ApplyDialog(parent, label, names, current)
    try:
        return dialog.chosen() if dialog.exec() == QDialog.Accepted else []
    finally:
        dialog.deleteLater()
