"""The agentic session model on public agentic measurements (docs/model.md, "Agentic sessions and KV
tiers"): the shipped rows read with their sources, predicted, and reported by `tcoapp accuracy` as their own
cell; the figures the docs state; a row that cannot be read refused naming its line and column."""
import csv
import subprocess
import sys

import pytest

from tcoapp.engine.core.errors import ValidationError
from tcoapp.engine.serving.agentic_validation import predict, summary
from tcoapp.io.agentic_measurements import AGENTIC_CSV, read_agentic_measurements
from tcoapp.io.catalog import load_catalog


@pytest.fixture(scope="module")
def figures():
    catalog = load_catalog()
    rows = read_agentic_measurements(catalog=catalog)
    return rows, summary(predict(rows, catalog))


def test_every_row_names_its_source_and_the_cell_reproduces_the_documented_figures(figures):
    rows, s = figures
    assert len(rows) == s["rows"] == 21 and all("InferenceX" in r.source for r in rows)
    assert s["median_abs_hit_error"] == pytest.approx(0.068, abs=0.0015)
    assert s["knee_side_agreement"] == pytest.approx(20 / 21)
    assert s["median_tokens_ape_pct"] == pytest.approx(112.0, abs=0.05)
    at_24 = next(g for g in s["offload_gains"] if g["sessions_per_replica"] == 24)
    assert at_24["measured"] == pytest.approx(1.42, abs=0.01) and at_24["predicted"] == pytest.approx(1.40, abs=0.02)


def test_tcoapp_accuracy_prints_the_agentic_cell():
    out = subprocess.run([sys.executable, "-m", "tcoapp", "accuracy"], capture_output=True, text=True, timeout=600)
    assert "AGENTIC SESSIONS (own cell: 21 operating points" in out.stdout
    assert "prefix hit rate: median |error| 0.068" in out.stdout
    assert all(len(line) <= 100 for line in out.stdout.splitlines() if "AGENTIC" in line or "offload gain" in line)


def test_a_row_that_cannot_be_read_is_refused_naming_line_and_column(tmp_path):
    with open(AGENTIC_CSV, newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        header, row = reader.fieldnames, next(reader)
    row.update(kv_offload="dram", measured_prefix_hit_rate="lots")
    path = tmp_path / "agentic.csv"
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=header)
        writer.writeheader()
        writer.writerow(row)
    with pytest.raises(ValidationError) as err:
        read_agentic_measurements(path, catalog=load_catalog())
    text = str(err.value)
    assert "agentic.csv line 2 measured_prefix_hit_rate = 'lots': must be a number" in text
    assert "kv_offload = 'dram': must be one of none, host, host_nvme" in text


def test_docs_model_states_the_figures_the_cell_computes(figures):
    """docs/model.md's validation table is the cell's output, figure for figure (a doc left behind a model change
    fails here)."""
    import pathlib
    _, s = figures
    text = (pathlib.Path(__file__).resolve().parents[2] / "docs" / "model.md").read_text(encoding="utf-8")
    section = text[text.index("### Validation on public agentic measurements"):]
    section = section[:section.index("\n## ")]
    gains = {g["sessions_per_replica"]: g for g in s["offload_gains"]}
    side = round(s["knee_side_agreement"] * s["rows"])
    for line in (
        f"| prefix hit rate, median / p90 absolute error (0..1) | {s['median_abs_hit_error']:.3f} / "
        f"{s['p90_abs_hit_error']:.3f} |",
        f"| rows on the measured side of the knee (hit rate above or below 0.5) | {side} of {s['rows']} |",
        f"| tokens/s per device, median / p90 APE | {s['median_tokens_ape_pct']:.1f} % / {s['p90_tokens_ape_pct']:.0f} % |",
        *(f"| host-offload gain{' in tokens/s' if n == 24 else ''} at {n} sessions, measured / predicted | "
          f"{gains[n]['measured']:.2f}x / {gains[n]['predicted']:.2f}x |" for n in (24, 32)),
    ):
        assert line in section, line
    assert f"holds {s['rows']} operating points" in " ".join(section.split())
