"""A seeded fuzzer over the real curve files: cells garbled, rows cut short or repeated, lines
dropped. Every outcome is either curves with valid points or a ValidationError whose every problem
names the file (and a row); never another exception."""
from __future__ import annotations

import math
from pathlib import Path

from hypothesis import event, given, settings, strategies as st

from tcoapp.engine.core.errors import ValidationError
from tcoapp.io.curve_files import read_curve_file

DATA = Path(__file__).resolve().parent.parent / "data" / "curves"
FILES = sorted(DATA.glob("*.csv"))
GARBAGE = ["", "abc", "-1", "0", "nan", "inf", "1e400", "1,000", '"', "#x", "0.0", "true", "  7 ", "\u00e9"]


@st.composite
def mutated(draw):
    path = draw(st.sampled_from(FILES))
    lines = path.read_text(encoding="utf-8").splitlines()
    for _ in range(draw(st.integers(1, 6))):
        i = draw(st.integers(0, len(lines) - 1))
        cells = lines[i].split(",")
        action = draw(st.sampled_from(["garble", "cut", "repeat", "drop"]))
        if action == "garble":
            cells[draw(st.integers(0, len(cells) - 1))] = draw(st.sampled_from(GARBAGE))
            lines[i] = ",".join(cells)
        elif action == "cut":
            lines[i] = ",".join(cells[: draw(st.integers(0, len(cells)))])
        elif action == "repeat":
            lines.insert(i, lines[i])
        elif len(lines) > 1:
            del lines[i]
    return path.name, "\n".join(lines) + "\n"


@given(mutated())
@settings(max_examples=150, deadline=None, derandomize=True)
def test_garbled_real_files_import_or_fail_with_located_errors(tmp_path_factory, case):
    name, text = case
    path = tmp_path_factory.mktemp("fuzz") / name
    path.write_text(text, encoding="utf-8")
    try:
        result = read_curve_file(path)
    except ValidationError as err:
        assert err.problems and all(p.where.startswith(name) for p in err.problems)
        event("refused with located problems")
        return
    event("imported")
    for curve in result.curves:
        assert curve.batch.size and all(b > 0 and math.isfinite(b) for b in curve.batch)
        assert all(t > 0 and math.isfinite(t) for t in curve.tokens_per_s_per_device)
        assert len(set(curve.batch.tolist())) == curve.batch.size
