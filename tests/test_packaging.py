"""Every Python package of tcoapp is listed in pyproject.toml's explicit package list (else a
non-editable install, the wheel and the bundle silently lack it)."""
import pathlib
import tomllib

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_every_subpackage_is_listed():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "tcoapp").rglob("__init__.py")}
    assert found - listed == set()
