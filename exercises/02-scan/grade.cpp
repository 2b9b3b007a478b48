// Exercise 02's grader: student::inclusive_scan against a prefix sum in double, on awkward n
// (around warp, block and tile sizes), with scratch memory full of NaNs at the first call
// and left as the previous call left it at the next; then, on a GPU, its speed against the
// solution and cub::DeviceScan::InclusiveSum.
//
// Tolerance: most cases use small integers (0..3, or -1..3) whose every partial sum, in any
// order, is an integer below 2^24: float32 holds each exactly, so the bound is 0 and a dropped,
// doubled or misplaced element always shows. Random floats get the bound
// |computed - exact| <= gamma(d) * sum |x|, gamma(d) = d u / (1 - d u), u = 2^-24, with
// d = n / 16 + 2 sqrt(n) + 64: any scan whose longest chain of dependent additions combines at
// least 16 elements per step (tiles, warps) fits under it.
//
// A wrong scan is explained by its shape: the exclusive scan, a scan shifted by one, tiles that
// restart from 0 (no carry), tiles off by a constant (a wrong carry: the tile's own total, or one
// tile's missing), a warp scan whose shuffles stop short (out[k] misses exactly lane 0's share),
// groups inside a warp's part that restart from 0 once but not at the next group, a suffix never
// written (the last partial tile), NaN (scratch used before it
// was set up), or the first element where out[k] - out[k-1] is not in[k].
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "scan.cuh"
#include "wb/grader.hpp"
#include "wb/library_anchors.hpp"

namespace {

// ---- CPU reference ----
struct Reference {
  std::vector<double> out;  // exact prefix sums
  double rel_bound = 0;     // |got - out[i]| <= rel_bound * sum_{k <= i} |in[k]| (0: exact)
  std::vector<double> abs_prefix;
  double bound(std::size_t i) const { return rel_bound * abs_prefix[i]; }
};

Reference reference(const std::vector<float>& in) {
  Reference r;
  r.out.resize(in.size());
  r.abs_prefix.resize(in.size());
  double s = 0, a = 0;
  bool integers = true;
  for (std::size_t i = 0; i < in.size(); ++i) {
    s += in[i];
    a += std::fabs(in[i]);
    r.out[i] = s;
    r.abs_prefix[i] = a;
    integers = integers && in[i] == std::floor(in[i]);
  }
  if (integers && a < 16777216.0) return r;  // every partial sum in any order is exact
  const double u = std::ldexp(1.0, -24), n = double(in.size());
  const double d = n / 16 + 2 * std::sqrt(n) + 64;
  r.rel_bound = d * u / (1 - d * u);
  return r;
}

// ---- inputs ----
// Integers lo..3 (lo = 0 or -1: mean 1.5 or 1), or, above 2^22 elements, sparse ones (about 2^21
// of them) so that every partial sum stays below 2^24.
std::vector<float> exact_inputs(std::int64_t n, int lo = 0) {
  auto rng = wb::rng_for(std::uint64_t(n) * 13 + std::uint64_t(lo + 1));
  std::vector<float> v(static_cast<std::size_t>(n));
  if (n <= (std::int64_t(1) << 22)) {
    std::uniform_int_distribution<int> d(lo, 3);
    for (auto& x : v) x = float(d(rng));
  } else {
    std::bernoulli_distribution one(std::ldexp(1.0, 21) / double(n));
    for (auto& x : v) x = one(rng) ? 1.0f : 0.0f;
  }
  return v;
}

// ---- diagnosis ----
wb::Comparison judge(const std::vector<float>& in, const Reference& ref, const wb::DeviceBuffer<float>& dout,
                     const std::string& context) {
  const std::vector<float> got = dout.download();
  const std::size_t n = in.size();
  std::vector<double> g(n);
  std::vector<bool> unwritten(n);
  for (std::size_t i = 0; i < n; ++i) {
    g[i] = got[i];
    unwritten[i] = wb::never_written(got[i]);
  }
  wb::CompareOptions opt;
  opt.array = "out";
  opt.rel_tol = ref.rel_bound;
  wb::Comparison c = wb::compare_values(ref.out, g, unwritten, dout.guard_hits(), opt);
  c.context = context;
  if (c.ok() || c.pattern == wb::Pattern::nothing_written) return c;
  if (c.pattern == wb::Pattern::out_of_bounds) {
    c.diagnosis = "out[" + std::to_string(c.guard_hits.front().index) + "] was written: out has n = " +
                  std::to_string(n) + " elements (is the last tile's store guarded by i < n?)";
    return c;
  }
  auto near = [&](double got_value, std::size_t i, double want) {
    return std::fabs(got_value - want) <= ref.bound(i) * 2 + 1e-30;
  };
  const std::size_t k = std::size_t(c.first_wrong);
  c.pattern = wb::Pattern::chapter_specific;
  const std::string at = "out[" + std::to_string(k) + "]";

  bool exclusive = true, shifted = n > 1;
  for (std::size_t i = 0; i < n && exclusive; ++i) exclusive = near(g[i], i, ref.out[i] - in[i]);
  for (std::size_t i = 0; i + 1 < n && shifted; ++i) shifted = near(g[i], i, ref.out[i + 1]);
  if (exclusive) {
    c.diagnosis = "out is the exclusive scan, out[i] = in[0] + ... + in[i - 1]: exclusive instead of inclusive. "
                  "This exercise wants the inclusive one, where out[i] includes in[i] (out[0] = in[0])";
    return c;
  }
  if (shifted) {
    c.diagnosis = "out[i] holds in[0] + ... + in[i + 1]: the scan is shifted one element to the left";
    return c;
  }
  bool suffix_unwritten = true;
  for (std::size_t i = k; i < n && suffix_unwritten; ++i) suffix_unwritten = unwritten[i];
  if (suffix_unwritten) {
    c.pattern = wb::Pattern::tail_wrong;
    c.diagnosis = "out[" + std::to_string(k) + ".." + std::to_string(n) + ") was never written: the last " +
                  std::to_string(n - k) + " elements (n = " + std::to_string(n) +
                  " is not a multiple of your tile: is the last, partial tile stored, up to i < n?)";
    return c;
  }
  if (std::isnan(g[k])) {
    c.pattern = wb::Pattern::nan;
    c.diagnosis = at + " is NaN: a value was read before anything wrote it (scratch holds whatever it held "
                  "before each call, here NaNs or the previous call's values: is every status word or "
                  "counter set up at every call? is shared memory read before a __syncthreads()?)";
    return c;
  }
  if (k > 0) {
    // A warp scan (Hillis-Steele: lane l adds lane l - offset, offset = 1, 2, 4, ...) stopped at
    // offset w / 2 sums only the w lanes up to its own: with e elements per lane, the first wrong
    // element is k = w e, and out[k .. k + e) miss exactly in[0 .. e), lane 0's share.
    for (std::size_t w : {16, 8, 4, 2}) {
      if (k % w != 0) continue;
      const std::size_t e = k / w;
      bool window = true;
      for (std::size_t j = k; j < std::min(n, k + e) && window; ++j) window = near(g[j], j, ref.out[j] - ref.out[e - 1]);
      if (!window) continue;
      c.diagnosis = at + " misses exactly in[0.." + std::to_string(e) + "), the first " + std::to_string(e) +
                    " element" + (e > 1 ? "s" : "") + " (lane 0's share, if each lane holds " + std::to_string(e) + "): each lane's scan reaches back only " + std::to_string(w) +
                    " lanes, its own included. The warp scan's shuffle loop stops at offset " +
                    std::to_string(w / 2) + "; it must run offset = 1, 2, 4, 8, 16 (while offset < 32), so that "
                    "lane 31 ends with the whole warp's total";
      return c;
    }
    // Does out restart from 0 at k (the tiles before k not carried into it)?
    bool restarts = true;
    const std::size_t end = std::min(n, 2 * k);
    for (std::size_t j = k; j < end && restarts; ++j) restarts = near(g[j], j, ref.out[j] - ref.out[k - 1]);
    bool restarts_again = true;  // tiles of k elements left uncarried restart at 2k too
    for (std::size_t j = 2 * k; j < std::min(n, 3 * k) && restarts_again; ++j)
      restarts_again = near(g[j], j, ref.out[j] - ref.out[2 * k - 1]);
    if (restarts && n > 2 * k && !restarts_again) {
      c.diagnosis = "from " + at + " on, out starts again from 0 (" + at + " = in[" + std::to_string(k) +
                    "] alone), but out[" + std::to_string(2 * k) + "] does not: so " + std::to_string(k) +
                    " is no tile boundary (an uncarried tile would restart every " + std::to_string(k) +
                    " elements). Groups of " + std::to_string(k) + " elements were scanned apart inside a warp's "
                    "part: a warp scan over part of the warp only. Its shuffle loop must run offset = 1, 2, 4, 8, 16 "
                    "(while offset < 32), so that lane 31 ends with the whole warp's total";
      return c;
    }
    if (restarts) {
      c.diagnosis = "from " + at + " on, out starts again from 0: " + at + " = in[" + std::to_string(k) +
                    "] alone, without the sum of the " + std::to_string(k) + " elements before it. Block boundaries "
                    "not carried: each tile was scanned on its own, and the sum of every earlier tile (the carry) "
                    "must be added to each of its elements";
      return c;
    }
    // A run of elements all off by one constant: the tile's own scan is right, its carry is not.
    const double off = g[k] - ref.out[k];
    std::size_t run = k;
    while (run < n && near(g[run], run, ref.out[run] + off)) ++run;
    const std::size_t len = run - k;
    if (len >= 32 || (run == n && len > 0)) {  // a whole tile, or the last, partial one
      const double own = ref.out[run - 1] - ref.out[k - 1];
      const double prev = k >= len ? ref.out[k - 1] - (k > len ? ref.out[k - 1 - len] : 0.0) : NAN;
      std::string why = "the scan within the tile (or a warp's part of it) is right, but the carry added to it is wrong";
      if (std::fabs(off - own) <= ref.bound(run - 1) * 4)
        why = "the carry added to this tile includes the tile's own total (the look-back must start at the tile "
              "before)";
      else if (std::isfinite(prev) && std::fabs(off + prev) <= ref.bound(k - 1) * 4)
        why = "the carry added to this tile misses the total of the tile just before (does the look-back skip a "
              "tile?)";
      c.diagnosis = "out[" + std::to_string(k) + ".." + std::to_string(run) + "), " + std::to_string(len) +
                    " elements, are all off by the same " + wb::format_value(off) + ": " + why;
      return c;
    }
  }
  const double step = k > 0 ? g[k] - g[k - 1] : g[0];
  c.diagnosis =
      "the scan is wrong from " + at + ": " + (k > 0 ? at + " - out[" + std::to_string(k - 1) + "]" : at) +
      " should be in[" + std::to_string(k) + "] = " + wb::format_value(in[k]) + ", but is " + wb::format_value(step) +
      (k % 32 == 0 && k > 0 ? " (" + std::to_string(k) + " is a multiple of 32: where two warps' parts meet)" : "");
  return c;
}

// What scratch holds before the first call: the float 0x7FC00001 over and over, a NaN that is not
// out's "never written" pattern (0xFFFFFFFF), so a value computed from it reads as NaN; as a
// 64-bit word, 0x7FC000017FC00001.
std::vector<unsigned char> scratch_garbage(std::size_t bytes) {
  std::vector<unsigned char> v(bytes);
  const unsigned char pattern[4] = {0x01, 0x00, 0xC0, 0x7F};
  for (std::size_t i = 0; i < bytes; ++i) v[i] = pattern[i % 4];
  return v;
}

// One scan of `in` with fresh buffers: out poisoned, scratch full of garbage (scratch_garbage),
// `calls` calls in a row on the same scratch (left as the previous call left it).
wb::Comparison run_case(const std::vector<float>& in, const std::string& context, int calls = 1) {
  const std::int64_t n = std::int64_t(in.size());
  const Reference ref = reference(in);
  wb::DeviceBuffer<float> din(in), dout(in.size());
  const std::size_t bytes = student::inclusive_scan_scratch_bytes(n);
  wb::DeviceBuffer<unsigned char> dscratch(bytes);
  dscratch.upload(scratch_garbage(bytes));
  wb::Comparison c;
  for (int call = 1; call <= calls && c.ok(); ++call) {
    const std::string where =
        calls > 1 ? context + ", call " + std::to_string(call) + " of " + std::to_string(calls) : context;
    dout.poison();
    wb::run_launch("inclusive_scan (" + where + ")",
                   [&] { student::inclusive_scan(din.data(), dout.data(), n, dscratch.data()); });
    c = wb::guarded_comparison("scratch", std::int64_t(bytes), where, dscratch, [&](std::int64_t at) {
      return "scratch byte " + std::to_string(at) + " was written, outside the " + std::to_string(bytes) +
             " bytes inclusive_scan_scratch_bytes(" + std::to_string(n) + ") asked for";
    });
    if (!c.ok()) return c;
    c = wb::inputs_then_output(wb::inputs_unchanged<float>({{"in", in, din}}, "out", ref.out),
                               [&] { return judge(in, ref, dout, where); }, where);
  }
  return c;
}

std::string n_is(std::int64_t n) { return "n = " + std::to_string(n); }

}  // namespace

TEST_CASE("the inclusive scan of small integers, for n around warp, block and tile sizes", "[x02][correctness]") {
  WB_REQUIRE_DEVICE();
  const std::int64_t n = GENERATE(as<std::int64_t>{}, 0, 1, 2, 3, 4, 5, 31, 32, 33, 127, 128, 129, 255, 256, 257, 511,
                                  512, 513, 1023, 1024, 1025, 4095, 4096, 4097, 8191, 8193, 65'537, 1'000'003);
  CAPTURE(n);
  WB_REQUIRE_MATCH(run_case(exact_inputs(n), n_is(n) + ", integers 0..3"));
}

TEST_CASE("negative elements too: integers -1..3", "[x02][correctness]") {
  WB_REQUIRE_DEVICE();
  const std::int64_t n = GENERATE(as<std::int64_t>{}, 1000, 100'003);
  CAPTURE(n);
  WB_REQUIRE_MATCH(run_case(exact_inputs(n, -1), n_is(n) + ", integers -1..3"));
}

TEST_CASE("random floats: within the float32 error bound", "[x02][correctness]") {
  WB_REQUIRE_DEVICE();
  const std::int64_t n = GENERATE(as<std::int64_t>{}, 1000, 1'000'003);
  CAPTURE(n);
  WB_REQUIRE_MATCH(run_case(wb::random_floats(std::size_t(n), 0.5f, 1.5f, 5 * n), n_is(n) + ", random floats"));
}

TEST_CASE("three calls in a row on the same scratch memory", "[x02][correctness]") {
  WB_REQUIRE_DEVICE();
  const std::int64_t n = 300'007;
  WB_REQUIRE_MATCH(run_case(exact_inputs(n), n_is(n) + ", integers 0..3", 3));
}

TEST_CASE("a large input", "[x02][correctness]") {
  WB_REQUIRE_DEVICE();
  const std::int64_t n = wb::cpu_backend() ? (std::int64_t(1) << 21) + 3 : (std::int64_t(1) << 28) + 3;
  WB_REQUIRE_MATCH(run_case(exact_inputs(n), n_is(n)));
}

TEST_CASE("speed against the solution and cub::DeviceScan::InclusiveSum", "[x02][timing]") {
  WB_REQUIRE_GPU("timings of the CPU backend say nothing about a GPU");
  WB_REQUIRE_CORRECT_SO_FAR();
  const std::int64_t n = std::int64_t(1) << 28;
  const std::vector<float> in = exact_inputs(n);
  const Reference ref = reference(in);
  wb::DeviceBuffer<float> din(in), dout(in.size()), copy(in.size());
  wb::DeviceBuffer<unsigned char> mine(student::inclusive_scan_scratch_bytes(n)),
      theirs(solution::inclusive_scan_scratch_bytes(n));
  auto yours = [&] { student::inclusive_scan(din.data(), dout.data(), n, mine.data()); };
  wb::grade_speed(  // shown, not graded: the exercise is a correct scan of any n
      wb::SpeedCase("inclusive scan of 2^28 floats (8 bytes per element: read and write)",
                    wb::memory_bound(8.0 * double(n)))
          .yours("your inclusive_scan", yours)
          .solution("solution (decoupled look-back)",
                    [&] { solution::inclusive_scan(din.data(), dout.data(), n, theirs.data()); })
          .anchor({"cub::DeviceScan::InclusiveSum", [&] { wb::anchors::cub_inclusive_sum(din.data(), dout.data(), n); }})
          .row("device-to-device copy", [&] { wb::anchors::device_copy(din.data(), copy.data(), n); })
          .bar("2^28 floats", "the scan")
          .table_row("x02-scan"),
      [&] {
        dout.poison();
        wb::run_launch("inclusive_scan (after timing, n = 2^28)", yours);
        return judge(in, ref, dout, "after timing, n = 2^28");
      });
}

// The small case compute-sanitizer runs on a GPU (memcheck, racecheck, synccheck: wb/sanitizer.hpp): a few tiles, the last one partial, and the carries between them.
WB_SANITIZER_CASE("[x02]", "the inclusive scans of 1025 and 8193 small integers") {
  const std::int64_t n = GENERATE(as<std::int64_t>{}, 1025, 8193);
  CAPTURE(n);
  WB_REQUIRE_MATCH(run_case(exact_inputs(n), n_is(n) + ", integers 0..3"));
}
