"""Developer benchmark: PyTorch's own kernels for the chapters' work, timed like the graders
(CUDA events, L2 flushed and the GPU kept busy before every sample, median), for the lessons'
tables.

    python3 bench/torch_anchors.py
"""
import statistics

import torch


def median_ms(fn, samples=50, hold=True):
    """Median of `samples` event-timed calls of fn, L2 flushed before each; with `hold`, the GPU
    is kept busy while the host enqueues fn, as the graders do (then launch latency is not timed)."""
    flush = torch.empty(256 * 1024 * 1024 // 4, dtype=torch.float32, device="cuda")
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(3):
        fn()
    times = []
    for _ in range(samples):
        flush.zero_()
        if hold:
            torch.cuda._sleep(400_000)  # about 200 us of GPU time
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def report(name, ms, nbytes):
    print(f"  {name:38s} {ms:8.4f} ms {nbytes / ms / 1e6:8.0f} GB/s")


def main():
    print(f"PyTorch {torch.__version__} on {torch.cuda.get_device_name()}")
    n = 1 << 28
    x = torch.rand(n, device="cuda") + 0.5
    y = torch.rand(n, device="cuda") + 0.5
    out = torch.empty_like(x)
    report("torch.add(out=) 2^28 floats", median_ms(lambda: torch.add(x, y, out=out)), 12 * n)
    report("y.add_(x) 2^28 floats", median_ms(lambda: y.add_(x)), 12 * n)
    s = torch.empty((), device="cuda")
    report("torch.sum(out=) 2^28 floats", median_ms(lambda: torch.sum(x, 0, out=s)), 4 * n)
    m = x[: 8192 * 8192].view(8192, 8192)
    t = torch.empty_like(m)
    report("8192x8192 .t().contiguous()", median_ms(lambda: m.t().contiguous()), 8 * 8192 * 8192)
    report("8192x8192 copy_(m.t())", median_ms(lambda: t.copy_(m.t())), 8 * 8192 * 8192)
    report("copy 2^28 floats", median_ms(lambda: out.copy_(x)), 8 * n)


if __name__ == "__main__":
    main()
