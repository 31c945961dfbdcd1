"""Exact percentiles of more draws than memory holds: the values are seen chunk by chunk, and only
the few near each wanted order statistic are kept (docs/model.md, "Uncertainty", "Large runs").

Each float64 value maps to an unsigned 64-bit key that sorts as the value does (`sort_keys`). Before
the stream, `brackets` takes key intervals around each percentile from a sample of the same draws
(the first draws of the run): rank p +- MARGIN of the sample. While the draws stream past, each
interval counts the values below it and keeps the keys inside it (at most CAP; past CAP it keeps
only their count, least and greatest key), and a 65,536-bin histogram of the top 16 key bits counts
every value. At the end the wanted order statistics (numpy's linear interpolation between ranks
floor(h) and ceil(h), h = (n - 1) x p) are read from the kept keys: the exact values.

A rank that fell outside its interval (the sample misled it; at a 100,000-draw sample and a 0.5 %
margin a 7-sigma event) or whose interval overflowed is found by more passes over the same draws
(`refine`): each pass narrows its key interval 65,536-fold with a histogram, or keeps its keys once
at most CAP values remain; after at most four passes a single key (one value) is left.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

MARGIN = 0.005          # sample rank margin on each side of a percentile (a fraction of the draws)
CAP = 1 << 18           # keys kept per interval (2 MB)
BIN_BITS = 16           # histogram bins per narrowing step: 2**16
KEY_BITS = 64
_SIGN = np.uint64(1 << 63)
_ALL = (1 << 64) - 1


def sort_keys(values: np.ndarray) -> np.ndarray:
    """uint64 keys ordered as the float64 values (negatives flipped, positives with the sign bit set)."""
    u = np.ascontiguousarray(values, dtype=np.float64).view(np.uint64)
    return np.where(u >> np.uint64(63), ~u, u | _SIGN)


def key_values(keys: np.ndarray) -> np.ndarray:
    """The float64 values of keys (`sort_keys` inverted)."""
    k = np.asarray(keys, dtype=np.uint64)
    return np.where(k >> np.uint64(63), k & ~_SIGN, ~k).view(np.float64)


def ranks(n: int, percentiles) -> list[tuple[int, int, float]]:
    """(floor(h), ceil(h), h - floor(h)) with h = (n - 1) x p / 100 per percentile."""
    out = []
    for p in percentiles:
        h = (n - 1) * p / 100.0
        lo, hi = int(np.floor(h)), int(np.ceil(h))
        out.append((lo, hi, h - lo))
    return out


@dataclass
class Interval:
    """Keys in [low, high]: the count below, and the keys inside (or, past CAP, their count and range)."""

    low: int
    high: int
    collect: bool = True            # keep the keys (else histogram them: `shift` bits per bin)
    shift: int = 0
    below: int = 0
    inside: int = 0
    least: int = _ALL
    greatest: int = 0
    kept: list = field(default_factory=list)
    histogram: np.ndarray | None = None

    def add(self, keys: np.ndarray) -> None:
        """Count the keys below the interval and keep (or histogram) those inside it."""
        lo, hi = np.uint64(self.low), np.uint64(self.high)
        self.below += int(np.count_nonzero(keys < lo))
        inside = keys[(keys >= lo) & (keys <= hi)]
        if inside.size == 0:
            return
        self.inside += int(inside.size)
        self.least, self.greatest = min(self.least, int(inside.min())), max(self.greatest, int(inside.max()))
        if not self.collect:
            assert self.histogram is not None
            bins = ((inside - lo) >> np.uint64(self.shift)).astype(np.int64)
            self.histogram += np.bincount(bins, minlength=1 << BIN_BITS)
        elif self.inside <= CAP:
            self.kept.append(inside)
        else:
            self.kept = []

    def _bin_of(self, rank: int) -> int:
        """The histogram bin holding `rank` (a histogram pass's interval)."""
        assert self.histogram is not None
        return int(np.searchsorted(np.cumsum(self.histogram), rank - self.below, side="right"))

    def value_at(self, rank: int) -> float | None:
        """The rank-th smallest value of the stream, if this interval holds it (else None)."""
        if not self.below <= rank < self.below + self.inside:
            return None
        if self.least == self.greatest:
            return float(key_values(np.array([self.least], np.uint64))[0])
        if self.collect and self.inside <= CAP:
            keys = np.sort(np.concatenate(self.kept))
            return float(key_values(keys[rank - self.below:rank - self.below + 1])[0])
        if not self.collect and self.shift == 0:  # one key per bin: the bin is the value
            b = self._bin_of(rank)
            return float(key_values(np.array([self.low + b], np.uint64))[0])
        return None

    def narrowed(self, rank: int) -> "Interval":
        """After a histogram pass: the bin holding `rank`, as the next pass's interval."""
        b = self._bin_of(rank)
        assert self.histogram is not None
        low = self.low + (b << self.shift)
        return fresh(low, min(self.high, low + (1 << self.shift) - 1), int(self.histogram[b]))


def fresh(low: int, high: int, expected: int) -> Interval:
    """An interval for the next pass: keep its keys if at most CAP are expected, else histogram it
    (2**16 bins; one key per bin once the interval is that narrow)."""
    collect = expected <= CAP
    out = Interval(low, high, collect=collect, shift=0 if collect else max(int(high - low).bit_length() - BIN_BITS, 0))
    if not collect:
        out.histogram = np.zeros(1 << BIN_BITS, np.int64)
    return out


class ExactPercentiles:
    """Exact percentiles of a stream of float64 values (NaN-free: the caller maps missing values)."""

    def __init__(self, percentiles, sample: np.ndarray):
        self.percentiles = tuple(percentiles)
        self.count = 0
        self.histogram = np.zeros(1 << BIN_BITS, np.int64)
        self.intervals = [Interval(lo, hi) for lo, hi in brackets(sample, self.percentiles)]

    def add(self, values: np.ndarray) -> None:
        """One chunk of values into the histogram and the percentile intervals."""
        keys = sort_keys(values)
        self.count += int(keys.size)
        self.histogram += np.bincount((keys >> np.uint64(KEY_BITS - BIN_BITS)).astype(np.int64),
                                      minlength=1 << BIN_BITS)
        for interval in self.intervals:
            interval.add(keys)

    def needed(self) -> list[int]:
        """The ranks whose values the percentiles interpolate between."""
        return sorted({r for lo, hi, _ in ranks(self.count, self.percentiles) for r in (lo, hi)}) if self.count else []

    def found(self) -> dict[int, float]:
        """Each needed rank's value where an interval holds it."""
        out = {}
        for r in self.needed():
            for interval in self.intervals:
                value = interval.value_at(r)
                if value is not None:
                    out[r] = value
                    break
        return out

    def refinement(self, found: dict[int, float]) -> list[tuple[int, Interval]]:
        """The intervals of a further pass for the ranks not found, from the full histogram."""
        counts = np.cumsum(self.histogram)
        out = []
        for r in self.needed():
            if r in found:
                continue
            b = int(np.searchsorted(counts, r, side="right"))
            shift = KEY_BITS - BIN_BITS
            out.append((r, fresh(b << shift, ((b + 1) << shift) - 1, int(self.histogram[b]))))
        return out

    def values(self, found: dict[int, float]) -> dict[float, float | None]:
        """percentile -> its value, linear between the two ranks as `statistics.percentile` (None where
        no value was seen, or the interpolation touches an infinite one)."""
        out: dict[float, float | None] = {}
        for p, (lo, hi, frac) in zip(self.percentiles, ranks(self.count, self.percentiles)):
            if self.count == 0 or not np.isfinite(found[lo]) or (frac > 0 and not np.isfinite(found[hi])):
                out[p] = None
            else:
                a, b = found[lo], found[hi]
                out[p] = float(a + (b - a) * frac) if frac > 0 else float(a)
        return out


def brackets(sample: np.ndarray, percentiles) -> list[tuple[int, int]]:
    """Disjoint key intervals around rank p +- MARGIN of the sample, per percentile (merged where they meet)."""
    x = np.sort(np.asarray(sample, np.float64))
    if x.size == 0:
        return []
    keys = sort_keys(x)
    spans = []
    for p in percentiles:
        q = p / 100.0
        lo = 0 if q - MARGIN <= 0 else int(keys[int(np.floor((x.size - 1) * (q - MARGIN)))])
        hi = _ALL if q + MARGIN >= 1 else int(keys[int(np.ceil((x.size - 1) * (q + MARGIN)))])
        spans.append((lo, hi))
    merged: list[list[int]] = []
    for lo, hi in sorted(spans):
        if merged and lo <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    return [(lo, hi) for lo, hi in merged]


def refine_step(targets: list[tuple[int, Interval]]) -> tuple[dict[int, float], list[tuple[int, Interval]]]:
    """After a pass over every value: the ranks now found, and the narrower intervals of the rest."""
    found, rest = {}, []
    for r, interval in targets:
        value = interval.value_at(r)
        if value is not None:
            found[r] = value
        elif not interval.collect and interval.below <= r < interval.below + interval.inside:
            rest.append((r, interval.narrowed(r)))
        else:  # cannot happen with the same draws: the pass saw other values than the one before
            raise AssertionError(f"rank {r} left its interval between passes over the same draws")
    return found, rest
