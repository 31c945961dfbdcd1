"""The cached input price in the desktop app: the compare table edits it (bad text refused with its range,
empty back to "the input price"), and shows revenue and cost per million tokens by token type, recomputed."""
import math

from PySide6.QtCore import Qt

from tcoapp.gui.compare_model import CompareModel

KEY = "price_usd_per_million_cached_input_tokens"
BY_TYPE = ("revenue_per_million_output_tokens_usd", "revenue_per_million_uncached_input_tokens_usd",
           "revenue_per_million_cached_input_tokens_usd", "revenue_per_million_total_tokens_usd",
           "cost_per_million_uncached_input_tokens_usd", "cost_per_million_cached_input_tokens_usd")


def test_the_compare_table_edits_the_cached_price_and_shows_revenue_by_token_type(document):
    model = CompareModel(document)
    for key in BY_TYPE:
        assert "USD/Mtok" in model.headerData(model.row_of(key), Qt.Vertical), key
    row = model.row_of(KEY)
    failures = []
    model.edit_failed.connect(failures.append)
    assert not model.setData(model.index(row, 0), "-1")
    assert failures and "between 0 and 1,000,000" in failures[0]
    assert getattr(document.scenario.plans[0], KEY) is None
    assert model.setData(model.index(model.row_of("prefix_cache_hit_rate"), 0), "0.9")
    input_price = document.scenario.plans[0].price_usd_per_million_input_tokens
    assert model.setData(model.index(row, 0), str(input_price / 10))
    shown = model.data(model.index(model.row_of("revenue_per_million_cached_input_tokens_usd"), 0), Qt.UserRole)
    want = document.results[0].metrics.revenue_per_million_cached_input_tokens_usd
    assert shown == want and math.isclose(want, input_price / 10, rel_tol=1e-12)
    assert model.setData(model.index(row, 0), "")   # empty again: the input price
    assert getattr(document.scenario.plans[0], KEY) is None
