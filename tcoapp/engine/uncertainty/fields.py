"""The Uncertainty sheet's field table (docs/workbook_format.md, "Uncertainty").

One row per uncertain input: which plan (or `*` for every plan), which key (a Plan key, `device.FIELD`
for the plan's device or `factor.NAME` for an efficiency factor), its distribution and parameters (in
the key's own unit), an optional group (rows of one group share one quantile per draw) and a source.
"""
from __future__ import annotations

from ..quantities.inputs import Field, by_name

DISTRIBUTIONS = ("uniform", "triangular", "pert", "normal", "lognormal")
# which parameters each distribution takes (every other parameter cell must be empty)
PARAMETERS = {
    "uniform": ("low", "high"),
    "triangular": ("low", "mode", "high"),
    "pert": ("low", "mode", "high"),
    "normal": ("mean", "sd"),
    "lognormal": ("mean", "sd"),
}
ALL_PLANS = "*"
KEY_UNIT = "key's unit"


def _f(name, type_, unit, label, help_, **kw) -> Field:
    return Field(key=name, type=type_, unit=unit, default=kw.pop("default", None), min=None, max=None,
                 group="uncertainty", label=label, help=help_, **kw)


UNCERTAINTY_FIELDS: tuple[Field, ...] = (
    _f("plan", "str", "", "Plan", "A plan name (a column header of the Plans sheet), or `*` for every plan.", required=True, checks="identity"),
    _f("key", "str", "", "Key", "The uncertain input: a Plan key (`utilization`), `device.FIELD` for the plan's device "
       "(`device.price_usd`) or `factor.NAME` for an efficiency factor (`factor.eta_mem`). Only number keys that "
       "take fractional values can be uncertain (not whole-number keys such as `years` or `batch`).", required=True, checks="identity"),
    _f("distribution", "choice", "", "Distribution", "uniform (low, high), triangular and pert (low, mode, high), "
       "normal (mean, sd), lognormal (mean and sd of the value itself, not of its logarithm).",
       required=True, choices=DISTRIBUTIONS),
    _f("low", "float", KEY_UNIT, "Low", "Lowest value (uniform, triangular, pert); inside the key's allowed range."),
    _f("mode", "float", KEY_UNIT, "Mode", "Most likely value (triangular, pert): low <= mode <= high."),
    _f("high", "float", KEY_UNIT, "High", "Highest value (uniform, triangular, pert): > low, inside the key's allowed range."),
    _f("mean", "float", KEY_UNIT, "Mean", "Mean of the value (normal, lognormal; lognormal: > 0)."),
    _f("sd", "float", KEY_UNIT, "Standard deviation", "Standard deviation of the value (normal, lognormal): > 0. "
       "The distribution's 1e-9 and 1 - 1e-9 quantiles must lie inside the key's allowed range (draws never leave it)."),
    _f("group", "str", "", "Group", "Rows with the same group move together (one shared quantile per draw). Empty: "
       "the key is the group, so the same key of different plans moves together (common random numbers); give a "
       "row a group of its own to draw it independently.", default=""),
    _f("source", "str", "", "Source", "Where the range comes from (a quote, a survey, a fitted error), or ASSUMPTION.",
       default=""),
)
UNCERTAINTY_FIELD_BY_NAME = by_name(UNCERTAINTY_FIELDS)
