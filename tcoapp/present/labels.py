"""Labels a person reads for the keys the engine uses (from the field and metric tables, never the
key itself): 'Weight-read bandwidth efficiency' for factor.eta_mem, 'Device price' for
device.price_usd, 'Output price' for price_usd_per_million_output_tokens."""
from __future__ import annotations

from ..engine.quantities.metrics import METRIC_BY_KEY


def input_label(key: str) -> str:
    """An Uncertainty key's label: the field's, with 'device' or 'factor' where that helps."""
    from ..engine.uncertainty.inputs import target_field   # (the field tables of devices and factors: on first use)
    found = target_field(key) or target_field(f"device.{key}")
    if found is None:
        return METRIC_BY_KEY[key].label if key in METRIC_BY_KEY else key.replace("_", " ")
    kind, field = found
    label = field.label or key
    if kind == "device" and "device" not in label.lower():
        return f"device {in_sentence(label)}"
    return label


def in_sentence(label: str) -> str:
    """'Revenue per MW ...' -> 'revenue per MW ...'; an acronym ('NPV', 'TDP') stays as it is."""
    return label if label[:2].isupper() else label[0].lower() + label[1:]


def metric_label(key: str) -> str:
    """A metric's label from the metric table."""
    return METRIC_BY_KEY[key].label if key in METRIC_BY_KEY else key.replace("_", " ")
