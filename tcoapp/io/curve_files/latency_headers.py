"""The latency headers the field's benchmark tools write, read as one vocabulary (docs/curves.md,
"Latency columns").

A header names a quantity, a statistic and a unit, in any order and spelling:

- vLLM `bench serve` and SGLang `bench_serving`: `mean_ttft_ms`, `median_ttft_ms`, `p99_ttft_ms`,
  `std_ttft_ms`, `mean_tpot_ms`, `median_tpot_ms`, `mean_itl_ms`, ...;
- InferenceX exports: `Median TTFT (s)`, `Mean TPOT (s)`, `P99 ITL (s)`, ...;
- GenAI-Perf and aiperf (metric tags `time_to_first_token`, `inter_token_latency`, shown in ms):
  `time_to_first_token_p50`, `time_to_first_token.avg`, and aiperf's sweep CSV
  `time_to_first_token_p50_mean` (the mean over repeated runs of each run's p50);
- aiconfigurator: `ttft`, `tpot` (ms; its format reads them);
- hand-written: `ttft_p50_ms`, `p50 ttft (ms)`, `TTFT [us]`, `time per output token (ms)`.

A curve point holds one TTFT and one TPOT: the central statistic is read, the median first (median,
p50, then mean, avg); percentiles, std, min and max are recognised and left (the reading says so). A
header that looks like a latency but is none of these (`ttft_limit_s`, `first_token_wait`) is named
in a warning, never dropped silently.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from .table import Table, header_key
from ...engine.core.errors import Problem
from .unit_headers import TIME_TO_S, scale_of, split_unit

CENTRAL = ("median", "p50", "mean", "avg", "average")      # the order a reading prefers them in
SPREAD = frozenset(("std", "stddev", "min", "max", "cv", "var", "variance"))
_PERCENTILE = re.compile(r"^p[0-9]+(\.[0-9]+)?$")
# phrase (as header_key) -> quantity; tools' own names first
QUANTITIES = {"timetofirsttoken": "ttft", "ttft": "ttft", "timeperoutputtoken": "tpot", "tpot": "tpot",
              "intertokenlatency": "itl", "itl": "itl", "e2elatency": "e2e", "e2el": "e2e",
              "requestlatency": "e2e", "endtoendlatency": "e2e", "encoderlatency": "encoder"}
# tool metric tags that state no unit in a header: the tool shows them in ms (GenAI-Perf, aiperf)
_TAGS_IN_MS = ("timetofirsttoken", "intertokenlatency", "requestlatency")
_LATENCY_WORDS = frozenset(("ttft", "tpot", "itl", "e2el", "e2e"))
_LATENCY_PARTS = ("latency", "firsttoken", "timeperoutput", "timeto")


@dataclass(frozen=True)
class LatencyHeader:
    header: str
    quantity: str          # ttft, tpot, itl, e2e, encoder
    statistics: tuple[str, ...]
    unit: str | None       # s, ms, us ... as written (None: not stated)

    @property
    def central(self) -> bool:
        return all(s in CENTRAL for s in self.statistics)

    @property
    def rank(self) -> int:
        """0 for the median (or a header stating no statistic), higher for the means."""
        return CENTRAL.index(self.statistics[0]) if self.statistics else 0


def _tokens(name: str) -> list[str]:
    return [t for t in re.split(r"[^a-z0-9.]+|\.(?![0-9])", name.lower()) if t]


def parse(header: str) -> LatencyHeader | None:
    """The latency a header names, or None when it names none the reader knows."""
    name, unit = split_unit(header)
    tokens = _tokens(name)
    joined = "".join(tokens)
    for phrase, quantity in QUANTITIES.items():
        start = joined.find(phrase)
        if start < 0:
            continue
        rest_text = joined[:start] + " " + joined[start + len(phrase):]
        stats = _statistics(rest_text)
        if stats is None:
            return None
        if unit is None and phrase in _TAGS_IN_MS:
            unit = "ms"
        return LatencyHeader(header, quantity, stats, unit)
    return None


def _statistics(rest_text: str) -> tuple[str, ...] | None:
    """The statistic words around the quantity's phrase, or None when another word is there."""
    words = [w for chunk in rest_text.split() for w in _split_glued(chunk)]
    if all(w in CENTRAL or w in SPREAD or _PERCENTILE.match(w) for w in words):
        return tuple(words)
    return None


def _split_glued(chunk: str) -> list[str]:
    """`meanp50` -> ['mean', 'p50']: header_key glues words; split them back on the known statistics."""
    out, rest = [], chunk
    pattern = re.compile(r"(median|mean|average|avg|stddev|std|min|max|cv|variance|var|p[0-9]+(?:\.[0-9]+)?)")
    while rest:
        match = pattern.match(rest)
        if not match:
            return out + [rest]
        out.append(match.group(1))
        rest = rest[match.end():]
    return out


def best_column(field: str, table: Table) -> tuple[int, LatencyHeader] | None:
    """The column a curve's `field` ("ttft" or "tpot") is read from: the central statistic, median
    first; for TPOT, the inter-token latency where no TPOT column is there (vLLM's and aiperf's ITL is
    the gap between output tokens: TPOT)."""
    quantities = ("tpot", "itl") if field == "tpot" else (field,)
    for quantity in quantities:
        found = [(h.rank, i, h) for i, text in enumerate(table.headers)
                 if (h := parse(text)) is not None and h.quantity == quantity and h.central]
        if found:
            _, i, h = min(found, key=lambda x: (x[0], x[1]))
            return i, h
    return None


def latency_column(field: str, table: Table, problems: list[Problem]) -> tuple[int, float] | None:
    """(column, scale to seconds) of the column `field` ("ttft", "tpot") is read from where the format's
    own spellings found none; None where the file has none; a header stating no unit, or one that is
    not a time, is a problem naming it."""
    hit = best_column(field, table)
    if hit is None:
        return None
    i, found = hit
    if found.unit is None:
        problems.append(Problem(table.where(table.header_row), found.header,
                                "states no unit: name it with its unit (ttft_s, ttft (ms), ...)"))
        return None
    scale = scale_of(TIME_TO_S, found.unit, found.header, table, problems)
    return None if scale is None else (i, scale)


def latency_like(header: str) -> bool:
    """Whether a header looks like a latency (a word `ttft`, `tpot`, `itl`, or `latency`, `first token`)."""
    name, _ = split_unit(header)
    key = header_key(name)
    return bool(_LATENCY_WORDS & set(_tokens(name))) or any(part in key for part in _LATENCY_PARTS) or any(
        key.startswith(w) or key.endswith(w) for w in ("ttft", "tpot"))


def unread_notes(table: Table, read: set[int]) -> list[str]:
    """One warning naming the latency-like columns the reader does not know (`ttft_limit_s`); the known
    ones it leaves (p99, std, the mean where the median is read) are the module's rule, said in docs."""
    unknown = [h for i, h in enumerate(table.headers) if i not in read and latency_like(h) and parse(h) is None]
    notes = []
    if unknown:
        notes.append(f"{table.name}: column(s) {', '.join(unknown)} look like a latency but name none the reader "
                     "knows (TTFT, TPOT or ITL with median, p50, mean or avg, and a unit: s, ms, us): not read")
    return notes
