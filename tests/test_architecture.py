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


def _graph():
    import grimp
    return grimp.build_graph("tcoapp")


def test_the_package_root_holds_only_its_face():
    """The root is what a user imports (`tcoapp.compute`, `python -m tcoapp`); the command line,
    the notebook API, the engine, files, the GUI and the text for people each live in a package."""
    root = ROOT / "tcoapp"
    assert sorted(p.name for p in root.glob("*.py")) == ["__init__.py", "__main__.py"]
    assert {p.name for p in root.iterdir() if p.is_dir() and (p / "__init__.py").exists()} == {
        "api", "cli", "engine", "gui", "io", "present"}


def test_no_module_imports_back_up_to_the_package_root():
    graph = _graph()
    offenders = sorted(m for m in graph.modules if m not in ("tcoapp", "tcoapp.__main__")
                       and "tcoapp" in graph.find_modules_directly_imported_by(m))
    assert offenders == []


def test_no_import_circles_between_modules():
    """Tarjan's strongly connected components over the direct imports (lazy ones included)."""
    graph = _graph()
    modules = sorted(graph.modules)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for imported in graph.find_modules_directly_imported_by(module):
            if imported not in graph.modules:
                continue
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for module in modules:
        if module not in index:
            visit(module)
    assert circles == []
