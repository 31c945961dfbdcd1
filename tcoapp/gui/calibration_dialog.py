"""Fit the generated model to a measured curve: the fit's factors and its errors before and after
at every point and at held-out points (the same report as `tcoapp calibrate`), and a button storing
the factors for plans in the curve's scope (device x model class x serving stack; one undoable
step), enabled only when the fit passes the held-out rule (engine/performance/fit_check.py)."""
from __future__ import annotations

from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QPlainTextEdit, QVBoxLayout

from ..engine.performance.calibration_report import fit_json, fit_text


def fit_job(scenario, curve_name: str):
    """A worker job `f(progress=, should_cancel=) -> (CurveFit, starting factors, FitCheck, scope key)`."""
    def run(progress=None, should_cancel=None):
        from ..engine.plan.calibration_scope import curve_scope, factors_in_scope
        from ..engine.performance.curve_fit import fit_curve
        from ..engine.performance.fit_check import check_fit

        curve = scenario.curves[curve_name]
        devices = {n: scenario.device(n) for n in scenario.all_device_names()}
        models = {n: scenario.model(n) for n in scenario.all_model_names()}
        scope = curve_scope(curve, models)
        start = factors_in_scope(scenario.device_factors, scope.device, scope.model_class,
                                 scope.serving_stack) or scenario.factors
        progress and progress(0.1)
        fit = fit_curve(curve, devices, models, start, workload=scenario.workload_of_curve(curve_name))
        progress and progress(0.6)
        return fit, start, check_fit(fit, curve, devices, models, start), scope.key
    return run


class CalibrationDialog(QDialog):
    def __init__(self, fit, start, parent=None, check=None, scope: str = ""):
        super().__init__(parent)
        self.fit = fit
        self.setWindowTitle(f"Fit the generated model to {fit.curve}")
        layout = QVBoxLayout(self)
        report = fit_text(fit_json(fit, start, written=False, check=check, scope=scope), "the workbook")
        self.report = QPlainTextEdit(report.rsplit("\n", 1)[0])
        self.report.setReadOnly(True)
        self.report.setFont(QFontDatabase.systemFont(QFontDatabase.FixedFont))
        layout.addWidget(self.report)
        buttons = QDialogButtonBox(QDialogButtonBox.Close)
        self.store_button = buttons.addButton(f"Use these factors for plans in {scope or fit.device}",
                                              QDialogButtonBox.AcceptRole)
        if check is not None and not check.ok:
            self.store_button.setEnabled(False)
            self.store_button.setToolTip("The fit fails the held-out rule: " + "; ".join(check.reasons))
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.resize(820, 560)
