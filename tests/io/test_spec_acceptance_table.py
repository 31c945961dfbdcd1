"""The published acceptance table (resources/catalog/spec_acceptance.csv): every row sourced, in range."""
import pytest

from tcoapp.engine.core.errors import ValidationError
from tcoapp.io import catalog


def test_every_row_has_a_source_and_a_spread():
    table = catalog.load_catalog().spec_acceptance
    assert {"Llama-3.3-70B", "DeepSeek-R1"} <= set(table)
    for entry in table.values():
        assert entry.source and entry.low <= entry.acceptance <= entry.high
    assert set(table["Llama-3.3-70B"].tasks) == {"chat", "code", "reasoning"}


def test_bad_rows_are_refused_naming_the_row_and_field(monkeypatch):
    rows = [{"model": "Llama-3.3-70B", "method": "eagle3", "task": "all", "acceptance": "1.4",
             "acceptance_low": "0.5", "acceptance_high": "0.8", "source": "x"},
            {"model": "Nope", "method": "eagle3", "task": "poetry", "acceptance": "0.7",
             "acceptance_low": "0.6", "acceptance_high": "0.8", "source": ""}]
    monkeypatch.setattr(catalog, "_read_rows", lambda name: rows)
    with pytest.raises(ValidationError) as err:
        catalog.load_spec_acceptance({"Llama-3.3-70B"})
    text = str(err.value)
    assert "row 2" in text and "acceptance" in text and "between 0 and 1" in text
    assert "row 3" in text and "Nope is not a catalog model" in text and "poetry" in text and "source" in text
