"""The serving configuration each measurement row ran, read from its submission (docs/model.md,
"Configurations in the data"): the configuration columns of the measurements CSV.

    python tools/build_measurements.py --configurations ROUND=MIRROR_GIT_DIR ...   # (re)annotates every row

Columns (tcoapp.engine.performance.measurement_config reads them): `spec_decode` (none | mtp | eagle |
draft model), `draft_tokens`, `acceptance` (where the source states it), `disaggregated` ("no", or
"prefill P x PAR, decode D x PAR": workers and each worker's parallelism), `tensor_parallel`,
`expert_parallel`, `attention_dp` (true | false), `pipeline_parallel` and `configuration_source` (where
they were read). A row whose configuration is not found in its own submission gets
`configuration_source` = "unknown" and empty knobs: never a guess.

Where they are read:
- MLPerf (any round's Offline, v6.0 Server and Interactive): the submitter's own files in the results
  repository: NVIDIA's harness `closed/<submitter>/configs/<system>/<Scenario>/<benchmark>.py`
  (tensor_parallelism, pipeline_parallelism, moe_expert_parallelism, enable_attention_dp,
  speculative_decoding; a disaggregated run's `dynamo_cluster` names its prefill and decode workers and
  their YAML files, read for their parallelism and speculative_config), AMD's harness
  `closed/<submitter>/src/<benchmark>/<scenario>_<chip>[_mn].yaml` (tensor_parallel_size,
  pipeline_parallel_size, speculative_config). A submitter that ships neither: unknown.
- InferenceX rows: the result fields (decode tp / ep / dp_attention, disagg, spec_method,
  is_multinode); the builder keeps aggregated, single-node rows, without speculative decoding or with
  MTP, whose draft tokens come from the run's launch recipe (tools/inferencex_recipes.py; none stated:
  unknown).
- The TensorRT-LLM performance overview: its table header (TP/DEP width) and its reproduction section
  (trtllm-bench throughput: one aggregated instance, no speculative-decoding options, --pp 1 except
  where a table states PP).
"""
from __future__ import annotations

import re
import subprocess

CONFIG_COLUMNS = ("spec_decode", "draft_tokens", "acceptance", "disaggregated", "tensor_parallel", "expert_parallel",
                  "attention_dp", "pipeline_parallel", "configuration_source")
UNKNOWN = dict.fromkeys(CONFIG_COLUMNS, "") | {"configuration_source": "unknown"}
NVIDIA_BENCH_FILES = {"llama2-70b-99": ("llama2-70b",), "llama2-70b-99.9": ("llama2-70b",),
                      "llama3.1-405b": ("llama3_1-405b",), "llama3_1-405b": ("llama3_1-405b",), "deepseek-r1": ("deepseek-r1",),
                      "gpt-oss-120b": ("gpt-oss-120b",)}
AMD_BENCH_DIRS = {"llama2-70b-99": "llama2-70b-99", "llama2-70b-99.9": "llama2-70b-99", "gpt-oss-120b": "gpt-oss-120b"}


def _git(repo, *args) -> str:
    return subprocess.run(["git", "--git-dir", str(repo), *args], check=True, capture_output=True, text=True).stdout


class Submission:
    """One MLPerf results repository (a git dir): its file list and file texts."""

    def __init__(self, repo, round_name: str):
        self.repo, self.round = repo, round_name
        self.files = set(_git(repo, "ls-tree", "-r", "--name-only", "HEAD").splitlines())
        self._cache: dict[str, str] = {}

    def text(self, path: str) -> str | None:
        if path not in self.files:
            return None
        if path not in self._cache:
            self._cache[path] = _git(self.repo, "show", f"HEAD:{path}")
        return self._cache[path]


def _parallel_text(tp: int, ep: int, adp: bool) -> str:
    return f"DEP{tp}" if adp else (f"EP{ep}" if ep > 1 else f"TP{tp}")


def _num(pattern: str, text: str, default: int | None = 1) -> int | None:
    m = re.search(pattern, text)
    return int(m.group(1)) if m else default


def _spec(text: str) -> tuple[str, str]:
    """(method, draft tokens) of a config text's speculative-decoding block, ("none", "0") without one."""
    m = re.search(r"speculative_(?:decoding|config)['\"]?\s*:\s*\{?([^}]*)", text, re.S)
    if not m:
        return "none", "0"
    block = m.group(1)[:600]
    kind = re.search(r"decoding_type['\"]?\s*:\s*['\"]?(\w+)", block)
    method = (kind.group(1).lower() if kind else "unknown")
    method = {"eagle3": "eagle", "draft_target": "draft model"}.get(method, method)
    k = re.search(r"(?:max_total_draft_tokens|max_draft_len|num_speculative_tokens|num_nextn_predict_layers)['\"]?\s*:\s*(\d+)",
                  block)
    return method, (k.group(1) if k else "")


def _nvidia_yaml(text: str) -> dict:
    tp = _num(r"(?m)^tensor_parallel_size:\s*(\d+)", text)
    ep = _num(r"(?m)^moe_expert_parallel_size:\s*(\d+)", text)
    adp = bool(re.search(r"(?m)^enable_attention_dp:\s*true", text))
    return {"tp": tp, "ep": ep, "adp": adp, "pp": _num(r"(?m)^pipeline_parallel_size:\s*(\d+)", text),
            "spec": _spec(text)}


def _nvidia_config(sub: Submission, path: str, text: str) -> dict:
    """The configuration columns of an NVIDIA-harness config file (module docstring)."""
    cluster = re.search(r"num_prefill_workers['\"]?\s*:\s*(\d+).*?num_decode_workers['\"]?\s*:\s*(\d+)", text, re.S)
    if cluster:
        pools = {}
        for role in ("prefill", "decode"):
            y = re.search(rf"['\"]{role}['\"]\s*:\s*\{{[^}}]*?trtllm_yml_override['\"]\s*:\s*['\"]/work/([^'\"]+)", text, re.S)
            own = sub.text(f"{path.split('/configs/')[0]}/{y.group(1)}") if y else None
            if own is None:
                return dict(UNKNOWN, configuration_source=f"unknown: {path} names a disaggregated {role} pool whose "
                                                          f"configuration file is not in the submission")
            pools[role] = _nvidia_yaml(own)
        dec, pre = pools["decode"], pools["prefill"]
        return {"spec_decode": dec["spec"][0], "draft_tokens": dec["spec"][1], "acceptance": "",
                "disaggregated": (f"prefill {cluster.group(1)} x {_parallel_text(pre['tp'], pre['ep'], pre['adp'])}, "
                                  f"decode {cluster.group(2)} x {_parallel_text(dec['tp'], dec['ep'], dec['adp'])}"),
                "tensor_parallel": str(dec["tp"]), "expert_parallel": str(dec["ep"]),
                "attention_dp": str(dec["adp"]).lower(), "pipeline_parallel": str(dec["pp"]),
                "configuration_source": f"{sub.round} {path} and its prefill/decode YAML files"}
    tp = _num(r"tensor_parallelism\s*:\s*(\d+)", text, None)
    ep = _num(r"moe_expert_parallelism\s*:\s*(\d+)", text, None)
    adp = bool(re.search(r"['\"]enable_attention_dp['\"]\s*:\s*True", text))
    method, k = _spec(text)
    stated = tp is not None
    return {"spec_decode": method, "draft_tokens": k, "acceptance": "", "disaggregated": "no",
            "tensor_parallel": str(tp) if stated else "", "expert_parallel": str(ep or 1) if stated else "",
            "attention_dp": str(adp).lower() if stated else "",
            "pipeline_parallel": str(_num(r"pipeline_parallelism\s*:\s*(\d+)", text)),
            "configuration_source": f"{sub.round} {path}" + ("" if stated else
                                    " (states no parallelism: the throughput-maximizing one is modelled)")}


def _amd_config(sub: Submission, path: str, text: str) -> dict:
    tp = _num(r"(?m)^\s*tensor_parallel_size:\s*(\d+)", text)
    ep = tp if re.search(r"(?m)^\s*enable_expert_parallel:\s*(?:true|True)", text) else 1
    method, k = _spec(text)
    return {"spec_decode": method, "draft_tokens": k, "acceptance": "", "disaggregated": "no",
            "tensor_parallel": str(tp), "expert_parallel": str(ep), "attention_dp": "false",
            "pipeline_parallel": str(_num(r"(?m)^\s*pipeline_parallel_size:\s*(\d+)", text)),
            "configuration_source": f"{sub.round} {path}"}


def mlperf_configuration(sub: Submission, source: str, count: int) -> dict:
    """The configuration columns of an MLPerf row from its own submission (module docstring)."""
    m = re.search(r"/(closed|open)/([^/]+)/results/([^/]+)/([^/]+)/([^/]+)/", source)
    if not m:
        return dict(UNKNOWN)
    division, submitter, system, bench, scenario = m.groups()
    root = f"{division}/{submitter}"
    for name in NVIDIA_BENCH_FILES.get(bench, ()):
        for prefix in _system_prefixes(system):
            for stem in ((name + "-interactive", name) if scenario == "Interactive" else (name,)):
                path = f"{root}/configs/{prefix}/{scenario}/{stem}.py"
                text = sub.text(path)
                if text is not None:
                    return _nvidia_config(sub, path, text)
    chip = re.search(r"(MI\d{3}X)", system, re.I)
    if bench in AMD_BENCH_DIRS and chip:
        multi = "_mn" if count > 8 else ""
        for c in (chip.group(1).lower(), chip.group(1).upper()):
            for path in (f"{root}/src/{AMD_BENCH_DIRS[bench]}/{scenario.lower()}_{c}{multi}.yaml",
                         f"{root}/code/{bench}/harness_llm/models/{bench.rsplit('-', 1)[0]}/{scenario.lower()}_{c}.yaml"):
                text = sub.text(path)
                if text is not None:
                    return _amd_config(sub, path, text)
    return dict(UNKNOWN, configuration_source=f"unknown: {submitter} {system} has no configuration file "
                                              f"for {bench} {scenario} that this reader finds in {sub.round}")


def _system_prefixes(system: str) -> list[str]:
    """The config directory names a result system may use: itself, without a _TRT-like suffix."""
    names = [system]
    stripped = re.sub(r"_(TRT|Triton|vLLM|SGLang|Dynamo)\w*$", "", system)
    if stripped != system:
        names.append(stripped)
    return names


def inferencex_configuration(row: dict) -> dict:
    """InferenceX rows: the result fields the builder kept (aggregated, single node; no speculative
    decoding, or MTP with the draft tokens its launch recipe states: tools/inferencex_recipes.py)."""
    notes = row.get("notes") or ""
    m = re.search(r"decode tp (\d+) ep (\d+) dp_attention (True|False)", notes)
    if not m:
        return dict(UNKNOWN)
    if "spec_method mtp" in notes:
        k = re.search(r"spec_method mtp; draft tokens (\d+) \(recipe ([^)]*)\)", notes)
        if k is None:
            return dict(UNKNOWN, configuration_source="unknown: InferenceX MTP run whose launch recipe states no draft tokens")
        spec = {"spec_decode": "mtp", "draft_tokens": k.group(1)}
        source = (f"InferenceX result fields (decode tp/ep/dp_attention; disagg false, spec_method mtp, single node); "
                  f"draft tokens: SemiAnalysisAI/InferenceX {k.group(2)}")
    else:
        spec = {"spec_decode": "none", "draft_tokens": "0"}
        source = "InferenceX result fields (decode tp/ep/dp_attention; disagg false, spec_method none, single node)"
    return {**spec, "acceptance": "", "disaggregated": "no",
            "tensor_parallel": m.group(1), "expert_parallel": m.group(2), "attention_dp": m.group(3).lower(),
            "pipeline_parallel": "1", "configuration_source": source}


def trtllm_overview_configuration(row: dict) -> dict:
    """The TensorRT-LLM performance overview: the table header's parallelism, trtllm-bench throughput."""
    m = re.search(r"parallelism (DEP|TP|EP)(\d+)", row.get("notes") or "")
    if not m:
        return dict(UNKNOWN)
    kind, n = m.group(1), m.group(2)
    return {"spec_decode": "none", "draft_tokens": "0", "acceptance": "", "disaggregated": "no",
            "tensor_parallel": n if kind != "EP" else "1", "expert_parallel": n if kind != "TP" else "1",
            "attention_dp": str(kind == "DEP").lower(), "pipeline_parallel": "1",
            "configuration_source": "TensorRT-LLM perf overview: table header parallelism; trtllm-bench throughput "
                                    "(aggregated, no speculative-decoding options)"}


def configuration(row: dict, submissions: dict) -> dict:
    """The configuration columns of any row: from its MLPerf round's submission where given, the
    InferenceX fields, the TensorRT-LLM overview, else unknown."""
    source = row.get("source") or ""
    m = re.search(r"inference_results_(v[\d.]+)", source)
    if m:
        sub = submissions.get(m.group(1))
        if sub is None:
            return dict(UNKNOWN, configuration_source=f"unknown: the MLPerf {m.group(1)} submission files were not read")
        return mlperf_configuration(sub, source, int(float(row.get("count") or 1)))
    if "InferenceX" in source:
        return inferencex_configuration(row)
    if "TensorRT-LLM" in source and "perf-overview" in source:
        return trtllm_overview_configuration(row)
    return dict(UNKNOWN)
