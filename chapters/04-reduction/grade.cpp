// Chapter 04's grader: student::reduce_sum_launch for many block sizes and n, then
// student::reduce_sum (your configuration) on large inputs, repeated runs, unaligned input, and
// its speed against the solution and cub::DeviceReduce::Sum.
//
// The tolerance is an error bound computed in double, not a guess:
//  - "exact" inputs are non-negative integers whose total is below 2^24: every partial sum of them,
//    in any order, is an integer below 2^24, so float32 represents it exactly and the bound is 0.
//    A dropped, doubled or stray element always shows.
//  - random floats: |computed - exact| <= gamma(d) * sum |x_i|, gamma(d) = d u / (1 - d u),
//    u = 2^-24, for a summation whose longest chain of dependent additions is d; d = 2 sqrt(n) + 64
//    covers any reduction whose threads each add up to 2 sqrt(n) elements before a tree.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "reduce.cuh"
#include "wb/grader.hpp"

namespace {

constexpr double kMinSpeed = 0.5;        // at least half the solution's speed on a GPU
constexpr float kSentinel = 1048576.0f;  // *sum holds 2^20 before every call: a sum that is not reset shows

// ---- CPU reference ----
struct Reference {
  double sum = 0;    // exact (in double: the inputs' sums are exact there too)
  double bound = 0;  // the largest error a float32 reduction may make
};

Reference reference(const std::vector<float>& in) {
  Reference r;
  double abs_sum = 0;
  bool integers = true;
  for (float x : in) {
    r.sum += x;
    abs_sum += std::fabs(x);
    integers = integers && x >= 0 && x == std::floor(x);
  }
  if (integers && abs_sum < 16777216.0) return r;  // every partial sum exact: bound 0
  const double u = std::ldexp(1.0, -24);
  const double d = 2.0 * std::sqrt(double(in.size())) + 64;
  r.bound = d * u / (1 - d * u) * abs_sum;
  return r;
}

// Non-negative integers with a total well below 2^24 (see the top of this file), non-zero mean.
std::vector<float> exact_inputs(std::int64_t n) {
  const std::uint64_t key = wb::random_key(std::uint64_t(n) * 5 + 1);
  std::vector<float> v(n);
  const bool dense = n <= (std::int64_t(1) << 20);
  // sparse for a large n: a one with probability 2^21 / n, about 2^21 of them
  const double p = std::min(1.0, std::ldexp(1.0, 21) / double(std::max<std::int64_t>(n, 1)));
  const std::uint64_t threshold = p >= 1.0 ? ~std::uint64_t(0) : std::uint64_t(std::ldexp(p, 64));
  wb::parallel_ranges(v.size(), [&](std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last; ++i) {
      const std::uint64_t bits = wb::random_bits(key, i);
      v[i] = dense ? float(bits >> 62) : (bits < threshold ? 1.0f : 0.0f);  // dense: 0..3
    }
  });
  return v;
}

// Names what a wrong sum says about the kernel, in the chapter's terms.
wb::Comparison judge(const std::vector<float>& in, const Reference& ref, float got, const std::string& context) {
  wb::Comparison c;
  c.array = "*sum";
  c.n = 1;
  c.context = context;
  const double want = ref.sum;
  if (std::fabs(double(got) - want) <= ref.bound) return c;
  c.wrong = 1;
  c.first_wrong = 0;
  c.listed.push_back({0, want, got, false});
  c.pattern = wb::Pattern::chapter_specific;
  const double diff = double(got) - want;
  std::string s;
  if (got == kSentinel && want != kSentinel) {
    c.pattern = wb::Pattern::nothing_written;
    c.listed.back().unwritten = true;
    s = "*sum still holds what it held before the call: nothing was written to it";
    if (in.empty()) s += " (for n = 0 too, *sum must be set to 0: is the clear after an early return?)";
  } else if (std::isnan(got)) {
    s = "the sum is NaN: something read a value nothing wrote, e.g. a shared-memory slot past the block's last "
        "thread (pad with the identity, 0) or an element past n";
  } else if (std::fabs(diff - kSentinel) <= ref.bound) {
    s = "the sum is " + wb::format_value(kSentinel) +
        " too large, exactly what *sum held before the call: set *sum to 0 "
        "before the atomics add onto it (cudaMemsetAsync)";
  } else if (got == 0 && want != 0) {
    s = "the sum is 0: no block's total reached *sum (is there an atomicAdd of the block's total?)";
  } else if (diff > 0) {
    s = std::fabs(got - 2 * want) <= 2 * ref.bound
            ? "the sum is twice what it should be: every element was counted twice"
            : "the sum is " + wb::format_value(diff) +
                  " too large: some elements were counted more than once (does a tree level "
                  "add a partner that was already added, or do threads overlap?)";
  } else if (got == std::floor(got) && want != std::floor(want) && -diff < double(in.size())) {
    s = "the sum is a whole number, " + wb::format_value(-diff) +
        " short of a sum that is not: values were truncated to "
        "integers on the way (an int accumulator, an (int) cast, an atomicAdd on int?); keep every partial sum in "
        "float";
  } else {
    // Which prefix of in[] adds up to what was computed? Elements past it were dropped.
    std::int64_t prefix = -1;
    double acc = 0;
    if (ref.bound == 0)
      for (std::size_t i = 0; i <= in.size(); ++i) {
        // a whole number of warps' worth: a prefix that long is what a grid without a loop covers
        if (acc == double(got) && i % 32 == 0) {
          prefix = std::int64_t(i);
          break;
        }
        if (i < in.size()) acc += in[i];
      }
    const double k = want / got;
    if (prefix > 0)
      s = "the sum is exactly that of in[0.." + std::to_string(prefix) + "): nothing from in[" + std::to_string(prefix) +
          "] on was counted (elements past the grid dropped: each thread must loop until i >= n; or only the first "
          "block's total reached *sum)";
    else if (got > 0 && k >= 1.9 && std::fabs(k - std::round(k)) < 0.1)
      s = "the sum is about 1/" + wb::format_value(std::round(k)) + " of the total: as if only one block in " +
          wb::format_value(std::round(k)) + " counted (does every block add its total to *sum?)";
    else {
      // names no cause for certain: a fallback, weighed below a diagnosis that does (wb::leading_check)
      c.pattern = wb::Pattern::scattered;
      s = "the sum is " + wb::format_value(-diff) +
          " short: elements were dropped (a tree level that skips the odd element of a "
          "non-power-of-two level? a missing __syncthreads?)";
    }
  }
  c.diagnosis = s + " (expected " + wb::format_value(want) + ", got " + wb::format_value(got) + ", allowed error " +
                wb::format_value(ref.bound) + ")";
  return c;
}

// Runs `reduce` on `in` (copied to the device, starting `offset` floats into its buffer) once.
template <class Reduce>
float run_once(Reduce reduce, wb::DeviceBuffer<float>& din, wb::DeviceBuffer<float>& dsum, std::int64_t n,
               const std::string& context, int offset = 0) {
  const std::vector<float> sentinel{kSentinel};
  dsum.upload(sentinel);
  wb::run_launch("reduce_sum (" + context + ")", [&] { reduce(din.data() + offset, dsum.data(), n); });
  const auto guard = dsum.guard_hits();
  if (!guard.empty()) {
    wb::Comparison c;
    c.array = "sum";
    c.context = context;
    c.pattern = wb::Pattern::out_of_bounds;
    c.guard_hits = guard;
    c.diagnosis = "sum[" + std::to_string(guard.front().index) + "] was written: sum points to one float only";
    WB_REQUIRE_MATCH(c);
  }
  return dsum.download()[0];
}

// The sum of the blocks' totals from block `first` on, for a launch of `blocks` blocks of
// `threads` threads whose threads each add in[i], i = block * threads + thread + k * blocks * threads.
double suffix_of_block_totals(const std::vector<float>& in, std::uint64_t blocks, std::uint64_t threads,
                              std::uint64_t first) {
  double total = 0;
  for (std::size_t i = 0; i < in.size(); ++i)
    if ((i / threads) % blocks >= first) total += in[i];
  return total;
}

// A wrong sum that changes from call to call, or that holds only the last blocks' totals, while
// one block alone sums right, says that blocks overwrite one another's work on *sum (a store, or
// a clear at each block's start): the same words whatever the inputs and whichever blocks won.
template <class Reduce>
void explain_lost_blocks(wb::Comparison& c, Reduce reduce, wb::DeviceBuffer<float>& din, wb::DeviceBuffer<float>& dsum,
                         const std::vector<float>& in, float got, const std::vector<wb::LaunchRecord>& launches) {
  if (c.ok() || (c.pattern != wb::Pattern::chapter_specific && c.pattern != wb::Pattern::scattered) || std::isnan(got) ||
      in.empty())
    return;
  const double want = c.listed.empty() ? 0 : c.listed.front().expected;
  if (!(got < want) || launches.size() != 1 || launches[0].blocks() < 2) return;
  const std::uint64_t blocks = launches[0].blocks(), threads = launches[0].threads_per_block();
  // Atomics add the block totals in a different order on every call, so two correct calls may
  // differ by rounding: only a difference beyond the float32 error bound counts as lost work.
  const double bound = reference(in).bound;
  std::string seen;
  bool lost = false;
  for (int call = 2; call <= 3; ++call) {
    const float again = run_once(reduce, din, dsum, std::int64_t(in.size()), "the same input, call " + std::to_string(call));
    seen += ", " + wb::format_value(again);
    lost = lost || std::fabs(double(again) - double(got)) > bound;
  }
  for (std::uint64_t first = 1; first < blocks && !lost && launches[0].block.y == 1; ++first)
    lost = std::fabs(suffix_of_block_totals(in, blocks, threads, first) - double(got)) <= bound;
  if (!lost) return;
  // One block's worth of the same input must come out right, every time: then the blocks, not
  // the tree inside a block, lose the work.
  const std::vector<float> one_block(in.begin(), in.begin() + std::min<std::size_t>(in.size(), threads));
  const Reference ref = reference(one_block);
  wb::DeviceBuffer<float> dprobe(one_block);
  for (int call = 1; call <= 3; ++call) {
    const float probe = run_once(reduce, dprobe, dsum, std::int64_t(one_block.size()),
                                 "the first " + std::to_string(one_block.size()) + " elements alone");
    if (std::fabs(double(probe) - ref.sum) > ref.bound) return;
  }
  c.pattern = wb::Pattern::chapter_specific;
  c.diagnosis =
      "blocks overwrite one another's work on *sum: each block must add its total with atomicAdd, and "
      "*sum must be set to 0 once, before the launch (cudaMemsetAsync), not by the blocks (expected " +
      wb::format_value(want) + ", got " + wb::format_value(got) + seen +
      " in three calls; one block's worth alone is right)";
}

// `threads` > 0: the launcher was given that many threads per block (reduce_sum_launch).
template <class Reduce>
wb::Comparison run_case(Reduce reduce, const std::vector<float>& in, const std::string& context, int threads = 0) {
  wb::DeviceBuffer<float> din(in), dsum(1);
  std::vector<wb::LaunchRecord> launches;
  float got;
  {
    wb::LaunchLog log;
    got = run_once(reduce, din, dsum, std::int64_t(in.size()), context);
    launches = log.launches();
  }
  wb::Comparison c = wb::inputs_unchanged<float>({{"in", in, din}}, "*sum (reduce in shared memory, not in place)");
  if (c.ok() && threads > 0) c = wb::configuration_honoured(launches, "reduce_sum_launch", 0, threads);
  if (c.ok()) {
    c = judge(in, reference(in), got, context);
    explain_lost_blocks(c, reduce, din, dsum, in, got, launches);
  }
  c.context = context;
  return c;
}

auto with_threads(int threads) {
  return [threads](const float* in, float* sum, std::int64_t n) { student::reduce_sum_launch(in, sum, n, threads); };
}
void yours(const float* in, float* sum, std::int64_t n) { student::reduce_sum(in, sum, n); }

}  // namespace

TEST_CASE("the exact sum for block sizes from 32 to 1024, powers of two or not", "[04][correctness]") {
  WB_REQUIRE_DEVICE();
  const int threads = GENERATE(32, 64, 96, 100, 128, 250, 256, 512, 1000, 1024);
  const std::int64_t n = GENERATE(as<std::int64_t>{}, 1, 31, 1000, 65'537);
  CAPTURE(n, threads);
  WB_REQUIRE_MATCH(run_case(with_threads(threads), exact_inputs(n),
                            "n = " + std::to_string(n) + ", " + std::to_string(threads) + " threads per block", threads));
}

TEST_CASE("the sum of nothing (n = 0) is 0", "[04][correctness]") {
  WB_REQUIRE_DEVICE();
  const int threads = GENERATE(128, 256);
  WB_REQUIRE_MATCH(run_case(with_threads(threads), {}, "n = 0, " + std::to_string(threads) + " threads per block", threads));
  WB_REQUIRE_MATCH(run_case(yours, {}, "n = 0, your configuration"));
}

TEST_CASE("random floats: within the float32 error bound", "[04][correctness]") {
  WB_REQUIRE_DEVICE();
  const std::int64_t n = GENERATE(as<std::int64_t>{}, 1000, 1'000'003);
  CAPTURE(n);
  const std::vector<float> in = wb::random_floats(n, 0.5f, 1.5f, 7 * n);  // mean 1: a dropped block shows
  WB_REQUIRE_MATCH(run_case(with_threads(256), in, "n = " + std::to_string(n) + ", random floats, 256 threads", 256));
  WB_REQUIRE_MATCH(run_case(yours, in, "n = " + std::to_string(n) + ", random floats, your configuration"));
}

TEST_CASE("the exact sum with your own configuration, up to a large n", "[04][correctness]") {
  WB_REQUIRE_DEVICE();
  const std::int64_t large = wb::cpu_backend() ? (std::int64_t(1) << 22) + 5 : (std::int64_t(1) << 28) + 3;
  const std::int64_t n = GENERATE_COPY(as<std::int64_t>{}, 1, 3, 33, 1000, 1'000'003, large);
  CAPTURE(n);
  WB_REQUIRE_MATCH(run_case(yours, exact_inputs(n), "n = " + std::to_string(n) + ", your configuration"));
}

TEST_CASE("repeated calls give the same sum", "[04][correctness]") {
  WB_REQUIRE_DEVICE();
  const std::int64_t n = 100'003;
  const std::vector<float> in = exact_inputs(n);
  wb::DeviceBuffer<float> din(in), dsum(1);
  const Reference ref = reference(in);
  for (int run = 1; run <= 3; ++run) {
    const std::string context = "n = " + std::to_string(n) + ", call " + std::to_string(run) + " of 3";
    WB_REQUIRE_MATCH(judge(in, ref, run_once(yours, din, dsum, n, context), context));
  }
}

TEST_CASE("input that does not start on a 16-byte boundary", "[04][correctness]") {
  WB_REQUIRE_DEVICE();
  const int offset = GENERATE(1, 3);
  const std::int64_t n = 100'003;
  const std::vector<float> in = exact_inputs(n + offset);
  const std::vector<float> tail(in.begin() + offset, in.end());
  wb::DeviceBuffer<float> din(in), dsum(1);
  const std::string context = "in starts " + std::to_string(offset) + " floats into its buffer";
  WB_REQUIRE_MATCH(judge(tail, reference(tail), run_once(yours, din, dsum, n, context, offset), context));
}

// Hidden: run by the next test, in a copy of this grader under compute-sanitizer racecheck.
TEST_CASE("small sums for compute-sanitizer racecheck", "[.racecheck]") {
  const int threads = GENERATE(96, 256);
  CAPTURE(threads);
  WB_REQUIRE_MATCH(run_case(with_threads(threads), exact_inputs(1000), "n = 1000, " + std::to_string(threads) + " threads"));
  WB_REQUIRE_MATCH(run_case(yours, exact_inputs(1000), "n = 1000, your configuration"));
}

TEST_CASE("no shared-memory race (GPU: compute-sanitizer racecheck on small sums)", "[04][races]") {
  WB_REQUIRE_DEVICE();
  if (wb::cpu_backend()) SKIP("the CPU backend ran every case above instrumented: a race there is a kernel fault");
  wb::require_sanitizer_clean("racecheck", "[racecheck]", "sums of 1000 elements with 96 and 256 threads");
}

TEST_CASE("speed of your configuration against the solution and cub::DeviceReduce::Sum", "[04][timing]") {
  WB_REQUIRE_GPU("timings of the CPU backend say nothing about a GPU");
  WB_REQUIRE_CORRECT_SO_FAR();
  const std::int64_t n = std::int64_t(1) << 28;
  const std::vector<float> in = exact_inputs(n);
  wb::DeviceBuffer<float> din(in), dsum(1), copy(n);
  //! [speed]
  wb::grade_speed(
      wb::SpeedCase("sum of 2^28 floats (4 bytes per element; the copy moves 8)", wb::memory_bound(4.0 * n))
          .yours("your reduce_sum", [&] { student::reduce_sum(din.data(), dsum.data(), n); })
          .solution("solution (float4, shuffles)", [&] { solution::reduce_sum(din.data(), dsum.data(), n); })
          .row("solution, tree, 256 threads", [&] { solution::reduce_sum_launch(din.data(), dsum.data(), n, 256); })
          .anchor({"cub::DeviceReduce::Sum", [&] { wb::anchors::cub_reduce_sum(din.data(), dsum.data(), n); }})
          .row("device-to-device copy", [&] { wb::anchors::device_copy(din.data(), copy.data(), n); }, 8.0 * n)
          .bar("2^28 floats", "the sum", kMinSpeed,
               "Enough blocks to fill every multiprocessor, each thread adding many elements in a register before "
               "the tree, and one atomic per block get there"),
      [&] { return judge(in, reference(in), run_once(yours, din, dsum, n, "n = 2^28"), "n = 2^28"); });
  //! [speed]
}

// compute-sanitizer's other tools on the small case racecheck runs above (wb/sanitizer.hpp).
TEST_CASE("no access outside an array, no barrier misuse (GPU: compute-sanitizer memcheck and synccheck on small sums)",
          "[04][sanitizer]") {
  WB_REQUIRE_DEVICE();
  if (wb::cpu_backend()) SKIP("the CPU backend ran every case above instrumented: such an access is a kernel fault");
  wb::require_sanitizers_clean({"memcheck", "synccheck"}, "[racecheck]", "sums of 1000 elements with 96 and 256 threads");
}
