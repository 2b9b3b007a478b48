#include "wb/timing.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <sstream>
#include <stdexcept>

#include "wb/cuda_check.hpp"
#include "wb/device.hpp"
#include "wb/speed.hpp"

namespace wb {
#ifndef WB_EMU
namespace detail {
void hold_gpu(double microseconds);  // hold.cu: one thread that waits that long on the GPU
}
#endif
namespace {

// How long the GPU is kept busy before each sample's start event: longer than the host takes to
// enqueue a contender's first launch (a few microseconds for a kernel, tens through libtorch's
// dispatcher and autograd), so the sample starts with the work already queued, as it is in a
// pipeline where the host runs ahead, and times the GPU's work, not the host's launch latency.
constexpr double kHoldMicroseconds = 200;

// Writing a buffer twice the L2's size evicts whatever the previous sample left there, so every
// sample reads its inputs from device memory, as a kernel in a real pipeline would.
class L2Flusher {
 public:
  L2Flusher() {
    int l2 = 0;
    WB_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    bytes_ = std::max<std::size_t>(2 * static_cast<std::size_t>(l2), 1 << 20);
    WB_CUDA_CHECK(cudaMalloc(&buf_, bytes_));
  }
  ~L2Flusher() { cudaFree(buf_); }
  void flush() { WB_CUDA_CHECK(cudaMemsetAsync(buf_, 0, bytes_)); }

 private:
  void* buf_ = nullptr;
  std::size_t bytes_ = 0;
};

struct Events {
  cudaEvent_t start{}, stop{};
  Events() {
    WB_CUDA_CHECK(cudaEventCreate(&start));
    WB_CUDA_CHECK(cudaEventCreate(&stop));
  }
  ~Events() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
};

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double pos = q * (v.size() - 1);
  const std::size_t lo = static_cast<std::size_t>(pos);
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (pos - lo) * (v[hi] - v[lo]);
}

double rse(const std::vector<double>& v) {
  if (v.size() < 2) return 1.0;
  const double mean = std::accumulate(v.begin(), v.end(), 0.0) / v.size();
  double ss = 0;
  for (double x : v) ss += (x - mean) * (x - mean);
  const double sd = std::sqrt(ss / (v.size() - 1));
  return mean > 0 ? sd / std::sqrt(double(v.size())) / mean : 1.0;
}

}  // namespace

std::vector<Timing> time_interleaved(const std::vector<Timed>& contenders, double bytes, const TimingOptions& options) {
  TimingOptions o = options;
  if (const char* env = std::getenv("WB_TIMING_BUDGET_S")) {  // e.g. a test suite that only needs the checks
    const double b = std::atof(env);
    if (b > 0) o.budget_s = b;
  }
  if (cpu_backend()) throw std::logic_error("time_interleaved: the CPU backend has no meaningful timings");
  L2Flusher l2;
  Events ev;
  const std::size_t k = contenders.size();
  std::vector<std::vector<double>> samples(k);

  auto sample = [&](std::size_t i) {
    l2.flush();
#ifndef WB_EMU
    detail::hold_gpu(kHoldMicroseconds);
#endif
    //! [check after launch]
    WB_CUDA_CHECK(cudaEventRecord(ev.start));
    contenders[i].run();
    WB_CUDA_CHECK(cudaGetLastError());
    WB_CUDA_CHECK(cudaEventRecord(ev.stop));
    WB_CUDA_CHECK(cudaEventSynchronize(ev.stop));
    //! [check after launch]
    float ms = 0;
    WB_CUDA_CHECK(cudaEventElapsedTime(&ms, ev.start, ev.stop));
    return double(ms);
  };

  for (int w = 0; w < o.warmup; ++w)
    for (std::size_t i = 0; i < k; ++i) sample(i);

  const auto t0 = std::chrono::steady_clock::now();
  for (int round = 0; round < o.max_samples; ++round) {
    for (std::size_t j = 0; j < k; ++j) {
      const std::size_t i = (round % 2) ? k - 1 - j : j;  // alternate the order: no one always goes first
      samples[i].push_back(sample(i));
    }
    if (round + 1 < o.min_samples) continue;
    bool stable = true;
    for (const auto& s : samples) stable = stable && rse(s) <= o.target_rse;
    const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (stable || spent > o.budget_s) break;
  }

  const double peak = peak_bandwidth_gbps();
  std::vector<Timing> out;
  for (std::size_t i = 0; i < k; ++i) {
    Timing t;
    t.name = contenders[i].name;
    t.samples = static_cast<int>(samples[i].size());
    t.median_ms = quantile(samples[i], 0.5);
    t.q1_ms = quantile(samples[i], 0.25);
    t.q3_ms = quantile(samples[i], 0.75);
    t.rse = rse(samples[i]);
    t.gbps = (contenders[i].bytes > 0 ? contenders[i].bytes : bytes) / (t.median_ms * 1e-3) / 1e9;
    t.pct_peak = peak > 0 ? 100.0 * t.gbps / peak : 0.0;
    out.push_back(t);
  }
  return out;
}

const Timing& timing_of(const std::vector<Timing>& timings, const std::string& name) {
  for (const auto& t : timings)
    if (t.name == name) return t;
  throw std::out_of_range("no timing named " + name);
}

std::string format_timings(const std::string& title, const std::vector<Timing>& timings, const std::string& reference) {
  return format_speed_table(title, timings, reference, memory_bound(0), device_peaks(), device_name());
}

}  // namespace wb
