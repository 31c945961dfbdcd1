"""A seeded mutation fuzzer over the samples, an export and hand-made workbooks (tests/io/fuzz).

For every mutant `tcoapp compute FILE --json` (the CLI's main, in-process for speed) must end in
exit 0 with finite, sane JSON, or exit 2 with only `error: ` lines on stderr; never exit 3, a
traceback or a hang. Every tenth accepted mutant is also written with `--out` and read back. A
handful of mutants run through the real CLI in a subprocess with a memory limit.

A mutant of the Uncertainty sheet that `compute` accepts is also simulated (200 draws): `simulate`
must accept it too (the two share one validation).

The seed (tests/conftest.py: TCOAPP_FUZZ_SEED; else drawn from the checkout's commit, a new one for each commit;
TCOAPP_FUZZ_SEED=random for a new one each run) is printed in pytest's header and in every failure;
TCOAPP_FUZZ_SEED=<seed> replays a run. The fast suite runs
TCOAPP_FUZZ_MUTANTS mutants (default 300, about 60 s on a busy 2-core machine); the slow suite (`-m slow`) runs
TCOAPP_FUZZ_LONG_MUTANTS (default 1,000, about 3-4 minutes on a busy machine) of seed + 1.
"""
import collections
import glob
import json
import math
import os
import signal
import subprocess
import sys
import time

import pytest

from tcoapp.engine.pipeline.compute import METRIC_KEYS
from tcoapp.io.default_scenario import default_scenario
from tcoapp.io.workbook_write import write_scenario

from .broken.corpus import hand_made
from .fuzz.harness import run_cli, refusal_problem
from .fuzz.mutations import Mutator

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SEED = int(os.environ["TCOAPP_FUZZ_SEED"])   # set by tests/conftest.py when not given
MUTANTS = int(os.environ.get("TCOAPP_FUZZ_MUTANTS", "300"))
LONG_MUTANTS = int(os.environ.get("TCOAPP_FUZZ_LONG_MUTANTS", "1000"))
SIMULATE_DRAWS = "200"
# A far cell (XFD1048576) may cost at most FAR_CELL_S of CPU time over the workbook's own compute, or as much
# again as it: a reader that walked the sheet's dimension would visit 10^10 cells and hang (HANG_S) instead.
# CPU time of this process, not wall time: other processes on the machine do not count.
FAR_CELL_S = 2.0 * float(os.environ.get("TCOAPP_FUZZ_TIME_SCALE", "1"))
SIGNED = {"npv_usd", "irr", "roi", "equity_npv_usd", "equity_irr", "min_dscr", "mirr", "npv_at_wacc_usd"}   # every other metric, where it exists, is >= 0

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGPROF"), reason="the hang guard needs SIGPROF (POSIX)")


@pytest.fixture(scope="module")
def bases(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fuzz_bases")
    found = {os.path.basename(p): open(p, "rb").read() for p in sorted(glob.glob(os.path.join(ROOT, "samples", "*.xlsx")))}
    write_scenario(default_scenario(), folder / "export.xlsx")
    found["export.xlsx"] = (folder / "export.xlsx").read_bytes()
    found["hand_made.xlsx"] = hand_made(folder / "hand_made.xlsx").read_bytes()
    return found


def verdict(status, out, err) -> str | None:
    """None when the outcome is one of the two allowed ones, else what is wrong."""
    problem = refusal_problem(status, out, err)
    if problem is not None or status != 0:
        return problem
    return _insane(out)


def _insane(out: str) -> str | None:
    try:
        plans = json.loads(out)["plans"]
    except (ValueError, KeyError, TypeError) as exc:
        return f"exit 0 but no JSON plans ({exc})"
    if not plans:
        return "exit 0 with no plan"
    for plan in plans:
        if all(plan.get(key) is None for key in METRIC_KEYS):
            return f"plan {plan.get('name')!r}: accepted, yet every metric is null (a nonsense input let through)"
        for key in METRIC_KEYS:
            if key not in plan:
                return f"plan {plan.get('name')!r} lacks {key}"
            value = plan[key]
            if value is None:
                continue
            if not isinstance(value, (int, float)) or not math.isfinite(value):
                return f"plan {plan.get('name')!r}: {key} = {value!r} is not a finite number"
            if key not in SIGNED and value < 0:
                return f"plan {plan.get('name')!r}: {key} = {value!r} is negative"
    return None


def test_mutated_workbooks_are_computed_or_rejected_cleanly(bases, tmp_path):
    fuzz(bases, tmp_path, SEED, MUTANTS)


@pytest.mark.slow
def test_long_fuzz_run(bases, tmp_path):
    fuzz(bases, tmp_path, SEED + 1, LONG_MUTANTS)


def _base_time(bases, label: str, base_times: dict, tmp_path) -> float:
    """The workbook's own compute time, taken before its far-cell mutant runs: the CLI runs in this
    process and keeps curves it computed (agentic sessions), so a base timed after the mutant would
    be timed warm against a cold mutant."""
    if label not in base_times:
        path = tmp_path / f"base_{label}"
        path.write_bytes(bases[label])
        began = time.process_time()
        run_cli(["compute", str(path), "--json"])
        base_times[label] = time.process_time() - began
    return base_times[label]


def _far_cell_time(path, took: float, base_s: float) -> str | None:
    """A far cell may cost at most twice the workbook's own compute time and FAR_CELL_S more (moe_rack_scale
    computes for seconds whatever its cells). Over it, the mutant is timed once more so both runs
    compare warm: a cold first run is not the far cell's cost."""
    limit = 2 * base_s + FAR_CELL_S
    if took > limit:
        began = time.process_time()
        run_cli(["compute", str(path), "--json"])
        took = min(took, time.process_time() - began)
    if took > limit:
        return (f"a far cell took {took:.1f} s of CPU, the workbook without it {base_s:.1f} s (at most twice "
                f"that and {FAR_CELL_S:g} s more: reading is bounded by what the sheets hold)")
    return None


def fuzz(bases, tmp_path, seed: int, count: int) -> None:
    start = time.perf_counter()
    failures, outcomes, families = [], collections.Counter(), collections.Counter()
    kept, base_times = [], {}
    for i, mutant in enumerate(Mutator(seed).mutants(bases, count)):
        path = tmp_path / f"m{i}.xlsx"
        path.write_bytes(mutant.data)
        families[mutant.family] += 1
        label = mutant.description.split(":")[0]
        base_s = _base_time(bases, label, base_times, tmp_path) if mutant.family == "far_cell" else 0.0
        began = time.process_time()
        status, out, err = run_cli(["compute", str(path), "--json"])
        took = time.process_time() - began
        outcomes[status] += 1
        problem = verdict(status, out, err)
        if problem is None and mutant.family == "far_cell":
            problem = _far_cell_time(path, took, base_s)
        if problem is None and status == 0 and outcomes[0] % 10 == 1:
            problem = _round_trip(path, tmp_path / f"m{i}.out.xlsx")
        if problem is None and status == 0 and "Uncertainty" in mutant.description:
            problem = _simulated(path)
        if problem:
            failures.append(f"{mutant.family} [{mutant.description}]: {problem}")
        elif len(kept) < 8 and outcomes[status] <= 4:
            kept.append((path, status))
        else:
            path.unlink()
    elapsed = time.perf_counter() - start
    print(f"\nfuzz seed {seed}: {sum(families.values())} mutants in {elapsed:.0f} s; outcomes {dict(outcomes)}; "
          f"families {dict(families)}")
    assert sum(families.values()) >= 0.9 * count
    assert not failures, (f"fuzz seed {seed} (replay: TCOAPP_FUZZ_SEED={SEED}): {len(failures)} of "
                          f"{sum(families.values())} mutants:\n" + "\n".join(failures[:25]))
    _subprocess_checks(kept)


def _round_trip(path, out_path) -> str | None:
    status, out, err = run_cli(["compute", str(path), "--out", str(out_path)])
    if status != 0:
        return f"accepted, but --out failed: exit {status} {err[:300]!r}"
    status, out, err = run_cli(["compute", str(out_path), "--json"])
    return None if status == 0 else f"its export does not read back: exit {status} {err[:300]!r}"


def _simulated(path) -> str | None:
    """An Uncertainty mutant that compute accepted: simulate accepts it too and gives sane JSON."""
    status, out, err = run_cli(["simulate", str(path), "--draws", SIMULATE_DRAWS, "--json"])
    if status != 0:
        return f"compute accepted it, simulate did not: exit {status} {err[:300]!r}"
    try:
        plans = json.loads(out)["plans"]
    except (ValueError, KeyError, TypeError) as exc:
        return f"simulate exit 0 but no JSON plans ({exc})"
    return None if plans else "simulate exit 0 with no plan"


def _limit_memory():
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))


def _subprocess_checks(kept):
    """The real CLI, in its own process with a memory limit, agrees with the in-process run."""
    for path, expected in kept:
        done = subprocess.run([sys.executable, "-m", "tcoapp", "compute", str(path), "--json"], cwd=ROOT,
                              capture_output=True, text=True, timeout=120,
                              preexec_fn=_limit_memory if sys.platform != "win32" else None)
        assert done.returncode == expected, (path, done.returncode, done.stderr[:500])
        assert verdict(done.returncode, done.stdout, done.stderr) is None, (path, done.stderr[:500])
