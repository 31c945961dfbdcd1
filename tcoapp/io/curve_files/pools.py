"""The prefill and decode pool curves of an aiconfigurator disaggregated deployment.

A disaggregated row reports, besides the deployment's own point, each pool's rate:
`(p)seq/s/worker` and `(d)seq/s/worker` (requests per second one worker completes) at its batch
`(p)bs` / `(d)bs`. Each pool becomes a curve of its own, in the units of every curve (output
tokens/s per device), so that a two-pool plan can give each pool its curve:

    tokens_per_s_per_device = seq/s per worker x output_tokens / devices per worker

(for the prefill pool: the output tokens its prefills let the decode pool produce, i.e. its
request capacity x output_tokens). The decode pool's tokens/s per user is the deployment's
(1 / TPOT); the prefill pool's TTFT is the deployment's. Their configuration is the pool's own
(`role`, `deployment`, `workers`, `devices`, `tensor_parallel`, ..., and the tool's `(p)`/`(d)`
columns). The deployment curve stays the one to use for a one-pool plan: its tokens/s per device
averages over both pools' GPUs.
"""
from __future__ import annotations

from ...engine.performance.measured import MeasuredCurve, make_measured_curve
from .duplicates import resolve_duplicates
from .formats import Format
from .rows import POINT_FIELDS, Row
from .table import Table

SIDES = (("prefill", "(p)"), ("decode", "(d)"))


def _pool_config(config: dict[str, str], side: str, deployment: str) -> tuple[tuple[str, str], ...]:
    own = [(k[len(side) + 1:], v) for k, v in config.items() if k.startswith(f"{side}.")]
    workload = [(k, config[k]) for k in ("input_tokens", "output_tokens") if k in config]
    raw = [(k, v) for k, v in config.items() if k.startswith(f"({side[0]})")]
    return (("role", side), ("deployment", deployment), *workload, *own, *raw)


def _pool_point(row: Row, side: str, output_tokens: float, per_worker: float) -> dict[str, float]:
    nan = float("nan")
    rate = row.extra.get(f"{side}.seq_per_s_per_worker", nan)
    return {"batch": row.extra.get(f"{side}.batch", nan),
            "tokens_per_s_per_device": rate * output_tokens / per_worker,
            "tokens_per_s_per_user": row.point["tokens_per_s_per_user"] if side == "decode" else nan,
            "ttft_s": row.point["ttft_s"] if side == "prefill" else nan, "power_w": nan}


def _rate_note(table: Table, deployment: MeasuredCurve, rows: list[Row]) -> str | None:
    """How the deployment's request rate compares with its smaller pool's (workers x seq/s per worker)."""
    c = deployment.config_dict
    try:
        devices = int(c["prefill_devices"]) + int(c["decode_devices"])
        workers = {side: int(c[f"{side}.workers"]) for side, _ in SIDES}
        output_tokens = float(c["output_tokens"])
    except (KeyError, ValueError):
        return None
    ratios = []
    for r in rows:
        pools = [workers[s] * r.extra.get(f"{s}.seq_per_s_per_worker", float("nan")) for s, _ in SIDES]
        ratios.append(r.point["tokens_per_s_per_device"] * devices / output_tokens / min(pools))
    ratios = sorted(x for x in ratios if x == x)
    if not ratios:
        return None
    mid = ratios[len(ratios) // 2]
    return (f"{table.name}: deployment {deployment.name!r} serves {mid:.0%} of the requests/s of its smaller pool "
            "(workers x seq/s per worker; the tool applies its own latency corrections to the deployment): a two-pool "
            "plan on its pool curves sizes from the pool rates")


def pool_curves(spec: Format, table: Table, deployment: MeasuredCurve, rows: list[Row],
                warnings: list[str], problems) -> list[MeasuredCurve]:
    """The deployment's prefill and decode pool curves (none where the file lacks the pool rates)."""
    out = [c for side, mark in SIDES
           if (c := _side_curve(spec, table, deployment, rows, warnings, problems, side, mark)) is not None]
    note = _rate_note(table, deployment, rows) if len(out) == 2 else None
    if note:
        warnings.append(note)
    return out


def _usable_rows(table: Table, deployment: MeasuredCurve, rows: list[Row], warnings: list[str], side: str,
                 mark: str) -> list[Row] | None:
    """The rows with the side's rates (seq/s per worker and batch > 0); None where rows have the columns but
    none is usable (a warning names the rows left out)."""
    keys = (f"{side}.seq_per_s_per_worker", f"{side}.batch")
    present = [r for r in rows if all(k in r.extra for k in keys)]
    usable = [r for r in present if all(r.extra[k] > 0 for k in keys)]   # False for NaN (an empty cell)
    if present and len(usable) < len(present):
        left = ", ".join(table.where(r.row) for r in present if r not in usable)
        warnings.append(f"{left}: {mark}seq/s/worker or {mark}bs empty or 0: left out of the {side} pool curve of "
                        f"{deployment.name!r} (the deployment's own point is kept)"
                        + ("; no point is left: no such pool curve" if not usable else ""))
        if not usable:
            return None
    return usable


def _side_curve(spec: Format, table: Table, deployment: MeasuredCurve, rows: list[Row], warnings: list[str], problems,
                side: str, mark: str) -> MeasuredCurve | None:
    """The deployment's `side` (prefill / decode) pool curve; None (with a warning where rows lack its rates)."""
    config = deployment.config_dict
    try:
        workers, devices = int(config[f"{side}.workers"]), int(config[f"{side}.devices"])
        output_tokens = float(config["output_tokens"])
    except (KeyError, ValueError):
        return None
    usable = _usable_rows(table, deployment, rows, warnings, side, mark)
    if usable is None:
        return None
    if not usable or workers < 1 or devices < 1:
        warnings.append(f"{table.name}: no {mark}seq/s/worker or {mark}bs column: no {side} pool curve for "
                        f"{deployment.name!r}")
        return None
    name = f"{deployment.name} {side} pool"
    pool_rows = [Row(r.row, _pool_point(r, side, output_tokens, devices / workers), r.config, r.knobs) for r in usable]
    kept = sorted(resolve_duplicates(spec, table, name, pool_rows, warnings, problems), key=lambda r: r.point["batch"])
    columns = {f: [r.point[f] for r in kept] for f in POINT_FIELDS}
    pool = dict(_pool_config(config, side, deployment.name))
    return make_measured_curve(
        name, pool.get("device", deployment.device), deployment.model, columns["batch"],
        columns["tokens_per_s_per_device"], columns["tokens_per_s_per_user"], columns["power_w"], columns["ttft_s"],
        precision=pool.get(f"{mark}gemm", deployment.precision), tensor_parallel=devices // workers,  # per worker
        source=f"{deployment.source}, {side} pool", point_sources=tuple(table.where(r.row) for r in kept),
        config=_pool_config(config, side, deployment.name))
