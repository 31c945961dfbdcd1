"""Properties of the Uncertainty rows and the statistics (hypothesis): a row that validates never
draws outside its key's range; percentiles are monotone; P(A > B) + P(B > A) <= 1."""
import numpy as np
from hypothesis import given, strategies as st

from tcoapp.engine.uncertainty.distributions import ppf
from tcoapp.engine.uncertainty.inputs import make_uncertain_input, target_field
from tcoapp.engine.uncertainty.statistics import percentile, prob_higher
from tcoapp.engine.quantities.validate import _in_range

KEYS = ("utilization", "pue", "electricity_usd_per_kwh", "price_change_per_year", "factor.eta_mem",
        "device.price_usd", "discount_rate", "spec_decode_acceptance")
number = st.floats(-3.0, 3.0, allow_nan=False)


@given(key=st.sampled_from(KEYS), distribution=st.sampled_from(("uniform", "triangular", "pert", "normal", "lognormal")),
       a=number, b=number, c=number, scale=st.sampled_from((0.01, 1.0, 1e4)))
def test_a_valid_row_never_draws_outside_its_range(key, distribution, a, b, c, scale):
    low, mode, high = sorted((a * scale, b * scale, c * scale))
    params = ({"low": low, "high": high} if distribution == "uniform" else
              {"low": low, "mode": mode, "high": high} if distribution in ("triangular", "pert") else
              {"mean": abs(b) * scale + 1e-6, "sd": abs(c) * scale / 10 + 1e-9})
    problems = []
    row = make_uncertain_input({"plan": "*", "key": key, "distribution": distribution, **params}, lambda k: k, problems)
    if row is None:
        assert problems
        return
    field = target_field(key)[1]
    q = np.concatenate([[0.0, 1e-12, 0.5, 1 - 1e-12, 1.0], np.random.default_rng(0).random(200)])
    draws = ppf(row.distribution, row.as_row(), q)
    assert np.all(np.isfinite(draws)) and all(_in_range(field, float(x)) for x in draws)


@given(st.lists(st.one_of(st.floats(-1e6, 1e6), st.just(float("nan"))), min_size=1, max_size=40),
       st.floats(0, 100), st.floats(0, 100), st.booleans())
def test_percentiles_are_monotone(values, p, q, never_late):
    lo, hi = sorted((p, q))
    a, b = percentile(np.array(values), lo, never_late), percentile(np.array(values), hi, never_late)
    if a is not None and b is not None:
        assert a <= b + 1e-9 * max(1.0, abs(b))
    if never_late and a is None:
        assert b is None  # once a percentile reaches "never", every higher one does


@given(st.lists(st.tuples(st.floats(-1e6, 1e6), st.floats(-1e6, 1e6)), min_size=1, max_size=50))
def test_pairwise_probabilities_add_up_to_at_most_one(pairs):
    a, b = np.array(pairs).T
    assert prob_higher(a, b) + prob_higher(b, a) <= 1.0
