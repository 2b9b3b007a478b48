// Chapter 02's grader: student::add_inplace_launch under many launch configurations, then
// student::add_inplace (your own configuration) on awkward sizes and pointers, past 2^31
// elements on a GPU with the memory for it, and its speed against the solution and a library add.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "grid_stride_add.cuh"
#include "wb/alignment.hpp"
#include "wb/grader.hpp"

namespace {

// ---- CPU reference ----
// In float: y0 + x is one float rounding, so the result is exact and compared bit for bit.
std::vector<float> add_reference(const std::vector<float>& x, const std::vector<float>& y0) {
  std::vector<float> y(x.size());
  wb::parallel_ranges(x.size(), [&](std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last; ++i) y[i] = y0[i] + x[i];
  });
  return y;
}

// x in [1, 2) and y in [0.5, 1.5): non-zero, so (y - y0) / x says how many times each element
// was added to.
struct Inputs {
  std::vector<float> x, y0;
  explicit Inputs(std::int64_t n)
      : x(wb::random_floats(n, 1.0f, 2.0f, 3 * n)), y0(wb::random_floats(n, 0.5f, 1.5f, 3 * n + 1)) {}
};

// The chapter's own explanation: count how many times each element was added to. A grid-stride
// loop adds to every element exactly once; 0 means skipped, 2 or more means threads overlap.
std::string elements(std::int64_t k, const char* verb) {
  return std::to_string(k) + (k == 1 ? " element " : " elements ") + (k == 1 ? "was " : "were ") + verb;
}

void explain_counts(wb::Comparison& c, const Inputs& in, const std::vector<float>& y, std::int64_t grid_threads) {
  std::int64_t skipped = 0, repeated = 0, first_skipped = -1, first_repeated = -1, max_times = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    const double times = std::round((double(y[i]) - in.y0[i]) / in.x[i]);
    if (times == 0 && !skipped++) first_skipped = std::int64_t(i);
    if (times >= 2) {
      if (!repeated++) first_repeated = std::int64_t(i);
      max_times = std::max<std::int64_t>(max_times, std::int64_t(times));
    }
  }
  const std::int64_t n = std::int64_t(y.size());
  std::string s;
  if (skipped == n) {
    s = "no element of y was added to: the kernel did not run or its loop never ran";
    c.pattern = wb::Pattern::nothing_written;
  } else if (repeated) {
    s = elements(repeated, "added to more than once") + " (y[" + std::to_string(first_repeated) +
        "] up to " + std::to_string(max_times) + " times): threads overlap. Start at blockIdx.x * blockDim.x + "
        "threadIdx.x and step by blockDim.x * gridDim.x, the number of threads in the whole grid";
    if (skipped) s += "; and " + elements(skipped, "never added to") + " (first y[" + std::to_string(first_skipped) + "])";
    c.pattern = wb::Pattern::chapter_specific;
  } else if (skipped && grid_threads > 0 && first_skipped == grid_threads && skipped == n - grid_threads) {
    s = "only the first " + std::to_string(grid_threads) + " elements (one per thread of the grid) were added to: "
        "each thread must loop, stepping by blockDim.x * gridDim.x until i >= n";
    c.pattern = wb::Pattern::chapter_specific;
  } else if (skipped) {
    s = elements(skipped, "never added to") + " (first y[" + std::to_string(first_skipped) +
        "]): the loop skips or stops early";
    c.pattern = wb::Pattern::chapter_specific;
  } else {
    return;  // counts are right: the generic diagnosis stands (wrong values)
  }
  c.diagnosis = s;
}

// The configuration add_inplace_launch was given ({0, 0}: add_inplace, which picks its own).
struct Given {
  int blocks = 0, threads = 0;
};

// y += x on fresh buffers with `run`, then the chapter's checks: x untouched, the configuration
// honoured, then y. With `m`, x and y start as many floats past a 16-byte boundary as it says
// (their guard zones stay around them).
template <class Run>
wb::Comparison run_case(Run run, std::int64_t n, Given given, const std::string& context,
                        const wb::Misalignment& m = {}) {
  const Inputs in(n);
  wb::DeviceBuffer<float> x(in.x, m.guard("x")), y(in.y0, m.guard("y"));
  std::vector<wb::LaunchRecord> launches;
  {
    wb::LaunchLog log;
    wb::run_launch("add_inplace (" + context + ")", [&] { run(x.data(), y.data(), n); });
    launches = log.launches();
  }
  const std::vector<float> expected = add_reference(in.x, in.y0);
  wb::Comparison c = wb::inputs_unchanged<float>({{"x", in.x, x}}, "y", expected);
  if (c.ok() && given.threads > 0)
    c = wb::configuration_honoured(launches, "add_inplace_launch", given.blocks, given.threads);
  if (c.ok()) {
    wb::CompareOptions opt;
    opt.array = "y";
    c = wb::compare(expected, y, opt);
    if (!c.ok() && c.pattern != wb::Pattern::out_of_bounds)
      explain_counts(c, in, y.download(), std::int64_t(given.blocks) * given.threads);
  }
  c.context = context;
  return c;
}

std::string config(std::int64_t n, int blocks, int threads) {
  return "n = " + std::to_string(n) + ", " + std::to_string(blocks) + " blocks of " + std::to_string(threads) + " threads";
}

}  // namespace

TEST_CASE("y += x for any launch configuration", "[02][correctness]") {
  WB_REQUIRE_DEVICE();
  const auto [blocks, threads] = GENERATE(table<int, int>({{1, 32},
                                                           {1, 1024},
                                                           {3, 96},
                                                           {7, 256},
                                                           {13, 33},
                                                           {2, 1000},
                                                           {97, 128},
                                                           {4096, 256}}));  // more threads than elements
  const std::int64_t n = GENERATE(as<std::int64_t>{}, 1, 31, 33, 1000, 100'003);
  CAPTURE(n, blocks, threads);
  WB_REQUIRE_MATCH(run_case(
      [&](const float* x, float* y, std::int64_t m) { student::add_inplace_launch(x, y, m, blocks, threads); }, n,
      Given{blocks, threads}, config(n, blocks, threads)));
}

TEST_CASE("y += x with n = 0 changes nothing and launches nothing invalid", "[02][correctness]") {
  WB_REQUIRE_DEVICE();
  WB_REQUIRE_MATCH(run_case([](const float* x, float* y, std::int64_t m) { student::add_inplace(x, y, m); }, 0, {},
                            "n = 0, your configuration"));
}

TEST_CASE("y += x with your own launch configuration", "[02][correctness]") {
  WB_REQUIRE_DEVICE();
  const std::int64_t n = GENERATE(as<std::int64_t>{}, 1, 3, 33, 1000, 1'000'003);
  CAPTURE(n);
  WB_REQUIRE_MATCH(run_case([](const float* x, float* y, std::int64_t m) { student::add_inplace(x, y, m); }, n, {},
                            "n = " + std::to_string(n) + ", your configuration"));
}

TEST_CASE("y += x when x or y, or both, are not 16-byte aligned", "[02][correctness]") {
  WB_REQUIRE_DEVICE();
  const wb::Misalignment m = GENERATE(from_range(wb::misalignments({"x", "y"})));
  WB_REQUIRE_MATCH(run_case([](const float* x, float* y, std::int64_t k) { student::add_inplace(x, y, k); },
                            100'003, {}, "n = 100003, your configuration, " + m.context, m));
}

TEST_CASE("y += x for a large array with your own configuration", "[02][correctness]") {
  WB_REQUIRE_DEVICE();
  // On a GPU 2^26 (past a float index's 2^24) keeps the host's share short; 2^31 comes next.
  const std::int64_t n = wb::cpu_backend() ? (std::int64_t(1) << 24) + 3 : (std::int64_t(1) << 26) + 3;
  WB_REQUIRE_MATCH(run_case([](const float* x, float* y, std::int64_t m) { student::add_inplace(x, y, m); }, n, {},
                            "n = " + std::to_string(n) + ", your configuration"));
}

TEST_CASE("y += x past 2^31 elements: the index type must not overflow", "[02][correctness][large]") {
  WB_CHECK_ON_GPU_ONLY("elements past 2^31 (an int index that overflows): the CPU backend cannot run 2^31 elements; a "
                       "GPU grade checks them",
                       "2^31 elements need 16 GiB of device memory and hours of emulation");
  const std::int64_t n = (std::int64_t(1) << 31) + 4099;
  std::size_t free_bytes = 0, total = 0;
  WB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
  const std::size_t needed = 2 * n * sizeof(float) + (std::size_t(1) << 30);
  if (free_bytes < needed) {
    const std::string why = "elements past 2^31 (an int index that overflows): the device has " +
                            std::to_string(free_bytes >> 30) + " GiB free and the case needs " +
                            std::to_string((needed >> 30) + 1);
    wb::note_unchecked(why);
    SKIP("not checked: " + why);
  }
  const auto [label, run] = GENERATE(table<std::string, int>({{"add_inplace_launch, 8 blocks per SM of 256", 0},
                                                              {"add_inplace, your configuration", 1}}));
  CAPTURE(label);
  // The inputs repeat a short random pattern, spread on the device by doubling copies; the host
  // checks windows around the interesting indices (the start, 2^31, the end).
  const std::int64_t period = 4099;  // prime: the pattern does not line up with any block
  const Inputs pattern(period);
  wb::DeviceBuffer<float> x(n), y(n);
  for (auto [buf, host] : {std::pair{&x, &pattern.x}, std::pair{&y, &pattern.y0}}) {
    WB_CUDA_CHECK(cudaMemcpy(buf->data(), host->data(), period * sizeof(float), cudaMemcpyHostToDevice));
    for (std::int64_t filled = period; filled < n; filled *= 2) {
      const std::int64_t len = std::min(filled, n - filled);
      WB_CUDA_CHECK(cudaMemcpy(buf->data() + filled, buf->data(), len * sizeof(float), cudaMemcpyDeviceToDevice));
    }
  }
  const int sms = wb::multiprocessor_count();
  wb::run_launch("add_inplace past 2^31 (" + label + ")", [&] {
    if (run == 0) student::add_inplace_launch(x.data(), y.data(), n, 8 * sms, 256);
    else student::add_inplace(x.data(), y.data(), n);
  }, std::chrono::seconds(60));
  const auto guard = y.guard_hits();
  wb::Comparison c;
  c.array = "y";
  c.context = "n = 2^31 + 4099, " + label;
  if (!guard.empty()) {
    c.pattern = wb::Pattern::out_of_bounds;
    c.guard_hits = guard;
    c.diagnosis = "y[" + std::to_string(guard.front().index) +
                  "] was written, outside the array: an index overflowed (use std::int64_t, not int)";
  }
  const std::int64_t window = 1 << 20;
  std::int64_t untouched = 0;
  for (std::int64_t start : {std::int64_t(0), (std::int64_t(1) << 31) - window, n - window}) {
    std::vector<float> got(window);
    WB_CUDA_CHECK(cudaMemcpy(got.data(), y.data() + start, window * sizeof(float), cudaMemcpyDeviceToHost));
    for (std::int64_t k = 0; k < window && c.pattern != wb::Pattern::out_of_bounds; ++k) {
      const std::int64_t i = start + k;
      const float want = static_cast<float>(pattern.y0[i % period] + pattern.x[i % period]);
      if (std::fabs(got[k] - want) <= 1e-6 * std::fabs(want)) continue;
      untouched += got[k] == pattern.y0[i % period];
      if (!c.wrong++) {
        c.first_wrong = i;
        c.pattern = wb::Pattern::chapter_specific;
      }
      if (c.listed.size() < 5) c.listed.push_back({i, want, got[k], false});
    }
  }
  c.n = 3 * window;
  if (c.pattern == wb::Pattern::chapter_specific && untouched == c.n) {
    // Nothing added anywhere: not started, or a count that wrapped negative? The same call on a
    // small array tells them apart.
    const wb::Comparison small = run_case(
        [&](const float* a, float* b, std::int64_t m) {
          if (run == 0) student::add_inplace_launch(a, b, m, 8, 256);
          else student::add_inplace(a, b, m);
        },
        1000, run == 0 ? Given{8, 256} : Given{}, "n = 1000, " + label);
    if (small.ok()) {
      c.diagnosis = "no element of y was added to for n = 2^31 + 4099, though n = 1000 works: an int count or index "
                    "wraps to a negative number past 2^31 - 1, and the loop never runs; keep n a std::int64_t all the "
                    "way into the kernel";
    } else {
      c.pattern = wb::Pattern::nothing_written;
      c.diagnosis = "no element of y was added to: the kernel did not run or its loop never ran";
    }
  } else if (c.pattern == wb::Pattern::chapter_specific)
    c.diagnosis = "elements near or past 2^31 are wrong (first y[" + std::to_string(c.first_wrong) +
                  "]): an int index overflows past 2^31 - 1; use std::int64_t for the index and the stride";
  WB_REQUIRE_MATCH(c);
}

TEST_CASE("speed of your configuration against the solution and a library add", "[02][timing]") {
  WB_REQUIRE_GPU("timings of the CPU backend say nothing about a GPU");
  WB_REQUIRE_CORRECT_SO_FAR();
  const std::int64_t n = std::int64_t(1) << 28;
  const Inputs in(n);
  wb::DeviceBuffer<float> x(in.x), y(in.y0), copy_dst(n);
  // Every contender adds into the same y: the values grow, the work does not change.
  wb::grade_speed(
      wb::SpeedCase("y += x, 2^28 floats (12 bytes per element; the copy moves 8)",
                    wb::memory_bound(3.0 * sizeof(float) * n))
          .yours("your add_inplace", [&] { student::add_inplace(x.data(), y.data(), n); })
          .solution("solution (float4, 1 pass)", [&] { solution::add_inplace(x.data(), y.data(), n); })
          .row("solution, scalar 8 blocks/SM",
               [&] { solution::add_inplace_launch(x.data(), y.data(), n, 8 * wb::multiprocessor_count(), 256); })
          .anchor({"thrust::transform add", [&] { wb::anchors::thrust_add_inplace(x.data(), y.data(), n); }})
          .row("device-to-device copy", [&] { wb::anchors::device_copy(x.data(), copy_dst.data(), n); },
               2.0 * sizeof(float) * n)
          .bar("2^28 floats", "y"),
      [&] { return run_case([](const float* a, float* b, std::int64_t m) { student::add_inplace(a, b, m); }, n, {},
                            "n = 2^28, your configuration"); });
}

// The small case compute-sanitizer runs on a GPU (memcheck, racecheck, synccheck: wb/sanitizer.hpp): fewer threads than elements, then your configuration.
WB_SANITIZER_CASE("[02]", "y += x for n = 1000 with 3 blocks of 96 threads, and your configuration") {
  WB_REQUIRE_MATCH(run_case(
      [](const float* x, float* y, std::int64_t m) { student::add_inplace_launch(x, y, m, 3, 96); }, 1000,
      Given{3, 96}, config(1000, 3, 96)));
  WB_REQUIRE_MATCH(run_case([](const float* x, float* y, std::int64_t m) { student::add_inplace(x, y, m); }, 1000, {},
                            "n = 1000, your configuration"));
}
