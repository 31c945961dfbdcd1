"""The decision report: File > Export report and `tcoapp report FILE --out report.pdf` write the
same PDF: ranked plans with reasons, charts, breakevens, assumptions including costs not entered,
sources, and the Monte Carlo summary when the scenario has uncertain inputs."""
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _pdf_text(path) -> str:
    """The PDF's text (poppler's pdftotext, listed in the README's test command)."""
    if shutil.which("pdftotext") is None:
        pytest.fail("pdftotext (poppler-utils) is needed to read the report back: apt-get install poppler-utils")
    return subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True, check=True).stdout


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_report_document_holds_every_part(window):
    from tcoapp.gui.report_pdf import report_document
    doc = window.document
    text = _flat(report_document(doc.scenario, doc.results, "test").toPlainText())
    for part in ("Decision report: test", "Ranking by", "Why each plan stands", "Breaks even at price", "Risks",
                 "Charts", "Assumptions", "Costs not entered", "colocation, maintenance, software, staff", "Sources"):
        assert part in text, part
    for plan in doc.scenario.plans:
        assert plan.name in text
    best = max(doc.results, key=lambda r: r.metrics.npv_usd)
    cheapest = min(doc.results, key=lambda r: r.metrics.cost_per_million_output_tokens_usd)
    assert (f"Decision. {cheapest.name} makes the cheapest tokens; {best.name} earns the most on this 1 MW site."
            in text)
    assert "Ranked by NPV: the plans are sized by facility power" in text
    assert "Market. Returns assume 70 % of capacity sold at $0.88 per Mtok output" in text   # in the risks
    assert "demand and price, not hardware, drive these returns" in text
    assert "SemiAnalysis" in text                       # a device source
    assert "Uncertainty (Monte Carlo)" not in text      # none without uncertain inputs


def test_file_export_report_writes_the_pdf(window, tmp_path):
    path = tmp_path / "report.pdf"
    assert window.export_report(str(path))
    text = _flat(_pdf_text(path))
    assert "Decision report" in text and "Ranking by" in text and "Assumptions" in text
    assert all(p.name in text for p in window.document.scenario.plans)
    assert not list(tmp_path.glob(".*.tmp"))           # written atomically


def test_cli_report_with_monte_carlo_summary(tmp_path):
    out = tmp_path / "r.pdf"
    sample = ROOT / "samples" / "uncertainty_llama70b.xlsx"
    done = subprocess.run([sys.executable, "-m", "tcoapp", "report", str(sample), "--out", str(out)],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    text = _flat(_pdf_text(out))
    assert "Uncertainty (Monte Carlo)" in text and "2,000 draws, seed 0" in text and "P(NPV > 0)" in text
    assert "P(row beats column)" in text and "Uncertain" in text
    assert "Decision report: uncertainty_llama70b.xlsx" in text


def test_cli_report_bad_input(tmp_path):
    done = subprocess.run([sys.executable, "-m", "tcoapp", "report", "--out", str(tmp_path / "r.txt")],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 2 and "error: --out" in done.stderr and "Traceback" not in done.stderr
    done = subprocess.run([sys.executable, "-m", "tcoapp", "report", "--out", str(tmp_path / "no" / "r.pdf")],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 2 and "does not exist" in done.stderr


def _report_text(tmp_path, sample: str) -> tuple[str, int]:
    out = tmp_path / f"{sample}.pdf"
    done = subprocess.run([sys.executable, "-m", "tcoapp", "report", str(ROOT / "samples" / f"{sample}.xlsx"),
                           "--out", str(out)], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    info = subprocess.run(["pdfinfo", str(out)], capture_output=True, text=True, check=True).stdout
    pages = int(next(line.split()[-1] for line in info.splitlines() if line.startswith("Pages:")))
    return _pdf_text(out), pages


def test_the_financed_gpu_cloud_report_shows_its_financing_and_device_hour_prices(tmp_path):
    text, _ = _report_text(tmp_path, "gpu_cloud_financed")
    flat = _flat(text)
    for part in ("Ranking by equity NPV", "Financing", "Equity IRR", "Min DSCR", "debt rate 8 %", "Device-hour prices",
                 "Reserved share", "per device-hour on", "Risks"):
        assert part in flat, part
    assert "Output price" not in flat and "no cash flows" not in flat   # token prices this mode does not use


def test_nine_plans_fit_in_six_pages_without_keys_or_scientific_notation(tmp_path):
    import re
    text, pages = _report_text(tmp_path, "hopper_to_blackwell_power_limited")
    assert pages <= 6
    body = text.split("Sources")[0].split("\n", 1)[1]   # the catalog's quoted sources and the title (a file name) aside
    assert not re.search(r"\b[a-z]+_[a-z_]+\b", body), re.search(r"\b[a-z]+_[a-z_]+\b", body)
    assert not re.search(r"\d\.?\d*e[+-]\d", body)
