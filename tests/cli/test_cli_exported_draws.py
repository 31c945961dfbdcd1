"""The decision's P recomputed from the exported draws alone (`tcoapp simulate --out`'s MonteCarloDraws sheet,
read with openpyxl), with the model's error on, the default: the share of draws in which the first plan's
objective beats the second's is within +-0.01 of `tcoapp compute --json`'s P; each pool's model-error
multiplier column is exp(sd x sum of sqrt(share) x z) from the sheet's stream columns and the MonteCarlo
sheet's model error table (docs/model.md, "How the model's errors correlate")."""
import json
import math
from pathlib import Path

import numpy as np
import openpyxl
import pytest

from .test_cli_workbook import run_cli

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
DRAWS = "10000"


def _columns(path) -> dict[str, np.ndarray]:
    ws = openpyxl.load_workbook(path, read_only=True)["MonteCarloDraws"]
    rows = list(ws.iter_rows(values_only=True))
    titles, data = rows[0], rows[2:]
    number = lambda v: float(v) if isinstance(v, (int, float)) else math.nan  # noqa: E731 ("n/a", "never")
    return {t: np.array([number(r[i]) for r in data]) for i, t in enumerate(titles) if t}


def _error_table(path) -> dict[tuple[str, str], tuple[float, list[tuple[str, float]]]]:
    """(plan, pool) -> (sd, [(stream, share)]) from the MonteCarlo sheet's model error table."""
    rows = list(openpyxl.load_workbook(path, read_only=True)["MonteCarlo"].iter_rows(values_only=True))
    start = next(i for i, r in enumerate(rows) if r[3] == "model error: sd of ln(tokens/s per device)") + 1
    out: dict = {}
    for r in rows[start:]:
        if not r[0] or not isinstance(r[3], float):
            break
        out.setdefault((r[0], r[1]), (r[3], []))[1].append((r[4], r[5]))
    return out


def _financed(tmp_path) -> str:
    """The default scenario with two plans borrowing (15 % equity rate): ranked by equity NPV at one hurdle rate."""
    from tcoapp.io.default_scenario import default_scenario
    from tcoapp.io.workbook_write import write_scenario
    s = default_scenario()
    s = s.with_plans(p.with_(debt_fraction=0.5, debt_rate=0.08, equity_discount_rate=0.15) if i < 2 else p
                     for i, p in enumerate(s.plans))
    path = tmp_path / "financed.xlsx"
    write_scenario(s, path)
    return str(path)


def _column(columns, plan: str, objective: str) -> np.ndarray:
    if objective == "equity_npv_usd":   # at the decision's hurdle rate
        return next(v for t, v in columns.items() if t.startswith(f"{plan}: equity_npv_usd at the hurdle rate "))
    return columns[f"{plan}: {objective}"]


@pytest.mark.parametrize("sample", [None, "batch_tradeoff.xlsx", "uncertainty_llama70b.xlsx", "financed"])
def test_the_decisions_p_is_recomputed_from_the_exported_draws(tmp_path, sample):
    args = ([] if sample is None else [_financed(tmp_path)] if sample == "financed" else [str(SAMPLES / sample)])
    out = tmp_path / "draws.xlsx"
    done = run_cli("simulate", *args, "--draws", DRAWS, "--seed", "0", "--out", str(out))
    assert done.returncode == 0, done.stderr
    computed = run_cli("compute", *args, "--json")
    assert computed.returncode == 0, computed.stderr
    decision = json.loads(computed.stdout)["decision"]
    first, second = decision["ranked"][:2]
    objective = decision["objective"]
    columns = _columns(out)
    assert objective == "equity_npv_usd" if sample == "financed" else objective != "equity_npv_usd"
    a, b = _column(columns, first, objective), _column(columns, second, objective)
    assert a.size == int(DRAWS)
    low = objective.startswith("cost")
    a, b = (np.nan_to_num(x, nan=np.inf if low else -np.inf) for x in (a, b))
    p = float(np.mean(a < b if low else a > b))
    assert abs(p - decision["p_first_beats_second"]) <= 0.01, (p, decision)
    # the model error is in the export: a z column per stream, a multiplier per generated pool, recomputable
    table = _error_table(out)
    assert table, "no model error table"
    multipliers = [t for t in columns if t.endswith(": model error multiplier")]
    assert len(multipliers) == len(table)
    for (plan, pool), (sd, streams) in table.items():
        title = f"{plan}: model error multiplier" if f"{plan}: model error multiplier" in columns else \
            f"{plan}, pool {pool}: model error multiplier"
        log = sum(math.sqrt(share) * columns[f"{stream} (z)"] for stream, share in streams)
        assert sum(share for _, share in streams) == pytest.approx(1.0, abs=2e-3)
        assert np.allclose(columns[title], np.exp(sd * log), rtol=1e-12)
        assert np.median(columns[title]) == pytest.approx(1.0, abs=0.03)   # centred on the figure shown
