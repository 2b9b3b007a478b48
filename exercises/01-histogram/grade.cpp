// Exercise 01's grader: student::histogram against a host count on awkward sizes, inputs that
// start off a 16-byte boundary, one repeated byte (every thread on one bin), repeated calls;
// on a GPU 2^31 + 4099 bytes (an int index overflows; the CPU backend says it did not check
// this); then, on a GPU, its speed against the solution and cub::DeviceHistogram::HistogramEven.
//
// Counts are exact, so every check is exact. A wrong histogram is explained by what its error
// looks like: every bin off by what hist held before (not cleared), the counts of a prefix of
// in (samples never reached), bin 254 too high (reads past the end: the grader's guard bytes
// are 0xFE), bins short with nothing else wrong (lost updates), all bins off by the same
// amount (shared bins never cleared).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "histogram.cuh"
#include "wb/grader.hpp"
#include "wb/library_anchors.hpp"

namespace {

constexpr double kMinSpeed = 0.25;  // GPU: shared bins with one byte per load pass (0.32x on an H200); global atomics alone do not (0.002x)
constexpr unsigned int kSentinel = 1u << 30;  // every bin holds 2^30 before every call
constexpr std::uint8_t kBeforeByte = 0xFD;    // the bytes before `in` when it starts off a boundary
constexpr std::uint8_t kPastByte = wb::guard_byte;  // 0xFE: the guard zone past the end of `in`

using Counts = std::vector<std::int64_t>;

// ---- CPU reference ----
Counts host_histogram(const std::vector<std::uint8_t>& in, std::size_t begin, std::size_t end) {
  Counts c(kHistogramBins, 0);
  for (std::size_t i = begin; i < end; ++i) ++c[in[i]];
  return c;
}

// ---- inputs ----
std::vector<std::uint8_t> random_bytes(std::size_t n, std::uint64_t stream) {
  auto rng = wb::rng_for(stream);
  std::vector<std::uint8_t> v(n);
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const std::uint64_t r = rng();
    for (int k = 0; k < 8; ++k) v[i + k] = std::uint8_t(r >> (8 * k));
  }
  for (; i < n; ++i) v[i] = std::uint8_t(rng());
  return v;
}

std::string fmt_count(std::int64_t v) {
  if (v == std::int64_t(kSentinel)) return "2^30";
  return std::to_string(v);
}

// ---- diagnosis ----
// Explains a wrong histogram in the exercise's terms (see the top of this file).
wb::Comparison judge(const std::vector<std::uint8_t>& in, const std::vector<unsigned int>& got,
                     const std::string& context) {
  const std::int64_t n = std::int64_t(in.size());
  const Counts want = host_histogram(in, 0, in.size());
  wb::Comparison c;
  c.array = "hist";
  c.n = kHistogramBins;
  c.context = context;
  Counts diff(kHistogramBins);
  std::int64_t total = 0, over = 0, under = 0;
  bool all_sentinel = true, all_plus_sentinel = true, same_diff = true;
  for (int b = 0; b < kHistogramBins; ++b) {
    // a bin's error as the kernel's unsigned arithmetic made it: got - want, wrapped to 32 bits
    diff[b] = std::int64_t(std::int32_t(got[b] - std::uint32_t(want[b])));
    total += got[b];
    all_sentinel = all_sentinel && got[b] == kSentinel;
    all_plus_sentinel = all_plus_sentinel && diff[b] == std::int64_t(kSentinel);
    same_diff = same_diff && diff[b] == diff[0];
    if (diff[b] > 0) over += diff[b];
    if (diff[b] < 0) under -= diff[b];
    if (diff[b] == 0) continue;
    if (c.first_wrong < 0) c.first_wrong = b;
    ++c.wrong;
    if (c.listed.size() < 5) c.listed.push_back({b, double(want[b]), double(got[b]), false});
  }
  if (c.wrong == 0) return c;
  c.pattern = wb::Pattern::chapter_specific;
  auto largest = [&](bool short_bins) {  // the bin with the largest error of one sign
    int best = -1;
    for (int b = 0; b < kHistogramBins; ++b)
      if ((short_bins ? -diff[b] : diff[b]) > 0 && (best < 0 || std::abs(diff[b]) > std::abs(diff[best]))) best = b;
    return best;
  };
  auto others = [&](std::int64_t count_other) {
    return count_other > 0 ? " (and " + std::to_string(count_other) + " other bin" + (count_other > 1 ? "s" : "") + ")" : "";
  };

  if (all_sentinel) {
    c.pattern = wb::Pattern::nothing_written;
    for (auto& m : c.listed) m.unwritten = true;
    c.diagnosis = std::string("hist still holds what it held before the call (2^30 in every bin): nothing was "
                              "written to it") + (n == 0 ? " (for n = 0 too, every bin must be set to 0)" : "");
  } else if (all_plus_sentinel) {
    c.diagnosis = "every bin is 2^30 too large, exactly what hist held before the call: set hist to 0 before the "
                  "blocks add their counts (cudaMemsetAsync), since atomicAdd adds onto whatever is there";
  } else if (same_diff) {
    c.diagnosis = "all 256 bins are off by the same amount (" + std::to_string(diff[0]) +
                  "), whatever their count: as if every block's shared bins started at a value other than 0 "
                  "(shared memory starts with whatever was there: set every shared bin to 0, then __syncthreads(), "
                  "before counting)";
  } else if (under == 0 && diff[kPastByte] > 0 && over == diff[kPastByte]) {
    c.diagnosis = "bin 254 has " + std::to_string(diff[kPastByte]) + " too many and no other bin is wrong: bytes past "
                  "the end of in were counted (the grader's guard bytes there are 0xFE = 254): the bound must be i < n, "
                  "and a wide load must not run past n";
  } else if (under == 0 && diff[kBeforeByte] > 0 && over == diff[kBeforeByte]) {
    c.diagnosis = "bin 253 has " + std::to_string(diff[kBeforeByte]) + " too many and no other bin is wrong: bytes "
                  "before in[0] were counted (in starts off a 16-byte boundary here, and the grader put 0xFD = 253 "
                  "before it): count from in[0], and start wide loads at the first 16-byte boundary";
  } else if (over > 0 && under == 0) {
    bool doubled = true;
    for (int b = 0; b < kHistogramBins; ++b) doubled = doubled && diff[b] == want[b];
    const int b = largest(false);
    c.diagnosis = doubled ? "every sample was counted twice: does each block add its shared bins to hist exactly once, "
                            "and does each thread count only its own samples?"
                          : "bin " + std::to_string(b) + " has " + std::to_string(diff[b]) + " too many" +
                                others(c.wrong - 1) + ", and no bin is short: either samples were counted "
                                "more than once (do blocks or loop iterations overlap?) or the shared bins were not "
                                "cleared before counting (shared memory holds whatever an earlier block left there: "
                                "set every shared bin to 0, then __syncthreads())";
  } else if (under > 0 && over == 0) {
    const std::int64_t counted = total;
    if (counted == 0) {
      c.diagnosis = "every bin is 0: none of the n = " + std::to_string(n) + " samples was counted" +
                    (n < 32 ? " (so few samples all lie before the first or after the last 16-byte boundary: are "
                              "those bytes counted?)"
                            : "");
    } else if (host_histogram(in, 0, std::size_t(counted)) == Counts(got.begin(), got.end())) {
      c.diagnosis = "the counts are exactly those of in[0.." + std::to_string(counted) + "): samples from in[" +
                    std::to_string(counted) + "] on were never counted (n = " + std::to_string(n) +
                    "): every thread must loop until i >= n, and the bytes after the last whole 16-byte load need "
                    "counting too";
    } else if (host_histogram(in, std::size_t(n - counted), in.size()) == Counts(got.begin(), got.end())) {
      c.diagnosis = "the counts are exactly those of in[" + std::to_string(n - counted) + ".." + std::to_string(n) +
                    "): the first " + std::to_string(n - counted) + " samples were never counted (the bytes before "
                    "the first 16-byte boundary?)";
    } else {
      const int b = largest(true);
      c.diagnosis = "bin " + std::to_string(b) + " is short by " + std::to_string(-diff[b]) + others(c.wrong - 1) +
                    " and no bin has too many: lost updates, two threads incremented one bin at once and one "
                    "increment was lost. A non-atomic increment (use atomicAdd, on shared and on global bins)? Or a "
                    "block's shared bins added to hist before all its threads finished counting (a missing "
                    "__syncthreads())?";
    }
  } else if (total == n) {
    const int hi = largest(false), lo = largest(true);
    c.diagnosis = "the counts add up to n = " + std::to_string(n) + ", but samples landed in the wrong bins: bin " +
                  std::to_string(hi) + " has " + std::to_string(diff[hi]) + " too many, bin " + std::to_string(lo) +
                  " " + std::to_string(-diff[lo]) + " too few (is every byte of a wide load taken with the right shift "
                  "and mask, and is the byte used as an unsigned value?)";
  } else {
    const int hi = largest(false), lo = largest(true);
    c.diagnosis = "bins are both too high and too low, and hold " + std::to_string(total) + " counts for n = " +
                  std::to_string(n) + " samples: bin " + std::to_string(hi) + " has " + fmt_count(diff[hi]) +
                  " too many, bin " + std::to_string(lo) + " " + fmt_count(-diff[lo]) +
                  " too few (shared bins not cleared before counting, or counted before a __syncthreads()?)";
  }
  return c;
}

// Runs student::histogram on `in`, placed `offset` bytes into its buffer (the bytes before it
// hold kBeforeByte), once, and checks hist, its guard zones and that in is unchanged.
wb::Comparison run_case(const std::vector<std::uint8_t>& in, const std::string& context, int offset = 0,
                        int calls = 1) {
  std::vector<std::uint8_t> buffer(offset, kBeforeByte);
  buffer.insert(buffer.end(), in.begin(), in.end());
  wb::DeviceBuffer<std::uint8_t> din(buffer);
  wb::DeviceBuffer<unsigned int> dhist(std::vector<unsigned int>(kHistogramBins, kSentinel));
  wb::Comparison c;
  for (int call = 1; call <= calls && c.ok(); ++call) {
    const std::string where = calls > 1 ? context + ", call " + std::to_string(call) + " of " + std::to_string(calls)
                                        : context;
    dhist.upload(std::vector<unsigned int>(kHistogramBins, kSentinel));
    wb::run_launch("histogram (" + where + ")",
                   [&] { student::histogram(din.data() + offset, std::int64_t(in.size()), dhist.data()); });
    c = wb::guarded_comparison("hist", kHistogramBins, where, dhist, [](std::int64_t at) {
      return "hist[" + std::to_string(at) +
             "] was written: hist has 256 bins, 0 to 255 (is a bin index computed from a signed char, or outside "
             "0..255?)";
    });
    if (c.ok()) c = judge(in, dhist.download(), where);
  }
  if (c.ok() && din.download() != buffer) {  // (byte 0xFF is a valid sample: compared here, not as "unwritten")
    const std::vector<std::uint8_t> after = din.download();
    c.array = "in";
    c.n = std::int64_t(in.size());
    c.context = context;
    c.pattern = wb::Pattern::chapter_specific;
    for (std::size_t i = offset; i < buffer.size(); ++i) {
      if (after[i] == buffer[i]) continue;
      if (c.first_wrong < 0) c.first_wrong = std::int64_t(i) - offset;
      ++c.wrong;
      if (c.listed.size() < 5) c.listed.push_back({std::int64_t(i) - offset, double(buffer[i]), double(after[i]), false});
    }
    c.diagnosis = "the kernel changed its input in: only hist may be written";
  }
  return c;
}

std::string n_is(std::int64_t n) { return "n = " + std::to_string(n); }

}  // namespace

TEST_CASE("the histogram of random bytes, for awkward n", "[x01][correctness]") {
  WB_REQUIRE_DEVICE();
  const std::int64_t n = GENERATE(as<std::int64_t>{}, 0, 1, 15, 16, 17, 31, 33, 255, 256, 257, 1000, 4097, 65'537,
                                  1'000'003);
  CAPTURE(n);
  WB_REQUIRE_MATCH(run_case(random_bytes(std::size_t(n), 11 * n + 1), n_is(n) + ", random bytes"));
}

TEST_CASE("every sample the same byte: every thread counts into one bin", "[x01][correctness]") {
  WB_REQUIRE_DEVICE();
  const std::int64_t n = GENERATE(as<std::int64_t>{}, 1000, 100'003);
  CAPTURE(n);
  WB_REQUIRE_MATCH(run_case(std::vector<std::uint8_t>(std::size_t(n), 17), n_is(n) + ", every byte 17"));
}

TEST_CASE("only the first and the last bin: bytes 0 and 255", "[x01][correctness]") {
  WB_REQUIRE_DEVICE();
  const std::int64_t n = 65'539;
  std::vector<std::uint8_t> in = random_bytes(std::size_t(n), 5);
  for (auto& b : in) b = b < 96 ? 0 : 255;
  WB_REQUIRE_MATCH(run_case(in, n_is(n) + ", bytes 0 and 255 only"));
}

TEST_CASE("in starts off a 16-byte boundary", "[x01][correctness]") {
  WB_REQUIRE_DEVICE();
  const int offset = GENERATE(1, 3, 15);
  const std::int64_t n = GENERATE(as<std::int64_t>{}, 5, 100'003);
  CAPTURE(offset, n);
  WB_REQUIRE_MATCH(run_case(random_bytes(std::size_t(n), 3 * n + offset), n_is(n) + ", in starts " +
                                                                              std::to_string(offset) +
                                                                              " bytes past a 16-byte boundary",
                            offset));
}

TEST_CASE("repeated calls give the same histogram", "[x01][correctness]") {
  WB_REQUIRE_DEVICE();
  const std::int64_t n = 100'003;
  WB_REQUIRE_MATCH(run_case(random_bytes(std::size_t(n), 77), n_is(n), 0, 3));
}

TEST_CASE("a large input", "[x01][correctness]") {
  WB_REQUIRE_DEVICE();
  const std::int64_t n = wb::cpu_backend() ? (std::int64_t(1) << 21) + 5 : (std::int64_t(1) << 28) + 7;
  WB_REQUIRE_MATCH(run_case(random_bytes(std::size_t(n), 99), n_is(n) + ", random bytes"));
}

TEST_CASE("past 2^31 bytes: the index type must not overflow", "[x01][correctness][large]") {
  const std::string unchecked = "inputs past 2^31 bytes (an int byte index or offset that overflows)";
  if (wb::cpu_backend()) {
    wb::note_unchecked(unchecked + ": checked on a GPU only (2 GiB of input, too slow to emulate)");
    SKIP("not checked on the CPU backend: " + unchecked);
  }
  WB_REQUIRE_GPU("2^31 bytes of input");
  const std::int64_t n = (std::int64_t(1) << 31) + 4099;
  std::size_t free_bytes = 0, total = 0;
  WB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
  const std::size_t needed = std::size_t(n) + (std::size_t(1) << 30);
  if (free_bytes < needed) {
    const std::string why = unchecked + ": the device has " + std::to_string(free_bytes >> 30) +
                            " GiB free and the case needs " + std::to_string((needed >> 30) + 1);
    wb::note_unchecked(why);
    SKIP("not checked: " + why);
  }
  // A random pattern of a prime length, repeated (the host fills 2 GiB with copies, fast).
  const std::size_t period = 4099;
  const std::vector<std::uint8_t> pattern = random_bytes(period, 31);
  std::vector<std::uint8_t> in(static_cast<std::size_t>(n));
  for (std::size_t at = 0; at < in.size(); at += period)
    std::copy_n(pattern.begin(), std::min(period, in.size() - at), in.begin() + std::ptrdiff_t(at));
  wb::DeviceBuffer<std::uint8_t> din(in);
  wb::DeviceBuffer<unsigned int> dhist(std::vector<unsigned int>(kHistogramBins, kSentinel));
  const std::string context = "n = 2^31 + 4099, random bytes";
  const std::string what = "histogram (" + context + ")";
  // Run here, not in wb::run_launch, to name the likely cause of a fault: an index past 2^31 - 1.
  cudaError_t code = cudaSuccess;
  {
    wb::Watchdog dog(what, std::chrono::seconds(60));
    try {
      student::histogram(din.data(), n, dhist.data());
      code = cudaGetLastError();
      if (code == cudaSuccess) code = cudaDeviceSynchronize();
    } catch (const wb::CudaError& e) {
      code = e.code();
    }
  }
  if (code != cudaSuccess) {
    (void)cudaGetLastError();
    wb::fail_with_cuda_error(
        what, code,
        code == cudaErrorIllegalAddress
            ? what + " read or wrote outside every allocation: an int byte index or offset wraps negative past "
                     "2^31 - 1 (the largest int); keep indices, offsets and strides std::int64_t"
            : "");
  }
  wb::Comparison c = wb::guarded_comparison("hist", kHistogramBins, context, dhist, [](std::int64_t at) {
    return "hist[" + std::to_string(at) + "] was written: hist has 256 bins, 0 to 255";
  });
  if (c.ok()) c = judge(in, dhist.download(), context);
  if (!c.ok() && c.pattern == wb::Pattern::chapter_specific)
    c.diagnosis = "for n = 2^31 + 4099: " + c.diagnosis +
                  ". Past 2^31 - 1 an int byte index or offset overflows: keep them std::int64_t";
  WB_REQUIRE_MATCH(c);
}

TEST_CASE("speed against the solution and cub::DeviceHistogram::HistogramEven", "[x01][timing]") {
  WB_REQUIRE_GPU("timings of the CPU backend say nothing about a GPU");
  WB_REQUIRE_CORRECT_SO_FAR();
  const std::int64_t n = std::int64_t(1) << 30;
  const std::vector<std::uint8_t> in = random_bytes(std::size_t(n), 2024);
  wb::DeviceBuffer<std::uint8_t> din(in);
  wb::DeviceBuffer<unsigned int> dhist(kHistogramBins);
  auto yours = [&] { student::histogram(din.data(), n, dhist.data()); };
  wb::grade_speed(
      wb::SpeedCase("256-bin histogram of 2^30 random bytes (1 byte read per sample)", wb::memory_bound(double(n)))
          .yours("your histogram", yours)
          .solution("solution (shared bins, int4)", [&] { solution::histogram(din.data(), n, dhist.data()); })
          .anchor({"cub::DeviceHistogram::HistogramEven",
                   [&] { wb::anchors::cub_histogram_bytes(din.data(), n, dhist.data()); }})
          .bar("2^30 random bytes", "the histogram", kMinSpeed,
               "Count into bins in shared memory, one set per block (atomics there are fast and contended only "
               "inside the block), and add each block's bins to hist once at its end")
          .table_row("x01-histogram", "2^30 bytes"),
      [&] {
        dhist.upload(std::vector<unsigned int>(kHistogramBins, kSentinel));
        wb::run_launch("histogram (after timing, n = 2^30)", yours);
        return judge(in, dhist.download(), "after timing, n = 2^30");
      });
}

// The small case compute-sanitizer runs on a GPU (memcheck, racecheck, synccheck: wb/sanitizer.hpp): a head, a body and a tail, every block's bins cleared and flushed.
WB_SANITIZER_CASE("[x01]", "the histogram of 4097 random bytes, in starting 3 bytes off a boundary") {
  WB_REQUIRE_MATCH(run_case(random_bytes(4097, 4097), n_is(4097) + ", in starts 3 bytes off a 16-byte boundary", 3));
}
