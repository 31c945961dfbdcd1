"""Number formats: storage bytes per value (with block-scale overhead) and the math precision used.

Bytes per value, scale overhead included:
- bf16: 2 B.
- fp8: 1 B (per-tensor / per-channel scales are negligible).
- mxfp4 (OCP Microscaling): 4-bit E2M1 values + one 8-bit E8M0 scale per block of 32
  -> (32 x 4 + 8) / 32 / 8 = 0.53125 B.
- nvfp4 (NVIDIA): 4-bit E2M1 values + one FP8 E4M3 scale per block of 16
  -> (16 x 4 + 8) / 16 / 8 = 0.5625 B (the per-tensor FP32 scale is negligible).

Math: an FP4 format runs on FP4 tensor cores only where `peak_tflops_fp4 > 0` and the device's
`fp4_formats` lists it (empty: every FP4 format), at the FP8 peak where the device lists it in
`fp4_w4a8_formats` (the stacks pair those weights with 8-bit activations: MXFP4 on Blackwell runs as
MXFP8 x MXFP4 in TensorRT-LLM; the tensor cores' mixed FP8 x FP4 rate is the FP8 one; NVFP4 runs FP4
x FP4 at the FP4 peak); elsewhere the weights
are dequantized in the GEMM and the math runs at BF16 with BF16 activations (W4A16): that is how
the serving stacks run 4-bit checkpoints on parts without FP4 math (TensorRT-LLM's gpt-oss MoE
backend matrix: H200 = BF16 activations x MXFP4 weights, Triton kernels; Blackwell = MXFP8 x MXFP4,
https://nvidia.github.io/TensorRT-LLM/1.2.0rc2.post2/deployment-guide/deployment-guide-for-gpt-oss-on-trtllm.html).
The dequantization's cost is that slower math; the conversion work inside the kernel is not
modelled on its own. FP8 without FP8 math likewise runs at BF16. Storage (and so memory traffic and
capacity) keeps the stored format.

What the serving search may try on a device (`supported_weight_precisions`, `supported_kv_precisions`):
bf16; fp8 where the device has FP8 math; an FP4 format as weights where its math runs it natively
(NVIDIA Blackwell: nvfp4 and mxfp4; AMD CDNA4: mxfp4) or where the device lists it as weight-only
(`fp4_weight_only_formats`: mxfp4 on Hopper, dequantized W4A16); an FP4 KV cache only where a named
serving stack supports it on the device (`fp4_kv_formats`, sourced in the catalog: NVFP4 on Blackwell
in TensorRT-LLM) and the FP4 math runs that format.
"""
from __future__ import annotations

import numpy as np

BYTES_PER_VALUE: dict[str, float] = {
    "bf16": 2.0,
    "fp8": 1.0,
    "mxfp4": (32 * 4 + 8) / 32 / 8,
    "nvfp4": (16 * 4 + 8) / 16 / 8,
}
FP4_FORMATS = ("mxfp4", "nvfp4")
ACTIVATION_BYTES = 2.0  # activations exchanged between devices (all-reduce, all-to-all) in BF16


def bytes_per_value(precision: str) -> float:
    """Storage bytes per value of `precision`, block-scale overhead included (B)."""
    try:
        return BYTES_PER_VALUE[precision]
    except KeyError:
        raise ValueError(f"unknown precision {precision!r}: one of {', '.join(BYTES_PER_VALUE)}") from None


def _formats(text) -> tuple[str, ...]:
    return tuple(p.strip().lower() for p in str(text or "").split(";") if p.strip())


def native_fp4_formats(device) -> tuple[str, ...]:
    """The FP4 formats `device`'s math runs natively: its `fp4_formats` (empty: every FP4 format)
    where peak_tflops_fp4 > 0; none without FP4 math."""
    if not device.peak_tflops_fp4 > 0:
        return ()
    listed = _formats(getattr(device, "fp4_formats", ""))
    return tuple(f for f in FP4_FORMATS if f in listed) if listed else FP4_FORMATS


def supported_weight_precisions(device) -> tuple[str, ...]:
    """Weight precisions the serving stacks run on `device` (see module docstring)."""
    weight_only = _formats(getattr(device, "fp4_weight_only_formats", ""))
    fp4 = tuple(f for f in FP4_FORMATS if f in native_fp4_formats(device) or f in weight_only)
    return ("bf16",) + (("fp8",) if device.peak_tflops_fp8 > 0 else ()) + fp4


def supported_kv_precisions(device) -> tuple[str, ...]:
    """KV-cache precisions a serving stack runs on `device`: bf16, fp8 with FP8 math, an FP4 format
    only where the device lists it in `fp4_kv_formats` (a named stack supports it there) and its FP4
    math runs it."""
    listed = _formats(getattr(device, "fp4_kv_formats", ""))
    fp4 = tuple(f for f in native_fp4_formats(device) if f in listed)
    return ("bf16",) + (("fp8",) if device.peak_tflops_fp8 > 0 else ()) + fp4


def math_precision(device, precision: str) -> str:
    """The precision the matrix math runs at on `device`: "fp4", "fp8" or "bf16"."""
    bytes_per_value(precision)
    if precision in FP4_FORMATS:
        if precision in _formats(getattr(device, "fp4_w4a8_formats", "")) and device.peak_tflops_fp8 > 0:
            return "fp8"  # W4A8: the stacks pair these weights with 8-bit activations (MXFP8 x MXFP4)
        return "fp4" if precision in native_fp4_formats(device) else "bf16"  # W4A16 without that FP4 math
    if precision == "fp8" and device.peak_tflops_fp8 > 0:
        return "fp8"
    return "bf16"


def is_weight_only(device, precision: str) -> bool:
    """Whether `precision` weights are 4-bit values dequantized in the GEMM on `device` (W4A16): an
    FP4 format the device's math does not run (neither FP4 x FP4 nor with 8-bit activations)."""
    return precision in FP4_FORMATS and math_precision(device, precision) == "bf16"


def peak_flops(device, precision: str, fp4_math_efficiency=1.0, values=None):
    """Dense peak of the math precision used for `precision` weights on `device` (FLOP/s).

    FP4 math is derated by `fp4_math_efficiency` (EfficiencyFactors): the achieved FP4/FP8 speedup
    falls short of the peak ratio, as quantization, scales and non-GEMM work do not speed up.
    `values`: the device whose peak TFLOPS are read (default `device`, which picks the math precision);
    Monte Carlo passes one holding arrays over draws, and gets an array.
    """
    math = math_precision(device, precision)
    values = device if values is None else values
    tflops = {"fp4": values.peak_tflops_fp4, "fp8": values.peak_tflops_fp8, "bf16": values.peak_tflops_bf16}[math]
    peak = np.asarray(tflops, float) * 1e12 * (fp4_math_efficiency if math == "fp4" else 1.0)
    return float(peak) if peak.ndim == 0 else peak


def attention_peak_flops(device, kv_precision: str, values=None):
    """Peak of the attention math (FLOP/s): at the KV cache's precision, FP8 at the lowest (FP4 KV
    caches are dequantized to FP8 for the math). `values` as in `peak_flops`."""
    return peak_flops(device, "bf16" if kv_precision == "bf16" else "fp8", 1.0, values)


def precision_note(device, precision: str) -> str | None:
    """A note when the weights are dequantized for the math (None when math runs natively)."""
    math = math_precision(device, precision)
    native = {"mxfp4": "fp4", "nvfp4": "fp4", "fp8": "fp8", "bf16": "bf16"}[precision]
    if math == native:
        return None
    return f"{device.name} has no {native.upper()} math: {precision} weights are dequantized, math runs at {math.upper()}"
