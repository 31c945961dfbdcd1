"""`tcoapp curves --json` text pinned byte for byte (issue 47's work on the reader's speed): the SHA-256 of
`curve_file_text(read_curve_file(path))`, or of the refusal's text, for every curve file of the tests and
of ../shared/fixtures/curves/, and for plain CSVs of the shapes the reader takes different paths on (one
line per row or not, short rows, empty and bad cells, latencies and power, a decimal comma, repeated
batches, sources to escape). The digests were taken from the reader before that work (main at 1eaa32e8)."""
from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from tcoapp.engine.core.errors import ValidationError
from tcoapp.io.curve_files import read_curve_file
from tcoapp.present.curve_file_text import curve_file_text

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = {p.name: p for p in [*(ROOT / "tests" / "data" / "curves").glob("*.csv"),
                                *(ROOT.parent.parent / "shared" / "fixtures" / "curves").glob("*.csv")]}

_HEAD = "curve,device,model,batch,tokens_per_s_per_device"
PLAIN = {
    "bench_like.csv": _HEAD + "\n" + "".join(f"c{i % 70},H200-SXM,Llama-3.1-70B,{i // 70 + 1},{100 + i % 997}\n"
                                             for i in range(3000)),
    "crlf_no_last_end.csv": _HEAD + "\r\n" + "\r\n".join(f"c{i % 3},H200-SXM,Llama-3.1-70B,{i // 3 + 1},{1.5 * i + 0.1}"
                                                         for i in range(30)),
    "latencies_power.csv": "curve,device,model,batch,tokens_per_s_per_device,tokens_per_s_per_user,ttft_ms,tpot_ms,power_w\n"
                           + "".join(f"c{i % 4},B200,Llama-3.1-70B,{i // 4 + 1},{200 + 7 * i},"
                                     f"{'' if i % 5 == 0 else 50 - i / 10},{'' if i % 7 == 0 else 120 + i},"
                                     f"{12.5 + i / 8},{'' if i % 9 == 0 else 900 + i}\n" for i in range(40)),
    "short_rows.csv": _HEAD + ",precision,source\n" + "".join(
        f"c{i % 2},H200-SXM,Llama-3.1-70B,{i // 2 + 1},{300 + i}" + (",fp8,my run \"x\" \u00e9" if i % 3 else "") + "\n"
        for i in range(12)),
    "quoted.csv": _HEAD + ',config\n"a b",H200-SXM,Llama-3.1-70B,1,"1,000"\n"a b",H200-SXM,Llama-3.1-70B,2,1500,'
                  '"tp=2; ep=1"\n',
    "comments_blanks.csv": "# license: CC-BY\n# from a sweep\n" + _HEAD + "\nc,H200-SXM,Llama-3.1-70B,1,10\n\n"
                           "# a note\nc,H200-SXM,Llama-3.1-70B,2,15\n , , \nc,H200-SXM,Llama-3.1-70B,4,22.25\n",
    "decimal_comma.csv": "curve;device;model;batch;tokens_per_s_per_device;ttft_s\n" + "".join(
        f"c;H200-SXM;Llama-3.1-70B;{k};{k * 100},5;0,{k}\n" for k in range(1, 9)),
    "one_curve_unsorted.csv": _HEAD + "\n" + "".join(f",H200-SXM,Llama-3.1-70B,{b},{b * 3.25}\n" for b in (8, 1, 4, 2, 16)),
    "repeated_batch.csv": _HEAD + "\nc,H200-SXM,Llama-3.1-70B,1,10\nc,H200-SXM,Llama-3.1-70B,1,11\n",
    "bad_cells.csv": _HEAD + "\nc,H200-SXM,Llama-3.1-70B,1,abc\nc,H200-SXM,Llama-3.1-70B,,5\n"
                     "c,H200-SXM,Llama-3.1-70B,3,2e7\nc,H200-SXM,Llama-3.1-70B,0,5\n",
    "big_and_small.csv": _HEAD + "\n" + "".join(f"c,H200-SXM,Llama-3.1-70B,{k},{v}\n" for k, v in enumerate(
        ["1e-7", "0.1", "1234567.123", "1e3", "0.30000000000000004", "5e-05", "9999999", "1_0"], 1)),
}

GOLDEN = {
    'aiconfigurator_gb200_agg_cold_pareto_public.csv': '70e96be307e3623eb8ccc15bacee0a4a19b70585352779330efad607a54e8c91',
    'aiconfigurator_gptoss120b_b200_trtllm_agg_pareto.csv': '93d10a48a606f29357b8e85077233318a85d06776099dd8c6a9246798bf80d25',
    'aiconfigurator_gptoss120b_b200_trtllm_disagg_pareto.csv': '99b6db9859cb00434b04d062ec5d21ef6e6ad237f8ccccb39a575aadb634ccb2',
    'aiconfigurator_llama70b_fp8_h200_agg_best_config_topn.csv': '77889eef4f68b9337806002e648a5a7f5789101d609fbd294f1e2d4c263740fb',
    'aiconfigurator_llama70b_fp8_h200_agg_pareto.csv': 'd9087a9ff2d819aa179f528590169fb79e7b67ae4a1771852afb3d891b6cf5f4',
    'aiconfigurator_llama70b_fp8_h200_disagg_best_config_topn.csv': '6c2e523f3134fd453ea1db558fb59db65d72b583e2a8e4986dda440a533052ab',
    'aiconfigurator_llama70b_fp8_h200_disagg_pareto.csv': '6f778e8a3d993c5b866a4634b1dbccd2bc14dbc08e802cbc8a30bf8a3a9389c2',
    'aiconfigurator_qwen3_235b_b200_trtllm_agg_pareto.csv': '09f2dd4425c29d2100307ea4bf7615a8288ba49b87b17b3513a60d2439c4c548',
    'aiconfigurator_qwen3_235b_b200_trtllm_disagg_pareto.csv': '1c2de73bc90caef89285f60690d39904116a965e5474f289fd944b052aaac371',
    'inferencex_dsr1_gb300_current_headers.csv': '26ac4cb0d30976b44e560f76b8397e447859345741ac0f0412e28831ef3520ce',
    'bench_like.csv': 'bcbf232106949d83f60df9aff2c77ad39ecc2c325cc332d11b991f907fbb0a4b',
    'crlf_no_last_end.csv': '1c5c4fa4cebbf9a9f2a2315195beeadc1ab6f170bc24763853077ba48fe5b40d',
    'latencies_power.csv': 'd7c4da5e26a001f54f106da13c5e5482dd3ed9fde5bdd2ca68dca0ce591f6346',
    'short_rows.csv': 'd51d9ea83a0b4e5207b821346f4287ce2bb93193afd573d88911f350ffd825eb',
    'quoted.csv': '210fe622d5dceafcc95b17b56efdc37f672115161e4f28669e58cccdd39ff244',
    'comments_blanks.csv': '15a47e65779799591f071970f0c5b7fc6cb1117ad230af34ba3c876018311491',
    'decimal_comma.csv': 'ccf474b21bc193d8fe3847b5fd2deae2c89947c9572f5e9dfe8a6a8f655b1d86',
    'one_curve_unsorted.csv': '9ad8fd6ce9b2dea38a142856f95ed00d7a5d340e68b03906fa1aaa3c6beb4482',
    'repeated_batch.csv': '3ff4c4dde732cda7446d219ce0ee4679df4e4add50fe1e2e5c5c38490dd4c560',
    'bad_cells.csv': '3e9a165dc274b6e37551a7d977d7d2afd3df5093f0ace0cb70ebc8ca8725de94',
    'big_and_small.csv': '21b0c999bb4a817b600754d430cfe31d0be9c5842c8bd610d4018432b2c18680',
}


def _digest(path: Path) -> str:
    try:
        text = curve_file_text(read_curve_file(path))
    except ValidationError as exc:
        text = "refused: " + str(exc)
    return hashlib.sha256(text.replace(str(path.parent), "<dir>").encode("utf-8")).hexdigest()


def digests(folder: Path) -> dict[str, str]:
    out = {name: _digest(path) for name, path in sorted(FIXTURES.items())}
    for name, text in PLAIN.items():
        path = folder / name
        path.write_bytes(text.encode("utf-8"))
        out[name] = _digest(path)
    return out


def test_the_json_text_of_every_curve_file_is_as_before(tmp_path):
    assert digests(tmp_path) == GOLDEN


if __name__ == "__main__":   # print the digests (to pin a deliberate change of the output)
    import sys
    import tempfile
    for key, value in digests(Path(tempfile.mkdtemp())).items():
        print(f"    {key!r}: {value!r},")
    sys.exit(0)
