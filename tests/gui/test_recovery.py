"""Documents are never lost: recovery per document keyed by its path, a lock per open document,
changes on disk noticed, unreadable recovery files kept. Real processes for the crash case."""
import os
import pickle
import signal
import subprocess
import sys

import pytest

import tcoapp.gui.autosave as autosave
from tcoapp.gui import recovery_files
from tcoapp.gui.app import create_window, offer_recovery
from tcoapp.gui.document_files import check_disk
from tcoapp.io.default_scenario import default_scenario
from tcoapp.io.workbook_read import read_scenario
from tcoapp.io.workbook_write import write_scenario

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DRIVER = os.path.join(ROOT, "tests", "gui", "instance_driver.py")


class Box:
    Yes, No = 1, 0

    def __init__(self, answer=1):
        self.asked, self.answer = [], answer

    def question(self, parent, title, text, *args):
        self.asked.append(text)
        return self.answer


@pytest.fixture
def workbook(tmp_path):
    path = tmp_path / "plan.xlsx"
    write_scenario(default_scenario(), path)
    return str(path)


def _open(qtbot, path):
    window = create_window(path)
    qtbot.addWidget(window)
    return window


def test_recovery_is_kept_per_document_and_offered_for_its_file(qtbot, workbook):
    first = _open(qtbot, workbook)
    assert first.document.path == os.path.abspath(workbook)
    first.document.set_plan_value(0, "utilization", 0.42)
    first.autosave.save_now()
    untitled = _open(qtbot, None)
    untitled.document.set_plan_value(0, "utilization", 0.33)
    untitled.autosave.save_now()
    assert first.autosave.key != untitled.autosave.key
    first.autosave._lock.release()            # the first window's process dies
    untitled.autosave.stop()                  # the other exits cleanly: it removes only its own file
    (recovery,), _ = autosave.pending_recoveries()
    assert recovery.path == os.path.abspath(workbook) and recovery.scenario.plans[0].utilization == 0.42
    again = _open(qtbot, None)
    box = Box()
    assert offer_recovery(again, box) and "plan.xlsx" in box.asked[0]
    assert again.document.path == os.path.abspath(workbook) and again.document.is_dirty
    assert again.document.scenario.plans[0].utilization == 0.42
    for window in (first, again):
        window.document.undo_stack.setClean()


def test_a_file_open_in_another_window_opens_as_a_copy_and_is_not_saved_over(qtbot, dialogs, workbook):
    owner = _open(qtbot, workbook)
    second = _open(qtbot, workbook)
    qtbot.waitUntil(lambda: bool(second.problems.text()), timeout=3000)
    assert second.problems.title == "Opened as a copy"
    assert "plan.xlsx is open in another tcoapp window" in second.problems.text()
    assert second.document.path is None and owner.document.path == os.path.abspath(workbook)
    assert second.windowTitle().startswith("Copy of plan.xlsx (unsaved)"), "not 'Untitled (default scenario)'"
    assert not second.save_to(workbook)
    assert "Close it there first" in second.problems.text()
    owner.close()
    assert second.save_to(workbook), "once the owner closed it, the file is free"
    assert second.windowTitle().startswith("plan.xlsx")


def test_saving_over_a_file_changed_on_disk_asks_first(qtbot, dialogs, workbook):
    window = _open(qtbot, workbook)
    other = default_scenario().with_plans([p.with_(utilization=0.11) for p in default_scenario().plans])
    os.utime(workbook, ns=(1, 1))   # another program's save
    write_scenario(other, workbook)
    assert window.document.changed_on_disk()
    dialogs.answer = dialogs.answer.Cancel
    assert not window.save_to(workbook)
    assert read_scenario(workbook).plans[0].utilization == 0.11
    assert "changed on disk" in dialogs.messages[-1][1]
    dialogs.answer = dialogs.answer.Save
    assert window.save_to(workbook) and not window.document.changed_on_disk()


def test_a_change_on_disk_is_offered_for_reload_when_the_window_is_activated(qtbot, dialogs, workbook):
    window = _open(qtbot, workbook)
    other = default_scenario().with_plans([p.with_(utilization=0.11) for p in default_scenario().plans])
    write_scenario(other, workbook)
    os.utime(workbook, ns=(2, 2))
    dialogs.answer = dialogs.answer.Yes
    assert check_disk(window)
    assert window.document.scenario.plans[0].utilization == 0.11
    assert not check_disk(window), "asked once per change"


def test_an_unreadable_recovery_file_is_kept_aside_not_deleted(qtbot, dialogs):
    directory = autosave.autosave_dir()
    os.makedirs(directory)
    broken = os.path.join(directory, "untitled-999-1.pickle")
    with open(broken, "wb") as handle:
        handle.write(pickle.dumps({"format": 2})[:-3])   # a truncated pickle
    recoveries, problems = autosave.pending_recoveries()
    assert recoveries == [] and len(problems) == 1 and "kept as" in problems[0]
    assert os.path.exists(broken + ".unreadable") and not os.path.exists(broken)
    window = _open(qtbot, None)
    assert autosave.pending_recoveries() == ([], [])


def test_the_recovery_file_is_written_atomically_and_fsynced(qtbot, monkeypatch, tmp_path):
    window = _open(qtbot, None)
    window.document.set_plan_value(0, "utilization", 0.42)
    assert window.autosave.save_now() is None
    file = recovery_files.recovery_file(autosave.autosave_dir(), window.autosave.key)
    before = open(file, "rb").read()
    synced = []
    import tcoapp.io.atomic as atomic
    real_fsync = atomic.os.fsync
    monkeypatch.setattr(atomic.os, "fsync", lambda fd: synced.append(fd) or real_fsync(fd))
    window.document.set_plan_value(0, "utilization", 0.43)

    def half_then_fail(data, handle, protocol=None):
        handle.write(b"half")
        raise pickle.PicklingError("crash while pickling")
    real_dump = pickle.dump
    monkeypatch.setattr(pickle, "dump", half_then_fail)
    assert "Autosave failed" in window.autosave.save_now()
    assert open(file, "rb").read() == before, "a failed autosave leaves the previous one whole"
    monkeypatch.setattr(pickle, "dump", real_dump)
    assert window.autosave.save_now() is None and synced
    assert sorted(os.listdir(autosave.autosave_dir())) == sorted([os.path.basename(file), window.autosave.key + ".lock"])
    window.document.undo_stack.setClean()


def _driver(action, path, env):
    return subprocess.Popen([sys.executable, DRIVER, action, path], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def test_two_real_instances_with_a_kill_in_between_the_edit_is_recoverable(tmp_path, workbook):
    """Instance A edits and is killed; instance B, started while A ran, opened the file as a copy and
    exited cleanly; instance C opening the file gets A's edit back."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_DATA_HOME=str(tmp_path / "data"),
               XDG_CONFIG_HOME=str(tmp_path / "config"), PYTHONPATH=ROOT)
    a = _driver("edit", workbook, env)
    assert a.stdout.readline().strip() == "EDITED", a.stderr.read()
    b = _driver("open", workbook, env)
    out_b, err_b = b.communicate(timeout=60)
    assert b.returncode == 0, err_b
    assert "Opened as a copy" in out_b and "PATH None" in out_b
    a.send_signal(signal.SIGKILL)
    a.wait(30)
    a.stdout.close()
    a.stderr.close()
    c = _driver("recover", workbook, env)
    out_c, err_c = c.communicate(timeout=60)
    assert c.returncode == 0, err_c
    assert "Recover unsaved work" in out_c and "plan.xlsx" in out_c
    assert f"PATH {os.path.abspath(workbook)}" in out_c and "UTILIZATION 0.42" in out_c
