// Exercise 10's grader: student::topk against a host reference (a sort of each row by the
// contract's order) for many shapes and k, rows full of ties, -0 beside +0, rows with -infinity, rows sorted
// both ways, more rows than a grid of resident warps; then, on a GPU, its speed against the
// solution and torch.topk.
//
// Every check is exact: the answer is a choice of elements, not arithmetic. A wrong row is
// explained in the exercise's terms: an index that is not a column, values and indices that
// disagree, a column listed twice, the right values in the wrong order, ties broken the wrong
// way (-0 below +0: bits compared, not values), the k smallest instead of the largest, the order of
// the floats' bits as integers, the top k of only the first columns of the row,
// rows never reached.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "../common/inputs.hpp"
#include "topk.cuh"
#include "wb/grader.hpp"
#include "wb/library_anchors.hpp"

namespace {

struct Case {
  std::vector<float> in;
  int rows, cols, k;
  std::string context;
};

// ---- CPU reference ----
// The contract's order: larger value first; of equal values, the lower column first.
bool better(float v, int i, float w, int j) { return v > w || (v == w && i < j); }

// The top k columns of row[0..cols), best first (`smallest`: the k smallest, by the mirrored order).
std::vector<int> top_columns(const float* row, int cols, int k, bool smallest = false) {
  std::vector<int> idx(cols);
  std::iota(idx.begin(), idx.end(), 0);
  auto order = [&](int a, int b) { return smallest ? (row[a] < row[b] || (row[a] == row[b] && a < b)) : better(row[a], a, row[b], b); };
  std::partial_sort(idx.begin(), idx.begin() + k, idx.end(), order);
  idx.resize(k);
  return idx;
}

// ---- diagnosis ----
enum class Kind { ok, unwritten, bad_index, disagree, repeated, order, ties, smallest, int_bits, prefix, other };

// -0 and +0: equal values, told apart only by their bits.
bool zeros_of_both_signs(float a, float b) { return a == 0 && b == 0 && std::signbit(a) != std::signbit(b); }

// The float's bits read as a signed integer (what comparing __float_as_int values compares).
std::int32_t int_bits(float v) {
  std::int32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

struct RowVerdict {
  Kind kind = Kind::ok;
  int j = 0;            // the position in the row's list the message names
  int prefix = 0;       // Kind::prefix: the columns looked at
  std::string detail;   // the sentence's specifics
  bool signed_zeros = false;  // Kind::order, Kind::ties: the two elements are -0 and +0
};

// What is wrong with one row's list (`detail` false: only whether it is right, unwritten or wrong).
RowVerdict judge_row(const float* row, int cols, int k, const float* gv, const int* gi, bool detail) {
  const std::vector<int> want = top_columns(row, cols, k);
  bool all_right = true;
  for (int j = 0; j < k; ++j) all_right = all_right && gi[j] == want[j] && gv[j] == row[want[j]];
  if (all_right) return {};
  bool unwritten = true;
  for (int j = 0; j < k; ++j) unwritten = unwritten && wb::never_written(gv[j]) && wb::never_written(gi[j]);
  if (unwritten) return {Kind::unwritten};
  if (!detail) return {Kind::other};
  for (int j = 0; j < k; ++j)
    if (gi[j] < 0 || gi[j] >= cols)
      return {Kind::bad_index, j, 0, "indices[" + std::to_string(j) + "] is " + std::to_string(gi[j])};
  for (int j = 0; j < k; ++j)
    if (!(gv[j] == row[gi[j]]))  // (-0 == 0 counts as agreeing)
      return {Kind::disagree, j, 0,
              "values[" + std::to_string(j) + "] is " + wb::format_value(gv[j]) + " but in[row][indices[" +
                  std::to_string(j) + "]] = in[row][" + std::to_string(gi[j]) + "] is " + wb::format_value(row[gi[j]])};
  std::vector<int> seen(gi, gi + k);
  std::sort(seen.begin(), seen.end());
  if (const auto dup = std::adjacent_find(seen.begin(), seen.end()); dup != seen.end())
    return {Kind::repeated, 0, 0, "column " + std::to_string(*dup) + " is listed twice"};
  // The same set of columns, in another order?
  std::vector<int> want_sorted = want;
  std::sort(want_sorted.begin(), want_sorted.end());
  if (seen == want_sorted) {
    for (int j = 0; j + 1 < k; ++j)
      if (!better(gv[j], gi[j], gv[j + 1], gi[j + 1]))
        return {Kind::order, j, 0,
                "position " + std::to_string(j) + " holds " + wb::format_value(row[gi[j]]) + " (column " +
                    std::to_string(gi[j]) + "), position " + std::to_string(j + 1) + " holds " +
                    wb::format_value(row[gi[j + 1]]) + " (column " + std::to_string(gi[j + 1]) + ")",
                zeros_of_both_signs(row[gi[j]], row[gi[j + 1]])};
  }
  // The right values, but other columns among equal values: ties broken the other way.
  bool same_values = true;
  for (int j = 0; j < k; ++j) same_values = same_values && gv[j] == row[want[j]];
  if (same_values) {
    for (int j = 0; j < k; ++j)
      if (gi[j] != want[j])
        return {Kind::ties, j, 0,
                "position " + std::to_string(j) + " holds the value " + wb::format_value(row[gi[j]]) +
                    " from column " + std::to_string(gi[j]) + ", where column " + std::to_string(want[j]) + " holds " +
                    (zeros_of_both_signs(row[gi[j]], row[want[j]]) ? wb::format_value(row[want[j]]) + ", an equal value"
                                                                   : std::string("the same value")),
                zeros_of_both_signs(row[gi[j]], row[want[j]])};
  }
  const std::vector<int> low = top_columns(row, cols, k, true);
  if (std::equal(low.begin(), low.end(), gi)) return {Kind::smallest};
  {  // ordered by the bits as integers: right for non-negative floats, backwards for negative ones
    std::vector<int> idx(cols);
    std::iota(idx.begin(), idx.end(), 0);
    std::partial_sort(idx.begin(), idx.begin() + k, idx.end(), [&](int a, int b) {
      return int_bits(row[a]) > int_bits(row[b]) || (int_bits(row[a]) == int_bits(row[b]) && a < b);
    });
    if (std::equal(idx.begin(), idx.begin() + k, gi)) return {Kind::int_bits};
  }
  std::vector<int> part;  // the top k of the first p columns, best first, grown one column at a time
  for (int p = 1; p < cols; ++p) {
    const int c = p - 1;
    part.insert(std::find_if(part.begin(), part.end(), [&](int a) { return better(row[c], c, row[a], a); }), c);
    if (int(part.size()) > k) part.pop_back();
    if (int(part.size()) == k && std::equal(part.begin(), part.end(), gi)) return {Kind::prefix, 0, p};
  }
  return {Kind::other};
}

// Checks values and indices (rows x k each) of one call.
wb::Comparison judge(const Case& t, const wb::DeviceBuffer<float>& values, const wb::DeviceBuffer<int>& indices) {
  wb::Comparison c;
  c.array = "values and indices";
  c.n = t.rows;
  c.context = t.context;
  for (const auto& [hits, name] : {std::pair{values.guard_hits(), std::string("values")},
                                   std::pair{indices.guard_hits(), std::string("indices")}}) {
    if (hits.empty()) continue;
    c.array = name;
    c.n = std::int64_t(t.rows) * t.k;
    c.pattern = wb::Pattern::out_of_bounds;
    c.guard_hits = hits;
    c.diagnosis = name + "[" + std::to_string(hits.front().index) + "] was written, outside " + name + " (rows x k = " +
                  std::to_string(c.n) + " elements): a row's list has k entries, at [r * k, r * k + k); a warp "
                  "past the last row, or more than k entries per row, wrote there";
    return c;
  }
  const std::vector<float> gv = values.download();
  const std::vector<int> gi = indices.download();
  RowVerdict first;
  int first_row = -1, first_unwritten = -1;
  std::int64_t unwritten = 0;
  for (int r = 0; r < t.rows; ++r) {
    const std::size_t at = std::size_t(r) * t.k;
    const bool explained = first_row >= 0 && first.kind != Kind::unwritten;  // one row is explained in detail
    const RowVerdict v =
        judge_row(t.in.data() + std::size_t(r) * t.cols, t.cols, t.k, gv.data() + at, gi.data() + at, !explained);
    if (v.kind == Kind::ok) continue;
    ++c.wrong;
    if (v.kind == Kind::unwritten && !unwritten++) first_unwritten = r;
    if (first_row < 0 || (first.kind == Kind::unwritten && v.kind != Kind::unwritten)) {
      first = v;
      first_row = r;
    }
    if (c.first_wrong < 0) c.first_wrong = r;
  }
  c.unwritten = unwritten;
  if (c.wrong == 0) return c;
  c.pattern = wb::Pattern::chapter_specific;
  const std::string row = "row " + std::to_string(first_row), at = " (" + row + ", k = " + std::to_string(t.k) + ")";
  const std::size_t base = std::size_t(first_row) * t.k;
  for (int j = 0; j < t.k && c.listed.size() < 3; ++j) {
    const std::vector<int> want = top_columns(t.in.data() + std::size_t(first_row) * t.cols, t.cols, t.k);
    if (gi[base + j] == want[j]) continue;
    c.listed.push_back({std::int64_t(base + j), double(want[j]), double(gi[base + j]), wb::never_written(gi[base + j])});
  }
  c.array = "indices";
  c.n = std::int64_t(t.rows) * t.k;
  if (unwritten == t.rows) {
    c.pattern = wb::Pattern::nothing_written;
    c.diagnosis = "no row's values or indices were written: the kernel did not run or wrote nothing";
  } else if (unwritten == c.wrong && unwritten == t.rows - first_unwritten) {
    c.diagnosis = "rows from row " + std::to_string(first_unwritten) + " on (of " + std::to_string(t.rows) +
                  ") were never written: the grid reached only the first " + std::to_string(first_unwritten) +
                  " rows; give every row a warp, or let each warp take rows r, r + (warps in the grid), ...";
  } else if (first.kind == Kind::unwritten) {
    c.diagnosis = std::to_string(unwritten) + " rows were never written, first row " + std::to_string(first_unwritten);
  } else if (first.kind == Kind::bad_index) {
    const float* in_row = t.in.data() + std::size_t(first_row) * t.cols;
    const bool negatives = std::any_of(in_row, in_row + t.cols, [](float v) { return v < 0 && std::isfinite(v); });
    c.diagnosis = first.detail + at + ", which is not a column of the row (0 to " + std::to_string(t.cols - 1) +
                  "): an empty entry's index written out (fewer than k entries found?), or an index counted in loads "
                  "rather than columns" +
                  (negatives && t.cols >= t.k
                       ? std::string(". The row has k elements or more, some negative: was an element judged below an "
                                     "empty entry (-INFINITY)? Read as integers, the bits of every negative float are "
                                     "below those of -INFINITY (and run backwards: -2 above -1): compare the floats "
                                     "themselves")
                       : std::string());
  } else if (first.kind == Kind::disagree) {
    c.diagnosis = first.detail + at + ": each value must come with its own column (do values and indices move "
                  "together when the list changes?)";
  } else if (first.kind == Kind::repeated) {
    c.diagnosis = first.detail + at + ": an element was inserted twice, or an entry was copied instead of moved "
                  "when the list shifted";
  } else if (first.signed_zeros) {
    c.diagnosis = std::string(first.kind == Kind::order ? "the right k elements, but not in the contract's order"
                                                        : "ties broken the wrong way") +
                  at + ": " + first.detail +
                  "; -0 and +0 are equal values, so the lower column comes first: compare the floats (-0 == 0), not "
                  "their bits (a key made from the bits puts -0 below +0)";
  } else if (first.kind == Kind::order) {
    c.diagnosis = "the right k elements, but not in the contract's order" + at + ": " + first.detail +
                  "; values[r * k] must be the largest, and equal values go lower column first";
  } else if (first.kind == Kind::int_bits) {
    c.diagnosis = "the top k by the floats' bits read as signed integers, not by value" + at +
                  ": for negative floats the bits run backwards (-2 comes above -1). Compare the floats themselves "
                  "(or flip the bits of negative ones, all but the sign, before comparing keys)";
  } else if (first.kind == Kind::ties) {
    c.diagnosis = "the right values, but ties broken the wrong way" + at + ": " + first.detail +
                  "; of equal values the one in the lower column counts as the larger (compare the column when the "
                  "values are equal)";
  } else if (first.kind == Kind::smallest) {
    c.diagnosis = "the k smallest elements" + at + ", not the k largest: a comparison the wrong way round";
  } else if (first.kind == Kind::prefix) {
    c.diagnosis = "the top k of only the first " + std::to_string(first.prefix) + " of the row's " +
                  std::to_string(t.cols) + " columns" + at + ": columns from " + std::to_string(first.prefix) +
                  " on were never looked at (does the loop over the row reach its end, last partial step included?)";
  } else {
    c.diagnosis = "not the row's k largest elements" + at + ", first difference at position " +
                  std::to_string(c.listed.empty() ? 0 : c.listed.front().index - std::int64_t(base));
  }
  return c;
}

wb::Comparison run_case(const Case& t) {
  const std::size_t out = std::size_t(t.rows) * t.k;
  wb::DeviceBuffer<float> din(t.in), dv(out);
  wb::DeviceBuffer<int> di(out);
  dv.poison();
  di.poison();
  wb::run_launch("topk (" + t.context + ")",
                 [&] { student::topk(din.data(), t.rows, t.cols, t.k, dv.data(), di.data()); });
  return wb::inputs_then_output(wb::inputs_unchanged<float>({{"in", t.in, din}}, "values and indices"),
                                [&] { return judge(t, dv, di); }, t.context);
}

std::string what(int rows, int cols, int k) { return exercise::shape(rows, cols) + ", k = " + std::to_string(k); }

Case random_case(int rows, int cols, int k) {
  return {wb::random_floats(std::size_t(rows) * cols, -1.0f, 3.0f, std::uint64_t(rows) * 131 + cols * 7 + k), rows,
          cols, k, what(rows, cols, k) + ", random floats"};
}

}  // namespace

TEST_CASE("the k largest of every row, for awkward shapes and k", "[x10][correctness]") {
  WB_REQUIRE_DEVICE();
  const auto [rows, cols, k] = GENERATE(table<int, int, int>(
      {{1, 1, 1},     {3, 5, 5},     {4, 31, 7},   {2, 32, 32},  {5, 33, 32},    {7, 100, 1},   {8, 128, 16},
       {9, 129, 10},  {33, 257, 32}, {64, 1000, 5}, {17, 1025, 32}, {3, 4099, 31}, {10, 4100, 3}}));
  CAPTURE(rows, cols, k);
  WB_REQUIRE_MATCH(run_case(random_case(rows, cols, k)));
}

TEST_CASE("rows full of ties: the lower column wins", "[x10][correctness]") {
  WB_REQUIRE_DEVICE();
  const auto [rows, cols, k] = GENERATE(table<int, int, int>({{10, 33, 8}, {20, 300, 32}, {6, 64, 17}}));
  CAPTURE(rows, cols, k);
  Case t{exercise::random_ints(std::size_t(rows) * cols, 1, 4, std::uint64_t(cols) + k), rows, cols, k,
         what(rows, cols, k) + ", integers 1..4 (many ties)"};
  WB_REQUIRE_MATCH(run_case(t));
}

TEST_CASE("rows with -infinity, rows sorted both ways, negative rows", "[x10][correctness]") {
  WB_REQUIRE_DEVICE();
  const int rows = 6, cols = 200, k = 12;
  Case t = random_case(rows, cols, k);
  float* r0 = t.in.data();
  for (int c = 0; c < cols; ++c) r0[c] = c % 50 == 7 ? float(c) : -INFINITY;  // 4 finite: k - 4 entries are -inf
  for (int c = 0; c < cols; ++c) t.in[cols + c] = float(c);                   // ascending: every element a new best
  for (int c = 0; c < cols; ++c) t.in[2 * cols + c] = float(cols - c);        // descending
  for (int c = 0; c < cols; ++c) t.in[3 * cols + c] = -1.0f - float(c % 17);  // all negative
  for (int c = 0; c < cols; ++c) t.in[4 * cols + c] = -INFINITY;              // nothing but -inf: the first k columns
  t.context = what(rows, cols, k) + ", rows: mostly -inf, ascending, descending, negative, all -inf, random";
  WB_REQUIRE_MATCH(run_case(t));
}

TEST_CASE("-0 beside +0: equal values, the lower column first", "[x10][correctness]") {
  WB_REQUIRE_DEVICE();
  // Row 0 alternates -0 and +0, row 1 has the +0s first and the -0s after, rows 2 and 3 mix -0,
  // +0, 1 and -1 at random (equal values far apart, in different lanes and steps), row 4 is -0
  // in column 0 and +0 in column 1 ahead of negative values. By value -0 == +0: only the column
  // orders them. A comparison of the bits (a radix-style key) puts every -0 below every +0.
  const auto [cols, k] = GENERATE(table<int, int>({{64, 20}, {300, 32}}));
  CAPTURE(cols, k);
  const int rows = 5;
  const std::vector<float> pick = exercise::random_ints(std::size_t(rows) * cols, 1, 4, std::uint64_t(cols) * 5 + 1);
  std::vector<float> in(std::size_t(rows) * cols);
  for (int c = 0; c < cols; ++c) {
    in[c] = c % 2 ? 0.0f : -0.0f;
    in[std::size_t(cols) + c] = c < cols / 2 ? 0.0f : -0.0f;
    for (int r = 2; r < 4; ++r) {
      const float p = pick[std::size_t(r) * cols + c];
      in[std::size_t(r) * cols + c] = p == 1 ? -0.0f : p == 2 ? 0.0f : p == 3 ? 1.0f : -1.0f;
    }
    in[4 * std::size_t(cols) + c] = c == 0 ? -0.0f : c == 1 ? 0.0f : -1.0f - float(c % 7);
  }
  WB_REQUIRE_MATCH(run_case({in, rows, cols, k, what(rows, cols, k) + ", -0, +0, 1 and -1 (many equal zeros)"}));
}

TEST_CASE("no rows at all, and more rows than the grid has warps", "[x10][correctness]") {
  WB_REQUIRE_DEVICE();
  WB_REQUIRE_MATCH(run_case({{}, 0, 40, 4, "0 x 40, k = 4 (nothing to do)"}));
  const int rows = wb::cpu_backend() ? 601 : (1 << 18) + 3, cols = wb::cpu_backend() ? 40 : 64;
  WB_REQUIRE_MATCH(run_case(random_case(rows, cols, 4)));
}

TEST_CASE("speed against the solution and torch.topk", "[x10][timing]") {
  WB_REQUIRE_GPU("timings of the CPU backend say nothing about a GPU");
  WB_REQUIRE_CORRECT_SO_FAR();
  const int rows = 16'384, cols = 4096, k = 32;
  const Case t = random_case(rows, cols, k);
  wb::DeviceBuffer<float> din(t.in), dv(std::size_t(rows) * k);
  wb::DeviceBuffer<int> di(std::size_t(rows) * k);
  auto yours = [&] { student::topk(din.data(), rows, cols, k, dv.data(), di.data()); };
  wb::grade_speed(
      wb::SpeedCase("top " + std::to_string(k) + " of each row of " + exercise::shape(rows, cols) + " floats",
                    wb::memory_bound(sizeof(float) * double(rows) * cols +
                                     8.0 * rows * k))  // in read once; values and indices written
          .yours("your topk", yours)
          .solution("solution (warp list, ballots)",
                    [&] { solution::topk(din.data(), rows, cols, k, dv.data(), di.data()); })
          .anchor(wb::anchors::torch_anchor("torch.topk",
                                            [&] { wb::anchors::torch_topk(din.data(), rows, cols, k); }))
          .bar(what(rows, cols, k), "the top k")
          .table_row("x10-topk"),
      [&] {
        dv.poison();
        di.poison();
        wb::run_launch("topk (after timing, " + what(rows, cols, k) + ")", yours);
        Case after = t;
        after.context = "after timing, " + t.context;
        return judge(after, dv, di);
      });
}

// The small case compute-sanitizer runs on a GPU (memcheck, racecheck, synccheck: wb/sanitizer.hpp): rows shorter and longer than a warp, k up to 32.
WB_SANITIZER_CASE("[x10]", "the k largest of 9 rows of 129 (k = 10) and 5 rows of 33 (k = 32)") {
  const auto [rows, cols, k] = GENERATE(table<int, int, int>({{9, 129, 10}, {5, 33, 32}}));
  CAPTURE(rows, cols, k);
  WB_REQUIRE_MATCH(run_case(random_case(rows, cols, k)));
}
