// Developer benchmark (CUDA backend only): tile shapes of exercise x02's decoupled look-back scan
// (the solution's own kernel template) against cub::DeviceScan::InclusiveSum and a copy.
//   build/gpu/bench/bench-scan-variants (WB_BENCH_LOG2N=<log2 n>; a Catch2 program on the graders' main)
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "../solutions/exercises/02-scan/scan.cu"
#include "wb/anchors.hpp"
#include "wb/grader.hpp"
#include "wb/buffer.hpp"
#include "wb/device.hpp"
#include "wb/library_anchors.hpp"
#include "wb/timing.hpp"

namespace {

template <int kThreads, int kVecs>
wb::Timed variant(const float* in, float* out, std::int64_t n, wb::DeviceBuffer<unsigned char>& scratch) {
  void* s = scratch.data();
  return {std::to_string(kThreads) + " thr x " + std::to_string(kVecs) + " float4 (tile " +
              std::to_string(kThreads * 4 * kVecs) + ")",
          [=] { solution::scan_decoupled<kThreads, kVecs>(in, out, n, s); }};
}

}  // namespace

TEST_CASE("variants against the library", "[bench]") {
  WB_REQUIRE_GPU("a benchmark times a GPU");
  const char* env = std::getenv("WB_BENCH_LOG2N");
  const int log2n = env ? std::atoi(env) : 28;
  const std::int64_t n = std::int64_t(1) << log2n;
  wb::DeviceBuffer<float> in(n), out(n), dst(n);
  WB_CUDA_CHECK(cudaMemset(in.data(), 0, n * sizeof(float)));
  // the largest scratch any variant asks for: the smallest tile's
  wb::DeviceBuffer<unsigned char> scratch(solution::scratch_bytes_for<128, 2>(n));
  const float* x = in.data();
  float* y = out.data();
  const std::vector<wb::Timed> v{variant<256, 4>(x, y, n, scratch),  variant<128, 2>(x, y, n, scratch),
                                 variant<128, 4>(x, y, n, scratch),  variant<128, 8>(x, y, n, scratch),
                                 variant<256, 2>(x, y, n, scratch),  variant<256, 8>(x, y, n, scratch),
                                 variant<512, 2>(x, y, n, scratch),  variant<512, 4>(x, y, n, scratch),
                                 variant<1024, 2>(x, y, n, scratch),
                                 {"cub::DeviceScan::InclusiveSum", [=] { wb::anchors::cub_inclusive_sum(x, y, n); }},
                                 {"device-to-device copy", [&] { wb::anchors::device_copy(x, dst.data(), n); }}};
  wb::TimingOptions o;
  o.budget_s = 20;
  o.max_samples = 60;
  const auto t = wb::time_interleaved(v, 8.0 * double(n), o);
  std::cout << wb::format_timings("inclusive scan of 2^" + std::to_string(log2n) + " floats", t,
                                  "cub::DeviceScan::InclusiveSum");
}
