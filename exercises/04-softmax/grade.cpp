// Exercise 04's grader: student::softmax against a host reference in double for rows of awkward
// lengths (1, 31, 33, around multiples of 32, 128 and 1024), rows of large values (about +1000
// and -1000, where exp() of the input itself overflows or underflows), rows whose largest
// element comes last or first, equal elements, one dominant element, one element 100 above the
// rest at column 0, 32, the middle, the last and 8192 (past what a thread keeps in registers),
// more rows than a grid of
// resident warps, pointers off a 16-byte boundary; then, on a GPU, its speed against the
// solution and PyTorch's softmax (shown, not graded).
//
// Tolerance, per element: |got - exact| <= exact * (gamma(d) + (|x - m| + 16) * 2^-22) + 1e-36,
// gamma(d) = d u / (1 - d u), u = 2^-24, d = cols / 8 + 16: the sum's rounding in any order
// whose threads each add up to an eighth of the row before a tree, exp()'s error growing with
// |x - m| (as __expf's does), and results below float32's normal range flushed to 0.
//
// A wrong out is explained in the exercise's terms: rows or columns never written, NaN or
// infinity from exp() of large inputs (the maximum not subtracted, or a running maximum that
// starts at 0), rows whose elements are in the right proportions but divided by the wrong sum
// (a running sum not rescaled when the maximum grows, or partial sums merged without rescaling),
// rows not divided by their sum at all, a maximum that missed a late element (exp() of it
// overflows), NaN from merging two threads that saw no element (exp(-inf - -inf)), threads that
// wrote with their own (m, s) instead of the row's (a merge left in lane 0).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "../common/inputs.hpp"
#include "softmax.cuh"
#include "wb/alignment.hpp"
#include "wb/grader.hpp"
#include "wb/library_anchors.hpp"

namespace {

// ---- CPU reference ----
struct Reference {
  std::vector<double> out, tol;  // per element
  std::vector<double> max, sum;  // per row: m_r and the sum of exp(x - m_r)
};

Reference reference(const std::vector<float>& in, int rows, int cols) {
  Reference r;
  r.out.resize(in.size());
  r.tol.resize(in.size());
  r.max.resize(rows);
  r.sum.resize(rows);
  const double u = std::ldexp(1.0, -24), d = cols / 8.0 + 16, gamma = d * u / (1 - d * u);
  wb::parallel_ranges(std::size_t(rows), [&](std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last; ++i) {
      const float* row = in.data() + i * cols;
      double m = row[0], s = 0;
      for (int c = 0; c < cols; ++c) m = std::max(m, double(row[c]));
      for (int c = 0; c < cols; ++c) s += std::exp(double(row[c]) - m);
      r.max[i] = m;
      r.sum[i] = s;
      for (int c = 0; c < cols; ++c) {
        const double x = double(row[c]) - m, e = std::exp(x) / s;
        r.out[i * cols + c] = e;
        r.tol[i * cols + c] = e * (gamma + (std::fabs(x) + 16) * std::ldexp(1.0, -22)) + 1e-36;
      }
    }
  }, 256);
  return r;
}

// ---- inputs ----
// Random floats in [lo, hi), plus offset (the large-value cases).
std::vector<float> random_rows(int rows, int cols, float lo, float hi, std::uint64_t stream) {
  return wb::random_floats(std::size_t(rows) * cols, lo, hi, stream);
}

// ---- diagnosis ----
// Row r of a softmax whose threads each scaled their own elements with their own (m, s) (the
// merged pair left in one lane or thread only, e.g. by a __shfl_down_sync tree): the elements
// fall into groups of one ratio got / want each, one group (lane 0's) right. Says so, or "".
std::string own_maximum(int cols, const Reference& ref, const std::vector<float>& got, int r) {
  const std::size_t base = std::size_t(r) * cols;
  std::vector<double> ratios;
  std::vector<int> right_cols;
  for (int col = 0; col < cols; ++col) {
    const double want = ref.out[base + col], g = got[base + col];
    if (want < 1e-20 || !std::isfinite(g) || wb::never_written(got[base + col])) return "";
    if (std::fabs(g - want) <= ref.tol[base + col]) right_cols.push_back(col);
    ratios.push_back(g / want);
  }
  if (right_cols.empty() || right_cols.size() == std::size_t(cols)) return "";
  std::sort(ratios.begin(), ratios.end());
  int groups = 1;
  for (std::size_t i = 1; i < ratios.size(); ++i) groups += ratios[i] > ratios[i - 1] * (1 + 1e-4);
  // Lane 0's columns when lanes take columns t, t + 32, ... (one float or a float4 at a time).
  const bool lane0 = right_cols.front() == 0 && std::all_of(right_cols.begin(), right_cols.end(), [](int col) {
    return col % 32 == 0 || col % 128 < 4;
  });
  if (!lane0 && (groups < 2 || 2 * groups > cols)) return "";  // as many ratios as elements: no groups to speak of
  std::string which;
  for (std::size_t i = 0; i < right_cols.size() && i < 3; ++i) which += (i ? ", " : "") + std::to_string(right_cols[i]);
  return "in row " + std::to_string(r) + " only " + std::to_string(right_cols.size()) + " of " +
         std::to_string(cols) + " elements are right (column" + (right_cols.size() > 1 ? "s " : " ") + which + (right_cols.size() > 3 ? ", ..." : "") +
         "), and the others are off by " + std::to_string(groups - 1) + " different factor" +
         (groups > 2 ? "s" : "") + ": each thread wrote its elements with its own maximum and "
         "sum, not the row's. After the merge every thread must hold the row's (m, s): a __shfl_down_sync tree "
         "leaves it in lane 0 only (use __shfl_xor_sync, or broadcast lane 0's with __shfl_sync)";
}

// `got` is out as downloaded, `hits` the writes outside it.
wb::Comparison judge(const std::vector<float>& in, int rows, int cols, const Reference& ref,
                     const std::vector<float>& got, const std::vector<wb::GuardHit>& hits) {
  wb::Comparison c;
  c.array = "out";
  c.n = std::int64_t(rows) * cols;
  if (!hits.empty()) {
    c.pattern = wb::Pattern::out_of_bounds;
    c.guard_hits = hits;
    const std::int64_t at = hits.front().index;
    c.diagnosis = "out[" + std::to_string(at) + "] was written, " +
                  (at < 0 ? std::string("before the start of out: an index went negative")
                          : "past the end of out (rows x cols = " + std::to_string(c.n) +
                                " floats): a thread past the last row or the last column wrote");
    return c;
  }
  std::int64_t nonfinite = 0, first_nonfinite = -1;
  std::vector<int> bad_rows;  // rows with a wrong written element
  int min_row_unwritten = rows, min_col_unwritten = cols;
  bool unwritten_suffix = true;  // in every row, the unwritten columns are the last ones
  for (int r = 0; r < rows; ++r) {
    bool seen_unwritten = false, row_bad = false;
    for (int col = 0; col < cols; ++col) {
      const std::size_t k = std::size_t(r) * cols + col;
      const bool miss = wb::never_written(got[k]);
      if (!miss && std::fabs(double(got[k]) - ref.out[k]) <= ref.tol[k]) {
        if (seen_unwritten) unwritten_suffix = false;
        continue;
      }
      if (!c.wrong++) c.first_wrong = std::int64_t(k);
      if (c.listed.size() < 4) c.listed.push_back({std::int64_t(k), ref.out[k], double(got[k]), miss});
      if (miss) {
        ++c.unwritten;
        min_row_unwritten = std::min(min_row_unwritten, r);
        if (!seen_unwritten) min_col_unwritten = std::min(min_col_unwritten, col);
        seen_unwritten = true;
        continue;
      }
      if (seen_unwritten) unwritten_suffix = false;
      if (!std::isfinite(got[k]) && !nonfinite++) first_nonfinite = std::int64_t(k);
      row_bad = true;
    }
    if (row_bad) bad_rows.push_back(r);
  }
  if (c.wrong == 0) return c;
  c.pattern = wb::Pattern::chapter_specific;
  const std::int64_t f = c.first_wrong;
  const std::string first = exercise::cell("out", f / cols, f % cols);
  if (c.unwritten == c.n) {
    c.pattern = wb::Pattern::nothing_written;
    c.diagnosis = "no element of out was written: the kernel did not run or wrote nothing";
    return c;
  }
  if (c.unwritten == c.wrong) {
    if (c.unwritten == std::int64_t(rows - min_row_unwritten) * cols)
      c.diagnosis = "out is never written from row " + std::to_string(min_row_unwritten) + " on (of " +
                    std::to_string(rows) + " rows): the grid reached only the first " +
                    std::to_string(min_row_unwritten) + " rows; give every row a block (or a warp), or let each take "
                    "rows r, r + (rows the grid holds), ...";
    else if (unwritten_suffix)
      c.diagnosis = "out is never written from column " + std::to_string(min_col_unwritten) + " on (cols = " +
                    std::to_string(cols) + "): each thread must write all its columns, c = t, t + (threads per row), "
                    "... up to cols (is the last, partial step skipped?)";
    else
      c.diagnosis = std::to_string(c.unwritten) + " elements of out were never written, first " + first +
                    ": every element of every row is written in the second pass";
    return c;
  }
  if (nonfinite > 0) {
    const int r = int(first_nonfinite / cols);
    // Rows with a non-finite output, and rows that are all right, by the shape of their inputs.
    // A "spike" row has one element at least 88 above every other (exp(spike - m) overflows for
    // any m that misses it), the others within [-80, 80]; a "moderate" row lies within 80 of 0 and
    // of itself, where no exp(x - m') overflows or is 0 everywhere, whatever m' <= max the kernel
    // subtracted.
    struct Shape {
      float lo, hi, second;  // the smallest, the largest, the largest but one (at another column)
      int at;                // the column of the largest
    };
    auto shape_of_row = [&](int row_index) {
      const float* x = in.data() + std::size_t(row_index) * cols;
      Shape s{x[0], x[0], -INFINITY, 0};
      for (int col = 1; col < cols; ++col) {
        s.lo = std::min(s.lo, x[col]);
        if (x[col] > s.hi) {
          s.second = s.hi;
          s.hi = x[col];
          s.at = col;
        } else {
          s.second = std::max(s.second, x[col]);
        }
      }
      return s;
    };
    auto spike = [](const Shape& s) { return s.hi - s.second >= 88 && s.second <= 80 && s.lo >= -80; };
    auto moderate = [](const Shape& s) { return s.hi <= 80 && s.lo >= -80 && s.hi - s.lo <= 80; };
    bool all_spikes = true, all_moderate = true;
    int right_spike = -1;
    for (int row_index = 0; row_index < rows; ++row_index) {
      bool nan_here = false, right = true;
      for (int col = 0; col < cols; ++col) {
        const std::size_t k = std::size_t(row_index) * cols + col;
        nan_here = nan_here || (!wb::never_written(got[k]) && !std::isfinite(got[k]));
        right = right && !wb::never_written(got[k]) && std::fabs(double(got[k]) - ref.out[k]) <= ref.tol[k];
      }
      const Shape s = shape_of_row(row_index);
      if (nan_here) {
        all_spikes = all_spikes && spike(s) && s.at > 0;
        all_moderate = all_moderate && moderate(s);
      } else if (right && spike(s) && (right_spike < 0 || s.at > shape_of_row(right_spike).at)) {
        right_spike = row_index;
      }
    }
    const Shape s = shape_of_row(r);
    if (all_spikes && right_spike >= 0) {
      const Shape good = shape_of_row(right_spike);
      c.diagnosis = exercise::cell("out", r, first_nonfinite % cols) + " is " +
                    wb::format_value(got[first_nonfinite]) + ": row " + std::to_string(r) + "'s largest element, " +
                    exercise::cell("in", r, s.at) + " = " + wb::format_value(s.hi, 4) + ", is " +
                    wb::format_value(s.hi - s.second, 3) + " above every other, late in the row, while row " +
                    std::to_string(right_spike) + ", whose largest is at column " + std::to_string(good.at) +
                    ", is right: the maximum subtracted missed it, and exp() of more than 88.7 overflows to infinity. "
                    "Every element of the row, whatever its column, must go into the maximum (is it taken over only "
                    "the first columns, the first 32, or the elements a thread keeps in registers?)";
      return c;
    }
    if (all_moderate) {
      c.diagnosis = exercise::cell("out", r, first_nonfinite % cols) + " is " +
                    wb::format_value(got[first_nonfinite]) + ", in a row of " + std::to_string(cols) +
                    (cols == 1 ? " column" : " columns") + " whose inputs lie between " + wb::format_value(s.lo, 4) + " and " +
                    wb::format_value(s.hi, 4) +
                    ", where no exp(x - m) overflows: the NaN comes from merging (m, s) pairs. A thread (or lane) "
                    "that got no element of the row keeps (-INFINITY, 0), and merging two of them computes "
                    "exp(-INFINITY - -INFINITY) = exp(NaN): when both maxima are -INFINITY, the merge must keep "
                    "(-INFINITY, 0) without calling exp()";
      return c;
    }
    const float* row = in.data() + std::size_t(r) * cols;
    const float lo = *std::min_element(row, row + cols), hi = *std::max_element(row, row + cols);
    c.diagnosis = exercise::cell("out", r, first_nonfinite % cols) + " is " + wb::format_value(got[first_nonfinite]) +
                  ": row " + std::to_string(r) + "'s inputs lie between " + wb::format_value(lo, 4) + " and " +
                  wb::format_value(hi, 4) +
                  (hi > 88.0f    ? ", and exp() of anything above 88.7 overflows float32 to infinity"
                   : lo < -87.0f ? ", and exp() of anything below -103 is 0 in float32 (0 / 0 is NaN)"
                                 : "") +
                  ": subtract the row's maximum before exp(), exp(x - m), and start the running maximum at "
                  "-INFINITY (not 0), so that every exponent is <= 0 and the largest is exactly 0";
    return c;
  }
  // The first wrong row: are its elements in the right proportions (divided by a wrong sum)?
  const int r = bad_rows.front();
  const std::size_t base = std::size_t(r) * cols;
  double ratio = 0, spread = 0, tol = 0;
  int counted = 0;
  for (int col = 0; col < cols; ++col) {
    const double want = ref.out[base + col], g = got[base + col];
    if (want < 1e-20 || wb::never_written(got[base + col])) continue;
    const double q = g / want;
    if (counted++ == 0) ratio = q;
    spread = std::max(spread, std::fabs(q - ratio));
    tol = std::max(tol, 4 * ref.tol[base + col] / want);
  }
  const std::string row_name = "row " + std::to_string(r);
  if (counted > 0 && spread <= tol * std::max(1.0, std::fabs(ratio))) {
    if (std::fabs(ratio - ref.sum[r]) <= 1e-4 * ref.sum[r])
      c.diagnosis = "every element of " + row_name + " is exp(in - max), not divided by the row's sum (" +
                    wb::format_value(ref.sum[r], 4) + "): the second pass writes exp(x - m) / s";
    else
      c.diagnosis = "the elements of " + row_name + " are in the right proportions, but each is " +
                    wb::format_value(ratio, 4) + " times the right value (the row sums to " +
                    wb::format_value(ratio, 4) +
                    ", not 1): the sum they are divided by is "
                    "wrong. When the running maximum grows from m to m', is the sum so far multiplied by "
                    "exp(m - m')? When two threads' (m, s) are combined, is each s rescaled to the larger m first?";
  } else if (const std::string groups = own_maximum(cols, ref, got, r); !groups.empty()) {
    c.diagnosis = groups;
  } else {
    std::size_t k = base;
    while (k + 1 < base + cols && std::fabs(double(got[k]) - ref.out[k]) <= ref.tol[k]) ++k;
    c.diagnosis = "wrong values in " + std::to_string(bad_rows.size()) + " of " + std::to_string(rows) +
                  " rows, first " + exercise::cell("out", r, k - base) + " (expected " + wb::format_value(ref.out[k]) +
                  ", got " + wb::format_value(got[k]) + ")";
  }
  return c;
}

// Runs student::softmax on `in` once; with `m`, in and out start as many floats past a 16-byte
// boundary as it says (their guard zones stay around them).
wb::Comparison run_case(const std::vector<float>& in, int rows, int cols, const std::string& context,
                        const wb::Misalignment& m = {}) {
  const Reference ref = reference(in, rows, cols);
  wb::DeviceBuffer<float> din(in, m.guard("in")), dout(in.size(), m.guard("out"));
  dout.poison();
  wb::run_launch("softmax (" + context + ")", [&] { student::softmax(din.data(), dout.data(), rows, cols); });
  wb::Comparison c = wb::inputs_unchanged<float>({{"in", in, din}}, "out");
  if (c.ok()) c = judge(in, rows, cols, ref, dout.download(), dout.guard_hits());
  c.context = context;
  return c;
}

std::string shape_of(int rows, int cols, const std::string& what) {
  return exercise::shape(rows, cols) + ", " + what;
}

}  // namespace

TEST_CASE("softmax of rows of awkward lengths", "[x04][correctness]") {
  WB_REQUIRE_DEVICE();
  const auto [rows, cols] = GENERATE(table<int, int>({{1, 1},    {3, 1},     {1, 31},   {3, 32},   {5, 33},
                                                      {2, 100},  {7, 128},   {9, 129},  {33, 257}, {64, 1000},
                                                      {4, 1024}, {17, 1025}, {3, 4099}, {2, 8192}, {2, 8197}}));
  CAPTURE(rows, cols);
  WB_REQUIRE_MATCH(run_case(random_rows(rows, cols, -4.0f, 4.0f, std::uint64_t(rows) * 7919 + cols), rows, cols,
                            shape_of(rows, cols, "random floats in [-4, 4)")));
}

TEST_CASE("large inputs: exp() of the input itself would overflow or underflow", "[x04][correctness]") {
  WB_REQUIRE_DEVICE();
  const auto [rows, cols] = GENERATE(table<int, int>({{4, 1}, {3, 33}, {6, 300}, {2, 2049}}));
  CAPTURE(rows, cols);
  // Rows alternate between about +1000 and about -1000.
  std::vector<float> in = random_rows(rows, cols, -10.0f, 10.0f, std::uint64_t(cols) * 3 + 1);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) in[std::size_t(r) * cols + c] += r % 2 ? -1000.0f : 1000.0f;
  WB_REQUIRE_MATCH(run_case(in, rows, cols, shape_of(rows, cols, "rows about +1000 and -1000")));
}

TEST_CASE("the largest element last, first, or far above the rest", "[x04][correctness]") {
  WB_REQUIRE_DEVICE();
  const int cols = GENERATE(40, 700, 3000);
  CAPTURE(cols);
  const int rows = 4;
  // Row 0 increases (the running maximum grows at every element), row 1 decreases, row 2 is all
  // equal (out = 1 / cols), row 3 has one element 30 above the rest (out close to one-hot).
  std::vector<float> in(std::size_t(rows) * cols);
  for (int c = 0; c < cols; ++c) {
    in[c] = -20.0f + 40.0f * float(c) / float(cols);
    in[std::size_t(cols) + c] = 20.0f - 40.0f * float(c) / float(cols);
    in[2 * std::size_t(cols) + c] = 2.5f;
    in[3 * std::size_t(cols) + c] = c == cols / 3 ? 31.0f : 1.0f;
  }
  WB_REQUIRE_MATCH(run_case(in, rows, cols, shape_of(rows, cols, "increasing, decreasing, equal, one dominant")));
}

TEST_CASE("the largest element late in the row and 100 above the rest", "[x04][correctness]") {
  WB_REQUIRE_DEVICE();
  // One row per place of the largest element: first (a maximum taken from the first columns only
  // gets it), past the first 32 columns, the middle, the last column, and past the first 8192
  // (the elements a thread keeps in registers). exp(100) overflows float32: a maximum that misses
  // the element shows as infinity or NaN.
  const int cols = GENERATE(33, 100, 1000, 1025, 4099, 8197);
  CAPTURE(cols);
  std::vector<int> at = {0, 32, cols / 2, cols - 1};
  if (cols > 8192) at.push_back(8192);
  std::sort(at.begin(), at.end());
  at.erase(std::unique(at.begin(), at.end()), at.end());
  const int rows = int(at.size());
  std::vector<float> in = random_rows(rows, cols, -4.0f, 4.0f, std::uint64_t(cols) * 13 + 5);
  for (int r = 0; r < rows; ++r) in[std::size_t(r) * cols + at[std::size_t(r)]] = 104.0f + float(r);
  std::string where;
  for (int a : at) where += (where.empty() ? "" : ", ") + std::to_string(a);
  WB_REQUIRE_MATCH(run_case(in, rows, cols,
                            shape_of(rows, cols, "random floats in [-4, 4), and 104 + r in row r at column " + where +
                                                     " (one per row)")));
}

TEST_CASE("in and out off a 16-byte boundary, each alone and both together", "[x04][correctness]") {
  WB_REQUIRE_DEVICE();
  const int cols = GENERATE(64, 2048);
  const wb::Misalignment m = GENERATE(from_range(wb::misalignments({"in", "out"})));
  CAPTURE(cols);
  WB_REQUIRE_MATCH(run_case(random_rows(5, cols, -4.0f, 4.0f, 77), 5, cols, shape_of(5, cols, m.context), m));
}

TEST_CASE("no rows at all, and more rows than the grid has warps", "[x04][correctness]") {
  WB_REQUIRE_DEVICE();
  WB_REQUIRE_MATCH(run_case({}, 0, 17, "0 x 17 (nothing to do)"));
  const int rows = wb::cpu_backend() ? 1999 : (1 << 20) + 3, cols = wb::cpu_backend() ? 3 : 33;
  WB_REQUIRE_MATCH(run_case(random_rows(rows, cols, -4.0f, 4.0f, 4242), rows, cols,
                            shape_of(rows, cols, "random floats in [-4, 4)")));
}

TEST_CASE("speed against the solution and PyTorch's softmax", "[x04][timing]") {
  WB_REQUIRE_GPU("timings of the CPU backend say nothing about a GPU");
  WB_REQUIRE_CORRECT_SO_FAR();
  const int rows = 8192, cols = 8192;
  const std::size_t n = std::size_t(rows) * cols;
  const std::vector<float> in = random_rows(rows, cols, -4.0f, 4.0f, 7);
  wb::DeviceBuffer<float> din(in), dout(n), tout(n);
  const std::string size = exercise::shape(rows, cols) + " floats";
  auto yours = [&] { student::softmax(din.data(), dout.data(), rows, cols); };
  wb::grade_speed(
      wb::SpeedCase("softmax of " + size + " (8 bytes per element)",
                    wb::memory_bound(2.0 * sizeof(float) * n))  // in read once, out written once
          .yours("your softmax", yours)
          .solution("solution (online max and sum, row in registers)",
                    [&] { solution::softmax(din.data(), dout.data(), rows, cols); })
          .anchor(wb::anchors::torch_anchor("PyTorch softmax",
                                            [&] { wb::anchors::torch_softmax(din.data(), tout.data(), rows, cols); }))
          .bar(size, "out")
          .table_row("x04-softmax", exercise::shape(rows, cols)),
      [&] {
        dout.poison();
        wb::run_launch("softmax (after timing, " + size + ")", yours);
        wb::Comparison c = judge(in, rows, cols, reference(in, rows, cols), dout.download(), dout.guard_hits());
        c.context = size;
        return c;
      });
}

// The small case compute-sanitizer runs on a GPU (memcheck, racecheck, synccheck: wb/sanitizer.hpp): short rows and a long one, neither a multiple of a warp.
WB_SANITIZER_CASE("[x04]", "softmax of 9 rows of 129 and 3 rows of 4099") {
  const auto [rows, cols] = GENERATE(table<int, int>({{9, 129}, {3, 4099}}));
  CAPTURE(rows, cols);
  WB_REQUIRE_MATCH(run_case(random_rows(rows, cols, -4.0f, 4.0f, std::uint64_t(rows) * 7919 + cols), rows, cols,
                            shape_of(rows, cols, "random floats in [-4, 4)")));
}
