"""Build the regime-covering rows of the public accuracy set from fetched public files.

    python tools/build_measurements.py --mlperf-v6 MIRROR_GIT_DIR --inferencex MIRROR_GIT_DIR [--out CSV]

Reads (with `git show`, no work tree needed) and appends to the shipped measurements file
(resources/measurements/measurements_public.csv; without a source option the existing rows are
only re-annotated):

1. MLPerf Inference v6.0 **Server and Interactive** results of the LLM benchmarks (llama2-70b,
   llama3.1-405b, deepseek-r1, gpt-oss-120b): every VALID `performance/run_1/mlperf_log_summary.txt`
   (compliance TEST0x runs excluded) with its system JSON (accelerator, count, framework). Per row:
   output tokens/s of the system, samples/s, mean time per output token (-> tokens/s per user =
   1e9 / mean TPOT ns, DERIVED), mean first-token latency, the TTFT / TPOT limits and the target QPS.
   MLPerf v4.1, v5.0 and v5.1 Server and Interactive results are held back to validate the model and
   are never read (the script refuses any other round).
2. InferenceX per-concurrency sweeps (SemiAnalysis, Apache-2.0, attribution required): the
   production-API snapshot in `packages/app/cypress/fixtures/api/benchmarks*.json` of an
   InferenceX-app checkout. Aggregated (not disaggregated), single-node rows without speculative
   decoding, and with `--inferencex-recipes GIT_DIR` the MTP rows too (their draft tokens read from
   the launch recipe of SemiAnalysisAI/InferenceX as of each row's date: tools/inferencex_recipes.py;
   a recipe that states none leaves the row's configuration unknown); per configuration (hardware, framework, precision, ISL, OSL, TP, EP, attention-DP,
   concurrency) the latest date. Output tokens/s per GPU as published (`output_tput_per_gpu`) or
   DERIVED = tput_per_gpu x OSL / (ISL + OSL); tokens/s per user = 1 / mean TPOT (DERIVED).

Every row keeps its source (repository, path, commit; for InferenceX also the GitHub Actions run).
`--configurations ROUND=GIT_DIR` (repeated per MLPerf round) (re)reads every row's configuration
columns from its own submission (tools/measurement_configurations.py); without it they are kept.
The existing rows are kept as they are; `source_group` and `source_family` (the unit of independent
evidence that leave-one-family-out validation holds out whole) are (re)computed for every row by
`tcoapp.engine.performance.measurement_rows.assign_families`, and `input_len_basis` says whether a
row states its input length or takes the benchmark dataset's mean (an ESTIMATE).
"""
from __future__ import annotations

import argparse
import csv
import json
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
for _path in (str(ROOT), str(ROOT / "tools")):
    if _path not in sys.path:
        sys.path.insert(0, _path)

from tcoapp.engine.performance.measurement_rows import MLPERF_INPUT_TOKENS, assign_families, map_model  # noqa: E402
from tcoapp.io.measurements import DEFAULT_CSV  # noqa: E402
from measurement_configurations import CONFIG_COLUMNS, Submission, configuration, inferencex_configuration  # noqa: E402
from inferencex_recipes import mtp_note  # noqa: E402

COLUMNS = ("model,device,count,precision,framework,scenario,batch_or_concurrency,input_len,output_len,"
           "tokens_per_s_total,tokens_per_s_per_user,source,tokens_per_s_per_gpu,metric,measured_power_w,date,"
           "notes,ttft_s,ttft_limit_s,tpot_limit_s,stack,source_group,source_family,input_len_basis").split(",") + list(CONFIG_COLUMNS)
MLPERF_MODELS = {"llama2-70b-99": "Llama-2-70B-Chat (MLPerf llama2-70b-99)",
                 "llama2-70b-99.9": "Llama-2-70B-Chat (MLPerf llama2-70b-99.9)",
                 "llama3.1-405b": "Llama-3.1-405B-Instruct (MLPerf llama3.1-405b)",
                 "deepseek-r1": "DeepSeek-R1 (MLPerf)", "gpt-oss-120b": "gpt-oss-120b (MLPerf)"}
MLPERF_V6 = "https://github.com/mlcommons/inference_results_v6.0 (read via mirror github.com/gbeezybez/inference_results_v6.0)"
IX_REPO = "github.com/vngcloud/InferenceX-app (fork of SemiAnalysisAI/InferenceX-app)"
IX_HARDWARE = {"b200": "NVIDIA B200", "b300": "NVIDIA B300", "h100": "NVIDIA H100", "h200": "NVIDIA H200",
               "gb200": "NVIDIA GB200", "gb300": "NVIDIA GB300", "mi300x": "AMD MI300X", "mi325x": "AMD MI325X",
               "mi355x": "AMD MI355X"}
IX_MODELS = {"dsr1": "DeepSeek-R1-0528", "gptoss": "gpt-oss-120b", "llama70b": "Llama-3.3-70B-Instruct"}


def git(repo: pathlib.Path, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", str(repo), *args], check=True, capture_output=True, text=True).stdout


def _value(text: str, label: str) -> float | None:
    m = re.search(re.escape(label) + r"\s*:\s*([0-9.]+)", text)
    return float(m.group(1)) if m else None


def mlperf_rows(repo: pathlib.Path) -> list[dict]:
    commit = git(repo, "rev-parse", "HEAD").strip()
    paths = [p for p in git(repo, "ls-tree", "-r", "--name-only", "HEAD").splitlines()
             if re.search(r"/results/[^/]+/[^/]+/(Server|Interactive)/performance/run_1/mlperf_log_summary\.txt$", p)]
    rows = []
    for path in paths:
        division, submitter, _, system, bench, scenario = path.split("/")[:6]
        if bench not in MLPERF_MODELS:
            continue
        text = git(repo, "show", f"HEAD:{path}")
        if "Result is : VALID" not in text:
            continue
        try:
            sysj = json.loads(git(repo, "show", f"HEAD:{division}/{submitter}/systems/{system}.json"))
        except (subprocess.CalledProcessError, json.JSONDecodeError):
            continue
        tokens, samples = _value(text, "Completed tokens per second"), _value(text, "Completed samples per second")
        tpot_ns, ttft_ns = _value(text, "Mean Time per Output Token (ns)"), _value(text, "Mean First Token latency (ns)")
        if not tokens or not samples or not tpot_ns:
            continue
        name = str(sysj.get("accelerator_model_name", ""))
        m = re.search(r"\(x(\d+)\)", name)
        count = int(m.group(1)) if m else int(sysj.get("accelerators_per_node", 0) or 0) * int(sysj.get("number_of_nodes", 1) or 1)
        if count <= 0:
            continue
        rows.append({
            "model": MLPERF_MODELS[bench], "device": name, "count": count, "precision": "not stated in summary",
            "framework": sysj.get("framework", ""), "scenario": f"MLPerf {scenario}", "batch_or_concurrency": "",
            "input_len": "", "output_len": f"{tokens / samples:.1f}", "tokens_per_s_total": f"{tokens:.1f}",
            "tokens_per_s_per_user": f"{1e9 / tpot_ns:.2f}",
            "source": f"{MLPERF_V6}/blob/{commit}/{path}", "tokens_per_s_per_gpu": f"{tokens / count:.1f}",
            "metric": "output tokens/s (whole system)", "measured_power_w": "", "date": "2026 (v6.0 publication)",
            "notes": (f"MLPerf Inference v6.0 {division} division; submitter {submitter}; system {system} "
                      f"({sysj.get('system_name', '')}); output_len = mean output tokens/sample DERIVED as tokens/s / "
                      f"samples/s; tokens_per_s_per_user DERIVED = 1e9 / mean time per output token (ns); "
                      f"target_qps {_value(text, 'target_qps')}; tokens_per_s_per_gpu DERIVED = total/count"),
            "ttft_s": f"{ttft_ns / 1e9:.4f}" if ttft_ns else "",
            "ttft_limit_s": f"{(_value(text, 'ttft_latency (ns)') or 0) / 1e9:g}",
            "tpot_limit_s": f"{(_value(text, 'tpot_latency (ns)') or 0) / 1e9:g}",
        })
    return rows


def _kept(r: dict, speculative: bool) -> bool:
    """An aggregated single-node row of a known device and model: without speculative decoding, or
    (`speculative`) with InferenceX's MTP."""
    if r.get("disagg") or r.get("is_multinode") or r["hardware"] not in IX_HARDWARE or r["model"] not in IX_MODELS:
        return False
    return r.get("spec_method") in ("none", None) or (speculative and r.get("spec_method") == "mtp")


def inferencex_rows(repo: pathlib.Path, all_dates: bool = False, recipes: pathlib.Path | None = None) -> list[dict]:
    """One row per configuration at its latest date (every date it was run at with `all_dates`);
    with `recipes` (a SemiAnalysisAI/InferenceX git dir) the MTP rows too, each with the draft tokens
    its launch recipe stated at the row's date (inferencex_recipes.mtp_draft_tokens)."""
    commit = git(repo, "rev-parse", "HEAD").strip()
    latest: dict[tuple, tuple[str, dict]] = {}
    for name in ("benchmarks.json", "benchmarks-history.json"):
        path = f"packages/app/cypress/fixtures/api/{name}"
        for r in json.loads(git(repo, "show", f"HEAD:{path}")):
            if not _kept(r, recipes is not None):
                continue
            spec = () if r.get("spec_method") in ("none", None) else (r["spec_method"],)
            key = (r["hardware"], r["framework"], r["model"], r["precision"], r["isl"], r["osl"], r["decode_tp"],
                   r["decode_ep"], bool(r["decode_dp_attention"]), r["conc"]) + spec + ((r["date"],) if all_dates else ())
            if key not in latest or r["date"] > latest[key][1]["date"]:
                latest[key] = (path, r)
    rows = []
    for key, (path, r) in sorted(latest.items(), key=lambda kv: (len(kv[0]) > 10 + all_dates, tuple(map(str, kv[0])))):  # MTP rows last
        met = r["metrics"]
        tpot = met.get("mean_tpot") or met.get("median_tpot")
        if not tpot or not met.get("tput_per_gpu"):
            continue
        isl, osl, tp, ep, dpa = r["isl"], r["osl"], int(r["decode_tp"]), int(r["decode_ep"]), bool(r["decode_dp_attention"])
        out = met.get("output_tput_per_gpu")
        derived = out is None
        out = out if out is not None else met["tput_per_gpu"] * osl / (isl + osl)
        par = f"DEP{tp}" if dpa else (f"EP{tp}" if ep > 1 else f"TP{tp}")
        ttft = met.get("mean_ttft") or met.get("median_ttft")
        spec = "" if r.get("spec_method") in ("none", None) else "; " + mtp_note(recipes, r, dpa)
        rows.append({
            "model": IX_MODELS[r["model"]], "device": IX_HARDWARE[r["hardware"]], "count": int(r.get("num_decode_gpu") or tp),
            "precision": r["precision"].upper() + (" (MXFP4)" if r["precision"] == "fp4" and r["hardware"].startswith("mi") else
                                                   " (NVFP4)" if r["precision"] == "fp4" else ""),
            "framework": r["framework"], "scenario": "InferenceX concurrency sweep (closed loop)",
            "batch_or_concurrency": r["conc"], "input_len": isl, "output_len": osl,
            "tokens_per_s_total": "", "tokens_per_s_per_user": f"{1.0 / tpot:.2f}",
            "source": f"{IX_REPO} {path} @{commit}; run {r.get('run_url', '')}",
            "tokens_per_s_per_gpu": f"{out:.1f}", "metric": "output tokens/s per GPU", "measured_power_w": "",
            "date": r["date"],
            "notes": (f"InferenceX production-API snapshot (Apache-2.0, SemiAnalysis); parallelism {par} "
                      f"(InferenceX decode tp {tp} ep {ep} dp_attention {dpa}); image {r.get('image') or 'not stated'}; "
                      f"tokens_per_s_per_user DERIVED = 1 / mean TPOT"
                      + ("; output tokens/s per GPU DERIVED = tput_per_gpu x OSL / (ISL + OSL)" if derived else "")
                      + spec),
            "ttft_s": f"{ttft:.4f}" if ttft else "", "ttft_limit_s": "", "tpot_limit_s": "",
        })
    return rows


def reannotate_mtp(rows: list[dict], recipes: pathlib.Path) -> int:
    """The kept InferenceX MTP rows' draft tokens read again from their launch recipes (without a fresh
    InferenceX-app snapshot): each row's `spec_method mtp; ...` note and configuration columns; the count."""
    hardware = {name: key for key, name in IX_HARDWARE.items()}
    done = 0
    for r in rows:
        notes = r.get("notes") or ""
        at = notes.find("; spec_method mtp")
        if not r.get("source", "").startswith(IX_REPO) or at < 0:
            continue
        dpa = re.search(r"dp_attention (True|False)", notes)
        key = {"hardware": hardware[r["device"]], "precision": r["precision"].split()[0].lower(),
               "framework": r["framework"], "date": r["date"]}
        r["notes"] = notes[:at] + "; " + mtp_note(recipes, key, bool(dpa) and dpa.group(1) == "True")
        r.update(inferencex_configuration(r))
        done += 1
    return done


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mlperf-v6", type=pathlib.Path, help="git dir of an inference_results_v6.0 mirror")
    parser.add_argument("--inferencex", type=pathlib.Path, help="git dir of an InferenceX-app checkout")
    parser.add_argument("--inferencex-all-dates", action="store_true",
                        help="every date a configuration was run at, not only its latest (software maturity data; "
                             "the rows of one framework snapshot stay one source family)")
    parser.add_argument("--inferencex-recipes", type=pathlib.Path, default=None, metavar="GIT_DIR",
                        help="a SemiAnalysisAI/InferenceX git dir: keep the aggregated single-node MTP rows too, "
                             "with the draft tokens each run's launch recipe stated at its date")
    parser.add_argument("--configurations", action="append", default=[], metavar="ROUND=GIT_DIR",
                        help="(re)read every row's configuration columns, MLPerf rows from this round's results "
                             "repository (e.g. v6.0=/mirror/inference_results_v6.0; repeat per round; "
                             "tools/measurement_configurations.py)")
    parser.add_argument("--out", type=pathlib.Path, default=DEFAULT_CSV)
    args = parser.parse_args(argv)
    with open(DEFAULT_CSV, newline="", encoding="utf-8") as f:
        rows = [r for r in csv.DictReader(f) if not _generated(r, bool(args.mlperf_v6), bool(args.inferencex))]
    if args.mlperf_v6:
        rows += mlperf_rows(args.mlperf_v6)
    if args.inferencex:
        built = inferencex_rows(args.inferencex, args.inferencex_all_dates, args.inferencex_recipes)
        for r in built:   # their configuration is in their own result fields (and recipe): annotated here
            r.update(inferencex_configuration(r))
        rows += built
    elif args.inferencex_recipes:
        print(f"re-read the draft tokens of {reannotate_mtp(rows, args.inferencex_recipes)} InferenceX MTP rows")
    for r in rows:
        if re.search(r"inference_results_v(4\.1|5\.0|5\.1)", r["source"]) and row_is_server_or_interactive(r):
            raise SystemExit(f"refused: a held-back MLPerf v4.1-v5.1 Server/Interactive row ({r['source']})")
    assign_families(rows)
    for r in rows:
        r["input_len_basis"] = input_len_basis(r)
    if args.configurations:
        submissions = {}
        for item in args.configurations:
            name, _, repo = item.partition("=")
            submissions[name] = Submission(pathlib.Path(repo), f"MLPerf {name}")
        for r in rows:
            r.update(configuration(r, submissions))
    with open(args.out, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS, extrasaction="ignore", lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    print(f"wrote {len(rows)} rows to {args.out}")
    return 0


def row_is_server_or_interactive(row: dict) -> bool:
    text = row.get("scenario", "").lower()
    return "server" in text or "interactive" in text


def input_len_basis(row: dict) -> str:
    """"stated", or where the row states no input length, the estimate the accuracy uses (the benchmark
    dataset's mean, tcoapp.engine.performance.measurement_rows.MLPERF_INPUT_TOKENS), or "unknown"."""
    if str(row.get("input_len") or "").strip():
        return "stated"
    tokens = MLPERF_INPUT_TOKENS.get(map_model(row.get("model") or "") or "")
    return f"ESTIMATE {tokens}: the benchmark dataset's mean input (docs/model.md)" if tokens else "unknown"


def _generated(row: dict, mlperf: bool = True, inferencex: bool = True) -> bool:
    """Rows this script rebuilds from the sources given: MLPerf v6.0 Server/Interactive and InferenceX."""
    return ((mlperf and "inference_results_v6.0" in row.get("source", "") and row_is_server_or_interactive(row))
            or (inferencex and row.get("source", "").startswith(IX_REPO)))


if __name__ == "__main__":
    sys.exit(main())
