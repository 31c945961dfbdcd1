"""Prediction intervals of a generated curve's operating point (docs/model.md, "How sure it is").

An 80 % interval per plan and pool on a generated curve (None on a measured one), from the
cross-validated residuals of `tcoapp accuracy`, both splits together: each published measurement of
known configuration predicted by factors refitted without its source family (leave-one-family-out)
and by factors fitted only on the other software era (leave-one-era-out), measured / predicted
tokens/s per device. A plan whose `software_date` lies outside the dates the fit saw takes the wider
of that band and the leave-one-era-out band alone (the model does not extrapolate software). The
table has a cell per regime x class x vendor ("interactive/MoE/AMD"), regime x class, regime and
overall ("*"); a point takes its vendor's cell where it holds MIN_ROWS rows of MIN_FAMILIES source
families, else its regime x class cell where it holds MIN_ROWS rows, else its regime's, else the
overall one (`band_for`). Each cell's band is the BAND_QUANTILES of a family's offset (its median
ratio, each family weighing the same) times the scatter of rows about their family's offset, so the
spread between families counts; a cell of fewer than MIN_FAMILIES families takes the spread between
families of every regime x class cell about its own centre (engine/performance/interval_cells.py
builds the table and checks its calibration: each family's rows against the band built without that
family). Tokens/s per user has its own table, from rows measured at a stated concurrency.

The regime of an operating point: *interactive* at >= 25 tokens/s per user (as the accuracy set
classes its rows), else *offline* where the batch is at least 90 % of the memory limit (a
max-throughput point), else *server*.
"""
from __future__ import annotations

import math

from statistics import NormalDist

from ..quantities.dates import FACTORS_DATE, months
from .acceptance_spread import widened as acceptance_widened
from .error_components import UNMEASURED_ARCHITECTURE_SD, is_measured, unmeasured_sigma

INTERACTIVE_MIN_TOKENS_PER_S_PER_USER = 25.0
OFFLINE_BATCH_SHARE = 0.9
MIN_ROWS = 20
MIN_FAMILIES = 3      # fewer source families: a cell's own spread between families is no estimate
LEVEL = 0.8
BAND_QUANTILES = (0.1, 0.9)

# cell -> (rows, source families, low, high of measured / predicted tokens/s per device): the residuals of
# both splits (leave-one-family-out and leave-one-era-out, each row once per split) of the shipped factors;
# rows of unknown configuration build none. Written by tools/refit_factors.py --intervals. Calibration, each
# family against the band built without it: leave one family out 82 % of 719 rows (MoE 80 %, interactive
# 78 %, offline 90 %, server 82 %); leave one era out 81 % of 666 (MoE 79 %, interactive 85 %, offline
# 84 %, server 72 %) (docs/model.md, "How sure it is").
RESIDUAL_QUANTILES: dict[str, tuple[int, int, float, float]] = {
    'offline/dense/AMD': (36, 2, 0.588, 1.638),
    'offline/dense/NVIDIA': (163, 3, 0.917, 1.217),
    'offline/MoE/AMD': (14, 1, 0.411, 1.350),
    'offline/MoE/NVIDIA': (120, 3, 0.355, 1.587),
    'server/dense/AMD': (34, 1, 0.491, 1.607),
    'server/dense/NVIDIA': (80, 1, 0.627, 2.045),
    'server/MoE/AMD': (48, 3, 0.447, 1.102),
    'server/MoE/NVIDIA': (98, 2, 0.508, 1.709),
    'interactive/dense/AMD': (34, 1, 0.516, 1.691),
    'interactive/dense/NVIDIA': (34, 1, 0.552, 2.645),
    'interactive/MoE/AMD': (220, 2, 0.598, 1.841),
    'interactive/MoE/NVIDIA': (380, 2, 0.682, 2.104),
    'offline/dense': (199, 5, 0.705, 1.208),
    'offline/MoE': (134, 4, 0.435, 1.633),
    'server/dense': (114, 2, 0.570, 1.639),
    'server/MoE': (146, 4, 0.412, 1.651),
    'interactive/dense': (68, 2, 0.555, 1.901),
    'interactive/MoE': (600, 3, 0.693, 2.058),
    'offline': (333, 5, 0.651, 1.285),
    'server': (260, 4, 0.494, 1.338),
    'interactive': (668, 4, 0.635, 1.291),
    '*': (1261, 7, 0.671, 1.309),
}
# cell -> (rows, source families, low, high of measured / predicted tokens/s per user), rows measured at a
# stated concurrency
PER_USER_QUANTILES: dict[str, tuple[int, int, float, float]] = {
    'server/MoE/AMD': (34, 2, 0.589, 1.081),
    'server/MoE/NVIDIA': (32, 1, 0.306, 1.057),
    'interactive/MoE/AMD': (220, 2, 0.741, 1.437),
    'interactive/MoE/NVIDIA': (366, 1, 0.649, 1.293),
    'server/MoE': (66, 2, 0.517, 1.037),
    'interactive/MoE': (586, 2, 0.713, 1.366),
    'server': (66, 2, 0.517, 1.037),
    'interactive': (586, 2, 0.713, 1.366),
    '*': (652, 2, 0.696, 1.350),
}


# cell -> (rows, source families, low, high of measured / predicted tokens/s per device): leave-one-era-out
# residuals (each software era predicted by factors fitted only on the other era; tools/refit_factors.py
# --intervals).
# A point whose software_date lies outside the dates the fit saw takes the wider of this band and the
# one above: the model does not extrapolate software it has not seen.
ERA_RESIDUAL_QUANTILES: dict[str, tuple[int, int, float, float]] = {
    'offline/dense/AMD': (18, 2, 0.603, 1.990),
    'offline/dense/NVIDIA': (73, 2, 0.715, 2.376),
    'offline/MoE/AMD': (7, 1, 0.399, 1.653),
    'offline/MoE/NVIDIA': (42, 2, 0.555, 2.155),
    'server/dense/AMD': (17, 1, 0.484, 1.959),
    'server/dense/NVIDIA': (40, 1, 0.639, 2.830),
    'server/MoE/AMD': (24, 3, 0.389, 1.119),
    'server/MoE/NVIDIA': (49, 2, 0.593, 2.283),
    'interactive/dense/AMD': (17, 1, 0.516, 2.129),
    'interactive/dense/NVIDIA': (17, 1, 0.555, 3.917),
    'interactive/MoE/AMD': (110, 2, 0.603, 2.294),
    'interactive/MoE/NVIDIA': (190, 2, 0.797, 2.974),
    'offline/dense': (91, 4, 0.638, 1.127),
    'offline/MoE': (49, 3, 0.441, 2.725),
    'server/dense': (57, 2, 0.574, 2.057),
    'server/MoE': (73, 4, 0.413, 1.655),
    'interactive/dense': (34, 2, 0.558, 2.529),
    'interactive/MoE': (300, 3, 0.718, 2.434),
    'offline': (140, 4, 0.515, 1.339),
    'server': (130, 4, 0.459, 1.357),
    'interactive': (334, 4, 0.614, 1.207),
    '*': (604, 6, 0.630, 1.284),
}
FIT_FIRST_DATE = "2024-08"   # the oldest software date of the measurements the shipped factors were fitted on


def outside_fit_dates(software_date: str) -> bool:
    """True where a plan's `software_date` lies before or after the dates the shipped fit saw
    (FIT_FIRST_DATE to FACTORS_DATE); empty = FACTORS_DATE, inside."""
    d = months(software_date or "")
    first, last = months(FIT_FIRST_DATE), months(FACTORS_DATE)
    return d is not None and first is not None and last is not None and not first <= d <= last


def point_regime(tokens_per_s_per_user: float, batch: float, max_batch_by_memory: float) -> str:
    """interactive, offline or server (module docstring)."""
    if math.isfinite(tokens_per_s_per_user) and tokens_per_s_per_user >= INTERACTIVE_MIN_TOKENS_PER_S_PER_USER:
        return "interactive"
    if math.isfinite(max_batch_by_memory) and max_batch_by_memory > 0 and batch >= OFFLINE_BATCH_SHARE * max_batch_by_memory:
        return "offline"
    return "server"


def band_for(table: dict, regime: str, kind: str, vendor: str = "") -> tuple[str, tuple[int, float, float]]:
    """(cell, (rows, low, high)) for a point of `regime`, class `kind` and `vendor` (module docstring):
    the regime x class x vendor cell where it holds MIN_ROWS rows of MIN_FAMILIES families, else the
    first of regime x class, regime, "*" holding MIN_ROWS rows. A table's cells are (rows, families,
    low, high)."""
    own = (f"{regime}/{kind}/{vendor}",) if vendor else ()
    for key in (*own, f"{regime}/{kind}", regime, "*"):
        found = table.get(key)
        if found is None:
            continue
        n, families, lo, hi = found
        enough = n >= MIN_ROWS and (families >= MIN_FAMILIES or key.count("/") < 2)
        if enough or key == "*":
            return key, (n, lo, hi)
    raise KeyError("the interval table has no overall cell")


def prediction_interval(point, kind: str, vendor: str, generated: bool | None = None,
                        software_date: str = "", architecture: str | None = None,
                        acceptance: dict | None = None) -> dict | None:
    """{"level", "tokens_per_s_per_device": [low, high], "tokens_per_s_per_user": [low, high], "basis"}
    for a generated operating point that exists (`generated` None: its source says so); None
    otherwise (a measured curve, no operating point). A `software_date` outside the dates the fit saw
    widens the band to hold the leave-one-era-out band of its cell as well; an `architecture` no measured
    row runs (None: not asked) widens its log sd as `error_components.unmeasured_sigma` (docs/model.md,
    "Architectures without measurements"). `acceptance` {"ratios": (low, high), "user_ratios", "text"} of a
    pool drafting at a published acceptance (acceptance_spread.py) widens both bands by that spread; the
    band keeps its tokens/s per device without that spread as "tokens_per_s_per_device_at_stated_acceptance"."""
    generated = str(getattr(point, "source", "")).startswith("generated") if generated is None else generated
    if point is None or not generated or not point.exists:
        return None
    regime = point_regime(point.tokens_per_s_per_user, point.batch, point.max_batch_by_memory)
    key, (n, lo, hi) = band_for(RESIDUAL_QUANTILES, regime, kind, vendor)
    ukey, (un, ulo, uhi) = band_for(PER_USER_QUANTILES, regime, kind, vendor)
    widened, (wlo, whi) = "", (lo, hi)
    if outside_fit_dates(software_date) and ERA_RESIDUAL_QUANTILES.get("*", (0,))[0] > 0:
        ekey, (en, elo, ehi) = band_for(ERA_RESIDUAL_QUANTILES, regime, kind, vendor)
        wlo, whi = min(lo, elo), max(hi, ehi)
        widened = (f"; software_date {software_date} lies outside the dates the fit saw ({FIT_FIRST_DATE} to "
                   f"{FACTORS_DATE}): widened to hold the leave-one-era-out band of cell {_cell_name(ekey)} "
                   f"(n={en}, {elo:.2f}x-{ehi:.2f}x: software of an era the fit never saw) to {wlo:.2f}x-{whi:.2f}x")
    if architecture is not None and not is_measured(architecture):
        wlo, whi, text = _unmeasured(wlo, whi, architecture)
        widened += text
    before_acceptance = (wlo, whi)
    if acceptance:
        wlo, whi = acceptance_widened(wlo, whi, acceptance["ratios"])
        r_low, r_high = acceptance["ratios"]
        widened += (f"; {acceptance['text']}: {r_low:.2f}x-{r_high:.2f}x the tokens/s per device at the same batch, "
                    f"added to the band as an independent error, to {wlo:.2f}x-{whi:.2f}x")
    if acceptance and acceptance.get("user_ratios"):
        ulo, uhi = acceptance_widened(ulo, uhi, acceptance["user_ratios"])
    per_user = point.tokens_per_s_per_user
    user = [per_user * ulo, per_user * uhi] if math.isfinite(per_user) else None
    basis = (f"{regime} point ({kind}, {vendor}): cell {_cell_name(key)}, n={n}: the leave-one-family-out and "
             f"leave-one-era-out residuals (each source family, and each software era, held-out of the factor fit, "
             f"then predicted) lay between {lo:.2f}x and {hi:.2f}x the "
             f"model's tokens/s per device ({_percentiles()} of a family's offset times the scatter within "
             f"families{_borrowed(RESIDUAL_QUANTILES, key)}); per user {ulo:.2f}x-{uhi:.2f}x "
             f"(cell {_cell_name(ukey)}, n={un}, rows measured at a stated concurrency){widened}")
    d = point.tokens_per_s_per_device
    band = {"level": LEVEL, "tokens_per_s_per_device": [d * wlo, d * whi], "tokens_per_s_per_user": user, "basis": basis}
    if acceptance:   # the band without the acceptance's spread: the Monte Carlo's when it draws the acceptance itself
        band["tokens_per_s_per_device_at_stated_acceptance"] = [d * before_acceptance[0], d * before_acceptance[1]]
    return band


def _unmeasured(low: float, high: float, architecture: str) -> tuple[float, float, str]:
    """The band (about its geometric centre) of a pool on an unmeasured architecture, and the words."""
    z = NormalDist().inv_cdf(0.5 + LEVEL / 2.0)
    sigma = (math.log(high) - math.log(low)) / (2.0 * z)
    wide = unmeasured_sigma(sigma)
    centre = math.sqrt(low * high)
    lo, hi = centre * math.exp(-z * wide), centre * math.exp(z * wide)
    name = architecture or "(none given)"
    return lo, hi, (f"; architecture {name} has no measurement: its compute is eta_compute's, fitted on Blackwell, so "
                    f"the band widens by the error of an architecture held out of the fit (sd "
                    f"{UNMEASURED_ARCHITECTURE_SD:.2f} of ln, leave one architecture out) to {lo:.2f}x-{hi:.2f}x")


def _borrowed(table: dict, key: str) -> str:
    """The words for a cell whose spread between families is borrowed (fewer than MIN_FAMILIES)."""
    families = table.get(key, (0, MIN_FAMILIES))[1]
    return (f"; {families} source famil{'y' if families == 1 else 'ies'} in the cell: the spread between families "
            "is every regime x class cell's" if families < MIN_FAMILIES else "")


def _cell_name(key: str) -> str:
    return "all regimes" if key == "*" else key


def _percentiles() -> str:
    low, high = (round(100 * q) for q in BAND_QUANTILES)
    return f"{low}th-{high}th percentiles"
