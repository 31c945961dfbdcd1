"""A seeded mutation fuzzer of the real curve files (tests/data/curves) through `tcoapp curves FILE
--json` (the CLI's main, in process): every mutant ends in exit 0 with curves of finite, positive
points, or exit 2 with only `error: ` lines; never exit 3, a traceback or a hang.

Mutations: a cell garbled (text, 0, negative, inf, nan, 1e400, a huge number), the header line
repeated or a header renamed, a latency or power header given a unit (`ttft (ms)`, `ttft_us`,
`power (kW)`, `ttft (min)`), a column dropped or added, a row repeated, cut short or dropped, blank
lines, the whole file re-saved in a locale's number format (German, French, Swiss, US-grouped, US with
"2 decimals, 1000 separator": `2.00` integers), a latency header renamed to a tool's own spelling (vLLM
`mean_ttft_ms`, aiperf `time_to_first_token_p50_mean`, ...), a
byte-order mark, CRLF line ends, bytes that are not UTF-8, the file truncated. Locale re-saves of
unmutated files must read exactly as the originals (TCOAPP_CURVE_FUZZ_LOCALE, default 24 a run).

The seed is the run's (tests/conftest.py: TCOAPP_FUZZ_SEED, printed); TCOAPP_CURVE_FUZZ_MUTANTS
mutants in the fast suite (default 500, about 10 s), TCOAPP_CURVE_FUZZ_LONG_MUTANTS (default 5,000,
about 40 s) in the slow one.
"""
import collections
import json
import math
import os
import random
import signal
from pathlib import Path

import pytest

from tcoapp.io.curve_files import read_curve_file

from .fuzz.harness import refusal_problem, run_cli
from .locale_resave import LOCALES, resave, two_decimals

DATA = Path(__file__).resolve().parent.parent / "data" / "curves"
FILES = sorted(DATA.glob("*.csv"))
SEED = int(os.environ["TCOAPP_FUZZ_SEED"])
MUTANTS = int(os.environ.get("TCOAPP_CURVE_FUZZ_MUTANTS", "500"))
LONG_MUTANTS = int(os.environ.get("TCOAPP_CURVE_FUZZ_LONG_MUTANTS", "5000"))
LOCALE_RESAVES = int(os.environ.get("TCOAPP_CURVE_FUZZ_LOCALE", "24"))
UNIT_HEADERS = ("ttft (ms)", "ttft_ms", "TTFT [us]", "ttft (s)", "ttft (min)", "ttft", "power (kW)", "power_kw",
                "Power [W]", "power (mW)", "tpot (ms)", "tpot_s", "Median TTFT (us)", "Median TPOT (ms)",
                # the field's tools' own spellings (vLLM, SGLang, GenAI-Perf, aiperf, InferenceX, by hand)
                "mean_ttft_ms", "median_ttft_ms", "p99_ttft_ms", "std_ttft_ms", "mean_tpot_ms", "median_itl_ms",
                "mean_e2e_latency_ms", "time_to_first_token.p50", "time_to_first_token_p50_mean",
                "inter_token_latency_avg_mean", "Mean TTFT (s)", "P99 TPOT (s)", "ttft_p50_ms", "p50 ttft (ms)",
                "ttft_limit_s", "median_ttft")
GARBAGE = ("", "abc", "-1", "0", "nan", "inf", "-inf", "1e400", "9" * 400, "1,000", '"', "#x", "0.0", "true",
           "  7 ", "\u00e9", "1e-320", "x" * 5000, "=1+1")

# A pool curve of a disaggregated deployment may be empty (every row's pool cells garbled: said in a warning),
# the deployment's own curve may not; every point of every curve is a finite positive batch and rate.
POOL_CURVES = (" prefill pool", " decode pool")

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGPROF"), reason="the hang guard needs SIGPROF (POSIX)")


def _garble(rng, lines):
    i = rng.randrange(1, len(lines)) if len(lines) > 1 else 0
    cells = lines[i].split(",")
    cells[rng.randrange(len(cells))] = rng.choice(GARBAGE)
    lines[i] = ",".join(cells)
    return f"row {i + 1} cell garbled"


def _header(rng, lines):
    if rng.random() < 0.5:
        lines.insert(rng.randrange(1, len(lines) + 1), lines[0])
        return "header line repeated"
    cells = lines[0].split(",")
    j = rng.randrange(len(cells))
    cells[j] = rng.choice([cells[(j + 1) % len(cells)], cells[j].upper(), cells[j] + " ", "", "batch"])
    lines[0] = ",".join(cells)
    return f"header {j + 1} renamed"


def _column(rng, lines):
    j = rng.randrange(len(lines[0].split(",")))
    if rng.random() < 0.5:
        for i, line in enumerate(lines):
            cells = line.split(",")
            lines[i] = ",".join(cells[:j] + cells[j + 1:])
        return f"column {j + 1} dropped"
    for i, line in enumerate(lines):
        cells = line.split(",")
        lines[i] = ",".join(cells[:j] + (["extra"] if i == 0 else [rng.choice(GARBAGE[:8])]) + cells[j:])
    return f"column added at {j + 1}"


def _rows(rng, lines):
    i = rng.randrange(len(lines))
    action = rng.choice(["repeat", "cut", "drop", "blank"])
    if action == "repeat":
        lines.insert(i, lines[i])
    elif action == "cut":
        lines[i] = lines[i][:rng.randrange(len(lines[i]) + 1)]
    elif action == "drop" and len(lines) > 1:
        del lines[i]
    else:
        lines.insert(i, "")
    return f"row {i + 1} {action}"


def _unit_header(rng, lines):
    cells = lines[0].split(",")
    latency = [j for j, c in enumerate(cells) if any(w in c.lower() for w in ("ttft", "tpot", "power"))]
    j = rng.choice(latency) if latency else rng.randrange(len(cells))
    cells[j] = rng.choice(UNIT_HEADERS)
    lines[0] = ",".join(cells)
    return f"header {j + 1} -> {cells[j]!r}"


MUTATIONS = (_garble, _header, _column, _rows, _unit_header)


def mutant(rng) -> tuple[str, str, bytes]:
    path = rng.choice(FILES)
    lines = path.read_text(encoding="utf-8").splitlines()
    done = [rng.choice(MUTATIONS)(rng, lines) for _ in range(rng.randint(1, 3))]
    if rng.random() < 0.2:   # re-saved in a locale's number format after the other mutations
        locale = rng.choice(sorted(LOCALES) + ["us_two_decimals"])
        lines = (two_decimals("\n".join(lines)) if locale == "us_two_decimals"
                 else resave(None, *LOCALES[locale], text="\n".join(lines))).splitlines()
        done.append(f"re-saved {locale}")
    data = ("\r\n" if rng.random() < 0.1 else "\n").join(lines).encode("utf-8") + b"\n"
    wrap = rng.random()
    if wrap < 0.05:
        data, what = b"\xef\xbb\xbf" + data, "BOM"
    elif wrap < 0.1:
        cut = rng.randrange(len(data))
        data, what = data[:cut] + b"\xff\xfe\x80" + data[cut:], "bytes that are not UTF-8"
    elif wrap < 0.15:
        cut = rng.randrange(1, len(data))
        data, what = data[:cut], f"truncated at byte {cut}"
    else:
        what = ""
    return path.name, "; ".join(done + ([what] if what else [])), data


def verdict(status, out, err) -> str | None:
    problem = refusal_problem(status, out, err)
    if problem is not None or status != 0:
        return problem
    try:
        curves = json.loads(out)["curves"]
    except (ValueError, KeyError, TypeError) as exc:
        return f"exit 0 but no JSON curves ({exc})"
    if not curves:
        return "exit 0 with no curve"
    for curve in curves:
        points = curve["points"]
        batches = [p["batch"] for p in points]
        if len(set(batches)) != len(batches) or not (batches or curve["name"].endswith(POOL_CURVES)):
            return f"curve {curve['name']!r}: no points, or a batch twice"
        for p in points:
            for key in ("batch", "tokens_per_s_per_device"):
                if not (isinstance(p[key], (int, float)) and math.isfinite(p[key]) and p[key] > 0):
                    return f"curve {curve['name']!r}: {key} = {p[key]!r} is not a finite positive number"
    return None


def fuzz(tmp_path, seed: int, count: int) -> None:
    rng = random.Random(seed)
    failures, outcomes = [], collections.Counter()
    for i in range(count):
        name, description, data = mutant(rng)
        path = tmp_path / f"m{i}_{name}"
        path.write_bytes(data)
        status, out, err = run_cli(["curves", str(path), "--json"])
        outcomes[status] += 1
        problem = verdict(status, out, err)
        if problem:
            failures.append(f"{name} [{description}]: {problem}")
        path.unlink()
    print(f"\ncurve fuzz seed {seed}: {count} mutants; outcomes {dict(outcomes)}")
    assert not failures, (f"curve fuzz seed {seed} (replay: TCOAPP_FUZZ_SEED={SEED}): {len(failures)} of {count} "
                          "mutants:\n" + "\n".join(failures[:25]))


def test_mutated_curve_files_are_read_or_refused_cleanly(tmp_path):
    fuzz(tmp_path, SEED, MUTANTS)


def _content(result):
    return [(c.name, c.config, c.batch.tolist(), c.tokens_per_s_per_device.tolist(),
             [x if x == x else None for x in c.tokens_per_s_per_user.tolist()],
             [x if x == x else None for x in c.ttft_s.tolist()]) for c in result.curves]


def test_locale_resaves_read_exactly_as_the_original(tmp_path):
    """A random real file re-saved in a random locale (and row subset): read exactly as the original
    rows are, or refused in one line."""
    rng = random.Random(SEED + 2)
    failures = []
    for i in range(LOCALE_RESAVES):
        path, locale = rng.choice(FILES), rng.choice(sorted(LOCALES) + ["us_two_decimals"])
        lines = path.read_text(encoding="utf-8").splitlines()
        body = [ln for ln in lines if not ln.startswith("#")]
        keep = [body[0]] + sorted(rng.sample(body[1:], rng.randint(1, len(body) - 1)), key=body.index)
        (tmp_path / f"o{i}").mkdir()
        (tmp_path / f"r{i}").mkdir()
        original, resaved = tmp_path / f"o{i}" / path.name, tmp_path / f"r{i}" / path.name   # names: one file name
        original.write_text("\n".join(keep), encoding="utf-8")
        resaved.write_text(two_decimals("\n".join(keep)) if locale == "us_two_decimals"
                           else resave(None, *LOCALES[locale], text="\n".join(keep)), encoding="utf-8")
        try:
            expected = _content(read_curve_file(original))
        except Exception:  # noqa: BLE001 - a row subset the reader refuses as it is: nothing to compare
            continue
        try:
            if _content(read_curve_file(resaved)) != expected:
                failures.append(f"{path.name} in {locale}: read differently from the original")
        except Exception as exc:  # noqa: BLE001 - a refusal must be one line naming the convention
            lines_said = str(exc).splitlines()
            if len(lines_said) != 1 or "decimal" not in lines_said[0]:
                failures.append(f"{path.name} in {locale}: refused in {len(lines_said)} line(s): {lines_said[:2]}")
    print(f"\nlocale fuzz seed {SEED + 2}: {LOCALE_RESAVES} re-saves")
    assert not failures, f"locale fuzz seed {SEED + 2} (replay: TCOAPP_FUZZ_SEED={SEED}):\n" + "\n".join(failures)


@pytest.mark.slow
def test_long_curve_fuzz_run(tmp_path):
    fuzz(tmp_path, SEED + 1, LONG_MUTANTS)
