"""Developer benchmark: chapter 05's op (the solution, built as a library) against
torch.nn.functional.silu, forward + backward through autograd.

- GPU time, timed like the graders (CUDA events, L2 flushed, median), with and without the
  GPU kept busy before the start event (then the host's launch latency is not in the sample);
- host time per call for a small tensor, where the host's work is all there is;
- the kernels' own times, from torch.profiler.

    WB_OPS_LIBRARY=build/gpu/libworkbook_ops_05-autograd_cuda_solution.so python3 bench/silu_profile.py
"""
import os
import time

import torch
from torch.profiler import ProfilerActivity, profile

from torch_anchors import median_ms  # this script's folder is on sys.path when run as a script


def host_us(fn, calls=2000):
    for _ in range(50):
        fn()
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(calls):
        fn()
    host = (time.perf_counter() - t) / calls * 1e6
    torch.cuda.synchronize()
    return host


def main():
    torch.ops.load_library(os.environ["WB_OPS_LIBRARY"])
    ops = {"workbook.silu": torch.ops.workbook.silu, "F.silu": torch.nn.functional.silu}
    n = 1 << 28
    x = (torch.rand(n, device="cuda") * 10 - 6).requires_grad_(True)
    g = torch.rand(n, device="cuda") + 0.5
    xs = x.detach()[:4096].clone().requires_grad_(True)
    gs = g[:4096].clone()
    for name, op in ops.items():
        def fwd_bwd():
            torch.autograd.grad(op(x), x, g)

        def small():
            torch.autograd.grad(op(xs), xs, gs)

        print(f"{name:14s} 2^28 fwd+bwd: {median_ms(fwd_bwd, hold=False):.4f} ms (flush only), "
              f"{median_ms(fwd_bwd):.4f} ms (GPU held before start); "
              f"host time per fwd+bwd call at n = 4096: {host_us(small):.1f} us")
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(5):
                fwd_bwd()
            torch.cuda.synchronize()
        for e in prof.key_averages():
            if e.device_type == torch.autograd.DeviceType.CUDA and e.count:
                print(f"    kernel {e.key[:90]:90s} x{e.count}: {e.device_time_total / e.count / 1e3:.4f} ms")


if __name__ == "__main__":
    main()
