"""The stored leave-one-family-out and leave-one-era-out predictions of the shipped measurements
(docs/model.md, "How sure it is"): resources/measurements/cross_validated.csv and
cross_validated_era.csv, written by `tools/refit_factors.py --intervals`, read by `tcoapp accuracy`
while they are current.

Current means: its fingerprint (the measurements file, the efficiency factors and the in-sample
prediction of every row, which moves with any change to the model or the catalog) equals the one
computed now. Otherwise `tcoapp accuracy` recomputes the cross-validation (a minute or more) and
says so; `tcoapp accuracy --cv` always recomputes.
"""
from __future__ import annotations

import csv
import hashlib
import importlib.resources
import io
import pathlib
from dataclasses import replace

from ..engine.performance.accuracy import Accuracy, run
from ..engine.performance.factors import DEFAULT_FACTORS

CROSS_VALIDATED_CSV = pathlib.Path(str(importlib.resources.files("tcoapp.resources") / "measurements"
                                       / "cross_validated.csv"))
CROSS_VALIDATED_ERA_CSV = CROSS_VALIDATED_CSV.with_name("cross_validated_era.csv")
COLUMNS = ("line", "source_family", "predicted_tokens_per_s_per_device", "predicted_tokens_per_s_per_user", "batch",
           "tensor_parallel", "expert_parallel", "attention_dp", "weight_precision")
NOT_FEASIBLE = "no feasible configuration with the factors fitted without its family"


def fingerprint(rows, in_sample: Accuracy, factors=DEFAULT_FACTORS) -> str:
    """sha256 of the rows, the factors and each row's in-sample prediction (5 significant digits)."""
    h = hashlib.sha256()
    for line, row in rows:
        h.update(repr((line, sorted((k, v) for k, v in row.items() if k != "invalid"))).encode())
    h.update(repr(sorted(factors.as_dict().items())).encode())
    for r in in_sample.results:
        h.update(f"{r.line}:{r.predicted:.5g}:{r.predicted_per_user or 0:.5g}".encode())
    return h.hexdigest()


def stored_path(split: str = "family") -> pathlib.Path:
    """The stored predictions of leave-one-family-out ("family") or leave-one-era-out ("era")."""
    return CROSS_VALIDATED_ERA_CSV if split == "era" else CROSS_VALIDATED_CSV


def write_cross_validated(cv: Accuracy, rows, catalog, path=CROSS_VALIDATED_CSV) -> pathlib.Path:
    """Write the cross-validated predictions of `rows` with the fingerprint of now."""
    from .atomic import atomic_write
    text = io.StringIO()
    text.write(f"# fingerprint {fingerprint(rows, run(rows, catalog))}\n")
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(COLUMNS)
    for r in cv.results:
        c = r.config
        writer.writerow((r.line, r.source_family, f"{r.predicted:.6g}", f"{r.predicted_per_user or 0:.6g}",
                         f"{c['batch']:g}", c["tensor_parallel"], c["expert_parallel"], int(bool(c["attention_dp"])),
                         c["weight_precision"]))
    atomic_write(str(path), lambda handle: handle.write(text.getvalue().encode("utf-8")))
    return pathlib.Path(path)


def stored_cross_validation(rows, catalog, path=CROSS_VALIDATED_CSV) -> Accuracy | None:
    """The stored cross-validated accuracy of `rows` where the file is current, else None."""
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            stamp = handle.readline().strip().removeprefix("# fingerprint ")
            stored = {int(r["line"]): r for r in csv.DictReader(handle)}
    except (OSError, ValueError, KeyError, csv.Error):
        return None
    in_sample = run(rows, catalog)
    if stamp != fingerprint(rows, in_sample):
        return None
    results, skipped = [], list(in_sample.skipped)
    for r in in_sample.results:
        s = stored.get(r.line)
        if s is None:
            skipped.append((r.line, NOT_FEASIBLE))
            continue
        config = dict(r.config, batch=float(s["batch"]), tensor_parallel=int(s["tensor_parallel"]),
                      expert_parallel=int(s["expert_parallel"]), attention_dp=s["attention_dp"] == "1",
                      weight_precision=s["weight_precision"])
        results.append(replace(r, predicted=float(s["predicted_tokens_per_s_per_device"]), config=config,
                               predicted_per_user=float(s["predicted_tokens_per_s_per_user"]) or None))
    return Accuracy(tuple(results), tuple(sorted(skipped)))
