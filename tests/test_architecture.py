"""Architecture boundaries: the engine is pure computation, io never touches Qt (import-linter)."""
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_import_linter_contracts_hold():
    done = subprocess.run([sys.executable, "-c", "from importlinter.cli import lint_imports_command; lint_imports_command()"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Contracts: 2 kept, 0 broken" in done.stdout


def test_engine_imports_without_qt_and_io():
    code = ("import sys, tcoapp.engine.compute, tcoapp.engine.finance.sensitivity; "
            "bad = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph', 'openpyxl')"
            " or m.startswith(('tcoapp.io', 'tcoapp.gui'))]; print(bad); sys.exit(1 if bad else 0)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_engine_does_no_file_io():
    pattern = re.compile(r"\bopen\(|\bpathlib\b|\bos\.path\b|importlib\.resources")
    offenders = [str(p.relative_to(ROOT)) for p in (ROOT / "tcoapp" / "engine").rglob("*.py") if pattern.search(p.read_text())]
    assert offenders == []


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    assert "<!-- test-command -->" in readme and "python -m pytest" in readme
    assert "<!-- slow-test-command -->" in readme and "-m slow" in readme and "-m \"not slow\"" in readme
    assert "<!-- test-command -->" in (ROOT / ".ci" / "run").read_text()
    assert "<!-- slow-test-command -->" in (ROOT / ".ci" / "run").read_text()
