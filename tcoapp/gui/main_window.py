"""The main window: composes the views, the menus and the file actions. It computes nothing.

Built in two steps, so that the app's window shows before numpy and the engine load (gui/app.py): the
frame (`MainWindow()`: menus, tab titles, the plan editor's dock, the status bar, the saved geometry;
Qt only) and then `fill(document)` (the document, the plan editor, the Decision view, Edit's undo,
and every action that needs a document). Until it is filled, the menus and tabs are disabled and the
frame says it is loading."""
from __future__ import annotations

import os

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QApplication, QDockWidget, QFileDialog, QInputDialog, QLabel, QMainWindow, QTabWidget, QVBoxLayout, QWidget,
)

from ..engine.core.errors import TcoError
from . import long_lived
from .lazy_tab import LazyTab
from .problem_bar import ProblemBar
from .settings import AppSettings
from .soon import call_soon
from .worker import ProgressPanel, TaskRunner

WORKBOOK_FILTER = "Scenario workbooks (*.xlsx)"
VIEW_MESSAGE = "view"   # the problem kind of a view's message (main_window._edit_moves_on)
CURVE_FILTER = "Curve files (*.csv);;All files (*)"
LOADING = "Loading the engine…"   # what the frame's Decision tab, plan editor and status bar say until filled


AUTOSAVE_PROBLEM = "autosave"   # the problem bar's kind for a failing autosave (resolved by its next success)
WORKLOADS_PROBLEM = "workloads"   # the plan editor's held shares not adding to 1 (resolved once they do)

class MainWindow(QMainWindow):
    def __init__(self, document=None, parent=None):
        """The frame; filled at once with `document` when one is given (module docstring)."""
        super().__init__(parent)
        self.document = None
        self.settings = AppSettings()
        self.runner = TaskRunner(self)
        self.first_compute: TaskRunner | None = None   # the plans computed after the window shows (compute_later)
        self._compare_tab = LazyTab(self._make_compare)
        self._performance_tab = LazyTab(self._make_performance)
        self._economics_tab = LazyTab(self._make_economics)
        self._uncertainty_tab = LazyTab(self._make_uncertainty)
        self._bridge_tab = LazyTab(self._make_bridge)
        self._catalog_tab = LazyTab(self._make_catalog)
        self._decision_slot = _loading_label()
        self.tabs = QTabWidget()
        for tab, title in ((self._decision_slot, "Decision"), (self._compare_tab, "Compare plans"),
                           (self._performance_tab, "Performance"), (self._economics_tab, "Economics"),
                           (self._bridge_tab, "Bridge"), (self._catalog_tab, "Catalog"),
                           (self._uncertainty_tab, "Uncertainty")):
            self.tabs.addTab(tab, title)
        self.problems = ProblemBar()
        central = QWidget()
        column = QVBoxLayout(central)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(self.problems)
        column.addWidget(self.tabs, 1)
        self.setCentralWidget(central)
        self._dock = QDockWidget("Plan editor", self)
        self._dock.setObjectName("plan_editor_dock")
        self._dock.setWidget(_loading_label())
        self._dock.setFeatures(QDockWidget.DockWidgetMovable | QDockWidget.DockWidgetFloatable)
        self.addDockWidget(Qt.LeftDockWidgetArea, self._dock)
        self.progress = ProgressPanel(self.runner)
        self.statusBar().addPermanentWidget(self.progress)
        self._opening = None
        self.runner.failed.connect(self._task_failed)
        self.runner.finished.connect(self._task_finished)
        self.runner.succeeded.connect(lambda _result: self.problems.resolve(self.runner.last_kind))
        self._build_menus()
        self.setWindowTitle("tcoapp")
        self.statusBar().showMessage(LOADING)
        self._usable(False)
        self.resize(1500, 940)
        if self.settings.geometry() is not None:
            self.restoreGeometry(self.settings.geometry())
        self._restore_state()
        if document is not None:
            self.fill(document)

    def fill(self, document) -> None:
        """Put `document` in the frame: the views and actions that need it (module docstring)."""
        from .autosave import Autosave
        from .decision_view import DecisionView
        from .plan_editor import PlanEditor
        from .shortcuts import UndoShortcuts

        self.document = document
        if document.parent() is None:
            # the window owns its document: deleted with it, the document drops its signal connections,
            # whose lambdas hold the views (a cycle through Qt that Python's collector cannot see)
            document.setParent(self)
        # first of the window's slots on every change, so before any view can raise a problem of its own
        document.scenario_changed.connect(self._edit_moves_on)
        self.autosave = Autosave(document, parent=self)
        self.editor = PlanEditor(document)
        self.decision = DecisionView(document)
        self.tabs.insertTab(0, self.decision, "Decision")   # before the frame's slot, which stays current meanwhile
        self.tabs.setCurrentIndex(0)
        self.tabs.removeTab(1)
        self._decision_slot.deleteLater()
        self._dock.widget().deleteLater()
        self._dock.setWidget(self.editor)
        self.autosave.failed.connect(lambda message: self.show_problem(message, kind=AUTOSAVE_PROBLEM))
        self.autosave.recovered.connect(lambda: self.problems.resolve(AUTOSAVE_PROBLEM))
        self.editor.workloads.problem.connect(self._workloads_problem)
        self._undo_actions()
        self.shortcuts = UndoShortcuts(self, document.undo_stack)
        self.setAcceptDrops(True)
        document.path_changed.connect(self._update_title)
        document.dirty_changed.connect(self._update_title)
        document.scenario_changed.connect(self._status)
        self._update_title()
        self._status()
        self._restore_state()   # the dock's saved size, now that it holds the editor
        self._usable(True)

    def _usable(self, on: bool) -> None:
        """The menus and tabs, which act on the document: disabled in the frame, until it is filled."""
        self.menuBar().setEnabled(on)
        self.tabs.tabBar().setEnabled(on)

    def _restore_state(self) -> None:
        if self.settings.window_state() is not None:
            self.restoreState(self.settings.window_state())

    def compute_later(self):
        """Compute a document made with compute=False off the GUI thread, from the next turn of the
        event loop (first_compute.py); the status bar says so meanwhile. The runner, or None where
        nothing is left to compute."""
        if self.document.computing and self.first_compute is None:
            from .first_compute import compute_off_thread
            self.first_compute = compute_off_thread(self.document)
            self.first_compute.finished.connect(self._status)
        return self.first_compute

    # --- the tab views but Decision, built the first time they are shown -----------------------
    def _make_performance(self):
        from .performance_view import PerformanceView
        view = PerformanceView(self.document, self.runner)
        view.message.connect(self.show_view_message)
        return view

    def _make_compare(self):
        from .compare_view import CompareView
        view = CompareView(self.document)
        view.message.connect(self.show_view_message)
        return view

    def _make_catalog(self):
        from .catalog_view import CatalogView
        view = CatalogView(self.document)
        view.message.connect(self.show_view_message)
        view.fit_requested.connect(self.fit_curve)
        return view

    def _make_economics(self):
        from .economics_view import EconomicsView
        view = EconomicsView(self.document)
        view.message.connect(self.show_view_message)
        return view

    def _make_bridge(self):
        from .bridge_view import BridgeView
        return BridgeView(self.document)

    def _make_uncertainty(self):
        from .montecarlo_view import MonteCarloView
        view = MonteCarloView(self.document, self.runner)
        view.message.connect(self.show_view_message)
        return view

    @property
    def uncertainty(self):
        return self._uncertainty_tab.view()

    @property
    def compare(self):
        return self._compare_tab.view()

    @property
    def catalog(self):
        return self._catalog_tab.view()

    @property
    def performance(self):
        return self._performance_tab.view()

    @property
    def economics(self):
        return self._economics_tab.view()

    # --- menus -------------------------------------------------------------------------------
    def _action(self, menu, text, slot, shortcut=None, tip=None) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(shortcut)
        if tip:
            action.setStatusTip(tip)
        action.triggered.connect(slot)
        menu.addAction(action)
        return action

    def _build_menus(self):
        file_menu = self.menuBar().addMenu("&File")
        self._action(file_menu, "&New", self.new_file, QKeySequence.New, "Start from the built-in default scenario")
        self._action(file_menu, "&Open…", self.open_dialog, QKeySequence.Open)
        self.recent_menu = file_menu.addMenu("Open &Recent")
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        self._action(file_menu, "&Save", self.save, QKeySequence.Save)
        self._action(file_menu, "Save &As…", self.save_as, QKeySequence.SaveAs)
        file_menu.addSeparator()
        self._action(file_menu, "&Import curve…", self.import_curve_dialog, None,
                     "Import measured points: plain CSV, InferenceX CSV or aiconfigurator pareto.csv")
        self._action(file_menu, "&Generate curve with aiconfigurator…", self.aiconfigurator_dialog, None,
                     "Run NVIDIA aiconfigurator (optional package) for a model on an NVIDIA system")
        self._action(file_menu, "&Export chart…", self.export_chart_dialog, None, "Save a chart as PNG or SVG")
        self._action(file_menu, "Export &report (PDF)…", self.export_report_dialog, None,
                     "The decision report: ranked plans with reasons, charts, breakevens, assumptions, sources, "
                     "Monte Carlo summary (the same as tcoapp report FILE --out REPORT.pdf)")
        file_menu.addSeparator()
        self._action(file_menu, "&Quit", self.close, QKeySequence.Quit)
        self._edit_menu = edit_menu = self.menuBar().addMenu("&Edit")
        edit_menu.addSeparator()   # Undo and Redo go above it once there is a document (_undo_actions)
        self._action(edit_menu, "Add plan", lambda: self.document.add_plan())
        self._action(edit_menu, "Duplicate plan", lambda: self.document.add_plan(self.document.current_index))
        self._action(edit_menu, "Delete plan", self.delete_current_plan)
        help_menu = self.menuBar().addMenu("&Help")
        self._action(help_menu, "&About tcoapp", self._about)

    def _undo_actions(self) -> None:
        """Edit > Undo and Redo, on the document's undo stack, first in the menu."""
        undo = self.document.undo_stack.createUndoAction(self, "&Undo")
        undo.setShortcut(QKeySequence.Undo)
        redo = self.document.undo_stack.createRedoAction(self, "&Redo")
        redo.setShortcuts([QKeySequence(QKeySequence.Redo), QKeySequence("Ctrl+Y")])
        self._edit_menu.insertActions(self._edit_menu.actions()[0], [undo, redo])

    def _fill_recent(self):
        self.recent_menu.clear()
        files = self.settings.recent_files()
        for path in files:
            self._action(self.recent_menu, path, lambda _=False, p=path: self.open_in_background(p))
        if not files:
            self.recent_menu.addAction("(none)").setEnabled(False)
        else:
            self.recent_menu.addSeparator()
            self._action(self.recent_menu, "Clear list", self.settings.clear_recent)

    def _about(self):
        from .about_dialog import AboutDialog
        AboutDialog(self.document.scenario, self).exec()

    # --- status and title --------------------------------------------------------------------
    def _update_title(self, *_):
        name = os.path.basename(self.document.path) if self.document.path else (
            f"Copy of {os.path.basename(self.document.copy_of)} (unsaved)" if self.document.copy_of
            else "Untitled (default scenario)")
        self.setWindowTitle(f"{name}[*] — tcoapp")
        self.setWindowModified(self.document.is_dirty)

    def _status(self):
        if self.document.computing:
            self.statusBar().showMessage(f"Computing {len(self.document.scenario.plans)} plans (each runs its "
                                         "serving search)…")
            return
        notes = sum(len(r.warnings) for r in self.document.results)
        self.statusBar().showMessage(f"{len(self.document.scenario.plans)} plans computed; {notes} engine note(s) "
                                     f"(see the Notes row and cell tooltips)")

    def _task_failed(self, message: str) -> None:
        if self._opening:
            self._open_failed(self._opening, message)
        else:
            self.show_problem(message, kind=self.runner.last_kind)

    def _task_finished(self) -> None:
        self._opening = None

    def _workloads_problem(self, text: str) -> None:
        """The plan editor's held shares (not adding to 1) on the problem bar, gone once they do."""
        if text:
            self.show_problem(text, "Workloads", kind=WORKLOADS_PROBLEM)
        else:
            self.problems.resolve(WORKLOADS_PROBLEM)

    def show_problem(self, text: str, title: str = "", kind: str = "") -> None:
        """Every error report of the window and its background tasks: inline, above the views; one
        with a `kind` goes away when that kind of action next succeeds (problem_bar.py)."""
        self.problems.show_problem(text, title, kind)

    def delete_current_plan(self) -> None:
        """Edit > Delete plan; the last plan is kept and the problem bar says why."""
        why = self.document.delete_plan(self.document.current_index)
        if why:
            self.show_view_message(why)

    def show_view_message(self, text: str) -> None:
        """What a view could not do ("no frontier for this plan"): it goes at the next change."""
        self.show_problem(text, kind=VIEW_MESSAGE)

    def _edit_moves_on(self) -> None:
        """A view's message is over once the document changes (an edit, an undo); a file or task problem
        stays (it waits for its own action, Dismiss or another document). This slot runs before the
        views redraw, so a message a view raises on this very change stays."""
        if self.problems.kind == VIEW_MESSAGE:
            self.problems.clear()

    # --- files -------------------------------------------------------------------------------
    def maybe_save(self) -> bool:
        """True when it is fine to drop the current document (saved, discarded, or clean)."""
        if not self.document.is_dirty:
            return True
        from PySide6.QtWidgets import QMessageBox   # (its enums cost the frame's start: main_window.py)
        answer = QMessageBox.question(
            self, "Unsaved changes", "The scenario has unsaved changes. Save them first?",
            QMessageBox.Save | QMessageBox.Discard | QMessageBox.Cancel, QMessageBox.Save)
        if answer == QMessageBox.Save:
            return self.save()
        return answer == QMessageBox.Discard

    def new_file(self):
        if self.maybe_save():
            from ..io.default_scenario import default_scenario
            self.problems.clear()   # what went wrong was about the document left
            self.document.reset(default_scenario(), None)

    def open_dialog(self):
        if not self.maybe_save():
            return
        path, _ = QFileDialog.getOpenFileName(self, "Open scenario", self.settings.last_directory(), WORKBOOK_FILTER)
        if path:
            self.open_in_background(path, confirmed=True)

    def open_path(self, path: str, confirmed: bool = False) -> bool:
        """Open a workbook now (blocking); False when it was refused or could not be read."""
        if not confirmed and not self.maybe_save():
            return False
        from .files import read_workbook
        QApplication.setOverrideCursor(Qt.WaitCursor)
        try:
            scenario = read_workbook(path)
        except TcoError as exc:
            QApplication.restoreOverrideCursor()
            self._open_failed(path, str(exc))
            return False
        QApplication.restoreOverrideCursor()
        self._opened(path, scenario)
        return True

    def open_in_background(self, path: str, confirmed: bool = False) -> None:
        """Open a workbook in the worker thread (progress bar, Cancel); the window stays live."""
        if not confirmed and not self.maybe_save():
            return

        def job(progress, should_cancel):
            from .files import read_workbook
            progress(0.05)
            scenario = read_workbook(path)
            progress(1.0)
            return scenario

        self.runner.start(f"Opening {os.path.basename(path)}…", job,
                          on_success=lambda scenario: self._opened(path, scenario), kind="open")
        self._opening = path

    def _opened(self, path: str, scenario) -> None:
        from .document_files import take_path
        self.problems.clear()   # what went wrong was about the document left (or a failed open)
        take_path(self, path, scenario)
        self.settings.add_recent(path)
        self.settings.set_last_directory(path)
        self.show_read_notes(path, scenario)

    def show_read_notes(self, path: str, scenario) -> None:
        """How the workbook was read (the notes `tcoapp compute` prints), on the problem bar until dismissed (a
        status-bar message is gone in seconds)."""
        from .files import workbook_notes
        notes = workbook_notes(scenario)
        if notes:
            self.show_problem("\n".join(notes), f"Read {os.path.basename(path)}", kind="read_notes")

    def _open_failed(self, path: str, message: str) -> None:
        self.show_problem(f"Cannot open {os.path.basename(path)}:\n{message}", "Open failed", kind="open")
        if not os.path.exists(path):
            self.settings.remove_recent(path)

    def save(self) -> bool:
        if not self.document.path:
            return self.save_as()
        return self.save_to(self.document.path)

    def save_as(self) -> bool:
        start = self.document.path or os.path.join(self.settings.last_directory(), "scenario.xlsx")
        path, _ = QFileDialog.getSaveFileName(self, "Save scenario", start, WORKBOOK_FILTER)
        if not path:
            return False
        if not path.lower().endswith(".xlsx"):
            path += ".xlsx"
        return self.save_to(path)

    def save_to(self, path: str) -> bool:
        from .document_files import may_save_to
        from .files import write_workbook
        if not may_save_to(self, path):
            return False
        try:
            write_workbook(self.document.scenario, path, self.document.results)
        except (TcoError, OSError) as exc:
            self.show_problem(f"Cannot save {os.path.basename(path)}:\n{exc}", "Save failed", kind="save")
            return False
        self.problems.resolve("save")
        self.document.mark_saved(os.path.abspath(path))
        self.settings.add_recent(path)
        self.settings.set_last_directory(path)
        self.statusBar().showMessage(f"Saved {path}", 5000)
        return True

    def import_curve_dialog(self):
        path, _ = QFileDialog.getOpenFileName(self, "Import curve", self.settings.last_directory(), CURVE_FILTER)
        if path:
            self.import_curve(path)

    def import_curve(self, path: str):
        from .files import import_curve_job
        job = import_curve_job(path, self.document.scenario)
        self.runner.start(f"Importing {os.path.basename(path)}…", job, on_success=self._curve_file_read, kind="curve")

    def _curve_file_read(self, result):
        """Show what the file held; add its curves only when the user says so."""
        choice = self.confirm_curve_import(result)
        if choice:
            self._curves_imported(result.curves, as_plans=choice == "with_plans")

    def aiconfigurator_dialog(self):
        from ..io.aiconfigurator_run import missing
        message = missing()
        if message:
            self.show_problem(message, "aiconfigurator is not installed")
            return
        from .aiconfigurator_dialog import AiconfiguratorDialog
        plan = self.document.current_plan()
        dialog = AiconfiguratorDialog(*((plan.input_tokens, plan.output_tokens) if plan else ()), parent=self)
        if dialog.exec() == AiconfiguratorDialog.Accepted:
            self.generate_aiconfigurator_curve(dialog.request())

    def generate_aiconfigurator_curve(self, request: dict):
        from .aiconfigurator_dialog import generate_job
        self.runner.start(f"Running aiconfigurator for {request['model_path']} on {request['system']}…",
                          generate_job(request, self.document.scenario), on_success=self._curve_file_read,
                          kind="curve")

    def confirm_curve_import(self, result) -> str | None:
        from .curve_import_dialog import CurveImportDialog
        dialog = CurveImportDialog(result, self.document.scenario.curves, self)
        if dialog.exec() != CurveImportDialog.Accepted:
            return None
        return "with_plans" if dialog.as_plans.isChecked() else "curves"

    def _curves_imported(self, curves, as_plans: bool = False):
        from .pool_edits import add_deployment_plans
        stack = self.document.undo_stack
        stack.beginMacro(f"Import {len(curves)} curve(s)")
        for curve in curves:
            self.document.add_curve(curve)
        problems = add_deployment_plans(self.document, curves) if as_plans else []
        stack.endMacro()
        if problems:
            self.show_problem("\n".join(problems), "Some deployments could not become plans")
        names = ", ".join(c.name for c in curves)
        self.statusBar().showMessage(f"Imported curve(s): {names}. Select one in the plan editor's Measured curve.",
                                     8000)

    def fit_curve(self, name: str):
        """Fit the generated model to curve `name` off the GUI thread, then show the fit."""
        from .calibration_dialog import fit_job
        self.runner.start(f"Fitting the generated model to {name}…", fit_job(self.document.scenario, name),
                          on_success=self._curve_fitted, kind="fit")

    def _curve_fitted(self, outcome):
        fit, start, check, scope = outcome
        if self.confirm_calibration(fit, start, check, scope) and check.ok:
            import json

            from ..engine.plan.calibration_quality import fit_quality
            text = lambda results: {r.name: json.dumps(r.as_json(), sort_keys=True, default=str) for r in results}  # noqa: E731
            before = text(self.document.results)
            self.document.set_device_factors(scope, fit.result.factors, fit_quality(fit, check))
            changed = [name for name, value in text(self.document.results).items() if before.get(name) != value]
            said = ("changes " + ", ".join(repr(n) for n in changed)) if changed else (
                "changes no plan (a plan uses it when its device, model class and serving_stack match)")
            self.statusBar().showMessage(f"Factors fitted to {fit.curve} stored for {scope}: {said}", 12000)

    def confirm_calibration(self, fit, start, check=None, scope: str = "") -> bool:
        from .calibration_dialog import CalibrationDialog
        return CalibrationDialog(fit, start, self, check, scope).exec() == CalibrationDialog.Accepted

    def charts(self) -> dict:
        uncertainty = self.uncertainty.charts() if self._uncertainty_tab.built else {}
        return {**self.decision.charts(), **self.performance.charts(), **self.economics.charts(), **uncertainty}

    def export_chart_dialog(self):
        charts = self.charts()
        names = list(charts)
        first_economics = next(iter(self.economics.charts()))
        first_performance = next(iter(self.performance.charts()))
        current = {self._economics_tab: names.index(first_economics), self.decision: 0}.get(
            self.tabs.currentWidget(), names.index(first_performance))
        name, ok = QInputDialog.getItem(self, "Export chart", "Chart:", names, current, False)
        if not ok:
            return
        path, chosen = QFileDialog.getSaveFileName(self, "Export chart", os.path.join(
            self.settings.last_directory(), name.lower().replace(" ", "_") + ".png"), "PNG image (*.png);;SVG (*.svg)")
        if path:
            self.export_chart(name, path)

    def export_chart(self, name: str, path: str) -> bool:
        from .export import export_plot
        error = export_plot(self.charts()[name], path)
        if error:
            self.show_problem(error, "Export failed", kind="export")
            return False
        self.problems.resolve("export")
        self.statusBar().showMessage(f"Exported {name} to {path}", 5000)
        return True

    def export_report_dialog(self):
        base = os.path.splitext(os.path.basename(self.document.path or "default_scenario"))[0]
        path, _ = QFileDialog.getSaveFileName(self, "Export report", os.path.join(
            self.settings.last_directory(), f"{base}_report.pdf"), "PDF (*.pdf)")
        if path:
            self.export_report(path if path.lower().endswith(".pdf") else path + ".pdf")

    def export_report(self, path: str) -> bool:
        """Write the decision report (report_pdf.py), ranked as the Decision tab ranks; the Uncertainty tab's simulation when it has one."""
        from .report_pdf import simulation_for_report, write_report_pdf
        doc = self.document
        try:
            sim = None
            if self._uncertainty_tab.built and self.uncertainty.simulation is not None:
                from ..engine.uncertainty.report import simulation_json
                sim = simulation_json(self.uncertainty.simulation)
            elif doc.scenario.uncertainty:
                sim = simulation_for_report(doc.scenario, doc.results)
            title = os.path.basename(doc.path) if doc.path else "built-in default scenario"
            write_report_pdf(doc.scenario, doc.results, path, title, sim, self.decision.model.chosen)
        except Exception as exc:  # noqa: BLE001 - a failed export is reported, never a traceback
            self.show_problem(f"The report could not be written to {path}: {exc}", "Export failed", kind="export")
            return False
        self.problems.resolve("export")
        self.statusBar().showMessage(f"Exported the report to {path}", 5000)
        return True

    # --- drag and drop, close ----------------------------------------------------------------
    def dragEnterEvent(self, event):
        urls = event.mimeData().urls() if event.mimeData().hasUrls() else []
        if any(u.toLocalFile().lower().endswith((".xlsx", ".csv")) for u in urls):
            event.acceptProposedAction()

    def dropEvent(self, event):
        for url in event.mimeData().urls():
            path = url.toLocalFile()
            if path.lower().endswith(".xlsx"):
                event.acceptProposedAction()
                call_soon(self, lambda p=path: self.open_in_background(p))
                return
            if path.lower().endswith(".csv"):
                event.acceptProposedAction()
                call_soon(self, lambda p=path: self.import_curve(p))
                return

    def changeEvent(self, event):
        super().changeEvent(event)
        if (event.type() == QEvent.ActivationChange and self.isActiveWindow() and not self._opening
                and self.document is not None):
            from .document_files import check_disk
            call_soon(self, lambda: check_disk(self))

    def closeEvent(self, event):
        if self.document is None:   # closed before it was filled: nothing to save
            event.accept()
            return
        if not self.maybe_save():
            event.ignore()
            return
        if self._performance_tab.built:
            self.performance.stop()
        for runner in (self.runner, self.first_compute):
            if runner is not None:
                runner.cancel()
                runner.wait(10000)
        self.shortcuts.detach()
        self.settings.save_window(self.saveGeometry(), self.saveState())
        self.autosave.stop()
        long_lived.release()   # the objects kept from the collector since pyqtgraph loaded, the document's among them
        event.accept()


def _loading_label() -> QLabel:
    """What the frame shows where a view will be (module docstring)."""
    label = QLabel(LOADING)
    label.setAlignment(Qt.AlignCenter)
    label.setStyleSheet("QLabel { color: #777; }")
    return label
