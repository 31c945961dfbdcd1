"""Group long-format curve rows (the Curves sheet, or a CSV) into MeasuredCurve objects."""
from __future__ import annotations

from ..engine.core.errors import Problem
from ..engine.performance.measured import MeasuredCurve, make_measured_curve, parse_config_text


def curves_from_rows(rows, problems: list[Problem]) -> dict[str, MeasuredCurve]:
    """rows: (locator, typed record) pairs with CURVE_POINT_FIELDS keys. Problems are appended."""
    grouped: dict[str, list] = {}
    for where, record in rows:
        if record.get("curve"):
            grouped.setdefault(record["curve"], []).append((where, record))
    curves = {}
    for name, members in grouped.items():
        curve = _one_curve(name, members, problems)
        if curve is not None:
            curves[name] = curve
    return curves


def _one_curve(name, members, problems):
    seen = {}
    ok = True
    for where, record in members:
        batch = record["batch"]
        if batch is None:
            continue
        if batch in seen:
            problems.append(Problem(where("batch"), "batch", f"= {batch:g}: curve {name!r} already has a point at this batch ({seen[batch]})"))
            ok = False
        seen[batch] = where("batch")
    first = members[0][1]
    for key in ("device", "model", "precision", "tensor_parallel", "source", "config"):
        values = {record[key] for _, record in members}
        if len(values) > 1:
            problems.append(Problem(members[0][0](key), key, f"curve {name!r} mixes values {sorted(map(str, values))}: one curve, one {key}"))
            ok = False
    config, error = parse_config_text(first.get("config") or "")
    if error:
        problems.append(Problem(members[0][0]("config"), "config", error))
        ok = False
    if not ok or any(r["batch"] is None or r["tokens_per_s_per_device"] is None for _, r in members):
        return None
    column = lambda key: [r[key] if r[key] is not None else float("nan") for _, r in members]  # noqa: E731
    return make_measured_curve(
        name, first["device"], first["model"], column("batch"), column("tokens_per_s_per_device"),
        column("tokens_per_s_per_user"), column("power_w"), column("ttft_s"),
        precision=first["precision"], tensor_parallel=first["tensor_parallel"], source=first["source"], config=config)
