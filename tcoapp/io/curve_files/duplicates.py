"""Several rows at one batch in one curve: resolved and said (tool formats), or refused (plain).

aiconfigurator lists a concurrency once per `ctx_tokens`; an InferenceX export may hold reruns on
several dates. The row of the latest date, else the one with the most tokens/s per device, is
kept, and a warning names the rows kept and dropped and what they differ in. Rows that give the
very same point (a pool run at batch 1 in every row) are kept once, said in one line.
"""
from __future__ import annotations

import datetime
from operator import attrgetter, itemgetter

from ...engine.core.errors import Problem
from .formats import Format
from .rows import POINT_FIELDS, Row
from .table import Table, header_key


def resolve_duplicates(spec: Format, table: Table, name: str, members: list[Row], warnings, problems) -> list[Row]:
    """One row per batch: the duplicates of a batch are resolved (tool formats) or refused (plain)."""
    if len(set(map(itemgetter("batch"), map(attrgetter("point"), members)))) == len(members):
        return list(members)   # no batch twice (the usual curve)
    by_batch: dict[float, list[Row]] = {}
    for row in members:
        by_batch.setdefault(row.point["batch"], []).append(row)
    kept = []
    for batch, rows in by_batch.items():
        if len(rows) == 1:
            kept.append(rows[0])
            continue
        if not spec.resolve_duplicates:
            for row in rows[1:]:
                problems.append(Problem(table.where(row.row), "batch", f"= {batch:g}: curve {name!r} already has a "
                                                                        f"point at this batch (row {rows[0].row})"))
            continue
        best = max(rows, key=lambda r: (_date(spec, r), r.point["tokens_per_s_per_device"]))
        kept.append(best)
        same = all(_same_point(r, best) for r in rows)
        warnings.append(_same_note(table, name, batch, rows, best) if same else
                        _duplicate_note(spec, table, name, batch, rows, best))
    return kept


def _date(spec: Format, row: Row) -> str:
    """The row's date as sortable text (ISO); US month/day/year dates are converted; "" if none."""
    text = dict(zip(spec.knobs, row.knobs)).get("date", "")
    for pattern in ("%Y-%m-%d", "%m/%d/%Y", "%Y/%m/%d"):
        try:
            return datetime.datetime.strptime(text[:10], pattern).date().isoformat()
        except ValueError:
            continue
    return text


def _duplicate_note(spec: Format, table: Table, name: str, batch: float, rows: list[Row], best: Row) -> str:
    headers = {header_key(h): h for h in table.headers}
    differ = [f"{headers[k]} {', '.join(dict.fromkeys(r.knobs[i] for r in rows))}"
              for i, k in enumerate(spec.knobs) if k in headers and len({r.knobs[i] for r in rows}) > 1]
    why = "the latest date" if len({_date(spec, r) for r in rows}) > 1 else "the most tokens/s per device"
    others = ", ".join(str(r.row) for r in rows if r is not best)
    return (f"{table.name}: rows {', '.join(str(r.row) for r in rows)} measure curve {name!r} at batch {batch:g}"
            + (f" (they differ in {'; '.join(differ)})" if differ else "")
            + f": kept row {best.row} ({why}, {best.point['tokens_per_s_per_device']:.6g} tokens/s per device), "
              f"dropped row(s) {others}")


def _same_point(a: Row, b: Row) -> bool:
    return all(a.point[f] == b.point[f] or (a.point[f] != a.point[f] and b.point[f] != b.point[f]) for f in POINT_FIELDS)


def _same_note(table: Table, name: str, batch: float, rows: list[Row], best: Row) -> str:
    return (f"{table.name}: rows {_rows_text(rows)} give curve {name!r} the same point at batch {batch:g}: "
            f"kept row {best.row}")


def _rows_text(rows: list[Row]) -> str:
    numbers = [r.row for r in rows]
    if len(numbers) > 6:
        return f"{', '.join(map(str, numbers[:3]))}, ... {numbers[-1]} ({len(numbers)} rows)"
    return ", ".join(map(str, numbers))
