// emu-bench: emulated threads per second of the CPU backend, for a kernel without barriers and
// with 1 and 8 __syncthreads() per thread, built plain and instrumented. Per second of wall
// time, and per second of CPU time of the whole process (all workers together), which a shared
// machine's load disturbs much less: compare builds by the second figure.
//   emu-bench [--quick]      (WB_EMU_THREADS sets the worker threads)
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>

namespace bench_plain {
cudaError_t run(const float* in, float* out, int n, int threads, int barriers);
cudaError_t scan(const float* in, float* out, int n, float* scratch);
}
namespace bench_instr {
cudaError_t run(const float* in, float* out, int n, int threads, int barriers);
}

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  const int n = quick ? 1 << 14 : 1 << 22;
  float *in = nullptr, *out = nullptr;
  if (cudaMalloc(&in, n * sizeof(float)) != cudaSuccess || cudaMalloc(&out, n * sizeof(float)) != cudaSuccess) return 1;
  for (int i = 0; i < n; ++i) in[i] = static_cast<float>(i % 100);
  std::printf("CPU backend, %d worker threads, %d threads per launch, blocks of 256\n", wb_emu::worker_count(), n);
  std::printf("%-14s %-13s %16s %16s\n", "build", "barriers", "threads/s", "threads/CPU-s");
  using Run = cudaError_t (*)(const float*, float*, int, int, int);
  const struct {
    const char* name;
    Run run;
  } builds[] = {{"plain", bench_plain::run}, {"instrumented", bench_instr::run}};
  int status = 0;
  for (const auto& b : builds)
    for (int barriers : {0, 1, 8}) {
      if (b.run(in, out, n, 256, barriers) != cudaSuccess) status = 1;  // warm-up
      const auto t0 = std::chrono::steady_clock::now();
      const std::clock_t c0 = std::clock();
      int reps = 0;
      double seconds = 0;
      do {
        if (b.run(in, out, n, 256, barriers) != cudaSuccess) status = 1;
        ++reps;
        seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      } while (seconds < (quick ? 0.05 : 1.0));
      const double cpu_seconds = double(std::clock() - c0) / CLOCKS_PER_SEC;
      const bool right = out[5] == (barriers == 0 ? 2.0f * in[5] : in[6] + barriers);
      if (!right) status = 1;
      std::printf("%-14s %-13d %16.3g %16.3g%s\n", b.name, barriers, double(n) * reps / seconds,
                  double(n) * reps / cpu_seconds, right ? "" : "  WRONG RESULT");
    }
  // A whole program's worth: an inclusive scan of 2^24 floats (2^14 elements with --quick) in the
  // plain build, 20 barriers per thread; its wall time is what a learner waits for.
  {
    const int m = quick ? 1 << 14 : 1 << 24;
    float *a = nullptr, *b = nullptr, *scratch = nullptr;
    if (cudaMalloc(&a, m * sizeof(float)) != cudaSuccess || cudaMalloc(&b, m * sizeof(float)) != cudaSuccess ||
        cudaMalloc(&scratch, (2 * (m / 1024 + 1) + 64) * sizeof(float)) != cudaSuccess)
      return 1;
    for (int i = 0; i < m; ++i) a[i] = 0.5f * static_cast<float>(i % 2);  // every partial sum is exact in float
    const auto t0 = std::chrono::steady_clock::now();
    const std::clock_t c0 = std::clock();
    if (bench_plain::scan(a, b, m, scratch) != cudaSuccess) status = 1;
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double cpu = double(std::clock() - c0) / CLOCKS_PER_SEC;
    double want = 0;
    bool right = true;
    for (int i = 0; i < m && right; ++i) {
      want += a[i];
      right = b[i] == static_cast<float>(want);
    }
    if (!right) status = 1;
    std::printf("scan of %d floats (plain, 1024 threads per block): %.2f s wall, %.2f CPU-s%s\n", m, wall, cpu,
                right ? "" : "  WRONG RESULT");
    cudaFree(a);
    cudaFree(b);
    cudaFree(scratch);
  }
  cudaFree(in);
  cudaFree(out);
  return status;
}
