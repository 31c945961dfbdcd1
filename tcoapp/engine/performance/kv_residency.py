"""Which idle agentic sessions still hold their KV cache, and where: the prefix hit rate as an outcome
of memory (docs/model.md, "Agentic sessions and KV tiers").

A session alternates a turn in service (`turn_s`: its prefill, decode and any reload) and a gap
(`gap_s`: tool calls and think time). Between two turns its KV cache is idle; the next turn reuses it
as its prefix if it is still resident. Residency is LRU over the KV the replica's idle sessions hold,
in tiers (HBM, then host memory, then NVMe): what LRU evicts from one tier moves to the next.

LRU is computed with the characteristic-time approximation (Che, Tung & Wang, "Hierarchical Web
caching systems: modeling, design and experimental results", IEEE JSAC 2002; for renewal traffic
Fricker, Robert & Roberts, "A versatile and accurate approximation for LRU cache performance", ITC
2012): a copy is resident while its age is under T, where T solves

    sessions x footprint_bytes x P(age < T) = capacity_bytes

and a turn whose copy has age a hits iff a < T. With the cumulative capacity of tiers 1..k the same
equation gives T_k, so a turn hits tier k iff T_(k-1) <= a < T_k (tiers are exclusive: a copy is in
one of them).

Routing. `session_affinity`: a session's turns go to the replica that served its previous turn, so
the age of its copy at the next turn is the time between its turns, X = turn_s + gap, the gap
exponential with mean `gap_s` (X = turn_s when gap_s = 0: the cyclic-access cliff of LRU). `random`
over R replicas: a turn lands on the replica of the session's previous turn with probability 1/R;
the copy it finds there is the one of the session's last visit, j turns back with probability
(1/R)(1 - 1/R)^(j-1), holding the context of that turn (a shorter prefix), aged X_1 + ... + X_j; each
replica holds the newest copy of every session of the fleet that visited it, aged by the time since
that visit.

Everything is an array over session counts. Under session affinity the capacity equation is
inverted in closed form. The sum of j turn-to-turn times is j x turn_s plus a Gamma(j, gap_s) time,
so the random-routing ages are closed forms of the regularized incomplete gamma function
(scipy.special.gammainc), and T is found by Chandrupatla's bracketing method on log T
(scipy.optimize.elementwise.find_root) to a relative precision of 3e-9.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..quantities.inputs import KV_ROUTINGS

ROUTINGS = KV_ROUTINGS
_LOG_TIME_TOLERANCE = 3e-9   # on log T: T to a relative 3e-9
_SHORTEST_S = 1e-6           # the shortest characteristic time resolved: where 1 us already overflows a tier
_MAX_LAG_TURNS = 400         # lags beyond this carry (1 - 1/R)^400 of the probability: counted as misses


def gammainc(a, x):
    """scipy.special.gammainc, imported where a session is computed: scipy stays out of the start-up of a plan
    without agentic sessions (tests/test_api.py)."""
    from scipy.special import gammainc as regularized_lower

    return regularized_lower(a, x)


def _find_root(f, bracket, args):
    """scipy.optimize.elementwise.find_root (Chandrupatla), imported where a session is computed."""
    from scipy.optimize.elementwise import find_root

    return find_root(f, bracket, args=args, maxiter=200,
                     tolerances=dict(xatol=_LOG_TIME_TOLERANCE, xrtol=0.0, fatol=0.0, frtol=0.0))


@dataclass(frozen=True)
class SessionShape:
    """An agentic session: `turns` turns; every turn adds `turn_input_tokens` (tool results, user
    text) and `turn_output_tokens`; `system_prompt_tokens` is shared by every session; `gap_s` is the
    mean time between a turn's end and the next turn's start."""

    turns: int
    system_prompt_tokens: float
    turn_input_tokens: float
    turn_output_tokens: float
    gap_s: float

    def prompt_tokens(self) -> np.ndarray:
        """Prompt of turn t = 1..turns: the system prompt, every earlier turn's input and output, and
        this turn's input (tokens)."""
        t = np.arange(1, self.turns + 1, dtype=float)
        return self.system_prompt_tokens + (t - 1.0) * (self.turn_input_tokens + self.turn_output_tokens) + \
            self.turn_input_tokens

    def cached_prefix_tokens(self) -> np.ndarray:
        """The prefix turn t may reuse: the previous turn's whole context (its prompt and output), or
        the shared system prompt at turn 1 (tokens)."""
        return self.prompt_tokens() - self.turn_input_tokens

    def held_tokens(self) -> np.ndarray:
        """Context an idle session holds after turn t (tokens): its prompt and output."""
        return self.prompt_tokens() + self.turn_output_tokens


@dataclass(frozen=True)
class Residency:
    """Per session count (last axis: the counts asked): the share of a turn's prompt tokens read from
    each tier (`hit_by_tier[k]`, k = 0 HBM, 1 host, 2 NVMe), the turn's prefix tokens per tier, and
    the LRU characteristic times (s) per tier (inf where everything fits)."""

    hit_by_tier: np.ndarray              # (tiers, counts): shares of prompt tokens, 0..1
    prefix_tokens_by_tier: np.ndarray    # (tiers, counts): mean tokens per turn read from the tier
    characteristic_s: np.ndarray         # (tiers, counts)

    @property
    def hit_rate(self) -> np.ndarray:
        """Share of prompt tokens whose KV is reused from any tier (the achieved prefix hit rate)."""
        return self.hit_by_tier.sum(axis=0)


def _affinity_age_cdf(t, turn_s: float, gap_s: float):
    """P(X < t), X = turn_s + Exp(gap_s): the age of a session's copy when its next turn starts."""
    t = np.asarray(t, float)
    if gap_s <= 0:
        return (t >= turn_s).astype(float)
    with np.errstate(over="ignore"):      # a gap of a few 1e-308 s: exp(-inf) = 0, as it is
        return np.where(t >= turn_s, -np.expm1(-np.maximum(t - turn_s, 0.0) / gap_s), 0.0)


def _solve_time(demand_at, capacity: np.ndarray, upper: float, *per_count) -> np.ndarray:
    """The time T (s) where `demand_at(T, *per_count)` (increasing in T, bytes) reaches `capacity`
    (bytes, per tier and count): Chandrupatla's method on log T over [1 us, upper], to a relative
    precision of 3e-9; inf where even `upper` does not fill it, 0 where capacity <= 0, 1 us where
    1 us already overflows it. `demand_at` is elementwise in T and the `per_count` arrays
    (broadcast with `capacity`, flattened)."""
    capacity = np.asarray(capacity, float)
    shape = capacity.shape
    cap = capacity.ravel()
    extra = [np.broadcast_to(np.asarray(a, float), shape).ravel() for a in per_count]
    fits = demand_at(np.full(cap.shape, upper), *extra) <= cap
    overflows = demand_at(np.full(cap.shape, _SHORTEST_S), *extra) > cap
    found = np.where(cap <= 0, 0.0, np.where(fits, np.inf, _SHORTEST_S))
    solve = (cap > 0) & ~fits & ~overflows
    if np.any(solve):
        def excess(log_t, c, *rest):
            return demand_at(np.exp(log_t), *rest) / c - 1.0

        sub = [a[solve] for a in extra]
        result = _find_root(excess, (np.log(_SHORTEST_S), np.log(upper)), (cap[solve], *sub))
        if not np.all(result.success):      # a bracket checked above: only a non-finite demand gets here
            raise FloatingPointError("residency: the capacity equation did not converge "
                                     f"(status {sorted(set(result.status[~result.success].tolist()))})")
        found[solve] = np.exp(result.bracket[0])    # the bracket's lower end: demand <= capacity there
    return found.reshape(shape)


def _monotone(times: np.ndarray) -> np.ndarray:
    """The tiers' characteristic times (axis 0) never falling from one tier to the next: the cumulative capacities
    grow, so the exact T_k do; each tier's own solve, to its precision, need not (a tier of a few bytes would read
    a negative share of the prefix)."""
    return np.maximum.accumulate(times, axis=0)


def _shares(resident: np.ndarray) -> np.ndarray:
    """P(the copy is in tier k) from P(resident within tiers 1..k) (axis -2: tiers)."""
    zero = np.zeros_like(resident[..., :1, :])
    return np.diff(np.concatenate([zero, resident], axis=-2), axis=-2)


def _with_system_prompt(shape: SessionShape, own_hit: np.ndarray, own_tokens: np.ndarray):
    """Shares of prompt tokens by tier: every turn reads the shared system prompt from HBM (one copy
    per replica, used by every turn), and a session's own resident copy beyond it from its tier."""
    prompts = shape.prompt_tokens().sum()
    base = np.zeros_like(own_hit)
    base[0] = shape.system_prompt_tokens * shape.turns / prompts
    return base + own_hit, own_tokens


def _affinity_time(capacity, sessions, footprint_bytes: float, turn_s, gap_s: float, upper: float):
    """T where sessions x footprint x P(age < T) = capacity under session affinity, in closed form:
    the occupancy is T / m up to turn_s, then (turn_s + gap (1 - exp(-(T - turn_s) / gap))) / m,
    m = turn_s + gap; inf where it never fills (or only past `upper`), 0 where capacity <= 0, 1 us
    where 1 us already overflows it (as `_solve_time`)."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        held = capacity * (turn_s + gap_s) / (sessions * footprint_bytes)   # the occupancy's numerator at T
        over = held - turn_s
        tail = turn_s - gap_s * np.log1p(-over / gap_s) if gap_s > 0 else np.full_like(held, np.inf)
        time = np.where(held <= turn_s, held, np.where(over < gap_s, tail, np.inf))
    time = np.where(time > upper, np.inf, np.maximum(time, _SHORTEST_S))
    return np.where(capacity <= 0, 0.0, time)


def _affinity(shape: SessionShape, sessions, footprint_bytes: float, capacities, turn_s):
    own = shape.cached_prefix_tokens()[1:] - shape.system_prompt_tokens   # turns 2..: beyond the system prompt
    upper = 1e6 * (np.max(turn_s) + shape.gap_s + 1.0)
    times = _monotone(_affinity_time(capacities, sessions, footprint_bytes, turn_s, shape.gap_s, upper))
    share = _shares(_affinity_age_cdf(times, turn_s, shape.gap_s))
    hit, tokens = _with_system_prompt(shape, share * own.sum() / shape.prompt_tokens().sum(),
                                      share * own.sum() / shape.turns)
    return hit, tokens, times


def _lags(replicas: int) -> np.ndarray:
    """Lags j = 1..J a random router's copy is found at: J where (1 - 1/R)^J < 1e-6 (at most
    _MAX_LAG_TURNS; what lies beyond counts as a miss)."""
    q = 1.0 / replicas
    return np.arange(1, int(min(_MAX_LAG_TURNS, max(2, np.ceil(np.log(1e-6) / np.log1p(-q))))) + 1, dtype=float)


def _sum_cdf(j, t, turn_s, gap_s):
    """P(S_j < t), S_j = j x turn_s + Gamma(j, gap_s): the sum of j turn-to-turn times (0 for j = 0)."""
    x = np.asarray(t, float) - j * turn_s
    if gap_s <= 0:
        return (x > 0).astype(float) if np.ndim(j) else float(x > 0)
    with np.errstate(over="ignore"):      # a gap of a few 1e-308 s: x / gap is inf, gammainc(j, inf) = 1, as it is
        u = np.maximum(x, 0.0) / gap_s
    return np.where(x > 0, gammainc(np.maximum(j, 1e-300), u), 0.0) * (j > 0) + (j == 0) * (x > 0)


def _integrated_cdf(j, x, gap_s):
    """The integral of P(Gamma(j, gap_s) < y) dy from 0 to x: g (u P(j, u) - j P(j + 1, u)), u = x / g
    (x for j = 0: the sum of no times is 0)."""
    x = np.maximum(np.asarray(x, float), 0.0)
    if gap_s <= 0:
        return x
    with np.errstate(over="ignore", invalid="ignore"):   # a gap of a few 1e-308 s: u is inf, the limit below
        u = x / gap_s
        value = gap_s * (u * gammainc(np.maximum(j, 1e-300), u) - j * gammainc(j + 1.0, u))
    value = np.where(np.isfinite(value), value, x - j * gap_s)   # u -> inf: x - E[Gamma(j, gap)]
    return np.where(j > 0, value, x)


def _copy_cdf(t, turn_s, gap_s, replicas: int):
    """P(age < t) of a session's newest copy at one of R replicas a random router spreads its turns
    over: its renewal age A (uniform on [0, turn_s) with weight turn_s / m, else turn_s + Exp(gap_s))
    plus k more turn-to-turn times, k >= 0 with probability q (1 - q)^k, q = 1/R."""
    q = 1.0 / replicas
    t = np.asarray(t, float)
    k = np.concatenate([[0.0], _lags(replicas)]).reshape((-1,) + (1,) * t.ndim)   # (lags + 1, *t's shape)
    weights = q * (1.0 - q) ** k
    mean = turn_s + gap_s
    start = t - k * turn_s
    uniform = (_integrated_cdf(k, start, gap_s) - _integrated_cdf(k, start - turn_s, gap_s)) / turn_s
    shifted = _sum_cdf(k + 1.0, t, turn_s, gap_s)
    return np.sum(weights * (turn_s / mean * uniform + gap_s / mean * shifted), axis=0)


def _random(shape: SessionShape, sessions, footprint_bytes: float, capacities, turn_s, replicas: int):
    lags = _lags(replicas)
    weights = (1.0 / replicas) * (1.0 - 1.0 / replicas) ** (lags - 1.0)
    held = shape.held_tokens()
    source = np.arange(1, shape.turns + 1)[None, :] - lags.astype(int)[:, None]           # (lags, turns)
    own = np.where(source >= 1, held[np.clip(source - 1, 0, None)] - shape.system_prompt_tokens, 0.0)
    # every session of the fleet keeps its newest copy at this replica
    def demand(t, count, turn):
        return count * replicas * footprint_bytes * _copy_cdf(t, turn, shape.gap_s, replicas)

    times = _monotone(_solve_time(demand, capacities, 1e6 * (np.max(turn_s) + shape.gap_s + 1.0) * replicas,
                                  sessions, turn_s))
    resident = _sum_cdf(lags[:, None, None], np.minimum(times, 1e300)[None], turn_s, shape.gap_s)   # (lags, tiers, counts)
    share = _shares(resident)
    own_hit = np.einsum("l,l,lkc->kc", weights, own.sum(axis=1) / shape.prompt_tokens().sum(), share)
    own_tokens = np.einsum("l,l,lkc->kc", weights, own.mean(axis=1), share)
    hit, tokens = _with_system_prompt(shape, own_hit, own_tokens)
    return hit, tokens, times


def residency(shape: SessionShape, sessions_per_replica, footprint_bytes: float, tier_capacity_bytes,
              turn_s, routing: str = "session_affinity", replicas: int = 1) -> Residency:
    """Where a turn's prefix is read from, at each count of concurrent sessions per replica.

    `footprint_bytes`: the mean KV an idle session holds (over its turns), in the unit of the
    capacities; `tier_capacity_bytes`: per tier (HBM, host, NVMe) the KV capacity for idle sessions,
    per session count (HBM shrinks as the active batch grows) or one value; `turn_s`: a turn's time
    in service (s), one value or per count. `replicas`: the replicas a `random` router spreads turns
    over (>= 1)."""
    if routing not in ROUTINGS:
        raise ValueError(f"kv_routing {routing!r}: must be one of {', '.join(ROUTINGS)}")
    sessions = np.atleast_1d(np.asarray(sessions_per_replica, float))
    turn = np.broadcast_to(np.asarray(turn_s, float), sessions.shape)
    if not (np.all(turn > 0) and shape.gap_s >= 0 and shape.turns >= 1 and footprint_bytes > 0 and replicas >= 1):
        raise ValueError("residency: turn_s and footprint_bytes must be > 0, gap_s >= 0, turns and replicas >= 1")
    capacities = np.stack([np.broadcast_to(np.asarray(c, float), sessions.shape) for c in tier_capacity_bytes])
    capacities = np.maximum(np.cumsum(capacities, axis=0), 0.0)
    if routing == "session_affinity" or replicas == 1:
        return Residency(*_affinity(shape, sessions, footprint_bytes, capacities, turn))
    return Residency(*_random(shape, sessions, footprint_bytes, capacities, turn, replicas))
