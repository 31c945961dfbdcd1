"""The notebook API: scenarios in, pandas DataFrames out (`tcoapp.load_scenario`, `tcoapp.compute`,
`tcoapp.read_curves`, `tcoapp.simulate`, re-exported lazily by the package root).

- `scenario`: load, compute and read curves (`Computed`)
- `simulate`: the Monte Carlo over a scenario's Uncertainty rows (`Simulated`)
"""
