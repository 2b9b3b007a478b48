// Chapter 01's grader: student::naive_add against a host reference, then (on a GPU) against the
// solution's speed. Run it through `bash cmake/workbook.sh grade 01`.
#include <cstdint>
#include <string>
#include <vector>

#include "naive_add.cuh"
#include "wb/grader.hpp"

namespace {

using AddFn = void (*)(const float*, const float*, float*, int, int);

// ---- CPU reference ----
// In float: a + b is one float rounding, so the result is exact and compared bit for bit.
std::vector<float> add_reference(const std::vector<float>& a, const std::vector<float>& b) {
  std::vector<float> c(a.size());
  wb::parallel_ranges(a.size(), [&](std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last; ++i) c[i] = a[i] + b[i];
  });
  return c;
}

// Inputs with a non-zero mean, so an element that is dropped or doubled always shows.
struct Inputs {
  std::vector<float> a, b;
  explicit Inputs(int n) : a(wb::random_floats(n, 1.0f, 2.0f, 2 * n)), b(wb::random_floats(n, 0.25f, 0.75f, 2 * n + 1)) {}
};

// Runs `add` once on fresh buffers: a and b must be untouched (checked first), the blocks must have
// threads_per_block threads, then c and the guard zones around it.
//! [run case]
wb::Comparison run_case(AddFn add, int n, int threads) {
  const Inputs in(n);
  wb::DeviceBuffer<float> a(in.a), b(in.b), c(n);
  c.poison();
  const std::string context = "n = " + std::to_string(n) + ", " + std::to_string(threads) + " threads per block";
  std::vector<wb::LaunchRecord> launches;
  {
    wb::LaunchLog log;
    wb::run_launch("naive_add (" + context + ")", [&] { add(a.data(), b.data(), c.data(), n, threads); });
    launches = log.launches();
  }
  const std::vector<float> expected = add_reference(in.a, in.b);
  wb::Comparison result = wb::inputs_unchanged<float>({{"a", in.a, a}, {"b", in.b, b}}, "c", expected);
  if (result.ok()) result = wb::configuration_honoured(launches, "naive_add", 0, threads);
  if (result.ok()) {
    wb::CompareOptions opt;
    opt.array = "c";
    opt.block_size = threads;
    result = wb::compare(expected, c, opt);
  }
  result.context = context;
  return result;
}
//! [run case]

// A write just past the end, at c[n] and nowhere else, is what `i <= n` does, and also what a
// kernel with no bounds check at all does when n is one short of a whole block. Tell them apart
// by running the same launcher for n = 1, where no check writes threads - 1 elements past.
void explain_write_past_n(wb::Comparison& c, AddFn add, int n, int threads) {
  if (c.pattern != wb::Pattern::out_of_bounds || c.guard_hits.size() != 1 || c.guard_hits[0].index != n || threads < 3)
    return;
  const Inputs in(1);
  wb::DeviceBuffer<float> a(in.a), b(in.b), out(1);
  wb::run_launch("naive_add (n = 1, " + std::to_string(threads) + " threads per block)",
                 [&] { add(a.data(), b.data(), out.data(), 1, threads); });
  const auto probe = out.guard_hits();
  if (probe.size() == 1 && probe[0].index == 1) return;  // only the thread with i == n wrote: `i <= n` it is
  c.diagnosis = "an element past n was written (c[" + std::to_string(n) +
                "]; for n = 1 more were): threads with i >= n must not write; guard the write with `if (i < n)`";
}

wb::Comparison checked(AddFn add, int n, int threads) {
  wb::Comparison c = run_case(add, n, threads);
  explain_write_past_n(c, add, n, threads);
  return c;
}

}  // namespace

TEST_CASE("c = a + b for sizes around the block size, primes and about a million", "[01][correctness]") {
  WB_REQUIRE_DEVICE();
  const int n = GENERATE(1, 31, 32, 33, 255, 256, 257, 1000, 1021, 65'537, 1'000'003);
  CAPTURE(n);
  //! [require match]
  WB_REQUIRE_MATCH(checked(student::naive_add, n, 256));
  //! [require match]
}

TEST_CASE("an empty array (n = 0) is not an error", "[01][correctness]") {
  WB_REQUIRE_DEVICE();
  WB_REQUIRE_MATCH(checked(student::naive_add, 0, 256));
}

TEST_CASE("c = a + b for block sizes from 32 to 1024", "[01][correctness]") {
  WB_REQUIRE_DEVICE();
  const int threads = GENERATE(32, 64, 100, 128, 255, 512, 1000, 1024);
  CAPTURE(threads);
  WB_REQUIRE_MATCH(checked(student::naive_add, 100'003, threads));
}

TEST_CASE("c = a + b for a large array", "[01][correctness]") {
  WB_REQUIRE_DEVICE();
  // Past 2^24 (a float index loses integers there) and past 65535 blocks. 2^24 + 1 is the first
  // size a float rounds down (to 2^24), so a block count rounded up from a float division,
  // ceilf(n / 256.0f), is one block short there; 2^24 + 7 rounds up and would hide it. The CPU
  // backend runs every thread one after another: 2^24 elements take it a second or so. On a GPU,
  // 2^26 keeps the host's share (inputs, reference, transfers) under a second; the timing case
  // re-checks 2^28.
  const int n = GENERATE((1 << 24) + 1, wb::cpu_backend() ? (1 << 24) + 7 : (1 << 26) + 7);
  CAPTURE(n);
  WB_REQUIRE_MATCH(checked(student::naive_add, n, 256));
}

TEST_CASE("speed against the solution", "[01][timing]") {
  WB_REQUIRE_GPU("timings of the CPU backend say nothing about a GPU");
  WB_REQUIRE_CORRECT_SO_FAR();
  const int n = 1 << 28;
  const int threads = 256;
  const Inputs in(n);
  wb::DeviceBuffer<float> a(in.a), b(in.b), c(n);
  wb::grade_speed(wb::SpeedCase("naive add, 2^28 floats, 256 threads per block", wb::memory_bound(3.0 * sizeof(float) * n))
                      .yours("your naive_add", [&] { student::naive_add(a.data(), b.data(), c.data(), n, threads); })
                      .solution("solution", [&] { solution::naive_add(a.data(), b.data(), c.data(), n, threads); })
                      .bar("2^28 floats", "c"),
                  [&] { return run_case(student::naive_add, n, threads); });
}

// The small case compute-sanitizer runs on a GPU (memcheck, racecheck, synccheck: wb/sanitizer.hpp): four blocks, the last one partial.
WB_SANITIZER_CASE("[01]", "c = a + b for n = 1000 with 256 threads") {
  WB_REQUIRE_MATCH(checked(student::naive_add, 1000, 256));
}
