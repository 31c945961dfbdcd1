"""Curve files at and past the size limit (docs/curves.md, "Files as spreadsheets save them").

- curves_refuse_1m_rows_s: `tcoapp curves` on a 1,000,000-row plain CSV (36 MB, under the byte
  limit), whole process, until it refuses at row 100,001. Before the limit it ran 62 s and 2.2 GB
  without finishing. Baseline: the interpreter reading the file with csv.reader (the floor of
  looking at every row).
- curves_read_100k_rows_s: `tcoapp curves --json` on the largest file it reads (100,000 rows,
  1,000 curves). Baseline: the same csv.reader floor on that file.

Each figure is the process's wall time; `cpu_s` and `baseline_cpu_s` are the same processes' CPU
seconds (user + system), which a loaded machine blurs less, and `cpu_ratio` their ratio; each the best
of RUNS runs over the same file, the two commands alternated (a load that comes and goes weighs on both). Both run with the bytecode cache (the environment may set PYTHONDONTWRITEBYTECODE; the runs
use a cache in a temporary directory, filled by one untimed warm-up run, as an installed app has its .pyc
files), as benchmarks/bench_gui.py's do.
"""
from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


RUNS = 5
_PYCACHE = tempfile.mkdtemp(prefix="tcoapp-bench-pyc-")


def _plain_csv(path: Path, rows: int) -> Path:
    with open(path, "w", encoding="utf-8") as f:
        f.write("curve,device,model,batch,tokens_per_s_per_device\n")
        for i in range(rows):
            f.write(f"c{i % 1000},H200-SXM,Llama-3.1-70B,{i // 1000 + 1},{100 + i % 997}\n")
    return path


def _cpu_s() -> float:
    """CPU seconds (user + system) of the children waited for so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _wall_s(args) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one run of `args`."""
    env = dict(os.environ, PYTHONPYCACHEPREFIX=_PYCACHE)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    start, cpu = time.perf_counter(), _cpu_s()
    subprocess.run(args, capture_output=True, env=env)
    return time.perf_counter() - start, _cpu_s() - cpu


def _floor_args(path: Path) -> list[str]:
    code = f"import csv; sum(1 for _ in csv.reader(open({str(path)!r}, encoding='utf-8')))"
    return [sys.executable, "-c", code]


def _side_by_side(args, floor_args) -> tuple[tuple[float, float], tuple[float, float]]:
    """((wall, CPU) of `args`, (wall, CPU) of `floor_args`): each the best of RUNS runs, the two alternated over the
    same file after one untimed warm-up of each (the bytecode cache, the file in the page cache), so a load that
    comes and goes weighs on both alike."""
    _wall_s(args)
    _wall_s(floor_args)
    mine, floor = [], []
    for _ in range(RUNS):
        mine.append(_wall_s(args))
        floor.append(_wall_s(floor_args))
    return (min(w for w, _ in mine), min(c for _, c in mine)), (min(w for w, _ in floor), min(c for _, c in floor))


def _bench(rows: int, args: tuple[str, ...], target: float) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        path = _plain_csv(Path(folder) / f"rows_{rows}.csv", rows)
        (value, cpu), (floor, floor_cpu) = _side_by_side(
            [sys.executable, "-m", "tcoapp", "curves", str(path), *args], _floor_args(path))
    return {"value": round(value, 3), "unit": "s", "baseline": round(floor, 3),
            "baseline_name": f"csv.reader over the same {rows:,} rows (floor)", "target": target,
            "cpu_s": round(cpu, 3), "baseline_cpu_s": round(floor_cpu, 3), "cpu_ratio": round(cpu / floor_cpu, 1)}


BENCHMARKS = {
    "curves_refuse_1m_rows_s": lambda: _bench(1_000_000, (), 5.0),
    "curves_read_100k_rows_s": lambda: _bench(100_000, ("--json",), 10.0),
}
