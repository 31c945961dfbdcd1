"""The serving configuration a measurement row ran, as its CSV columns state it (docs/model.md,
"Configurations in the data"). Pure: rows are dicts of the measurements CSV.

Columns (tools/measurement_configurations.py reads them from each submission's own files):
`spec_decode` (none | mtp | eagle | draft model), `draft_tokens`, `acceptance` (per-token acceptance
0..1 where the source states it), `disaggregated` ("no", or "prefill P x PAR, decode D x PAR" with
PAR = TPn | EPn | DEPn), `tensor_parallel`, `expert_parallel`, `attention_dp` (true | false),
`pipeline_parallel`, `configuration_source` (where they were read; "unknown..." where the row's
submission does not state them).

A row is *known* where `configuration_source` names a source. An unknown row is modelled at the
throughput-maximizing configuration (as before the columns existed), reported as its own cell and
sets no efficiency factor (factor_fit fits known rows only). A CSV without the columns has every row
unknown.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

SPEC_METHODS = ("none", "mtp", "eagle", "draft model")
_POOL = re.compile(r"(prefill|decode)\s+(\d+)\s*x\s*(DEP|EP|TP)(\d+)", re.I)


class ConfigurationError(ValueError):
    """A configuration cell that cannot be read (the message names the column and the allowed values)."""


@dataclass(frozen=True)
class RowConfiguration:
    """The configuration a row's columns state (module docstring); `known` False: unknown."""

    known: bool
    source: str = ""
    spec_decode: str = "none"
    draft_tokens: int = 0
    acceptance: float | None = None          # stated per-token acceptance, else None (the model's published one)
    tensor_parallel: int | None = None
    expert_parallel: int | None = None
    attention_dp: bool | None = None
    pipeline_parallel: int = 1
    prefill_devices: int = 0                 # disaggregated: devices of the prefill pool (0: aggregated)
    decode_devices: int = 0

    @property
    def disaggregated(self) -> bool:
        """True where the row ran separate prefill and decode pools."""
        return self.prefill_devices > 0 and self.decode_devices > 0

    @property
    def speculative(self) -> bool:
        """True where the row ran speculative decoding with at least one draft token."""
        return self.spec_decode != "none" and self.draft_tokens > 0


def _int(row: dict, column: str, default: int | None) -> int | None:
    text = str(row.get(column) or "").strip()
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not math.isfinite(value) or value < 0 or value != int(value):
        raise ConfigurationError(f"column {column} = {text!r}: a whole number >= 0 expected, or empty")
    return int(value)


def _pools(text: str) -> tuple[int, int, tuple[str, int] | None]:
    """(prefill devices, decode devices, decode worker parallelism) of a `disaggregated` cell."""
    text = text.strip()
    if text.lower() in ("", "no", "false", "none"):
        return 0, 0, None
    found = {m.group(1).lower(): (int(m.group(2)), m.group(3).upper(), int(m.group(4))) for m in _POOL.finditer(text)}
    if set(found) != {"prefill", "decode"}:
        raise ConfigurationError(f"column disaggregated = {text!r}: \"no\" or \"prefill P x PAR, decode D x PAR\" "
                                 "(PAR = TPn, EPn or DEPn) expected")
    (pw, _, pn), (dw, dkind, dn) = found["prefill"], found["decode"]
    return pw * pn, dw * dn, (dkind, dn)


def row_configuration(row: dict) -> RowConfiguration:
    """The configuration a row's columns state (module docstring); ConfigurationError on a bad cell."""
    source = str(row.get("configuration_source") or "").strip()
    if not source or source.lower().startswith("unknown"):
        return RowConfiguration(False, source or "unknown: no configuration_source")
    method = str(row.get("spec_decode") or "none").strip().lower()
    if method not in SPEC_METHODS:
        raise ConfigurationError(f"column spec_decode = {method!r}: one of {', '.join(SPEC_METHODS)} expected")
    acceptance = str(row.get("acceptance") or "").strip()
    try:
        a = float(acceptance) if acceptance else None
    except ValueError:
        a = float("nan")
    if a is not None and not 0.0 <= a < 1.0:
        raise ConfigurationError(f"column acceptance = {acceptance!r}: a per-token acceptance 0 to below 1 expected, or empty")
    adp = str(row.get("attention_dp") or "").strip().lower()
    if adp not in ("", "true", "false"):
        raise ConfigurationError(f"column attention_dp = {adp!r}: true, false or empty expected")
    prefill, decode, decode_par = _pools(str(row.get("disaggregated") or ""))
    tp, ep = _int(row, "tensor_parallel", None), _int(row, "expert_parallel", None)
    attention_dp = {"true": True, "false": False}.get(adp)
    if decode_par is not None and not tp:   # a disaggregated row's decode workers state its parallelism
        tp, ep, attention_dp = decode_par[1], decode_par[1], decode_par[0] == "DEP"
    return RowConfiguration(True, source, method, (_int(row, "draft_tokens", 0) or 0) if method != "none" else 0, a,
                            tp, ep, attention_dp, _int(row, "pipeline_parallel", 1) or 1, prefill, decode)

def stated_parallelism(config: RowConfiguration, is_moe: bool) -> dict | None:
    """Sweep axes of the configuration a known row states (the same reading as the InferenceX and
    TensorRT-LLM "DEPn / EPn / TPn" notation: attention-DP over n devices with experts over n; experts
    over EP; else tensor parallel), None where it states none. Pipeline stages are modelled as a
    TP x PP replica over the same devices (the engine has no pipeline stages)."""
    if not config.known or not config.tensor_parallel:
        return None
    tp, ep, pp = config.tensor_parallel, config.expert_parallel or 1, config.pipeline_parallel
    if is_moe and config.attention_dp:
        return {"tensor_parallel": (1,), "expert_parallel": (max(tp, ep) * pp,), "attention_dp": (True,)}
    if is_moe and ep > 1:
        return {"tensor_parallel": (1,), "expert_parallel": (ep * pp,), "attention_dp": (False,)}
    return {"tensor_parallel": (tp * pp,), "expert_parallel": (1,), "attention_dp": (False,)}
