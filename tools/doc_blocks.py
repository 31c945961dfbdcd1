"""The parts of README.md and docs/user_guide.md that would drift if typed by hand, generated from the
code (tools/gen_docs.py writes and checks them): the number of samples and their list, from
samples/build_samples.py, and the example Decision headline, from the built-in default scenario.

A block sits between `<!-- gen:NAME -->` and `<!-- /gen:NAME -->`; only its inside is rewritten.
"""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")


def _samples():
    from samples.build_samples import SAMPLES
    return SAMPLES


def count_word(n: int, capital: bool = False) -> str:
    word = WORDS[n] if n < len(WORDS) else f"{n:,}"
    return word[0].upper() + word[1:] if capital else word


def samples_table() -> str:
    rows = "\n".join(f"| `{s.filename}` | {s.title}: {s.question} |" for s in _samples())
    return f"| file | question |\n|---|---|\n{rows}"


def samples_count() -> str:
    return f"{count_word(len(_samples()), capital=True)} workbooks"


def example_headline() -> str:
    """The default scenario's decision as the Decision tab and `tcoapp compute` print it, and the
    first plan against the last (the ratios a reference plan gives)."""
    from tcoapp.engine.decision import summary as decision
    from tcoapp.engine.pipeline.compute import compute_scenario
    from tcoapp.engine.decision.choice import decide
    from tcoapp.io.default_scenario import default_scenario
    from tcoapp.present.decision_text import reason

    scenario = default_scenario()
    results = compute_scenario(scenario)
    d = decide(scenario, results)
    first, last = d.summaries[0], d.summaries[-1]
    ratios = decision.ratios_text(first, last, results)
    return f"> {reason(d)}\n>\n> Against {last.name}: {ratios}."


def samples_count_in_sentence() -> str:
    return f"{count_word(len(_samples()))} workbooks"


SPEC_GAIN_BATCHES = (1, 8, 32, 64, 128, 256)
SPEC_GAIN_CASES = (   # (label, device, model, tensor_parallel, precision): 1k/1k, the published alpha
    ("Llama-3.3-70B, EAGLE-3, B200 TP1 FP8", "B200", "Llama-3.3-70B", 1, "fp8"),
    ("Llama-3.3-70B, EAGLE-3, H100 TP4 FP8", "H100-SXM", "Llama-3.3-70B", 4, "fp8"),
    ("DeepSeek-R1, MTP, B200 TP8 FP8", "B200", "DeepSeek-R1", 8, "fp8"),
    ("DeepSeek-R1, MTP, H200 TP8 FP8", "H200-SXM", "DeepSeek-R1", 8, "fp8"),
)


def spec_gain_table() -> str:
    """tokens/s per device with speculative decoding over without, at the same batch (1,024 in, 1,024
    out), for k = 1 and k = 3 draft tokens at the model's published acceptance (docs/model.md)."""
    import numpy as np

    from tcoapp.engine.performance.generated import run_roofline
    from tcoapp.engine.quantities.records import ServingConfig, Workload
    from tcoapp.io.catalog import load_catalog

    cat = load_catalog()
    batch = np.array(SPEC_GAIN_BATCHES, float)
    workload = Workload(input_tokens=1024, output_tokens=1024)
    head = "| model, drafter, device | alpha | k | " + " | ".join(f"batch {b}" for b in SPEC_GAIN_BATCHES) + " |"
    lines = [head, "|---|---|---|" + "---|" * len(SPEC_GAIN_BATCHES)]
    for label, device, model, tp, precision in SPEC_GAIN_CASES:
        alpha = cat.spec_acceptance[model].acceptance
        serving = ServingConfig(tensor_parallel=tp, weight_precision=precision, kv_precision=precision)
        run = lambda k: run_roofline(cat.devices[device], cat.models[model],  # noqa: E731
                                     serving.with_(spec_decode_draft_tokens=k, spec_decode_acceptance=alpha),
                                     workload, batch).tokens_per_s_per_device
        base = run(0)
        for k in (1, 3):
            gain = run(k) / base
            lines.append(f"| {label} | {alpha:g} | {k} | " + " | ".join(f"{g:.2f}x" for g in gain) + " |")
    return "\n".join(lines)


BLOCKS = {"spec-gain-table": spec_gain_table, "samples-count": samples_count, "samples-count-in-sentence": samples_count_in_sentence, "samples-table": samples_table, "example-headline": example_headline}
FILES = (ROOT / "README.md", ROOT / "docs" / "user_guide.md")
MODEL_FILES = (ROOT / "docs" / "model.md",)   # the speculative-decoding gain table


def rewrite(text: str) -> str:
    """`text` with every generated block's inside made anew."""
    for name, make in BLOCKS.items():
        pattern = re.compile(rf"(<!-- gen:{name} -->)(.*?)(<!-- /gen:{name} -->)", re.S)
        if pattern.search(text):
            inside = make()
            inline = "\n" not in inside
            text = pattern.sub(lambda m: m.group(1) + (inside if inline else f"\n{inside}\n") + m.group(3), text)
    return text
