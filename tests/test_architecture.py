"""Architecture boundaries: the engine is pure computation, io never touches Qt (import-linter)."""
import ast
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_import_linter_contracts_hold():
    done = subprocess.run([sys.executable, "-c", "from importlinter.cli import lint_imports_command; lint_imports_command()"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Contracts: 6 kept, 0 broken" in done.stdout


def test_the_engine_sub_packages_are_layered_exhaustively():
    """Every engine sub-package is in the layers contract (exhaustive: a new one must be placed), and
    no loose module sits beside them: the folder shows the pipeline, each layer importing only those
    below it, so no two sub-packages import each other."""
    import tomllib
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    (layers,) = [c for c in contracts if c["type"] == "layers" and c.get("containers") == ["tcoapp.engine"]]
    assert layers.get("exhaustive") is True
    named = {name.strip() for layer in layers["layers"] for name in layer.split("|")}
    engine = ROOT / "tcoapp" / "engine"
    packages = {p.parent.name for p in engine.glob("*/__init__.py")}
    assert named == packages
    assert sorted(p.name for p in engine.glob("*.py")) == ["__init__.py"]


def test_the_engine_type_checks():
    """mypy finds no error in tcoapp/engine (the records are written out from the tables, so it sees
    every field: tools/gen_records.py)."""
    done = subprocess.run([sys.executable, "-m", "mypy", "tcoapp/engine"], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "Success: no issues found" in done.stdout


def test_the_contracts_forbid_every_upward_import():
    """Layers, lowest first: engine < io < present < the front ends (gui, cli, api); a front end never
    imports another (the gui reads the calibration quality rule from the engine, not from the cli)."""
    import tomllib
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    forbidden = {}
    for c in contracts:
        for source in c.get("source_modules", ()):
            forbidden.setdefault(source, set()).update(c.get("forbidden_modules", ()))
    layers = ["tcoapp.engine", "tcoapp.io", "tcoapp.present"]
    for i, layer in enumerate(layers):
        assert {*layers[i + 1:], "tcoapp.gui", "tcoapp.cli", "tcoapp.api"} <= forbidden[layer], layer
    assert "tcoapp.cli" in forbidden["tcoapp.gui"] and "tcoapp.cli" in forbidden["tcoapp.api"]
    assert any(c["type"] == "independence" and set(c["modules"]) == {"tcoapp.gui", "tcoapp.api"} for c in contracts)


def test_no_import_error_guard_around_the_projects_own_modules():
    """An own module that fails to import is a bug to see, not a feature to hide: no `except ImportError`
    around an import of tcoapp's own modules, no importorskip of one in the tests."""
    offenders = []
    for path in [*(ROOT / "tcoapp").rglob("*.py"), *(ROOT / "tests").rglob("*.py")]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Try) and any(_catches_import_error(h) for h in node.handlers):
                own = [n for n in node.body if isinstance(n, ast.ImportFrom) and (n.level > 0 or (n.module or "").startswith("tcoapp"))]
                offenders += [f"{path.relative_to(ROOT)}:{n.lineno}" for n in own]
            if (isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "importorskip" and node.args
                    and isinstance(node.args[0], ast.Constant) and str(node.args[0].value).startswith("tcoapp")):
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert offenders == []


def _catches_import_error(handler) -> bool:
    names = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(getattr(n, "id", "") in ("ImportError", "ModuleNotFoundError") for n in names)


def test_engine_imports_without_qt_and_io():
    code = ("import sys, tcoapp.engine.pipeline.compute, tcoapp.engine.finance.sensitivity; "
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
