"""tools/measurement_configurations.py: the configuration columns read from a submission's own files
(docs/model.md, "Configurations in the data"), on small stand-ins of the MLPerf harness files."""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tools import measurement_configurations as mc  # noqa: E402

SOURCE = ("https://github.com/mlcommons/inference_results_v6.0/blob/abc/closed/{sub}/results/{system}/{bench}/"
          "{scenario}/performance/run_1/mlperf_log_summary.txt")


class Files(mc.Submission):
    """A submission whose files are a dict (no git)."""

    def __init__(self, files: dict[str, str]):
        self.repo, self.round, self.files, self._cache = None, "MLPerf v6.0", set(files), dict(files)


def _row(sub="NVIDIA", system="B200-SXM-180GBx8_TRT", bench="deepseek-r1", scenario="Interactive", count=8):
    return {"source": SOURCE.format(sub=sub, system=system, bench=bench, scenario=scenario), "count": str(count)}


AGGREGATED = """
base = {
    llm_fields.trtllm_build_flags: {'enable_attention_dp': True},
    llm_fields.trtllm_runtime_flags: {
        'speculative_decoding': {
            'decoding_type': 'MTP',
            'max_total_draft_tokens': 3,
        },
    },
    llm_fields.tensor_parallelism: 8,
    llm_fields.pipeline_parallelism: 1,
    llm_fields.moe_expert_parallelism: 8,
}
"""
CLUSTER = """
base = {
    llm_fields.dynamo_cluster: {
        'num_prefill_workers': 2,
        'num_decode_workers': 4,
        'prefill': {'trtllm_yml_override': '/work/configs/X4/Interactive/disagg_prefill/deepseek-r1.yml'},
        'decode': {'trtllm_yml_override': '/work/configs/X16/Interactive/disagg_decode/deepseek-r1.yml'},
    },
}
"""
PREFILL = "tensor_parallel_size: 4\nmoe_expert_parallel_size: 4\nenable_attention_dp: true\n"
DECODE = ("tensor_parallel_size: 16\nmoe_expert_parallel_size: 16\nenable_attention_dp: true\n"
          "pipeline_parallel_size: 1\nspeculative_config:\n  decoding_type: MTP\n  num_nextn_predict_layers: 3\n")


def test_an_nvidia_config_gives_its_parallelism_and_speculative_decoding():
    sub = Files({"closed/NVIDIA/configs/B200-SXM-180GBx8/Interactive/deepseek-r1.py": AGGREGATED})
    got = mc.configuration(_row(), {"v6.0": sub})
    assert got == {"spec_decode": "mtp", "draft_tokens": "3", "acceptance": "", "disaggregated": "no",
                   "tensor_parallel": "8", "expert_parallel": "8", "attention_dp": "true", "pipeline_parallel": "1",
                   "configuration_source": "MLPerf v6.0 closed/NVIDIA/configs/B200-SXM-180GBx8/Interactive/deepseek-r1.py"}


def test_a_disaggregated_config_names_its_workers_and_reads_their_files():
    sub = Files({"closed/NVIDIA/configs/GB200x72/Interactive/deepseek-r1.py": CLUSTER,
                 "closed/NVIDIA/configs/X4/Interactive/disagg_prefill/deepseek-r1.yml": PREFILL,
                 "closed/NVIDIA/configs/X16/Interactive/disagg_decode/deepseek-r1.yml": DECODE})
    got = mc.configuration(_row(system="GB200x72_TRT", count=72), {"v6.0": sub})
    assert got["disaggregated"] == "prefill 2 x DEP4, decode 4 x DEP16"
    assert (got["spec_decode"], got["draft_tokens"], got["expert_parallel"], got["attention_dp"]) == ("mtp", "3", "16", "true")
    missing = Files({"closed/NVIDIA/configs/GB200x72/Interactive/deepseek-r1.py": CLUSTER})
    assert mc.configuration(_row(system="GB200x72_TRT"), {"v6.0": missing})["configuration_source"].startswith("unknown")


def test_a_config_without_parallelism_leaves_it_empty_and_an_absent_file_is_unknown():
    sub = Files({"closed/NVIDIA/configs/B200-SXM-180GBx8/Offline/deepseek-r1.py": "base = {}\n"})
    got = mc.configuration(_row(scenario="Offline"), {"v6.0": sub})
    assert got["tensor_parallel"] == "" and got["spec_decode"] == "none" and "states no parallelism" in got["configuration_source"]
    assert mc.configuration(_row(sub="Dell"), {"v6.0": sub})["configuration_source"].startswith("unknown: Dell")
    assert mc.configuration(_row(), {})["configuration_source"].startswith("unknown: the MLPerf v6.0")


def test_an_amd_yaml_and_an_inferencex_row():
    sub = Files({"closed/AMD/src/llama2-70b-99/server_mi355x.yaml": "vllm_engine_config:\n  tensor_parallel_size: 1\n"})
    got = mc.configuration(_row(sub="AMD", system="8xMI355X_2xEPYC", bench="llama2-70b-99", scenario="Server"), {"v6.0": sub})
    assert (got["tensor_parallel"], got["spec_decode"], got["disaggregated"]) == ("1", "none", "no")
    ix = {"source": "github.com/x/InferenceX-app ...", "notes": "parallelism DEP8 (InferenceX decode tp 8 ep 8 dp_attention True)"}
    got = mc.configuration(ix, {})
    assert (got["tensor_parallel"], got["expert_parallel"], got["attention_dp"], got["spec_decode"]) == ("8", "8", "true", "none")


# --- InferenceX MTP rows: draft tokens from the launch recipe (tools/inferencex_recipes.py) ---

SGLANG_RECIPE = """
SPECULATIVE_NUM_STEPS=2
SPECULATIVE_DRAFT_TOKENS=3
SPECULATIVE_EAGLE_TOPK=1
python3 -m sglang.launch_server --speculative-algorithm EAGLE --speculative-num-steps $SPECULATIVE_NUM_STEPS
"""
TRT_RECIPE = """
MTP=3

# DP ATTENTION requires different optimizations
if [[ "$DP_ATTENTION" == "true" ]]; then
    MOE_BACKEND="DEEPGEMM"
    MTP=1
fi
speculative_config:
    decoding_type: MTP
    num_nextn_predict_layers: ${MTP}
"""
TRT_ELSE_RECIPE = """
if [[ "$DP_ATTENTION" == "true" ]]; then
    MTP=1
else
    MTP=3
fi
    num_nextn_predict_layers: ${MTP}
"""


def test_recipe_draft_tokens():
    from tools import inferencex_recipes as ir
    assert ir.draft_tokens(SGLANG_RECIPE, "sglang", False) == 2
    assert ir.draft_tokens(SGLANG_RECIPE.replace("TOPK=1", "TOPK=4"), "sglang", False) is None  # a tree, not a chain
    assert ir.draft_tokens(TRT_RECIPE, "trt", False) == 3
    assert ir.draft_tokens(TRT_RECIPE, "trt", True) == 1
    assert ir.draft_tokens(TRT_ELSE_RECIPE, "trt", False) == 3
    assert ir.draft_tokens(TRT_ELSE_RECIPE, "trt", True) == 1
    # ATOM: the count the recipe states, on the command line or in SPEC_ARGS; `--method mtp` alone runs
    # ATOM's default (arg_utils.py: --num-speculative-tokens default=1); no MTP method states nothing
    assert ir.draft_tokens("python3 -m atom.entrypoints.openai_server --method mtp", "atom", False) == 1
    assert ir.draft_tokens("SPEC_ARGS=(--method mtp --num-speculative-tokens 3 )", "atom", False) == 3
    assert ir.draft_tokens("--method mtp \\\n    --num-speculative-tokens 2 \\", "atom", False) == 2
    assert ir.draft_tokens("python3 -m atom.entrypoints.openai_server --kv_cache_dtype fp8", "atom", False) is None
    assert ir.draft_tokens("python3 -m sglang.launch_server --method mtp", "vllm", False) is None


def _recipe_repo(tmp_path, files: dict[str, str], date: str):
    """A git dir holding `files` in one commit dated `date` (a stand-in of SemiAnalysisAI/InferenceX)."""
    import os
    import subprocess
    work = tmp_path / "work"
    for name, text in files.items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text(text)
    env = dict(os.environ, GIT_AUTHOR_DATE=f"{date}T12:00:00", GIT_COMMITTER_DATE=f"{date}T12:00:00",
               GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t")
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "recipes"]):
        subprocess.run(["git", *args], cwd=work, env=env, check=True)
    return work / ".git"


def test_a_slurm_recipe_is_found_and_kept_rows_are_read_again(tmp_path):
    from tools import build_measurements as bm
    from tools import inferencex_recipes as ir
    repo = _recipe_repo(tmp_path, {"benchmarks/dsr1_fp8_h200_trt_mtp_slurm.sh": TRT_ELSE_RECIPE,
                                   "benchmarks/dsr1_fp4_mi355x_atom_mtp.sh": "python3 -m atom.entrypoints.openai_server --method mtp"},
                        "2026-01-10")
    found = ir.recipe_at(repo, "h200", "fp8", "trt", "2026-01-14")
    assert found is not None and found[1].startswith("benchmarks/dsr1_fp8_h200_trt_mtp_slurm.sh @")
    assert ir.recipe_at(repo, "h200", "fp8", "trt", "2026-01-09") is None   # no recipe before the commit
    notes = "parallelism TP8 (InferenceX decode tp 8 ep 1 dp_attention {dpa}); image x"
    rows = [{"source": bm.IX_REPO + " f @c", "device": "NVIDIA H200", "precision": "FP8", "framework": "trt",
             "date": "2026-01-14", "notes": notes.format(dpa="True") + "; spec_method mtp; draft tokens not stated (x)"},
            {"source": bm.IX_REPO + " f @c", "device": "AMD MI355X", "precision": "FP4 (MXFP4)", "framework": "atom",
             "date": "2026-02-11", "notes": notes.format(dpa="False") + "; spec_method mtp; draft tokens not stated (y)"},
            {"source": bm.IX_REPO + " f @c", "device": "AMD MI355X", "precision": "FP8", "framework": "atom",
             "date": "2026-02-11", "notes": notes.format(dpa="False")}]
    assert bm.reannotate_mtp(rows, repo) == 2
    assert rows[0]["draft_tokens"] == "1" and rows[0]["attention_dp"] == "true"   # the DP-attention branch
    assert rows[1]["draft_tokens"] == "1" and "ATOM's default" in rows[1]["configuration_source"]
    assert "not stated" not in rows[0]["notes"] + rows[1]["notes"] and rows[0]["notes"].count("spec_method") == 1
    assert "draft_tokens" not in rows[2]   # a row without MTP is left alone


def test_an_inferencex_mtp_row_states_its_draft_tokens_or_is_unknown():
    base = "parallelism TP8 (InferenceX decode tp 8 ep 1 dp_attention False); image x"
    row = {"notes": base + "; spec_method mtp; draft tokens 2 (recipe benchmarks/dsr1_fp8_b200_mtp.sh @abc)"}
    got = mc.inferencex_configuration(row)
    assert got["spec_decode"] == "mtp" and got["draft_tokens"] == "2" and got["tensor_parallel"] == "8"
    assert "benchmarks/dsr1_fp8_b200_mtp.sh @abc" in got["configuration_source"]
    unstated = mc.inferencex_configuration({"notes": base + "; spec_method mtp; draft tokens not stated (recipe r)"})
    assert unstated["configuration_source"].startswith("unknown") and unstated["spec_decode"] == ""
    plain = mc.inferencex_configuration({"notes": base})
    assert plain["spec_decode"] == "none" and plain["draft_tokens"] == "0"
