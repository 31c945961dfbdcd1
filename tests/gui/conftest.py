"""GUI tests: offscreen Qt, settings and autosave isolated per test, modal dialogs patched."""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import QSettings  # noqa: E402
from PySide6.QtWidgets import QMessageBox  # noqa: E402


@pytest.fixture(autouse=True)
def isolated_settings(tmp_path, monkeypatch):
    """QSettings and the autosave directory in a per-test temporary directory."""
    config = tmp_path / "config"
    config.mkdir()
    QSettings.setDefaultFormat(QSettings.IniFormat)
    for fmt in (QSettings.IniFormat, QSettings.NativeFormat):
        QSettings.setPath(fmt, QSettings.UserScope, str(config))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    autosave_dir = tmp_path / "autosave"
    import tcoapp.gui.autosave as autosave
    monkeypatch.setattr(autosave, "autosave_dir", lambda: str(autosave_dir))
    yield config


class Dialogs:
    """Records every modal message box instead of showing it; `answer` is what question() returns."""

    def __init__(self):
        self.messages = []
        self.answer = QMessageBox.Discard

    def warning(self, parent, title, text, *args, **kw):
        self.messages.append((title, text))
        return QMessageBox.Ok

    def question(self, parent, title, text, *args, **kw):
        self.messages.append((title, text))
        return self.answer


@pytest.fixture(autouse=True)
def dialogs(monkeypatch):
    d = Dialogs()
    monkeypatch.setattr(QMessageBox, "warning", d.warning)
    monkeypatch.setattr(QMessageBox, "critical", d.warning)
    monkeypatch.setattr(QMessageBox, "information", d.warning)
    monkeypatch.setattr(QMessageBox, "question", d.question)
    monkeypatch.setattr(QMessageBox, "about", d.warning)
    return d


@pytest.fixture
def open_window(qtbot):
    """open_window(path=None, size=(w, h) or None, scenario=None): the app's main window on a workbook (or the
    default scenario, or `scenario`), shown; closed at the end of the test without asking to save."""
    from tcoapp.gui.app import create_window

    opened = []

    def open_(path=None, size=(1400, 900), scenario=None):
        win = create_window(path)
        if scenario is not None:
            win.document.reset(scenario, None)
        qtbot.addWidget(win)
        if size is not None:
            win.resize(*size)
        win.show()
        qtbot.waitExposed(win)
        opened.append(win)
        return win

    yield open_
    for win in opened:
        win.document.undo_stack.setClean()
        win.close()   # stops pending sweeps, cancels and waits for the worker
        win.runner.wait(10000)
    _delete_now(opened)


def _delete_now(objects) -> None:
    """Delete the closed windows (and the documents they own) now, not at some later turn of the event
    loop: a suite of hundreds of windows otherwise holds every one's results."""
    from PySide6.QtCore import QCoreApplication, QEvent
    from shiboken6 import isValid

    for obj in objects:
        if isValid(obj):
            obj.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.DeferredDelete)


@pytest.fixture
def window(open_window):
    return open_window()


@pytest.fixture
def document(qtbot):
    from tcoapp.gui.document import Document
    from tcoapp.io.default_scenario import default_scenario

    doc = Document(default_scenario())
    yield doc
    _delete_now([doc])   # (its signals' lambdas hold the test's views: a cycle through Qt)
