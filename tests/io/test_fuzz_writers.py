"""Full-disk and read-only faults for every writer the app has: `compute --out`, `simulate --out`,
`report --out`, `curves --into`, `calibrate --write` and the desktop app's chart export. Each run
draws its faults from the run's seed (tests/conftest.py: TCOAPP_FUZZ_SEED, printed): the disk fills
at the flush or part-way through the write, the folder refuses the temporary file, the rename fails.
Every writer must keep the old file byte for byte, leave no temporary file, and say so in one line
(exit 2 for the command line); never `wrote ...`, exit 0 or an internal error."""
from __future__ import annotations

import errno
import os
import random
import types
from pathlib import Path

import pytest

from tcoapp.io import atomic

from .fuzz.harness import run_cli

ROOT = Path(__file__).resolve().parents[2]
SEED = int(os.environ["TCOAPP_FUZZ_SEED"])
PARETO = ROOT / "tests" / "data" / "curves" / "aiconfigurator_llama70b_fp8_h200_agg_pareto.csv"
TP2 = "aiconfigurator_llama70b_fp8_h200_agg_pareto parallel=tp2pp1dp1etp1ep1"
OLD = b"the old file, which must survive"


class _FillingHandle:
    """A file handle on a disk that fills after `room` bytes."""

    def __init__(self, handle, room: int):
        self.handle, self.room = handle, room

    def write(self, data):
        if len(data) > self.room:
            self.handle.write(data[:self.room])
            raise OSError(errno.ENOSPC, "No space left on device")
        self.room -= len(data)
        return self.handle.write(data)

    def __getattr__(self, name):
        return getattr(self.handle, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return self.handle.__exit__(*exc)


def _fault(monkeypatch, rng) -> str:
    """Install one fault in the atomic save; returns what it is."""
    kind = rng.choice(["full at flush", "full mid-write", "read-only folder", "rename refused"])
    fake_os = types.SimpleNamespace(**{n: getattr(os, n) for n in dir(os) if not n.startswith("__")})
    fake_tempfile = types.SimpleNamespace(mkstemp=atomic.tempfile.mkstemp)
    if kind == "full at flush":
        def fsync(_fd):
            raise OSError(errno.ENOSPC, "No space left on device")
        fake_os.fsync = fsync
    elif kind == "full mid-write":
        room = rng.randrange(0, 4096)
        fake_os.fdopen = lambda fd, *a, **k: _FillingHandle(os.fdopen(fd, *a, **k), room)
        kind += f" (after {room} bytes)"
    elif kind == "read-only folder":
        def mkstemp(*_a, **_k):
            raise PermissionError(errno.EACCES, "Permission denied")
        fake_tempfile.mkstemp = mkstemp
    else:
        def replace(*_a):
            raise OSError(errno.EROFS, "Read-only file system")
        fake_os.replace = replace
    monkeypatch.setattr(atomic, "os", fake_os)
    monkeypatch.setattr(atomic, "tempfile", fake_tempfile)
    return kind


def _book(tmp_path) -> Path:
    book = tmp_path / "book.xlsx"
    status, _, err = run_cli(["curves", str(PARETO), "--into", str(book)])
    assert status == 0, err
    return book


@pytest.fixture(scope="module", autouse=True)
def qt_application():
    """One QApplication for the module (the report's headless QGuiApplication would not host the chart's widgets)."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication
    yield QApplication.instance() or QApplication([])


WRITERS = {
    "compute --out": lambda tmp, target: ["compute", str(ROOT / "samples" / "batch_tradeoff.xlsx"), "--out", target],
    "simulate --out": lambda tmp, target: ["simulate", str(ROOT / "samples" / "uncertainty_llama70b.xlsx"), "--draws",
                                           "50", "--out", target],
    "report --out": lambda tmp, target: ["report", "--out", target],
    "curves --into": lambda tmp, target: ["curves", str(PARETO), "--into", target, "--replace"],
    "calibrate --write": lambda tmp, target: ["calibrate", target, "--curve", TP2, "--write"],
}


@pytest.mark.parametrize("writer", [pytest.param(w, marks=pytest.mark.slow) if w.startswith("calibrate") else w
                                    for w in sorted(WRITERS)])   # calibrate fits for ~10 s before it writes
def test_every_command_line_writer_keeps_the_old_file_on_a_failed_save(tmp_path, monkeypatch, writer):
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    rng = random.Random(f"{SEED}:{writer}")
    target = tmp_path / ("out.pdf" if writer.startswith("report") else "out.xlsx")
    if writer.startswith(("calibrate", "curves")):   # they add to a workbook: the old file is one
        target.write_bytes(_book(tmp_path).read_bytes())
    else:
        target.write_bytes(OLD)
    old = target.read_bytes()
    kind = _fault(monkeypatch, rng)
    status, out, err = run_cli(WRITERS[writer](tmp_path, str(target)))
    said = f"{writer}, {kind} (seed {SEED}): exit {status}, stderr {err[:300]!r}"
    lines = [ln for ln in err.strip().splitlines() if ln.startswith("error: ")]
    assert status == 2 and len(lines) == 1 and lines[0].startswith("error: cannot save"), said
    assert "unchanged" in lines[0] or "Permission denied" in lines[0], said
    assert target.read_bytes() == old, said
    assert not atomic.temporaries_of(target) and "wrote" not in out, said


def test_the_chart_export_keeps_the_old_file_on_a_failed_save(tmp_path, monkeypatch):
    from tcoapp.gui.export import export_plot
    from tcoapp.gui.plotting import pg
    plot = pg.PlotWidget()
    plot.plot([1, 2, 3], [3, 1, 2])
    rng = random.Random(f"{SEED}:chart")
    target = tmp_path / rng.choice(["chart.png", "chart.svg"])
    target.write_bytes(OLD)
    kind = _fault(monkeypatch, rng)
    error = export_plot(plot.getPlotItem(), str(target))
    assert error and len(error.splitlines()) == 1 and error.startswith("cannot save"), (kind, error)
    assert target.read_bytes() == OLD and not atomic.temporaries_of(target), kind
    monkeypatch.undo()
    assert export_plot(plot.getPlotItem(), str(target)) is None and target.read_bytes() != OLD
