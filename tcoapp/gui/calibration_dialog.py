"""Fit the generated model to a measured curve: the fit's factors and its errors before and after
at every point (the same report as `tcoapp calibrate`), and a button storing the factors for plans
on the curve's device (one undoable step)."""
from __future__ import annotations

from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QPlainTextEdit, QVBoxLayout

from ..calibration_report import fit_json, fit_text


def fit_job(scenario, curve_name: str):
    """A worker job `f(progress=, should_cancel=) -> (CurveFit, starting factors)`."""
    def run(progress=None, should_cancel=None):
        from ..engine.performance.curve_fit import fit_curve

        curve = scenario.curves[curve_name]
        devices = {n: scenario.device(n) for n in scenario.all_device_names()}
        models = {n: scenario.model(n) for n in scenario.all_model_names()}
        start = scenario.factors_for(curve.device)
        progress and progress(0.1)
        return fit_curve(curve, devices, models, start, workload=scenario.workload_of_curve(curve_name)), start
    return run


class CalibrationDialog(QDialog):
    def __init__(self, fit, start, parent=None):
        super().__init__(parent)
        self.fit = fit
        self.setWindowTitle(f"Fit the generated model to {fit.curve}")
        layout = QVBoxLayout(self)
        self.report = QPlainTextEdit(fit_text(fit_json(fit, start, written=False), "the workbook").rsplit("\n", 1)[0])
        self.report.setReadOnly(True)
        self.report.setFont(QFontDatabase.systemFont(QFontDatabase.FixedFont))
        layout.addWidget(self.report)
        buttons = QDialogButtonBox(QDialogButtonBox.Close)
        self.store_button = buttons.addButton(f"Use these factors for plans on {fit.device}", QDialogButtonBox.AcceptRole)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.resize(820, 560)
