// Developer benchmark (CUDA backend only): configurations of exercise x01's privatised histogram
// (the solution's own kernel template) against cub::DeviceHistogram::HistogramEven, on uniform
// random bytes and on bytes that all fall into one bin (every atomic on one address).
//   build/gpu/bench/bench-histogram-variants (WB_BENCH_LOG2N=<log2 n>; a Catch2 program on the graders' main)
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "../solutions/exercises/01-histogram/histogram.cu"
#include "wb/grader.hpp"
#include "wb/buffer.hpp"
#include "wb/device.hpp"
#include "wb/library_anchors.hpp"
#include "wb/timing.hpp"

namespace {

// Bytes from a hash of the index (uniform), or all `same` when same >= 0.
__global__ void fill_bytes(std::uint8_t* p, std::int64_t n, int same) {
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += std::int64_t(blockDim.x) * gridDim.x) {
    std::uint64_t x = std::uint64_t(i) * 0x9E3779B97F4A7C15ull;
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 32;
    p[i] = same >= 0 ? std::uint8_t(same) : std::uint8_t(x);
  }
}

template <int kThreads, int kCopies, int kUnroll, int kBlocksPerSm>
wb::Timed variant(const std::uint8_t* in, std::int64_t n, unsigned int* hist) {
  return {std::to_string(kThreads) + " thr, " + std::to_string(kCopies) + " copies, x" + std::to_string(kUnroll) +
              ", " + std::to_string(kBlocksPerSm) + " blk/SM",
          [=] { solution::histogram_privatised<kThreads, kCopies, kUnroll, kBlocksPerSm>(in, n, hist); }};
}

}  // namespace

TEST_CASE("variants against the library", "[bench]") {
  WB_REQUIRE_GPU("a benchmark times a GPU");
  const char* env = std::getenv("WB_BENCH_LOG2N");
  const int log2n = env ? std::atoi(env) : 30;
  const std::int64_t n = std::int64_t(1) << log2n;
  wb::DeviceBuffer<std::uint8_t> in(n);
  wb::DeviceBuffer<unsigned int> hist(kHistogramBins);
  const std::uint8_t* x = in.data();
  unsigned int* h = hist.data();
  for (int same : {-1, 17}) {
    fill_bytes<<<1024, 256>>>(in.data(), n, same);
    WB_CUDA_CHECK(cudaGetLastError());
    WB_CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<wb::Timed> v{
        variant<512, 4, 2, 4>(x, n, h),  variant<256, 1, 2, 8>(x, n, h),  variant<256, 2, 2, 8>(x, n, h),
        variant<256, 4, 2, 8>(x, n, h),  variant<256, 8, 2, 8>(x, n, h),  variant<512, 1, 2, 4>(x, n, h),
        variant<512, 8, 2, 4>(x, n, h),  variant<512, 4, 1, 4>(x, n, h),  variant<512, 4, 4, 4>(x, n, h),
        variant<1024, 8, 2, 2>(x, n, h), variant<1024, 16, 2, 2>(x, n, h), variant<512, 4, 2, 2>(x, n, h),
        {"cub::DeviceHistogram::HistogramEven", [=] { wb::anchors::cub_histogram_bytes(x, n, h); }}};
    wb::TimingOptions o;
    o.budget_s = 20;
    o.max_samples = 60;
    const auto t = wb::time_interleaved(v, double(n), o);
    std::cout << wb::format_timings(std::string("histogram of 2^") + std::to_string(log2n) +
                                        (same < 0 ? " uniform random bytes" : " bytes, all 17"),
                                    t, "cub::DeviceHistogram::HistogramEven");
  }
}
