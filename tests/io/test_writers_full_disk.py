"""Every file the app writes goes through the atomic save (io/atomic.py): a full disk keeps the old
file and exits 2 with one line, a read-only folder or a folder as target gets one line (never an
internal error, never a temporary file left), temporary names are unique.

The full disk is simulated (no tmpfs can be mounted here): fsync raises ENOSPC, as a write past the
end of a full file system does."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tcoapp.io import atomic


FAULTS = {
    "full disk": "def fault(*a): raise OSError(errno.ENOSPC, 'No space left on device')\na.os.fsync = fault",
    "read-only folder": ("real = a.tempfile.mkstemp\ndef fault(*a, **k): raise PermissionError(errno.EACCES, "
                         "'Permission denied')\na.tempfile.mkstemp = fault"),
}
SAID = {"full disk": "No space left on device; the existing file is unchanged", "read-only folder": "Permission denied"}


def run_with_fault(fault: str, argv: list[str], cwd) -> subprocess.CompletedProcess:
    code = "\n".join(["import errno, sys", "import tcoapp.io.atomic as a", FAULTS[fault],
                      "from tcoapp.cli import main", f"sys.exit(main({argv!r}))"])
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=120, env=env)


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_report_on_a_full_disk_keeps_the_old_pdf_and_exits_2_in_one_line(tmp_path, fault):
    old = tmp_path / "OLD.pdf"
    old.write_bytes(b"%PDF-1.4 the old report")
    done = run_with_fault(fault, ["report", "--out", "OLD.pdf"], tmp_path)
    assert done.returncode == 2, done.stderr
    assert old.read_bytes() == b"%PDF-1.4 the old report"
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: cannot save OLD.pdf") and SAID[fault] in lines[0]
    assert "wrote" not in done.stdout and sorted(p.name for p in tmp_path.iterdir()) == ["OLD.pdf"]


def test_report_to_a_folder_is_one_line_and_leaves_no_temporary(tmp_path):
    (tmp_path / "r.pdf").mkdir()
    done = subprocess.run([sys.executable, "-m", "tcoapp", "report", "--out", "r.pdf"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, env=dict(os.environ, QT_QPA_PLATFORM="offscreen"))
    assert done.returncode == 2 and done.stderr.strip().splitlines() == [
        "error: cannot save r.pdf: that is a folder, not a file name"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.pdf"] and not list((tmp_path / "r.pdf").iterdir())


def test_the_report_goes_through_the_atomic_save_with_unique_temporaries(tmp_path, monkeypatch):
    pytest.importorskip("PySide6")
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QGuiApplication
    app = QGuiApplication.instance() or QGuiApplication([])
    from tcoapp.engine.pipeline.compute import compute_scenario
    from tcoapp.gui.report_pdf import write_report_pdf
    from tcoapp.io.load import load_scenario
    scenario = load_scenario(None)
    results = compute_scenario(scenario)
    seen = []
    real = atomic.tempfile.mkstemp

    def spy(*args, **kwargs):
        fd, name = real(*args, **kwargs)
        seen.append(os.path.basename(name))
        return fd, name

    monkeypatch.setattr(atomic.tempfile, "mkstemp", spy)
    for _ in range(2):
        write_report_pdf(scenario, results, str(tmp_path / "r.pdf"), "t")
    assert len(set(seen)) == 2 and all(n.startswith(".~r.pdf.") for n in seen)
    assert (tmp_path / "r.pdf").read_bytes().startswith(b"%PDF") and sorted(os.listdir(tmp_path)) == ["r.pdf"]
    del app
