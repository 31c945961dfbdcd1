"""Build the PyInstaller desktop bundle and run it headless (when TCOAPP_BUILD_BUNDLE=1, which the
README's test command, and so CI, sets; about 40 s on two cores).

    TCOAPP_BUILD_BUNDLE=1 python -m pytest -m bundle tests/test_bundle.py

Installs PyInstaller with pip if it is missing, builds packaging/tcoapp.spec into a temporary
directory (~40 s, ~300 MB), then runs `tcoapp --version` and `tcoapp compute <bundled
sample> --json` from the bundle with no display.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = "batch_tradeoff.xlsx"

pytestmark = [
    pytest.mark.bundle,
    pytest.mark.slow,
    pytest.mark.skipif(os.environ.get("TCOAPP_BUILD_BUNDLE") != "1",
                       reason="builds the PyInstaller bundle (~40 s, ~300 MB): set TCOAPP_BUILD_BUNDLE=1 to run (CI does)"),
]


def _run(cmd, **kw):
    proc = subprocess.run(cmd, capture_output=True, text=True, **kw)
    assert proc.returncode == 0, f"{cmd} exited {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


@pytest.fixture(scope="module")
def bundle(tmp_path_factory) -> Path:
    try:
        import PyInstaller  # noqa: F401
    except ImportError:
        _run([sys.executable, "-m", "pip", "install", "pyinstaller"])
    work = tmp_path_factory.mktemp("bundle")
    _run([sys.executable, "-m", "PyInstaller", str(ROOT / "packaging" / "tcoapp.spec"), "--noconfirm",
          "--distpath", str(work / "dist"), "--workpath", str(work / "build")], cwd=ROOT, timeout=1800)
    return work / "dist" / "tcoapp"


def _env():
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "PYTHONPATH")}
    env["QT_QPA_PLATFORM"] = "offscreen"
    return env


def test_bundle_reports_its_version(bundle):
    from tcoapp import __version__

    out = _run([str(bundle / "tcoapp"), "--version"], env=_env(), cwd=bundle.parent, timeout=120).stdout
    assert out.strip() == f"tcoapp {__version__}"


def test_bundle_ships_catalog_icons_and_samples(bundle):
    data = bundle / "_internal" / "tcoapp"
    assert (data / "resources" / "catalog" / "devices.csv").is_file()
    assert (data / "resources" / "measurements" / "measurements_public.csv").is_file()   # published anchors
    assert (data / "resources" / "icons" / "tcoapp.svg").is_file()
    assert {p.name for p in (ROOT / "samples").glob("*.xlsx")} <= {p.name for p in (data / "samples").glob("*.xlsx")}


def test_bundle_computes_a_bundled_sample_headless(bundle):
    sample = bundle / "_internal" / "tcoapp" / "samples" / SAMPLE
    out = _run([str(bundle / "tcoapp"), "compute", str(sample), "--json"], env=_env(), cwd=bundle.parent,
               timeout=300).stdout
    plans = json.loads(out)["plans"]
    assert len(plans) >= 4 and all(p["cost_per_million_output_tokens_usd"] > 0 for p in plans)


def test_bundle_computes_the_default_scenario(bundle):
    out = _run([str(bundle / "tcoapp"), "compute", "--json"], env=_env(), cwd=bundle.parent, timeout=300).stdout
    assert json.loads(out)["plans"]


def test_bundle_desktop_app_starts_offscreen(bundle, tmp_path):
    """The GUI starts from the bundle (Qt plugins and pyqtgraph collected) and keeps running."""
    env = _env()
    env.update(HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_DATA_HOME=str(tmp_path / "data"))
    sample = bundle / "_internal" / "tcoapp" / "samples" / SAMPLE
    proc = subprocess.Popen([str(bundle / "tcoapp"), str(sample)], env=env, cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        with pytest.raises(subprocess.TimeoutExpired):
            proc.wait(timeout=10)
    finally:
        proc.kill()
        _, err = proc.communicate()
    assert "Traceback" not in err and "internal error" not in err, err
