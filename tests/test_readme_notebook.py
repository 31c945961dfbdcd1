"""The README's notebook example runs from the repository root of a fresh clone, where the clone's
`tcoapp/` folder shadows any installed tcoapp: `tcoapp.resources` and `tcoapp.samples` must still
resolve (to the clone's resources/ and samples/). Run with this interpreter and only the
dependencies' site-packages on PYTHONPATH (`-S`: no site processing, so no editable-install finder
of this checkout hides the problem)."""
import re
import shutil
import site
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CURVE = "tests/data/curves/aiconfigurator_llama70b_fp8_h200_agg_pareto.csv"


def _readme_example() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"In a notebook.*?```python\n(.*?)```", text, re.S).group(1)
    # the placeholders made real: a shipped sample with Uncertainty rows, a shipped curve file, fewer draws
    return (block.replace('"FILE.xlsx"', '"samples/uncertainty_llama70b.xlsx"').replace('"pareto.csv"', f'"{CURVE}"')
            .replace("draws=10_000", "draws=200"))


def _clone(tmp_path: Path) -> Path:
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        pytest.skip("not a git checkout")
    target = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(target)], check=True, timeout=120)
    return target


def test_the_readme_notebook_example_runs_from_the_root_of_a_clone(tmp_path):
    clone = _clone(tmp_path)
    example = _readme_example()
    script = "\n".join(line.split("#")[0].rstrip() for line in example.splitlines())
    script += ("\nassert tcoapp.__file__.startswith(%r)\nd = result.decision()\n"
               "assert d['ranked'] and set(d) >= {'objective', 'ranked', 'p_first_beats_second', 'too_close', 'reason'}\n"
               "print('ok', d['objective'], d['ranked'][0])\n") % str(clone)
    deps = [p for p in site.getsitepackages() if Path(p).is_dir()]
    done = subprocess.run([sys.executable, "-S", "-c", script], cwd=clone, capture_output=True, text=True, timeout=600,
                          env={"PYTHONPATH": ":".join(deps), "PATH": "/usr/bin:/bin", "QT_QPA_PLATFORM": "offscreen"})
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1].startswith("ok ")
