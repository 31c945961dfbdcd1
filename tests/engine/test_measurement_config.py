"""Measurement rows carry the configuration that produced them (engine/performance/measurement_config.py,
accuracy.model_row) and the two validation splits that use them (cross_validation.py,
interval_cells.coverage); docs/model.md, "Configurations in the data"."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from tcoapp.engine.performance import interval_cells
from tcoapp.engine.performance.accuracy import run
from tcoapp.engine.performance.cross_validation import (
    UNDATED, era_of, fitted_lines, leave_one_era_out, leave_one_family_out,
)
from tcoapp.engine.performance.measurement_config import ConfigurationError, row_configuration, stated_parallelism
from tcoapp.io.catalog import load_catalog
from tcoapp.io.measurements import read_measurements

CATALOG = load_catalog()
ROWS = dict(read_measurements())
KNOWN = {"configuration_source": "test", "spec_decode": "none", "draft_tokens": "0", "disaggregated": "no",
         "tensor_parallel": "", "expert_parallel": "", "attention_dp": "", "pipeline_parallel": "1"}


def _row(line_filter):
    return next(dict(r) for r in ROWS.values() if line_filter(r))


def _dsr1_interactive():
    """An MLPerf v6.0 DeepSeek-R1 Interactive row on 8 B200/B300 (MTP in its submission's config)."""
    return _row(lambda r: r["model"].startswith("DeepSeek-R1") and r["scenario"] == "MLPerf Interactive"
                and r["count"] == "8" and r["spec_decode"] == "mtp")


def test_the_shipped_rows_state_their_configuration_or_unknown():
    sources = [r["configuration_source"] for r in ROWS.values()]
    assert all(sources), "every row has a configuration_source (a source or unknown...)"
    assert sum(s.startswith("unknown") for s in sources) > 0
    dsr1 = [r for r in ROWS.values() if r["model"].startswith("DeepSeek-R1") and "MLPerf Interactive" in r["scenario"]]
    assert any(r["spec_decode"] == "mtp" and r["draft_tokens"] == "3" for r in dsr1)
    assert any(r["disaggregated"].startswith("prefill") for r in dsr1)      # NVL72 Interactive: prefill/decode workers
    wide = row_configuration(next(r for r in dsr1 if r["disaggregated"].startswith("prefill")))
    assert wide.disaggregated and wide.attention_dp and wide.expert_parallel >= 16
    assert wide.prefill_devices + wide.decode_devices == int(next(
        r for r in dsr1 if r["disaggregated"].startswith("prefill"))["count"])


def test_a_row_without_a_configuration_source_is_unknown_and_bad_cells_are_refused():
    assert not row_configuration({}).known
    assert not row_configuration({"configuration_source": "unknown: no file"}).known
    assert row_configuration(dict(KNOWN)).known
    with pytest.raises(ConfigurationError, match="column draft_tokens = 'three'"):
        row_configuration(dict(KNOWN, spec_decode="mtp", draft_tokens="three"))
    with pytest.raises(ConfigurationError, match="column spec_decode = 'medusa'"):
        row_configuration(dict(KNOWN, spec_decode="medusa"))
    with pytest.raises(ConfigurationError, match="column disaggregated"):
        row_configuration(dict(KNOWN, disaggregated="yes"))
    with pytest.raises(ConfigurationError, match="column acceptance = '1.5'"):
        row_configuration(dict(KNOWN, spec_decode="mtp", draft_tokens="2", acceptance="1.5"))
    bad = dict(_dsr1_interactive(), draft_tokens="-1")
    acc = run([(9, bad)], CATALOG)
    assert not acc.results and "configuration: column draft_tokens = '-1'" in acc.skipped[0][1]


def test_stated_parallelism_reads_dep_ep_and_tp():
    known = row_configuration(dict(KNOWN, tensor_parallel="8", expert_parallel="8", attention_dp="true"))
    assert stated_parallelism(known, True) == {"tensor_parallel": (1,), "expert_parallel": (8,), "attention_dp": (True,)}
    tp = row_configuration(dict(KNOWN, tensor_parallel="2", expert_parallel="1", attention_dp="false", pipeline_parallel="2"))
    assert stated_parallelism(tp, False)["tensor_parallel"] == (4,)       # TP2 x PP2 as a 4-device replica
    assert stated_parallelism(row_configuration(dict(KNOWN)), True) is None


def test_a_configuration_column_changes_how_the_row_is_modelled():
    """Direction: the same row with its stated MTP drafts is predicted faster at its per-user target than
    with speculative decoding off; disaggregation and the stated parallelism reach the modelled config."""
    row = _dsr1_interactive()
    with_mtp = run([(1, row)], CATALOG).results[0]
    without = run([(1, dict(row, spec_decode="none", draft_tokens="0"))], CATALOG).results[0]
    assert with_mtp.config["spec_decode_draft_tokens"] == 3 and without.config["spec_decode_draft_tokens"] == 0
    assert with_mtp.predicted > without.predicted
    tp = run([(1, dict(row, spec_decode="none", draft_tokens="0", tensor_parallel="8", expert_parallel="1",
                       attention_dp="false"))], CATALOG).results[0]
    assert (tp.config["tensor_parallel"], tp.config["expert_parallel"], tp.config["attention_dp"]) == (8, 1, False)
    split = run([(1, dict(row, disaggregated="prefill 2 x DEP2, decode 1 x DEP4"))], CATALOG).results[0]
    assert split.config["disaggregated"] and not with_mtp.config["disaggregated"]
    assert split.predicted != pytest.approx(with_mtp.predicted, rel=1e-3)
    unknown = run([(1, dict(row, configuration_source="unknown: test"))], CATALOG).results[0]
    assert unknown.configuration == "unknown" and unknown.config["spec_decode_draft_tokens"] == 0


SMALL = ("MLPerf v5.1 AMD", "MLPerf v6.0 AMD")


def _small_rows():
    return [(line, r) for line, r in ROWS.items() if r["source_family"] in SMALL]


def test_an_unknown_configuration_row_is_its_own_cell_and_sets_no_factor():
    rows = _small_rows()
    base = run(rows, CATALOG)
    unknown = {r.line for r in base.results if r.configuration == "unknown"}
    assert unknown and set(fitted_lines(base.results)) == {r.line for r in base.results} - unknown
    cv = leave_one_family_out(rows, CATALOG, max_nfev=2)
    for family, fit in cv.fits.items():
        others_known = [r for r in base.results if r.source_family != family and r.line not in unknown]
        assert fit.rows == len(others_known)                       # the unknown rows were never fitted
    assert unknown <= {r.line for r in cv.accuracy.results}       # ...but are predicted and reported
    cover = interval_cells.coverage(cv.accuracy.results)
    assert interval_cells.UNKNOWN_CELL in cover and cover[interval_cells.UNKNOWN_CELL]["n"] <= len(unknown)
    cells = interval_cells.build_cells(cv.accuracy.results)
    assert cells["*"][0] == len(cv.accuracy.results) - len([r for r in cv.accuracy.results if r.line in unknown])


def test_leave_one_era_out_fits_each_era_on_the_other_only():
    rows = _small_rows() + [(line, r) for line, r in ROWS.items() if "perf-overview" in r["source"]][:3]
    base = run(rows, CATALOG)
    cv = leave_one_era_out(rows, CATALOG, boundary="2026-04", max_nfev=2)
    dates = dict(rows)
    eras = {r.line: era_of(dates[r.line]["date"]) for r in base.results}
    assert set(cv.fits) == {"before 2026-04", "from 2026-04"}
    for era, fit in cv.fits.items():
        other_known = [r for r in base.results if eras[r.line] not in (era, None) and r.configuration == "known"]
        assert fit.rows == len(other_known)
    undated = [line for line, e in eras.items() if e is None]
    assert undated and set(undated) == set(cv.not_tested)
    assert all((line, UNDATED) in cv.accuracy.skipped for line in undated)   # said, never silently dropped
    assert {r.line for r in cv.accuracy.results} | set(undated) >= {r.line for r in base.results} - {
        line for line, _ in cv.accuracy.skipped}


def test_coverage_by_era_tests_each_era_against_the_band_of_the_other():
    results = [SimpleNamespace(line=i, measured=1.0 + 0.01 * (i % 7), predicted=1.0, source_family=f"f{i % 5}",
                               scenario="interactive", kind="MoE", config={}, measured_per_user=None,
                               predicted_per_user=None, configuration="known") for i in range(60)]
    results += [SimpleNamespace(line=100 + i, measured=3.0, predicted=1.0, source_family=f"f{i % 5}",
                                scenario="interactive", kind="MoE", config={}, measured_per_user=None,
                                predicted_per_user=None, configuration="known") for i in range(30)]
    groups = {r.line: ("old" if r.line < 100 else "new") for r in results}
    by_era = interval_cells.coverage(results, groups=groups)
    assert by_era["overall"]["n"] == 90 and by_era["overall"]["inside_share"] < 0.5   # an era unlike the other
