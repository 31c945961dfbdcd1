"""Saving under faults: SIGKILL mid-save leaves the old or the new file and the next save removes the
leftovers; a folder given as the target is a clear error."""
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from tcoapp.cli import main
from tcoapp.io.atomic import SaveError, atomic_write, temporaries_of

from .broken.corpus import hand_made

fcntl = pytest.importorskip("fcntl")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_out_naming_a_folder_is_a_clear_error(tmp_path, capsys):
    """`--out DIR/sub/..` once reported "Device or resource busy"."""
    (tmp_path / "sub").mkdir()
    source = hand_made(tmp_path / "in.xlsx")
    assert main(["compute", str(source), "--out", str(tmp_path / "sub" / "..")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: cannot save") and "is a folder, not a file name" in err
    with pytest.raises(SaveError, match="folder"):
        atomic_write(str(tmp_path) + os.sep, lambda h: h.write(b"x"))


def test_the_next_save_removes_what_an_interrupted_save_left(tmp_path):
    target = tmp_path / "model.xlsx"
    left = tmp_path / ".~model.xlsx.k1ll3d.tmp"
    left.write_bytes(b"half a workbook")
    other = tmp_path / ".~other.xlsx.k1ll3d.tmp"
    other.write_bytes(b"another file's save")
    atomic_write(target, lambda h: h.write(b"new"))
    assert target.read_bytes() == b"new" and not left.exists()
    assert other.exists(), "only the temporaries of the file being saved are touched"


def test_a_save_in_progress_keeps_its_temporary(tmp_path):
    """A temporary still locked by its writer (another save of the same file) is not removed."""
    target = tmp_path / "model.xlsx"
    busy = tmp_path / ".~model.xlsx.busy.tmp"
    fd = os.open(busy, os.O_CREAT | os.O_WRONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        atomic_write(target, lambda h: h.write(b"new"))
        assert busy.exists()
    finally:
        os.close(fd)
    atomic_write(target, lambda h: h.write(b"newer"))
    assert not busy.exists() and temporaries_of(target) == []


CHILD = textwrap.dedent("""
    import sys, time
    from tcoapp.io.atomic import atomic_write
    target, *sources = sys.argv[1:]
    contents = [open(source, "rb").read() for source in sources]

    def slowly(content):   # a slow disk: the kill lands inside the write most of the time
        def write(handle):
            for start in range(0, len(content), 2048):
                handle.write(content[start:start + 2048])
                time.sleep(0.0005)
        return write
    print("ready", flush=True)
    i = 0
    while True:
        atomic_write(target, slowly(contents[i % 2]))
        i += 1
""")


def test_sigkill_during_saves_leaves_the_old_or_the_new_file_and_no_leftovers(tmp_path):
    """A real process saving workbooks in a loop is killed at varied moments: the target is always
    one of the complete workbooks, and the next save removes the temporary files left behind."""
    from tcoapp.io.default_scenario import default_scenario
    from tcoapp.io.workbook_read import read_scenario
    from tcoapp.io.workbook_write import write_scenario

    base = default_scenario()
    variants = [tmp_path / "a.xlsx", tmp_path / "b.xlsx"]
    write_scenario(base, variants[0])
    write_scenario(base.with_plans([p.with_(utilization=0.31) for p in base.plans]), variants[1])
    complete = {v.read_bytes() for v in variants}
    target = tmp_path / "model.xlsx"
    target.write_bytes(variants[0].read_bytes())
    killed_mid_write = 0
    for attempt in range(8):
        child = subprocess.Popen([sys.executable, "-c", CHILD, str(target), *map(str, variants)], cwd=ROOT,
                                 stdout=subprocess.PIPE, text=True)
        assert child.stdout.readline().strip() == "ready"
        time.sleep(0.05 + 0.07 * attempt)
        child.send_signal(signal.SIGKILL)
        child.wait(30)
        child.stdout.close()
        assert target.read_bytes() in complete, f"kill {attempt}: the target is neither old nor new"
        killed_mid_write += bool(temporaries_of(target))
    assert killed_mid_write >= 2, "the kills should mostly land inside a write"
    write_scenario(base, target)
    assert temporaries_of(target) == []
    assert sorted(os.listdir(tmp_path)) == ["a.xlsx", "b.xlsx", "model.xlsx"]
    assert read_scenario(target) == base


def test_a_save_error_naming_a_huge_path_is_one_short_line(tmp_path, capsys):
    """Every error line is cut to a readable length, whatever message produced it."""
    from tcoapp.engine.core.errors import LINE_CHARS

    source = hand_made(tmp_path / "in.xlsx")
    huge = str(tmp_path / ("d" * 200) / ("n" * 200) / "out.xlsx")
    assert main(["compute", str(source), "--out", huge]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert lines and all(line.startswith("error: ") and len(line) <= LINE_CHARS + 7 for line in lines)
