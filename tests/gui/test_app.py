"""Start-up smoke test of the real entry point, samples, autosave and recovery, drag and drop."""
import glob
import os
import re
import subprocess
import sys

import pytest
from PySide6.QtCore import QMimeData, QPoint, Qt, QUrl
from PySide6.QtGui import QDropEvent

import tcoapp.gui.autosave as autosave
from tcoapp.gui.app import create_window, offer_recovery
from tcoapp.engine.performance.measured import make_measured_curve

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SAMPLES = sorted(glob.glob(os.path.join(ROOT, "samples", "*.xlsx")))


def test_entry_point_starts_and_quits(tmp_path):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", TCOAPP_SMOKE_EXIT_MS="200",
               XDG_CONFIG_HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path))
    proc = subprocess.run([sys.executable, "-m", "tcoapp"], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "TCOAPP_SHOWN" in proc.stdout
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("path", SAMPLES, ids=[os.path.basename(p) for p in SAMPLES])
def test_every_sample_opens_computes_and_draws(qtbot, path):
    window = create_window(path)
    qtbot.addWidget(window)
    window.show()
    window.tabs.setCurrentIndex(window.tabs.indexOf(window._economics_tab))   # a hidden tab is not drawn
    assert window.document.path == os.path.abspath(path)
    n = len(window.document.scenario.plans)
    assert window.compare.model.columnCount() == n
    assert len(window.economics.cash_lines.ensure(n)) == n
    for i in range(n):
        window.document.set_current_index(i)
    window.document.undo_stack.setClean()


def _crash(window):
    """What a crash does to the window's document lock: the system drops it; the recovery file stays."""
    window.autosave._lock.release()


def test_autosave_and_recovery(window, dialogs):
    doc = window.document
    doc.set_plan_value(0, "utilization", 0.42)
    assert window.autosave.timer.isActive()
    assert window.autosave.save_now() is None
    assert autosave.pending_recoveries() == ([], []), "open in a running window: nothing to recover"
    _crash(window)
    (recovery,), problems = autosave.pending_recoveries()
    assert recovery.scenario == doc.scenario and recovery.path is None and problems == []
    fresh = create_window(None)
    dialogs.answer = dialogs.answer.Yes
    assert offer_recovery(fresh, type("Box", (), {"question": staticmethod(dialogs.question), "Yes": dialogs.answer.Yes,
                                                  "No": dialogs.answer.No}))
    assert fresh.document.scenario.plans[0].utilization == 0.42 and fresh.document.is_dirty
    fresh.document.undo_stack.setClean()
    assert autosave.pending_recoveries() == ([], [])   # clean again: nothing to recover
    fresh.deleteLater()


def test_clean_close_leaves_nothing_to_recover(window):
    window.document.set_plan_value(0, "utilization", 0.42)
    window.autosave.save_now()
    window.autosave.stop()
    assert autosave.pending_recoveries() == ([], [])
    assert os.listdir(autosave.autosave_dir()) == []


def test_drop_workbook_opens_it(window, qtbot, tmp_path):
    from tests.cli.workbook_factory import write_workbook

    path = write_workbook(str(tmp_path / "dropped.xlsx"))
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(path)])
    event = QDropEvent(QPoint(10, 10), Qt.CopyAction, mime, Qt.LeftButton, Qt.NoModifier)
    window.dropEvent(event)
    qtbot.waitUntil(lambda: window.document.path == os.path.abspath(path), timeout=5000)


def test_recent_files_menu(window, tmp_path):
    from tests.cli.workbook_factory import write_workbook

    path = write_workbook(str(tmp_path / "recent.xlsx"))
    window.open_path(path)
    window._fill_recent()
    texts = [a.text() for a in window.recent_menu.actions()]
    assert os.path.abspath(path) in texts


PLAIN_CSV = """curve,device,model,batch,tokens_per_s_per_device,tokens_per_s_per_user,power_w,source
my-h100,H100-SXM,Llama-3.3-70B,1,40,40,400,bench A
my-h100,H100-SXM,Llama-3.3-70B,8,280,35,500,bench A
my-h100,H100-SXM,Llama-3.3-70B,32,900,28,620,bench A
my-h100,H100-SXM,Llama-3.3-70B,128,2000,16,690,bench A
"""


def test_import_curve_in_worker_then_use_it(window, qtbot, tmp_path, monkeypatch):
    shown = []
    monkeypatch.setattr(window, "confirm_curve_import", lambda result: shown.append(result) or True)
    path = tmp_path / "my.csv"
    path.write_text(PLAIN_CSV)
    with qtbot.waitSignal(window.runner.succeeded, timeout=10000):
        window.import_curve(str(path))
    assert [c.name for c in shown[0].curves] == ["my-h100"]  # shown before it was added
    doc = window.document
    assert "my-h100" in doc.scenario.curves
    assert window.catalog.curves_model.rowCount() == 4
    combo = window.editor.editors["curve"].widget
    assert combo.findData("my-h100") >= 0
    error = doc.set_plan_values(0, {"curve": "my-h100", "min_tokens_per_s_per_user": None, "batch": 32})
    assert error is None
    assert doc.results[0].metrics.tokens_per_s_per_device == pytest.approx(900)
    doc.undo_stack.undo()
    doc.undo_stack.undo()   # the import is one step
    assert "my-h100" not in doc.scenario.curves


def test_import_preview_shows_curves_points_and_warnings_and_cancel_adds_nothing(window, qtbot, monkeypatch):
    from tcoapp.gui.curve_import_dialog import CurveImportDialog
    from tcoapp.io.curve_files import read_curve_file

    path = os.path.join(os.path.dirname(__file__), "..", "data", "curves", "aiconfigurator_llama70b_fp8_h200_agg_pareto.csv")
    result = read_curve_file(path)
    dialog = CurveImportDialog(result, ())
    qtbot.addWidget(dialog)
    assert dialog.table.rowCount() == 4 and "4 curve(s), 43 point(s)" in dialog.summary.text()
    tp4 = next(r for r in range(4) if "tp4pp1" in dialog.table.item(r, 0).text())
    assert dialog.table.item(tp4, 1).text() == "H200-SXM" and dialog.table.item(tp4, 3).text() == "14"
    assert "tensor_parallel=4" in dialog.table.item(tp4, 7).text()
    assert "read as unknown" in dialog.warnings.toPlainText() and "kept row 45" in dialog.warnings.toPlainText()
    before = dict(window.document.scenario.curves)
    monkeypatch.setattr(CurveImportDialog, "exec", lambda self: CurveImportDialog.Rejected)
    with qtbot.waitSignal(window.runner.succeeded, timeout=10000):
        window.import_curve(path)
    assert dict(window.document.scenario.curves) == before


def test_import_bad_curve_is_an_inline_message(window, qtbot, tmp_path, dialogs):
    path = tmp_path / "bad.csv"
    path.write_text("curve,device,model,batch,tokens_per_s_per_device\nx,H100-SXM,m,-1,abc\n")
    with qtbot.waitSignal(window.runner.failed, timeout=10000):
        window.import_curve(str(path))
    assert "bad.csv" in window.problems.text() and dialogs.messages == []


def test_window_geometry_and_recent_files_persist(qtbot, tmp_path):
    from tests.cli.workbook_factory import write_workbook

    first = create_window(None)
    qtbot.addWidget(first)
    first.resize(700, 500)
    first.show()
    path = write_workbook(str(tmp_path / "kept.xlsx"))
    first.open_path(path)
    first.close()
    saved = first.saveGeometry()
    second = create_window(None)
    qtbot.addWidget(second)
    assert second.settings.geometry() == saved   # restored from QSettings in the test's directory
    assert second.size().height() == 500
    assert second.settings.recent_files()[0] == os.path.abspath(path)


def test_settings_are_isolated_per_test(window):
    assert window.settings.recent_files() == []


def test_plan_editor_shows_the_engine_notes(window):
    doc = window.document
    doc.set_current_index(0)
    doc.set_plan_values(0, {"min_tokens_per_s_per_user": 1e6})
    notes = window.editor.notes
    assert notes.isVisibleTo(window.editor) and "not met" in notes.text()


def test_fit_the_generated_model_to_an_imported_curve_and_use_it(window, qtbot, monkeypatch):
    from tcoapp.gui.calibration_dialog import CalibrationDialog

    path = os.path.join(os.path.dirname(__file__), "..", "data", "curves", "aiconfigurator_llama70b_fp8_h200_agg_pareto.csv")
    monkeypatch.setattr(window, "confirm_curve_import", lambda result: True)
    with qtbot.waitSignal(window.runner.succeeded, timeout=10000):
        window.import_curve(path)
    name = next(n for n in window.document.scenario.curves if n.endswith("tp4pp1dp1etp1ep1"))
    model = window.catalog.curves_model
    config_col = next(c for c in range(model.columnCount()) if model.field_name(c) == "config")
    assert "tensor_parallel=" in model.data(model.index(0, config_col))  # the configuration is in sight
    shown = []

    def confirm(fit, start, check, scope):
        dialog = CalibrationDialog(fit, start, None, check, scope)
        qtbot.addWidget(dialog)
        shown.append((dialog.report.toPlainText(), dialog.store_button.isEnabled(), dialog.store_button.text()))
        return True
    monkeypatch.setattr(window, "confirm_calibration", confirm)
    h200 = next(i for i, p in enumerate(window.document.scenario.plans) if p.device == "H200-SXM")
    window.document.set_plan_values(h200, {"serving_stack": "trtllm"})
    before = window.document.results[h200].metrics.tokens_per_s_per_device
    with qtbot.waitSignal(window.runner.succeeded, timeout=20000):
        window.fit_curve(name)
    report, enabled, label = shown[0]
    assert re.search(r"median \|error\| \d+\.\d % -> 0\.5 %", report) and "eta_compute" in report and "held-out check" in report
    assert enabled and label == "Use these factors for plans in H200-SXM | dense | trtllm"
    scope = "H200-SXM | dense | trtllm"
    assert scope in window.document.scenario.device_factors
    assert window.document.scenario.calibration_quality[scope]["heldout_points"] == 7
    assert window.document.results[h200].metrics.tokens_per_s_per_device != before
    plan = window.document.scenario.plans[h200].name
    assert window.statusBar().currentMessage().endswith(f"stored for {scope}: changes {plan!r}")
    window.document.undo_stack.undo()
    assert window.document.scenario.device_factors == {}


def test_fit_refusal_is_a_message(window, qtbot, dialogs):
    window.document.add_curve(make_measured_curve("one", "H200-SXM", "Llama-3.1-70B", [8], [500]))
    with qtbot.waitSignal(window.runner.failed, timeout=10000):
        window.catalog.tabs.setCurrentIndex(window.catalog.tabs.indexOf(window.catalog.curves_table))
        window.catalog.fit_curve_button.click()
    assert "no input_tokens / output_tokens and no plan uses it" in window.problems.text()


def test_aiconfigurator_missing_says_how_to_install(window, monkeypatch, dialogs):
    monkeypatch.setitem(sys.modules, "aiconfigurator", None)
    window.aiconfigurator_dialog()
    assert "pip install 'tcoapp[aiconfigurator]'" in window.problems.text()


@pytest.mark.slow
@pytest.mark.aiconfigurator
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_generate_curve_with_aiconfigurator_then_preview_and_add(window, qtbot, monkeypatch):
    pytest.importorskip("aiconfigurator")
    from tcoapp.gui.aiconfigurator_dialog import AiconfiguratorDialog

    opened = []
    monkeypatch.setattr(AiconfiguratorDialog, "exec", lambda self: opened.append(self.request()) or AiconfiguratorDialog.Rejected)
    window.aiconfigurator_dialog()  # the menu action: the form opens on the current plan's tokens; Cancel runs nothing
    plan = window.document.current_plan()
    assert (opened[0]["input_tokens"], opened[0]["output_tokens"]) == (plan.input_tokens, plan.output_tokens)
    dialog = AiconfiguratorDialog(4000, 1000)
    qtbot.addWidget(dialog)
    request = dialog.request()
    assert (request["system"], request["model_path"], request["total_gpus"]) == ("h200_sxm", "nvidia/Llama-3.1-70B-Instruct-FP8", 8)
    shown = []
    monkeypatch.setattr(window, "confirm_curve_import", lambda result: shown.append(result) or True)
    with qtbot.waitSignal(window.runner.succeeded, timeout=120000):
        window.generate_aiconfigurator_curve(request)
    names = [c.name for c in shown[0].curves]
    assert any("_agg_" in n for n in names) and any("_disagg_" in n for n in names)
    assert set(names) <= set(window.document.scenario.curves)


def test_no_display_exits_with_a_message_pointing_to_compute(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env.update(XDG_CONFIG_HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path))
    proc = subprocess.run([sys.executable, "-m", "tcoapp"], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 1
    assert "no display" in proc.stderr and "tcoapp compute" in proc.stderr
    assert "libxcb" not in proc.stderr and "Traceback" not in proc.stderr


def test_display_problem_names_a_missing_xcb_library():
    from tcoapp.gui.app import display_problem
    missing = display_problem({"DISPLAY": ":0"}, "linux", loadable=lambda lib: "cursor" not in lib)
    assert "libxcb-cursor.so.0" in missing and "apt-get install libxcb-cursor0" in missing
    assert "tcoapp compute" in missing
    assert display_problem({"DISPLAY": ":0"}, "linux", loadable=lambda lib: True) is None
    assert display_problem({"QT_QPA_PLATFORM": "offscreen"}, "linux") is None
    assert display_problem({"WAYLAND_DISPLAY": "wayland-0"}, "linux") is None
    assert display_problem({}, "darwin") is None

def test_a_broken_workbook_gives_the_cli_error_lines_inline_and_the_app_stays_up(qtbot, dialogs, tmp_path):
    """Every corpus workbook the CLI rejects: the same lines inline, the window up on the default."""
    from tcoapp.engine.core.errors import TcoError
    from tcoapp.io.workbook_read import read_scenario
    from tests.io.broken.corpus import CASES

    for case in CASES:
        path = case.build(tmp_path / f"{case.name}.xlsx")
        with pytest.raises(TcoError) as info:
            read_scenario(path)
        window = create_window(str(path))
        qtbot.addWidget(window)
        window.show()
        qtbot.waitUntil(lambda: bool(window.problems.text()), timeout=5000)
        assert window.problems.title == "Open failed" and str(info.value) in window.problems.text(), case.name
        assert dialogs.messages == []
        assert window.document.path is None and window.document.scenario.plans
        window.close()


def test_an_unexpected_reader_failure_is_a_message_not_a_crash(monkeypatch, tmp_path):
    """read_workbook turns whatever a reader raises (zlib.error, AttributeError...) into a FileProblem."""
    import zlib

    import tcoapp.io.load as load
    from tcoapp.gui.files import FileProblem, read_workbook

    path = tmp_path / "odd.xlsx"
    path.write_bytes(b"PK")

    def explode(_path):
        raise zlib.error("Error -3 while decompressing data")
    monkeypatch.setattr(load, "load_scenario", explode)
    with pytest.raises(FileProblem, match="odd.xlsx is not a readable scenario workbook .error: Error -3"):
        read_workbook(str(path))


def test_opening_a_corrupt_file_from_the_menu_gives_a_message_and_keeps_the_document(window, dialogs, qtbot,
                                                                                      tmp_path):
    from tests.io.broken.corpus import flipped_compressed_bytes

    path = str(flipped_compressed_bytes(tmp_path / "corrupt.xlsx"))
    before = window.document.scenario
    window.open_in_background(path, confirmed=True)
    qtbot.waitUntil(lambda: bool(window.problems.text()), timeout=10000)
    assert window.problems.title == "Open failed" and "does not decompress" in window.problems.text()
    assert window.document.scenario is before and window.isVisible()
