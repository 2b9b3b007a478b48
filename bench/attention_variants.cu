// Developer benchmark (CUDA backend only): queries per block of exercise x11's fused attention
// (the solution's own kernel template) against PyTorch's scaled_dot_product_attention, for
// d = 64 and 128.
//   build/gpu/bench/bench-attention-variants (WB_BENCH_N=<n>; a Catch2 program on the graders' main)
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "../solutions/exercises/11-attention/attention.cu"
#include "wb/grader.hpp"
#include "wb/library_anchors.hpp"

namespace {

template <int kD, int kR>
wb::Timed variant(const float* q, const float* k, const float* v, float* o, int n) {
  return {"d = " + std::to_string(kD) + ", " + std::to_string(16 * kR) + " queries per block", [=] {
            const int blocks = (n + 16 * kR - 1) / (16 * kR);
            solution::attention_kernel<kD, kR><<<blocks, 128>>>(q, k, v, o, n, 1.4426950408889634f / std::sqrt(float(kD)));
          }};
}

}  // namespace

TEST_CASE("queries per block against PyTorch", "[bench]") {
  WB_REQUIRE_GPU("a benchmark times a GPU");
  const char* env = std::getenv("WB_BENCH_N");
  const int n = env ? std::atoi(env) : 8192;
  for (int d : {64, 128}) {
    const std::size_t size = std::size_t(n) * d;
    wb::DeviceBuffer<float> q(wb::random_floats(size, -1, 1, 1)), k(wb::random_floats(size, -1, 1, 2)),
        v(wb::random_floats(size, 0.5f, 2.5f, 3)), o(size);
    std::vector<wb::Timed> c;
    if (d == 64) {
      c = {variant<64, 1>(q.data(), k.data(), v.data(), o.data(), n), variant<64, 2>(q.data(), k.data(), v.data(), o.data(), n),
           variant<64, 4>(q.data(), k.data(), v.data(), o.data(), n)};
    } else {
      c = {variant<128, 1>(q.data(), k.data(), v.data(), o.data(), n),
           variant<128, 2>(q.data(), k.data(), v.data(), o.data(), n)};
    }
    if (wb::anchors::torch_available())
      c.push_back({"PyTorch scaled_dot_product_attention",
                   [&] { wb::anchors::torch_attention(q.data(), k.data(), v.data(), o.data(), n, d); }});
    wb::TimingOptions opt;
    opt.budget_s = 20;
    opt.max_samples = 60;
    const wb::Work work = wb::fp32_bound(4.0 * n * double(n) * d, 4.0 * sizeof(float) * size);
    const auto t = wb::time_interleaved(c, work.bytes, opt);
    std::cout << wb::format_speed_table("attention, n = " + std::to_string(n) + ", d = " + std::to_string(d), t,
                                        c.front().name, work, wb::device_peaks(), wb::device_name());
  }
}
