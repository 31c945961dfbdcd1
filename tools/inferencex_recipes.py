"""The draft tokens an InferenceX MTP run used, read from its launch recipe (SemiAnalysisAI/InferenceX,
Apache-2.0) as the recipe stood on the run's date (tools/build_measurements.py --inferencex-recipes).

A recipe is `dsr1_<precision>_<hardware>[_trt|_atom]_mtp.sh` (or `..._mtp_slurm.sh`, the name of
InferenceX's early TensorRT-LLM recipes) under benchmarks/ (its later homes benchmarks/single_node/ and
benchmarks/single_node/fixed_seq_len/), at the last commit on or before the run's date. The draft
tokens it states:
- SGLang: `--speculative-num-steps N` (or SPECULATIVE_NUM_STEPS=N) with `--speculative-eagle-topk 1`:
  a chain of N draft tokens (the verify pass checks N + 1 positions);
- TensorRT-LLM: `num_nextn_predict_layers: ${MTP}` with MTP set in the script, one value with attention
  data parallelism (the `if [[ "$DP_ATTENTION" == "true" ]]` branch) and one without;
- ATOM: `--num-speculative-tokens N` (on the command line or in its SPEC_ARGS); a recipe that gives
  `--method mtp` alone runs ATOM's default, 1 draft token (`--num-speculative-tokens`, default=1, in
  ROCm/ATOM atom/model_engine/arg_utils.py at every commit from 2026-01-15 to 2026-06-02, the dates
  of InferenceX's ATOM MTP runs: ATOM_DEFAULT_DRAFT_TOKENS);
- anything else: not stated, and the row's configuration is left unknown
  (tcoapp.engine.performance.measurement_config).
"""
from __future__ import annotations

import pathlib
import re
import subprocess

ATOM_DEFAULT_DRAFT_TOKENS = 1   # ROCm/ATOM arg_utils.py `--num-speculative-tokens` default (module docstring)
RECIPE_DIRS = ("benchmarks/single_node/fixed_seq_len", "benchmarks/single_node", "benchmarks")
FRAMEWORK_SUFFIX = {"sglang": "", "trt": "_trt", "atom": "_atom"}
_ATOM_DRAFTS = re.compile(r"--num-speculative-tokens[ =]+(\d+)")   # ATOM's stated draft tokens
_DP_BLOCK = re.compile(r'if \[\[ "\$DP_ATTENTION" == "true" \]\]; then\n(.*?)\n\s*fi\b', re.S)


def _git(repo: pathlib.Path, *args: str) -> str:
    done = subprocess.run(["git", "--git-dir", str(repo), *args], capture_output=True, text=True)
    return done.stdout if done.returncode == 0 else ""


def recipe_at(repo: pathlib.Path, hardware: str, precision: str, framework: str, date: str) -> tuple[str, str] | None:
    """(the recipe's text, "path @commit") of a run on `date` (YYYY-MM-DD), or None where none exists."""
    suffix = FRAMEWORK_SUFFIX.get(framework)
    if suffix is None:
        return None
    commit = _git(repo, "rev-list", "-1", f"--before={date}T23:59:59", "HEAD").strip()
    if not commit:
        return None
    for name in (f"dsr1_{precision}_{hardware}{suffix}_mtp.sh", f"dsr1_{precision}_{hardware}{suffix}_mtp_slurm.sh"):
        for folder in RECIPE_DIRS:
            text = _git(repo, "show", f"{commit}:{folder}/{name}")
            if text:
                return text, f"{folder}/{name} @{commit[:12]}"
    return None


def draft_tokens(text: str, framework: str, attention_dp: bool) -> int | None:
    """The draft tokens a recipe states for a run (module docstring), or None where it states none."""
    if framework == "sglang":
        topk = re.search(r"(?:SPECULATIVE_EAGLE_TOPK=|--speculative-eagle-topk\s+)(\d+)", text)
        steps = re.search(r"(?:SPECULATIVE_NUM_STEPS=|--speculative-num-steps\s+)(\d+)", text)
        return int(steps.group(1)) if steps and (topk is None or topk.group(1) == "1") else None
    if framework == "trt" and "num_nextn_predict_layers" in text:
        block = _DP_BLOCK.search(text)
        inside, _, otherwise = (block.group(1) if block else "").partition("\nelse")
        outside = text.replace(block.group(0), "") if block else text
        chosen = inside if attention_dp else (otherwise or outside)
        found = re.findall(r"^\s*MTP=(\d+)\s*$", chosen, re.M) or (re.findall(r"^\s*MTP=(\d+)\s*$", outside, re.M)
                                                                   if attention_dp else [])
        return int(found[-1]) if found else None
    if framework == "atom" and re.search(r"--method[ =]+mtp\b", text):
        stated = _ATOM_DRAFTS.search(text)
        return int(stated.group(1)) if stated else ATOM_DEFAULT_DRAFT_TOKENS
    return None


def mtp_note(repo: pathlib.Path | None, row: dict, attention_dp: bool) -> str:
    """The notes text of an MTP row: "spec_method mtp; draft tokens K (recipe PATH @COMMIT)" or
    "spec_method mtp; draft tokens not stated (...)" (measurement_configurations reads it)."""
    found = recipe_at(repo, row["hardware"], row["precision"], row["framework"], str(row["date"])[:10]) if repo else None
    if found is None:
        return "spec_method mtp; draft tokens not stated (no launch recipe found for the run's date)"
    k = draft_tokens(found[0], row["framework"], attention_dp)
    if k is None:
        return f"spec_method mtp; draft tokens not stated (recipe {found[1]})"
    default = row["framework"] == "atom" and _ATOM_DRAFTS.search(found[0]) is None
    return f"spec_method mtp; draft tokens {k} (recipe {found[1]}" + ("; ATOM's default, ROCm/ATOM atom/model_engine/arg_utils.py" if default else "") + ")"
