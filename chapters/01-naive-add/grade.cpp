// Chapter 01's grader: student::naive_add against a host reference, then (on a GPU) against the
// solution's speed. Run it through `bash cmake/workbook.sh grade 01`.
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "naive_add.cuh"
#include "wb/grader.hpp"

namespace {

using AddFn = void (*)(const float*, const float*, float*, int, int);

// ---- CPU reference ----
std::vector<double> add_reference(const std::vector<float>& a, const std::vector<float>& b) {
  std::vector<double> c(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) c[i] = static_cast<float>(a[i] + b[i]);  // one float rounding
  return c;
}

// Inputs with a non-zero mean, so an element that is dropped or doubled always shows.
struct Inputs {
  std::vector<float> a, b;
  explicit Inputs(int n) : a(wb::random_floats(n, 1.0f, 2.0f, 2 * n)), b(wb::random_floats(n, 0.25f, 0.75f, 2 * n + 1)) {}
};

// Runs `add` once on fresh buffers and checks c, the guard zones, and that a and b are untouched.
wb::Comparison run_case(AddFn add, int n, int threads) {
  const Inputs in(n);
  wb::DeviceBuffer<float> a(in.a), b(in.b), c(n);
  c.poison();
  {
    wb::Watchdog dog("naive_add (n = " + std::to_string(n) + ")");
    add(a.data(), b.data(), c.data(), n, threads);
    WB_CUDA_CHECK(cudaGetLastError());
    WB_CUDA_CHECK(cudaDeviceSynchronize());
  }
  wb::CompareOptions opt;
  opt.array = "c";
  opt.block_size = threads;
  wb::Comparison result = wb::compare(add_reference(in.a, in.b), c, opt);
  if (result.ok()) result = wb::compare_unchanged(in.a, a, "a", "c");
  if (result.ok()) result = wb::compare_unchanged(in.b, b, "b", "c");
  result.context = "n = " + std::to_string(n) + ", " + std::to_string(threads) + " threads per block";
  return result;
}

}  // namespace

TEST_CASE("c = a + b for sizes around the block size, primes and about a million", "[01][correctness]") {
  WB_REQUIRE_DEVICE();
  const int n = GENERATE(1, 31, 32, 33, 255, 256, 257, 1000, 1021, 65'537, 1'000'003);
  CAPTURE(n);
  //! [require match]
  WB_REQUIRE_MATCH(run_case(student::naive_add, n, 256));
  //! [require match]
}

TEST_CASE("an empty array (n = 0) is not an error", "[01][correctness]") {
  WB_REQUIRE_DEVICE();
  WB_REQUIRE_MATCH(run_case(student::naive_add, 0, 256));
}

TEST_CASE("c = a + b for block sizes from 32 to 1024", "[01][correctness]") {
  WB_REQUIRE_DEVICE();
  const int threads = GENERATE(32, 64, 100, 128, 255, 512, 1000, 1024);
  CAPTURE(threads);
  WB_REQUIRE_MATCH(run_case(student::naive_add, 100'003, threads));
}

TEST_CASE("c = a + b for a large array", "[01][correctness]") {
  WB_REQUIRE_DEVICE();
  // The CPU backend runs every thread one after another: 2^24 elements take it a second or so.
  const int n = wb::cpu_backend() ? (1 << 24) + 7 : (1 << 28) + 7;
  WB_REQUIRE_MATCH(run_case(student::naive_add, n, 256));
}

TEST_CASE("speed against the solution", "[01][timing]") {
  WB_REQUIRE_GPU("timings of the CPU backend say nothing about a GPU");
  const int n = 1 << 28;
  const int threads = 256;
  const Inputs in(n);
  wb::DeviceBuffer<float> a(in.a), b(in.b), c(n);
  const std::vector<wb::Timing> t = wb::time_interleaved(
      {{"your naive_add", [&] { student::naive_add(a.data(), b.data(), c.data(), n, threads); }},
       {"solution", [&] { solution::naive_add(a.data(), b.data(), c.data(), n, threads); }}},
      3.0 * sizeof(float) * n);
  std::cout << wb::format_timings("naive add, 2^28 floats, 256 threads per block", t, "solution");
  // The timing runs must not have broken anything: check the result once more.
  c.poison();
  student::naive_add(a.data(), b.data(), c.data(), n, threads);
  WB_CUDA_CHECK(cudaGetLastError());
  WB_CUDA_CHECK(cudaDeviceSynchronize());
  wb::CompareOptions opt;
  opt.array = "c";
  opt.block_size = threads;
  wb::Comparison again = wb::compare(add_reference(in.a, in.b), c, opt);
  again.context = "after timing, n = 2^28";
  WB_REQUIRE_MATCH(again);
  const wb::Timing& yours = wb::timing_of(t, "your naive_add");
  const wb::Timing& sol = wb::timing_of(t, "solution");
  char detail[128];
  std::snprintf(detail, sizeof detail, "2^28 floats: %.0f GB/s, %.0f%% of peak", yours.gbps, yours.pct_peak);
  wb::note_speed({sol.median_ms / yours.median_ms, 0.0, detail});
}
