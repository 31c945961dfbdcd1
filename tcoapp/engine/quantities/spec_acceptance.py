"""Published speculative-decoding acceptance per model (resources/catalog/spec_acceptance.csv, read
by tcoapp/io/catalog.py): the per-token acceptance rate alpha of the model's published drafter, its
spread (low, high) and the source, overall (`task` = all) and per task kind (chat, code, reasoning)
where the source gives it. A plan whose `spec_decode_acceptance` is empty takes the model's overall
alpha (docs/model.md, "Speculative decoding")."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

TASKS = ("all", "chat", "code", "reasoning")


@dataclass(frozen=True)
class SpecAcceptance:
    """One model's published acceptance: `acceptance` (alpha, 0..1) with its spread `low`..`high`,
    the drafter `method` (mtp, eagle3), `source` (with any ESTIMATE said there) and per-task alphas."""

    model: str
    method: str
    acceptance: float
    low: float
    high: float
    source: str
    tasks: Mapping[str, float] = field(default_factory=dict)

    def as_json(self) -> dict:
        """The JSON of a plan's published acceptance (docs/model.md)."""
        return {"acceptance": self.acceptance, "low": self.low, "high": self.high, "method": self.method,
                "tasks": dict(self.tasks), "source": self.source}


class ModelCatalog(dict):
    """The shipped catalog's models by name (a dict of ModelSpec) that also carries the published
    acceptance table by model (`spec_acceptance`), so every scenario built on the catalog's models
    (`Scenario(..., catalog_models=catalog.models)`) finds a model's published acceptance."""

    def __init__(self, models=(), spec_acceptance: Mapping[str, SpecAcceptance] | None = None):
        super().__init__(models)
        self.spec_acceptance = dict(spec_acceptance or {})
