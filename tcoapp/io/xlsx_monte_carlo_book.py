"""Adds the Monte Carlo sheets to an exported workbook when its scenario has uncertain inputs."""
from __future__ import annotations

from ..engine.core.errors import TcoError
from ..engine.uncertainty.simulate import simulate
from . import sheets as S
from .xlsx_montecarlo import printed_draw_columns, write_draws, write_monte_carlo
from .xlsx_print import print_monte_carlo
from .xlsx_styles import section, set_text

EXPORT_DRAWS = 2_000  # draws of an export that is not given a simulation (`tcoapp simulate --out` gives its own)
EXPORT_SEED = 0


def add_monte_carlo(workbook, scenario, results, simulation=None) -> list:
    """MonteCarlo and MonteCarloDraws after the Uncertainty sheet; the bulk rows to splice (or [])."""
    if not scenario.uncertainty and simulation is None:
        return []
    at = workbook.sheetnames.index(S.UNCERTAINTY) + 1
    summary = workbook.create_sheet(S.MONTE_CARLO, at)
    try:
        sim = simulation or simulate(scenario, EXPORT_DRAWS, EXPORT_SEED, results=results)
    except TcoError as exc:  # the inputs are still saved; the sheet says why there is no simulation
        section(summary, 1, "Monte Carlo: not simulated", 6)
        for row, line in enumerate(str(exc).splitlines(), start=3):
            set_text(summary.cell(row=row, column=1), line)
        print_monte_carlo(summary, None, 6, 0)
        return []
    draws = workbook.create_sheet(S.MONTE_CARLO_DRAWS, at + 1)
    write_monte_carlo(summary, sim, scenario)
    pending = write_draws(draws, sim, scenario, results)
    print_monte_carlo(summary, draws, summary.max_column, printed_draw_columns(sim))
    return [p for p in (pending,) if p is not None and p.rows]
