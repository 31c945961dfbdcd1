"""Uncertainty: Monte Carlo over the inputs nobody knows exactly (docs/model.md, "Uncertainty").

`fields.py` is the Uncertainty sheet's field table, `inputs.py` its validated rows, `distributions.py`
the quantile functions, `sampling.py` the common random numbers, `serve_draws.py` the operating point
over a draw axis, `plan_draws.py` one plan's engine call over draws, `simulate.py` the orchestrator and
`statistics.py` the summaries (percentiles, probabilities, rank correlations).
"""
