"""Developer benchmark: torch.compile (Inductor) of the exercises' operations, at each grader's
timing size, timed like the graders (CUDA events, L2 flushed and the GPU kept busy before every
sample, median; bench/torch_anchors.py's median_ms), beside eager PyTorch running the same ops.
The C++ graders cannot call torch.compile (libtorch has no Inductor), so the exercises' tables
get their torch.compile rows from here. Each op is the one its exercise's contract states
(exercises/NN-name/README.md), on inputs drawn as its grader draws them:

  x04-softmax      8192 x 8192     out = softmax(in, dim=1)                               8 bytes/element
  x05-layernorm    8192 x 8192     mean, rstd = 1/sqrt(var + 1e-5) (var over cols),
                                   y = (x - mean) * rstd * gamma + beta                   8 bytes/element
  x07-warp-reduce  65536 x 1024    row_max = amax(in, 1), row_sum = sum(in, 1),
                                   out = in - row_max                                     8 bytes/element
  x09-stencil      8192 x 8192     out = 0.5 in + 0.125 (4 neighbours), 0 outside         8 bytes/element
  x13-bias-gelu    65536 x 4096    out = resid + 0.75 gelu(x + bias), the exact GELU     12 bytes/element
  x16-int8-quant   16384 x 16384   y = (W.float() * scale[:, None]) @ x, W int8             1 byte/weight
                   16384 x 16384   q, scale = per-row absmax int8 quantization             5 bytes/element

Every op prints one JSON line: exercise, op, size, the bytes the op must move, the compiled and
the eager median (ms) and GB/s, and the largest difference between the compiled and the eager
result (a check that both computed the same thing).

    python3 bench/torch_compile.py                    # every op, on the GPU
    python3 bench/torch_compile.py x13 x04            # only those exercises
    python3 bench/torch_compile.py --mode max-autotune-no-cudagraphs
    python3 bench/torch_compile.py --smoke            # tiny sizes on the CPU: checks the script runs
"""
import argparse
import json
import math
import statistics
import sys
import time

import torch
import torch.nn.functional as F

from torch_anchors import median_ms  # this script's folder is on sys.path when run as a script

EPS = 1e-5       # x05's eps (torch.nn.LayerNorm's default)
CENTER, SIDE = 0.5, 0.125  # x09's timing weights
SCALE = 0.75     # x13's timing scale


# ---- the operations, as the exercises' contracts state them ----
def softmax(x):
    return torch.softmax(x, dim=1)


def layernorm(x, gamma, beta):
    mean = x.mean(dim=1, keepdim=True)
    var = (x - mean).square().mean(dim=1, keepdim=True)  # divided by cols, as x05's contract
    rstd = torch.rsqrt(var + EPS)
    return (x - mean) * rstd * gamma + beta, mean.squeeze(1), rstd.squeeze(1)


def row_max_sum(x):
    row_max = torch.amax(x, dim=1)
    return row_max, torch.sum(x, dim=1), x - row_max[:, None]


def stencil5(x):
    p = F.pad(x, (1, 1, 1, 1))  # 0 outside the grid
    return CENTER * x + SIDE * (p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:])


def bias_gelu_residual(x, bias, resid):
    return resid + SCALE * F.gelu(x + bias)  # approximate='none': the exact GELU


def int8_gemv(w, scale, x):
    return (w.float() * scale[:, None]) @ x


def quantize_rows(x):
    m = x.abs().amax(dim=1, keepdim=True)  # no clip (x16's timing case)
    scale = m / 127
    q = torch.where(m > 0, torch.round(x / scale).clamp(-127, 127), torch.zeros_like(x))
    return q.to(torch.int8), scale.squeeze(1)


# ---- inputs, as the graders draw them (uniform in the same ranges) ----
def uniform(shape, lo, hi, device):
    return torch.rand(shape, device=device) * (hi - lo) + lo


def cases(device, smoke):
    def size(rows, cols):
        return (max(rows // 256, 8), max(cols // 256, 8)) if smoke else (rows, cols)

    r, c = size(8192, 8192)
    yield "x04-softmax", "softmax", (r, c), 8 * r * c, softmax, lambda: (uniform((r, c), -4, 4, device),)
    yield ("x05-layernorm", "layer norm (y, mean, rstd)", (r, c), 8 * r * c + 8 * r, layernorm,
           lambda: (uniform((r, c), -3, 5, device), uniform((c,), -1, 1, device), uniform((c,), -1, 1, device)))
    r7, c7 = size(65536, 1024)
    yield ("x07-warp-reduce", "row amax + sum + sub", (r7, c7), 8 * r7 * c7 + 8 * r7, row_max_sum,
           lambda: (uniform((r7, c7), -1, 3, device),))
    yield "x09-stencil", "5-point stencil", (r, c), 8 * r * c, stencil5, lambda: (uniform((r, c), -1, 3, device),)
    r13, c13 = size(65536, 4096)
    yield ("x13-bias-gelu", "resid + scale * gelu(x + bias)", (r13, c13), 12 * r13 * c13 + 4 * c13,
           bias_gelu_residual,
           lambda: (uniform((r13, c13), -4, 4, device), uniform((c13,), -1, 1, device),
                    uniform((r13, c13), 1, 3, device)))
    r16, c16 = size(16384, 16384)
    yield ("x16-int8-quant", "int8 GEMV (dequantize, then matmul)", (r16, c16), r16 * c16 + 4 * (2 * r16 + c16),
           int8_gemv, lambda: (torch.randint(-127, 128, (r16, c16), dtype=torch.int8, device=device),
                               uniform((r16,), 0.001, 0.05, device), uniform((c16,), -1, 3, device)))
    yield ("x16-int8-quant", "per-row absmax int8 quantization", (r16, c16), 5 * r16 * c16 + 4 * r16, quantize_rows,
           lambda: (uniform((r16, c16), -4, 4, device),))


def largest_difference(a, b):
    if isinstance(a, tuple):
        return max(largest_difference(p, q) for p, q in zip(a, b))
    return (a.double() - b.double()).abs().max().item() if a.numel() else 0.0


def cpu_ms(fn, samples=5):
    fn()
    times = []
    for _ in range(samples):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("only", nargs="*", help="exercise ids or prefixes (x13, x04-softmax); none: all")
    ap.add_argument("--mode", default="default", help="torch.compile mode (default: %(default)s)")
    ap.add_argument("--smoke", action="store_true", help="tiny sizes on the CPU: checks the script, times nothing useful")
    args = ap.parse_args()
    device = "cpu" if args.smoke else "cuda"
    if device == "cuda" and not torch.cuda.is_available():
        sys.exit("torch_compile.py: no CUDA device (use --smoke to check the script on the CPU)")
    torch.manual_seed(0)
    name = torch.cuda.get_device_name() if device == "cuda" else "CPU (smoke test)"
    for exercise, op, (rows, cols), nbytes, fn, make_inputs in cases(device, args.smoke):
        if args.only and not any(exercise.startswith(o) for o in args.only):
            continue
        inputs = make_inputs()
        compiled = torch.compile(fn, mode=args.mode)
        diff = largest_difference(compiled(*inputs), fn(*inputs))
        timer = (lambda f: median_ms(f)) if device == "cuda" else cpu_ms
        t_compiled = timer(lambda: compiled(*inputs))
        t_eager = timer(lambda: fn(*inputs))
        row = {
            "exercise": exercise, "op": op, "size": f"{rows} x {cols}", "bytes": nbytes,
            "compiled_ms": round(t_compiled, 4), "compiled_gbps": round(nbytes / t_compiled / 1e6),
            "eager_ms": round(t_eager, 4), "eager_gbps": round(nbytes / t_eager / 1e6),
            "max_abs_diff_compiled_vs_eager": diff if math.isfinite(diff) else str(diff),
            "mode": args.mode, "torch": torch.__version__, "device": name,
        }
        print(json.dumps(row), flush=True)
        del compiled, inputs
        if device == "cuda":
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
