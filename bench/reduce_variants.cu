// Developer benchmark (CUDA backend only): configurations of chapter 04's float4 + shuffle
// reduction (the solution's own kernel template), against cub::DeviceReduce::Sum.
//   build/gpu/bench/bench-reduce-variants (WB_BENCH_LOG2N=<log2 n>, default 28; a Catch2 program on the graders' main)
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "../solutions/04-reduction/reduce.cu"
#include "wb/anchors.hpp"
#include "wb/buffer.hpp"
#include "wb/device.hpp"
#include "wb/grader.hpp"
#include "wb/timing.hpp"

namespace {

template <int kThreads, int kUnroll, int kBlocksPerSm>
wb::Timed variant(const float* in, float* sum, std::int64_t n) {
  return {std::to_string(kThreads) + " thr, x" + std::to_string(kUnroll) + ", " + std::to_string(kBlocksPerSm) + " blk/SM",
          [=] { solution::reduce_sum_float4<kThreads, kUnroll, kBlocksPerSm>(in, sum, n); }};
}

}  // namespace

TEST_CASE("variants against the library", "[bench]") {
  WB_REQUIRE_GPU("a benchmark times a GPU");
  const char* env = std::getenv("WB_BENCH_LOG2N");
  const int log2n = env ? std::atoi(env) : 28;
  const std::int64_t n = std::int64_t(1) << log2n;
  wb::DeviceBuffer<float> in(n), sum(1), dst(n);
  WB_CUDA_CHECK(cudaMemset(in.data(), 0, n * sizeof(float)));
  const float* x = in.data();
  float* s = sum.data();
  const std::vector<wb::Timed> v{
      variant<256, 1, 8>(x, s, n),  variant<256, 2, 8>(x, s, n),  variant<256, 4, 8>(x, s, n),
      variant<256, 8, 8>(x, s, n),  variant<256, 4, 4>(x, s, n),  variant<512, 4, 4>(x, s, n),
      variant<512, 2, 4>(x, s, n),  variant<1024, 2, 2>(x, s, n), variant<128, 4, 16>(x, s, n),
      variant<256, 4, 16>(x, s, n), variant<256, 2, 32>(x, s, n),
      {"tree, 256 threads", [=] { solution::reduce_sum_launch(x, s, n, 256); }},
      {"cub::DeviceReduce::Sum", [=] { wb::anchors::cub_reduce_sum(x, s, n); }},
      {"device-to-device copy", [&] { wb::anchors::device_copy(x, dst.data(), n); }, 8.0 * n}};
  wb::TimingOptions o;
  o.budget_s = 20;
  o.max_samples = 60;
  const auto t = wb::time_interleaved(v, 4.0 * n, o);
  std::cout << wb::format_timings("sum of 2^" + std::to_string(log2n) + " floats", t, "cub::DeviceReduce::Sum");
}
