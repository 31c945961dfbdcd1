"""The benchmarks run against the engine's current signatures: each module imports and names its
benchmarks, and the engine benchmark's point-by-point baseline calls the kernel as the sweep does
(a kernel signature change once broke `benchmarks/run.py` with nothing failing)."""
from __future__ import annotations

import importlib
import pathlib
import sys

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
MODULES = sorted(p.stem for p in (ROOT / "benchmarks").glob("bench_*.py"))


@pytest.fixture(autouse=True)
def _benchmarks_on_path(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    yield
    for name in MODULES:
        sys.modules.pop(name, None)


@pytest.mark.parametrize("name", MODULES)
def test_each_benchmark_module_names_callables(name):
    module = importlib.import_module(name)
    assert module.BENCHMARKS, f"{name} lists no benchmarks"
    assert all(callable(func) for func in module.BENCHMARKS.values())


def test_engine_baseline_loop_matches_the_sweep(monkeypatch):
    bench = importlib.import_module("bench_engine")
    monkeypatch.setattr(bench, "LOOP_POINTS", 5)
    device, model, workload, _ = bench._setup()
    batches = np.geomspace(1, 512, 50)
    seconds = bench._loop(device, model, workload, batches)
    assert 0.0 < seconds < 1.0
