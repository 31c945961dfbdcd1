"""The optional aiconfigurator integration: with the package, a run gives the curves of the very
pareto.csv its CLI writes (the fixture was made with aiconfigurator 0.12.0 `cli default`); without
it, the message says how to install it."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from tcoapp.io import aiconfigurator_run
from tcoapp.io.curve_files import read_curve_file

FIXTURE = Path(__file__).resolve().parent.parent / "data" / "curves" / "aiconfigurator_llama70b_fp8_h200_agg_pareto.csv"


def test_without_the_package_the_message_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "aiconfigurator", None)
    message = aiconfigurator_run.missing()
    assert message and "pip install 'tcoapp[aiconfigurator]'" in message
    with pytest.raises(aiconfigurator_run.AiconfiguratorError, match="not installed"):
        aiconfigurator_run.generate_curves("nvidia/Llama-3.1-70B-Instruct-FP8", "h200_sxm", 8, 4000, 1000)


@pytest.mark.slow
@pytest.mark.aiconfigurator
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_a_run_reproduces_the_cli_pareto_file():
    pytest.importorskip("aiconfigurator")
    systems, models = aiconfigurator_run.supported()
    assert "h200_sxm" in systems and "nvidia/Llama-3.1-70B-Instruct-FP8" in models
    result = aiconfigurator_run.generate_curves("nvidia/Llama-3.1-70B-Instruct-FP8", "h200_sxm", 8, 4000, 1000)
    agg = {c.tensor_parallel: c for c in result.curves if "_agg_" in c.name}
    expected = {c.tensor_parallel: c for c in read_curve_file(FIXTURE).curves}
    assert sorted(agg) == sorted(expected)
    for tp, curve in expected.items():
        np.testing.assert_allclose(agg[tp].tokens_per_s_per_device, curve.tokens_per_s_per_device, rtol=1e-9)
        np.testing.assert_allclose(agg[tp].ttft_s, curve.ttft_s, rtol=1e-9)
        assert agg[tp].config_dict["parallel"] == curve.config_dict["parallel"]
    assert any(c.config_dict.get("disaggregated") == "true" for c in result.curves)
    assert result.warnings[0].startswith("aiconfigurator 0.12") and all(c.source.startswith("aiconfigurator 0.12")
                                                                        for c in result.curves)
    with pytest.raises(aiconfigurator_run.AiconfiguratorError, match="could not run"):
        aiconfigurator_run.generate_curves("no-such/model", "h200_sxm", 8, 4000, 1000)
