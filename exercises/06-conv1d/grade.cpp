// Exercise 06's grader: student::conv1d against a host reference for signals of awkward lengths
// (0, 1, 2, 31, 33, around multiples of 256 and 1024, primes, a signal shorter than the filter)
// and radii from 0 to kConvMaxRadius, calls in a row with different filters (the constant array
// must be refreshed at every call), a second call on the same buffers with new contents (a filter
// cached by its pointer is stale), then, on a GPU, its speed against the solution and PyTorch's
// conv1d without cuDNN (its own kernels) and with it (shown, not graded).
//
// Exactness: the signal is non-zero integers from -3 to 9 and the filter from -2 to 4, so every
// product and every partial sum, in any order, is an integer far below 2^24: out must be exact.
//
// A wrong out is explained in the exercise's terms, from what the wrong values are made of:
// neighbours left (or right) of some index missing (a halo not loaded, or not far enough), the
// filter applied reversed (a convolution in the mathematician's sense, filter[2 radius - k]), only
// the first taps of the filter (a copy to constant memory too short: its size is in bytes), the
// filter of an earlier call (the constant array not refreshed), elements never written, writes past n,
// a bad argument for the larger radii only (a __constant__ array too short for them).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "../common/inputs.hpp"
#include "conv1d.cuh"
#include "wb/grader.hpp"
#include "wb/library_anchors.hpp"

namespace {

struct Case {
  std::vector<float> in, filter;
  int n, radius;
  std::string context;
};

Case int_case(int n, int radius, std::uint64_t salt = 0) {
  const std::uint64_t s = std::uint64_t(n) * 7919 + std::uint64_t(radius) * 31 + salt;
  return {exercise::random_ints(std::size_t(n), -3, 9, s), exercise::random_ints(std::size_t(2 * radius + 1), -2, 4, s + 1),
          n, radius, "n = " + std::to_string(n) + ", radius " + std::to_string(radius)};
}

// sum over taps k in [k0, k1] of w(k) * in[i + k - radius], in[j] = 0 outside [lo, hi] (and outside the signal).
template <class W>
double tap_sum(const Case& t, std::int64_t i, int k0, int k1, std::int64_t lo, std::int64_t hi, W w) {
  double s = 0;
  for (int k = k0; k <= k1; ++k) {
    const std::int64_t j = i + k - t.radius;
    if (j < 0 || j >= t.n || j < lo || j > hi) continue;
    s += double(w(k)) * t.in[std::size_t(j)];
  }
  return s;
}

std::vector<double> reference(const Case& t) {
  std::vector<double> out(std::size_t(t.n));
  const int taps = 2 * t.radius;
  wb::parallel_ranges(std::size_t(t.n), [&](std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last; ++i)
      out[i] = tap_sum(t, std::int64_t(i), 0, taps, 0, t.n - 1, [&](int k) { return t.filter[k]; });
  }, 1 << 14);
  return out;
}

// "in[3]" or "in[3] .. in[7]".
std::string span(std::int64_t a, std::int64_t b) {
  return a == b ? "in[" + std::to_string(a) + "]" : "in[" + std::to_string(a) + "] .. in[" + std::to_string(b) + "]";
}

// What the wrong elements are made of, if it is something recognisable. `wrong` holds the first
// few written elements that are wrong (at most 8); a pattern must fit every one of them that it
// concerns, so that a chance equality of two sums of small integers explains nothing.
std::string explain(const Case& t, const std::vector<std::int64_t>& wrong, const std::vector<float>& got,
                    const std::vector<float>* previous_filter, bool same_pointers) {
  const int taps = 2 * t.radius;
  auto f = [&](int k) { return t.filter[k]; };
  const std::int64_t i = wrong.front();
  const std::string at = "out[" + std::to_string(i) + "]";
  auto g = [&](std::int64_t e) { return double(got[std::size_t(e)]); };
  // Does "the neighbours left of lo were taken as 0" fit every wrong element within a radius of
  // the first (those near the same tile boundary)? Likewise right of hi.
  auto fits_cut = [&](std::int64_t cut, bool left) {
    for (std::int64_t e : wrong) {
      if (e >= i + std::max(1, t.radius)) break;
      const double v = left ? tap_sum(t, e, 0, taps, cut, t.n - 1, f) : tap_sum(t, e, 0, taps, 0, cut, f);
      if (g(e) != v) return false;
    }
    return true;
  };
  // The first wrong element of a tile whose left halo is missing is the tile's first: the cut is at
  // it (tried first); of one whose right halo is missing, it is a radius before the tile's end.
  for (std::int64_t lo = i; lo > i - t.radius; --lo)
    if (lo > 0 && fits_cut(lo, true))
      return at + " lacks the products with " + span(std::max<std::int64_t>(0, i - t.radius), lo - 1) +
             ", the neighbours left of in[" + std::to_string(lo) + "]: they were taken as 0. Is the tile's left halo "
             "(the radius elements before its first) loaded into shared memory, all of it?";
  for (std::int64_t hi = i + t.radius - 1; hi >= i; --hi)
    if (hi < t.n - 1 && fits_cut(hi, false))
      return at + " lacks the products with " + span(hi + 1, std::min<std::int64_t>(t.n - 1, i + t.radius)) +
             ", the neighbours right of in[" + std::to_string(hi) + "]: they were taken as 0. Is the tile's right "
             "halo (the radius elements after its last) loaded into shared memory, all of it?";
  auto fits_all = [&](auto w, int last) {
    for (std::int64_t e : wrong)
      if (g(e) != tap_sum(t, e, 0, last, 0, t.n - 1, w)) return false;
    return true;
  };
  if (t.radius > 0 && fits_all([&](int k) { return t.filter[taps - k]; }, taps))
    return at + " is the sum of filter[2 radius - k] * in[i + k - radius]: the filter was applied reversed. This "
           "exercise (like torch.nn.functional.conv1d) computes the sum of filter[k] * in[i + k - radius]: filter[0] "
           "meets the leftmost neighbour";
  for (int last = taps - 1; last >= -1; --last)  // -1: no tap at all
    if (fits_all(f, last))
      return at + " uses only the first " + std::to_string(last + 1) + " of the filter's " + std::to_string(taps + 1) +
             " taps (the others count as 0): was the whole filter copied to constant memory? cudaMemcpyToSymbol's "
             "count is in bytes: (2 radius + 1) * sizeof(float), and the __constant__ array must hold "
             "2 * kConvMaxRadius + 1 floats";
  if (previous_filter && previous_filter->size() >= std::size_t(taps + 1) &&
      fits_all([&](int k) { return (*previous_filter)[k]; }, taps))
    return same_pointers
               ? at + " was computed with the previous call's filter, though the filter pointer is the same and its "
                      "contents changed: copy the filter to constant memory at every call (an unchanged pointer says "
                      "nothing about what it points to)"
               : at + " was computed with the previous call's filter: the filter must be copied to constant memory "
                      "at every call, before the kernel runs";
  return "";
}

wb::Comparison judge(const Case& t, const std::vector<double>& want, const wb::DeviceBuffer<float>& out,
                     const std::vector<float>* previous_filter, bool same_pointers = false) {
  wb::Comparison c = wb::guarded_comparison("out", t.n, t.context, out, [&](std::int64_t at) {
    return at < 0 ? "out[" + std::to_string(at) + "] was written, before the start of out: an index went negative"
                  : "out[" + std::to_string(at) + "] was written, past the end of out (n = " +
                        std::to_string(t.n) + "): a thread whose output index is n or more wrote; guard the "
                        "store with i < n";
  });
  if (!c.ok()) return c;
  const std::vector<float> got = out.download();
  std::int64_t first_unwritten = -1, first_written_wrong = -1;
  std::vector<std::int64_t> written_wrong;  // the first 8
  for (std::int64_t i = 0; i < t.n; ++i) {
    const bool miss = wb::never_written(got[std::size_t(i)]);
    if (!miss && double(got[std::size_t(i)]) == want[std::size_t(i)]) continue;
    if (!c.wrong++) c.first_wrong = i;
    if (c.listed.size() < 4) c.listed.push_back({i, want[std::size_t(i)], double(got[std::size_t(i)]), miss});
    if (miss) {
      if (!c.unwritten++) first_unwritten = i;
    } else {
      if (first_written_wrong < 0) first_written_wrong = i;
      if (written_wrong.size() < 8) written_wrong.push_back(i);
    }
  }
  if (c.wrong == 0) return c;
  c.pattern = wb::Pattern::chapter_specific;
  if (c.unwritten == c.n) {
    c.pattern = wb::Pattern::nothing_written;
    c.diagnosis = "no element of out was written: the kernel did not run or wrote nothing";
  } else if (c.unwritten == c.wrong && c.unwritten == t.n - first_unwritten) {
    c.diagnosis = "out is never written from index " + std::to_string(first_unwritten) + " on (n = " +
                  std::to_string(t.n) + "): the grid's blocks cover only the first " + std::to_string(first_unwritten) +
                  " outputs; round the number of blocks up, (n + outputs per block - 1) / outputs per block";
  } else if (c.unwritten == c.wrong) {
    c.diagnosis = std::to_string(c.unwritten) + " elements of out were never written, first out[" +
                  std::to_string(first_unwritten) + "]: does every thread store each of its outputs below n?";
  } else {
    const std::string why = explain(t, written_wrong, got, previous_filter, same_pointers);
    c.diagnosis = !why.empty()
                      ? why
                      : "wrong values in " + std::to_string(c.wrong - c.unwritten) + " of " + std::to_string(t.n) +
                            " elements, first out[" + std::to_string(first_written_wrong) + "] (expected " +
                            wb::format_value(want[std::size_t(first_written_wrong)]) + ", got " +
                            wb::format_value(got[std::size_t(first_written_wrong)]) + ")";
  }
  return c;
}

// What the calls so far that returned no error had: the largest radius, the smallest n.
struct Worked {
  int radius = -1;
  int n = -1;
};
Worked worked;

// Calls student::conv1d on buffers that hold t's signal and filter. A bad argument it returns is
// explained here when the call worked for smaller radii (a __constant__ array too short for the
// larger filters: cudaMemcpyToSymbol refuses a copy past its end); other errors as run_launch says.
void launch_case(const Case& t, wb::DeviceBuffer<float>& din, wb::DeviceBuffer<float>& dfilter,
                 wb::DeviceBuffer<float>& dout) {
  const std::string what = "conv1d (" + t.context + ")";
  cudaError_t code = cudaSuccess;
  wb::run_launch(what, [&] {
    try {
      student::conv1d(din.data(), dout.data(), t.n, dfilter.data(), t.radius);
    } catch (const wb::CudaError& e) {  // a WB_CUDA_CHECK around the copy
      code = e.code();
    }
    if (code == cudaSuccess) code = cudaGetLastError();
    if (code != cudaErrorInvalidValue) {  // not ours to explain: run_launch does
      if (code != cudaSuccess) throw wb::CudaError(code, "student::conv1d", __FILE__, __LINE__);
      return;
    }
  });
  if (code == cudaErrorInvalidValue) {
    std::string headline;
    if (worked.radius >= 0 && t.radius > worked.radius && worked.n <= t.n)
      headline = what + " returned cudaErrorInvalidValue (a bad argument), though calls with radius up to " +
                 std::to_string(worked.radius) + " ran without one: the filter's 2 radius + 1 = " +
                 std::to_string(2 * t.radius + 1) + " floats do not fit in the __constant__ array, and "
                 "cudaMemcpyToSymbol refused the copy (the kernel ran with whatever the array held). Declare it with "
                 "2 * kConvMaxRadius + 1 = " + std::to_string(2 * kConvMaxRadius + 1) + " floats";
    wb::fail_with_cuda_error(what, code, headline);
  }
  worked.radius = std::max(worked.radius, t.radius);
  worked.n = worked.n < 0 ? t.n : std::min(worked.n, t.n);
}

wb::Comparison run_case(const Case& t, const std::vector<float>* previous_filter = nullptr) {
  wb::DeviceBuffer<float> din(t.in), dfilter(t.filter), dout(std::size_t(t.n));
  dout.poison();
  const std::vector<double> want = reference(t);
  launch_case(t, din, dfilter, dout);
  return wb::inputs_then_output(wb::inputs_unchanged<float>({{"in", t.in, din}, {"filter", t.filter, dfilter}}, "out"),
                                [&] { return judge(t, want, dout, previous_filter); }, t.context);
}

}  // namespace

TEST_CASE("out = filter * in for awkward lengths and radii", "[x06][correctness]") {
  WB_REQUIRE_DEVICE();
  const auto [n, radius] = GENERATE(table<int, int>({{1, 0},     {1, 1},    {2, 3},      {31, 1},    {33, 2},
                                                     {100, 8},   {255, 3},  {256, 5},    {257, 16},  {1000, 0},
                                                     {1023, 7},  {1025, 64}, {3001, 128}, {4099, 31}, {65537, 4},
                                                     {5, 128},   {300, 100}}));
  CAPTURE(n, radius);
  WB_REQUIRE_MATCH(run_case(int_case(n, radius)));
}

TEST_CASE("calls in a row with different filters", "[x06][correctness]") {
  WB_REQUIRE_DEVICE();
  // The same radius, a new filter at every call: constant memory must hold the current one.
  Case a = int_case(2000, 6, 1), b = int_case(2000, 6, 2);
  b.context += ", after a call with another filter";
  WB_REQUIRE_MATCH(run_case(a));
  WB_REQUIRE_MATCH(run_case(b, &a.filter));
  // A shorter filter after a longer one: its taps past 2 radius must not linger.
  Case s = int_case(700, 2, 3);
  s.context += ", after a call with radius 6";
  WB_REQUIRE_MATCH(run_case(s, &b.filter));
}

TEST_CASE("the same buffers again, with a new filter and signal in them", "[x06][correctness]") {
  WB_REQUIRE_DEVICE();
  // A filter cached by its pointer (copied only when `filter` differs from the last call's) keeps
  // the first call's taps: the pointers stay, the contents change.
  const int n = 3001, radius = 9;
  Case first = int_case(n, radius, 4), second = int_case(n, radius, 5);
  first.context += ", first call";
  second.context += ", the same in, filter and out pointers, new contents";
  wb::DeviceBuffer<float> din(first.in), dfilter(first.filter), dout{std::size_t(n)};
  for (const Case* t : {&first, &second}) {
    din.upload(t->in);
    dfilter.upload(t->filter);
    dout.poison();
    const std::vector<double> want = reference(*t);
    launch_case(*t, din, dfilter, dout);
    WB_REQUIRE_MATCH(wb::inputs_then_output(
        wb::inputs_unchanged<float>({{"in", t->in, din}, {"filter", t->filter, dfilter}}, "out"),
        [&] { return judge(*t, want, dout, t == &second ? &first.filter : nullptr, t == &second); }, t->context));
  }
}

TEST_CASE("nothing to do, and a long signal", "[x06][correctness]") {
  WB_REQUIRE_DEVICE();
  WB_REQUIRE_MATCH(run_case(int_case(0, 3)));
  const int n = wb::cpu_backend() ? (1 << 18) + 3 : (1 << 26) + 3;
  WB_REQUIRE_MATCH(run_case(int_case(n, 8)));
}

TEST_CASE("speed against the solution and PyTorch's conv1d", "[x06][timing]") {
  WB_REQUIRE_GPU("timings of the CPU backend say nothing about a GPU");
  WB_REQUIRE_CORRECT_SO_FAR();
  const int n = 1 << 26, radius = 8;
  const Case t = int_case(n, radius);
  wb::DeviceBuffer<float> din(t.in), dfilter(t.filter), dout(static_cast<std::size_t>(n));
  const std::string size = "2^26 floats, radius 8";
  auto yours = [&] { student::conv1d(din.data(), dout.data(), n, dfilter.data(), radius); };
  wb::SpeedCase speed("conv1d of " + size + " (8 bytes per element)",
                      wb::memory_bound(2.0 * sizeof(float) * n));  // in read once, out written once
  speed.yours("your conv1d", yours)
      .solution("solution (halo tiles, filter in constant memory)",
                [&] { solution::conv1d(din.data(), dout.data(), n, dfilter.data(), radius); })
      .anchor(wb::anchors::torch_anchor("PyTorch conv1d, no cuDNN", [&] {
        wb::anchors::torch_conv1d(din.data(), n, dfilter.data(), radius, false);
      }))
      .bar(size, "out")
      .table_row("x06-conv1d");
  if (wb::anchors::torch_available())
    speed.row("PyTorch conv1d, cuDNN", [&] { wb::anchors::torch_conv1d(din.data(), n, dfilter.data(), radius, true); });
  wb::grade_speed(speed, [&] {
    dout.poison();
    wb::run_launch("conv1d (after timing, " + size + ")", yours);
    Case after = t;
    after.context = "after timing, " + t.context;
    return judge(after, reference(t), dout, nullptr);
  });
}

// The small case compute-sanitizer runs on a GPU (memcheck, racecheck, synccheck: wb/sanitizer.hpp): three blocks with halos, the last one partial, and a short signal.
WB_SANITIZER_CASE("[x06]", "out = filter * in for n = 2049, radius 64, and n = 33, radius 2") {
  const auto [n, radius] = GENERATE(table<int, int>({{2049, 64}, {33, 2}}));
  CAPTURE(n, radius);
  WB_REQUIRE_MATCH(run_case(int_case(n, radius)));
}
