"""A seeded mutation fuzzer of the public measurements file through `tcoapp accuracy`'s reading and
the accuracy of the mutated row: every mutant is read (and its row modelled or skipped with its
reason) or refused with ONE line naming the row and the column; never another exception.

Mutations: a number cell garbled (text, inf, nan, negative, 1e400, German or US grouping), a short
last line, a row cut or given an extra cell, a column dropped, blank lines, the file emptied or left
with its header only. The seed is the run's (tests/conftest.py: TCOAPP_FUZZ_SEED, printed);
TCOAPP_MEASUREMENT_FUZZ_MUTANTS mutants (default 40, a few seconds).
"""
from __future__ import annotations

import collections
import csv
import io
import os
import random

from tcoapp.engine.core.errors import TcoError
from tcoapp.io.measurement_numbers import NUMBER_COLUMNS
from tcoapp.io.measurements import DEFAULT_CSV, accuracy_of_file, read_measurements

SEED = int(os.environ["TCOAPP_FUZZ_SEED"])
MUTANTS = int(os.environ.get("TCOAPP_MEASUREMENT_FUZZ_MUTANTS", "40"))
ROWS = list(csv.reader(DEFAULT_CSV.read_text(encoding="utf-8").splitlines()))
GARBAGE = ("abc", "inf", "-inf", "nan", "NaN", "-1", "1e400", "", " ", "1.234,5", "1,234.5", "12,34,567", "0",
           "4.000", "1'234", "\u221212", "9" * 400)


def _text(rows) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()


def mutant(rng) -> tuple[str, str, int | None]:
    rows = [list(r) for r in ROWS]
    header = rows[0]
    kind = rng.choice(["garble", "garble", "garble", "short last", "cut", "extra cell", "drop column", "blank",
                       "empty", "header only"])
    line = rng.randrange(2, len(rows) + 1)
    if kind == "garble":
        column = rng.choice([c for c in NUMBER_COLUMNS if c in header])
        rows[line - 1][header.index(column)] = rng.choice(GARBAGE)
        kind = f"row {line} {column} = {rows[line - 1][header.index(column)][:20]!r}"
    elif kind == "short last":
        line = len(rows)
        text = _text(rows)
        return kind, text[:len(text) - rng.randrange(2, 120)], None
    elif kind == "cut":
        rows[line - 1] = rows[line - 1][:rng.randrange(len(header))]
    elif kind == "extra cell":
        rows[line - 1].append("extra")
    elif kind == "drop column":
        j = rng.randrange(len(header))
        rows = [r[:j] + r[j + 1:] for r in rows]
        kind = f"column {header[j]} dropped"
    elif kind == "blank":
        rows.insert(line - 1, [])
    elif kind == "empty":
        return kind, "", None
    else:
        return kind, _text(rows[:1]), None
    return kind, _text(rows), line


def test_damaged_measurement_files_are_read_or_refused_in_one_line(tmp_path):
    rng = random.Random(SEED + 3)
    failures, outcomes = [], collections.Counter()
    for i in range(MUTANTS):
        kind, text, line = mutant(rng)
        path = tmp_path / f"m{i}.csv"
        path.write_text(text, encoding="utf-8")
        try:
            rows = read_measurements(path)
            if line is not None and any(n == line for n, _ in rows):
                accuracy_of_file(path, lines=[line])   # the mutated row modelled or skipped with its reason
            outcomes["read"] += 1
        except TcoError as exc:
            said = str(exc).splitlines()
            outcomes["refused"] += 1
            if len(said) != 1 or not said[0].startswith("measurements CSV") or "Error" in said[0]:
                failures.append(f"{kind}: refused in {len(said)} line(s): {said[:2]}")
        except Exception as exc:  # noqa: BLE001 - what the fuzzer looks for
            failures.append(f"{kind}: {type(exc).__name__}: {exc}")
    print(f"\nmeasurement fuzz seed {SEED + 3}: {MUTANTS} mutants; outcomes {dict(outcomes)}")
    assert not failures, (f"measurement fuzz seed {SEED + 3} (replay: TCOAPP_FUZZ_SEED={SEED}):\n"
                          + "\n".join(failures[:20]))
