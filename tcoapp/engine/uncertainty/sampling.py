"""Common random numbers: one quantile per (input stream, draw), shared by every plan and every row
of a group, so "plan A beats plan B" compares the plans under the same draws of the world.

A stream's quantiles come from its own numpy Generator seeded by (seed, crc32(stream name)): the same
seed gives the same draws, and adding or removing another input leaves a stream's draws unchanged.
"""
from __future__ import annotations

import zlib
from typing import Iterable

import numpy as np

from .distributions import ppf
from .fields import ALL_PLANS
from .inputs import UncertainInput

MAX_DRAWS = 10_000_000


def stream_generators(streams: Iterable[str], seed: int) -> dict[str, np.random.Generator]:
    """Each stream's Generator: `random(n)` calls in turn give its quantiles in order, whatever the n
    (one 64-bit output per double), so chunked draws are the draws of one call."""
    return {name: np.random.default_rng([seed, zlib.crc32(name.encode("utf-8"))]) for name in dict.fromkeys(streams)}


def rows_for_plan(rows: Iterable[UncertainInput], plan_name: str) -> list[UncertainInput]:
    """The rows that apply to a plan: its own rows, and `*` rows for keys it has no own row for."""
    rows = list(rows)
    own = {r.key for r in rows if r.plan == plan_name}
    return [r for r in rows if r.plan == plan_name or (r.plan == ALL_PLANS and r.key not in own)]


def values(row: UncertainInput, quantiles: dict[str, np.ndarray]) -> np.ndarray:
    """The row's draws: its distribution's quantile function at its stream's quantiles."""
    return ppf(row.distribution, row.as_row(), quantiles[row.stream])
