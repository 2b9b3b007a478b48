// Exercise 07's grader: student::row_max_sum against a host reference on awkward shapes (rows
// shorter than a warp, columns around multiples of 32 and 128, more rows than the grid has
// warps), rows whose elements are all negative (the identity of max is -infinity, not 0); on
// every call, once the results are right, the exercise's rule (shuffles only: no shared memory, no
// global atomics, no values exchanged through global memory; the last two on the CPU backend);
// then, on a GPU, its speed against the solution and PyTorch (amax, sum and sub: three kernels).
//
// Tolerance: most cases use non-zero integers from -3 to 9, whose every partial sum, in any order,
// is an integer far below 2^24: float32 holds it exactly, so row_sum must be exact; row_max and
// out = in - max are exact for any input. Random floats get the bound
// |computed - exact| <= gamma(d) * sum |x|, gamma(d) = d u / (1 - d u), u = 2^-24, d = cols / 8 + 16:
// any sum whose lanes each add up to a quarter of the row before a shuffle tree fits under it.
//
// A wrong result is explained in the exercise's terms: rows never reached (too few warps), a
// maximum of 0 for an all-negative row (lanes with no element started at 0), a maximum that is
// one of the row's values but not its largest (a shuffle step missing), a maximum below the largest
// for all-negative rows only (the floats' bits compared as ints), a sum short of columns,
// and out computed with something other than the row's maximum: the maximum never reached every
// lane (a __shfl_down_sync tree leaves it in lane 0 only).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "../common/inputs.hpp"
#include "warp_reduce.cuh"
#include "wb/alignment.hpp"
#include "wb/grader.hpp"
#include "wb/library_anchors.hpp"

namespace {

// ---- CPU reference ----
struct Reference {
  std::vector<double> max, sum, sum_bound;  // per row; sum_bound 0: exact
  std::vector<double> out;                  // in - max, computed in float as the kernel must
};

Reference reference(const std::vector<float>& in, int rows, int cols) {
  Reference r;
  r.max.assign(rows, 0);
  r.sum.assign(rows, 0);
  r.sum_bound.assign(rows, 0);
  r.out.resize(in.size());
  const double u = std::ldexp(1.0, -24), d = cols / 8.0 + 16;
  for (int i = 0; i < rows; ++i) {
    const float* row = in.data() + std::size_t(i) * cols;
    float m = row[0];
    double s = 0, abs_sum = 0;
    bool integers = true;
    for (int c = 0; c < cols; ++c) {
      m = std::max(m, row[c]);
      s += row[c];
      abs_sum += std::fabs(row[c]);
      integers = integers && row[c] == std::floor(row[c]);
    }
    r.max[i] = m;
    r.sum[i] = s;
    if (!(integers && abs_sum < 16777216.0)) r.sum_bound[i] = d * u / (1 - d * u) * abs_sum;
    for (int c = 0; c < cols; ++c) r.out[std::size_t(i) * cols + c] = double(row[c] - m);
  }
  return r;
}

// ---- inputs ----
// Non-zero integers from -3 to 9 (non-zero mean; exact sums).
std::vector<float> int_matrix(int rows, int cols, std::uint64_t stream) {
  return exercise::random_ints(std::size_t(rows) * cols, -3, 9, stream);
}

// ---- diagnosis ----
struct Outputs {
  const wb::DeviceBuffer<float>& max;
  const wb::DeviceBuffer<float>& sum;
  const wb::DeviceBuffer<float>& out;
};

// Whether `got`, below a row's maximum, is what a maximum over the floats' bits compared as ints
// gives for an all-negative row: -INFINITY (a lane with no element, whose -INFINITY is the
// "largest" negative int), the row's minimum, or the minimum of the lanes' own maxima, with the
// columns dealt to 32 lanes one at a time or four at a time (float4 loads).
bool looks_like_bits_max(const float* row, int cols, float got) {
  if (got == -INFINITY || got == *std::min_element(row, row + cols)) return true;
  for (int per_lane : {1, 4}) {
    float lane_max[32];
    std::fill(lane_max, lane_max + 32, -INFINITY);
    for (int c = 0; c < cols; ++c) lane_max[c / per_lane % 32] = std::max(lane_max[c / per_lane % 32], row[c]);
    float least = INFINITY;
    for (float m : lane_max)
      if (m != -INFINITY) least = std::min(least, m);
    if (got == least) return true;
  }
  return false;
}

// A per-row result (row_max or row_sum) against its reference: which rows are wrong, and why.
wb::Comparison judge_rows(const std::string& array, const std::vector<float>& got, const std::vector<double>& want,
                          const std::vector<double>& bound, const std::vector<float>& in, int rows, int cols,
                          bool is_max) {
  wb::Comparison c;
  c.array = array;
  c.n = rows;
  std::int64_t unwritten = 0, first_unwritten = -1, zero_for_negative = 0, partial_max = 0, short_sum = 0,
               huge_negative = 0, bits_max = 0, wrong_nonnegative = 0;
  for (int r = 0; r < rows; ++r) {
    const bool miss = wb::never_written(got[r]);
    if (!miss && std::fabs(double(got[r]) - want[r]) <= bound[r]) continue;
    if (!c.wrong++) c.first_wrong = r;
    if (c.listed.size() < 5) c.listed.push_back({r, want[r], double(got[r]), miss});
    if (miss) {
      if (!unwritten++) first_unwritten = r;
      continue;
    }
    const float* row = in.data() + std::size_t(r) * cols;
    if (is_max) {
      zero_for_negative += got[r] == 0.0f && want[r] < 0;
      wrong_nonnegative += want[r] >= 0;
      bits_max += want[r] < 0 && got[r] < want[r] && looks_like_bits_max(row, cols, got[r]);
      partial_max += got[r] < want[r] && std::find(row, row + cols, got[r]) != row + cols;
    } else {
      short_sum += double(got[r]) < want[r];
      huge_negative += got[r] < -1e37f;
    }
  }
  c.unwritten = unwritten;
  if (c.wrong == 0) return c;
  c.pattern = wb::Pattern::chapter_specific;
  const std::string r0 = std::to_string(c.first_wrong);
  if (unwritten == rows) {
    c.diagnosis = "no element of " + array + " was written: lane 0 of each row's warp writes " + array + "[row]";
  } else if (unwritten == c.wrong && unwritten == rows - first_unwritten) {
    c.diagnosis = array + " is never written from row " + std::to_string(first_unwritten) + " on (of " +
                  std::to_string(rows) + " rows): the grid's warps reached only the first " +
                  std::to_string(first_unwritten) + " rows; launch a warp for every row, or let each warp take rows "
                  "r, r + (warps in the grid), ...";
  } else if (unwritten == c.wrong) {
    c.diagnosis = std::to_string(unwritten) + " rows were never written, first row " + std::to_string(first_unwritten) +
                  ": every row needs a warp, and that warp's lane 0 writes " + array + "[row]";
  } else if (zero_for_negative > 0 && zero_for_negative + unwritten == c.wrong) {
    c.diagnosis = "the maximum is 0 for rows whose elements are all negative (row " + r0 +
                  "): a lane with no element of the row started from 0, which is larger than every element; start "
                  "from -INFINITY, the identity of max (rows shorter than the warp leave lanes without elements)";
  } else if (bits_max > 0 && bits_max + unwritten == c.wrong && wrong_nonnegative == 0) {
    c.diagnosis = "row_max is wrong only for rows whose elements are all negative, and there it is below the largest "
                  "(row_max[" + r0 + "] is " + wb::format_value(got[c.first_wrong]) + ", the largest is " +
                  wb::format_value(want[c.first_wrong]) +
                  "): the maximum compared the floats' bits as integers (__float_as_int, an int max or atomicMax), "
                  "and as integers negative floats are ordered backwards, -2 above -1 and -INFINITY above both; "
                  "compare the floats themselves (fmaxf)";
  } else if (partial_max > 0 && partial_max + unwritten == c.wrong) {
    c.diagnosis = "row_max[" + r0 + "] is one of the row's values, but not its largest: some lanes' values never "
                  "reached the result (does the shuffle loop combine all 32 lanes: offsets 16, 8, 4, 2, 1? does each "
                  "lane visit every one of its columns?)";
  } else if (huge_negative > 0) {
    c.diagnosis = "row_sum[" + r0 + "] is about -1.7e38: values past the end of in were added (the grader's guard "
                  "values there are -1.7e38): lanes must stop at column cols - 1 of the last row";
  } else if (!is_max && short_sum + unwritten == c.wrong) {
    c.diagnosis = "row_sum is too small (row " + r0 + "): some of the row's elements were never added (does each lane "
                  "loop over all its columns, c = lane, lane + 32, ... up to cols, and does every shuffle step add?)";
  } else {
    c.diagnosis = "wrong values, first at " + array + "[" + r0 + "] (expected " +
                  wb::format_value(want[c.first_wrong]) + ", got " + wb::format_value(got[c.first_wrong]) + ")";
  }
  return c;
}

// Checks the three outputs of one call (the inputs were checked first).
wb::Comparison judge(const std::vector<float>& in, int rows, int cols, const Reference& ref, const Outputs& o) {
  for (auto [name, buf] : {std::pair<const char*, const wb::DeviceBuffer<float>*>{"row_max", &o.max},
                           {"row_sum", &o.sum}, {"out", &o.out}}) {
    const auto hits = buf->guard_hits();
    if (hits.empty()) continue;
    wb::Comparison c;
    c.array = name;
    c.n = std::int64_t(buf->size());
    c.pattern = wb::Pattern::out_of_bounds;
    c.guard_hits = hits;
    const std::int64_t at = hits.front().index;
    c.diagnosis = std::string(name) + "[" + std::to_string(at) + "] was written, outside " + name + " (" +
                  std::to_string(buf->size()) + " elements): " +
                  (std::string(name) == "out" ? "a lane wrote past the last column of the last row (columns c >= cols "
                                                "are not the row's)"
                                              : "a warp past the last row wrote (rows r >= rows have no result)");
    return c;
  }
  const std::vector<float> gmax = o.max.download(), gsum = o.sum.download(), gout = o.out.download();
  const bool none = std::all_of(gmax.begin(), gmax.end(), [](float v) { return wb::never_written(v); }) &&
                    std::all_of(gsum.begin(), gsum.end(), [](float v) { return wb::never_written(v); }) &&
                    std::all_of(gout.begin(), gout.end(), [](float v) { return wb::never_written(v); });
  if (none && rows > 0) {
    wb::Comparison c;
    c.array = "row_max, row_sum and out";
    c.n = rows;
    c.wrong = rows;
    c.unwritten = rows;
    c.first_wrong = 0;
    c.pattern = wb::Pattern::nothing_written;
    c.listed.push_back({0, ref.max[0], 0, true});
    c.diagnosis = "nothing was written to row_max, row_sum or out: the kernel did not run or wrote nothing";
    return c;
  }
  wb::Comparison c = judge_rows("row_max", gmax, ref.max, std::vector<double>(rows, 0.0), in, rows, cols, true);
  if (!c.ok()) return c;
  c = judge_rows("row_sum", gsum, ref.sum, ref.sum_bound, in, rows, cols, false);
  if (!c.ok()) return c;

  // out: exact, given the right maximum.
  c = wb::Comparison{};
  c.array = "out";
  c.n = std::int64_t(gout.size());
  std::int64_t unwritten = 0, other_max = 0, first_unwritten = -1;
  int min_unwritten_col = cols;
  bool unwritten_suffix = true;  // in every row, the unwritten columns are the last ones
  for (int r = 0; r < rows; ++r) {
    const float* row = in.data() + std::size_t(r) * cols;
    bool seen_unwritten = false;
    for (int col = 0; col < cols; ++col) {
      const std::size_t k = std::size_t(r) * cols + col;
      const bool miss = wb::never_written(gout[k]);
      if (!miss && double(gout[k]) == ref.out[k]) {
        if (seen_unwritten) unwritten_suffix = false;
        continue;
      }
      if (!c.wrong++) c.first_wrong = std::int64_t(k);
      if (c.listed.size() < 5) c.listed.push_back({std::int64_t(k), ref.out[k], double(gout[k]), miss});
      if (miss) {
        if (!unwritten++) first_unwritten = std::int64_t(k);
        if (!seen_unwritten) min_unwritten_col = std::min(min_unwritten_col, col);
        seen_unwritten = true;
        continue;
      }
      if (seen_unwritten) unwritten_suffix = false;
      // out = in - x: which x did the lane use? A lane's own (partial) maximum is a value of the row below its max.
      const float x = row[col] - gout[k];
      other_max += x < ref.max[r] && std::find(row, row + cols, x) != row + cols;
    }
  }
  c.unwritten = unwritten;
  if (c.wrong == 0) return c;
  c.pattern = wb::Pattern::chapter_specific;
  const std::int64_t f = c.first_wrong;
  const std::string first = exercise::cell("out", f / cols, f % cols);
  if (other_max > 0 && other_max + unwritten == c.wrong) {
    const std::int64_t r = f / cols;
    c.diagnosis = first + " is in minus " + wb::format_value(in[f] - gout[f]) + ", not minus the row's maximum " +
                  wb::format_value(ref.max[r]) +
                  ": row_max is right, so the maximum was found, but not every lane had it when "
                  "it wrote out (after a __shfl_down_sync tree only lane 0 holds the result): broadcast it with "
                  "__shfl_sync(mask, m, 0), or combine with __shfl_xor_sync, which leaves the result in every lane";
  } else if (unwritten == c.wrong && unwritten_suffix) {
    c.diagnosis = "out is never written from column " + std::to_string(min_unwritten_col) + " on (first " +
                  exercise::cell("out", first_unwritten / cols, first_unwritten % cols) + ", cols = " +
                  std::to_string(cols) + "): each lane writes all its columns, lane, lane + 32, ... up to cols";
  } else if (unwritten == c.wrong) {
    c.diagnosis = std::to_string(unwritten) + " elements of out were never written (first " +
                  exercise::cell("out", first_unwritten / cols, first_unwritten % cols) +
                  "): every lane writes in - max for each of its columns";
  } else {
    c.diagnosis = "wrong values, first " + first + ": expected in - row_max = " + wb::format_value(ref.out[f]) +
                  ", got " + wb::format_value(gout[f]);
  }
  return c;
}

// The exercise's rule, checked on every call once its results are right: the lanes of a row's warp
// combine their values with shuffles alone, so no launch of the call has shared memory (a GPU
// shows only dynamic shared memory; the CPU backend also sees __shared__ arrays), makes atomics on
// global memory, or loads global memory other than in and out (a lane may read back what it wrote
// to out; a load of row_max, row_sum or a buffer of the launcher's own is an exchange through
// global memory). The last two are seen by the CPU backend's instrumented build only.
struct Arrays {
  const float *in, *row_max, *row_sum, *out;
  std::size_t n, rows;
};

std::string array_at(const Arrays& a, std::uintptr_t p) {
  auto within = [p](const float* b, std::size_t n) {
    return p >= reinterpret_cast<std::uintptr_t>(b) && p < reinterpret_cast<std::uintptr_t>(b + n);
  };
  if (within(a.in, a.n)) return "in";
  if (within(a.out, a.n)) return "out";
  if (within(a.row_max, a.rows)) return "row_max";
  if (within(a.row_sum, a.rows)) return "row_sum";
  return "memory the grader did not pass (a buffer of the launcher's own?)";
}

wb::Comparison shuffles_only(const std::vector<wb::LaunchRecord>& launches, const Arrays& a) {
  wb::Comparison c;
  c.array = "shared memory";
  std::size_t static_bytes = 0, dynamic_bytes = 0;
  for (const wb::LaunchRecord& l : launches) dynamic_bytes = std::max(dynamic_bytes, l.shared_bytes);
  std::uint64_t atomics = 0;
  std::uintptr_t atomic_at = 0;
  std::string read_array;
  int read_line = 0;
#ifdef WB_EMU
  for (const wb_emu::LaunchConfig& l : wb_emu::launch_log()) {
    static_bytes = std::max(static_bytes, l.shared_use.static_bytes);
    dynamic_bytes = std::max(dynamic_bytes, l.shared_use.dynamic_bytes);
    if (l.memory.global_atomics && !atomics) atomic_at = l.memory.atomic_address;
    atomics += l.memory.global_atomics;
    for (const wb_emu::LineStats& line : l.memory.lines) {
      if (line.store || line.stats.requests == 0 || !read_array.empty()) continue;
      const std::string lo = array_at(a, line.stats.lowest), hi = array_at(a, line.stats.highest - 1);
      const std::string other = lo != "in" && lo != "out" ? lo : hi != "in" && hi != "out" ? hi : "";
      if (lo != hi && other.empty()) continue;  // in and out both: a lane re-reading its out and in, say
      if (!other.empty()) {
        read_array = other;
        read_line = line.line;
      }
    }
  }
#endif
  if (static_bytes + dynamic_bytes > 0) {
    c.pattern = wb::Pattern::chapter_specific;
    c.diagnosis = "the results are right, but the kernel used shared memory (" +
                  (static_bytes ? std::to_string(static_bytes) + " bytes of __shared__ arrays" : std::string()) +
                  (static_bytes && dynamic_bytes ? " and " : "") +
                  (dynamic_bytes ? std::to_string(dynamic_bytes) + " bytes of dynamic shared memory" : std::string()) +
                  "): this exercise combines a warp's values with shuffles alone (__shfl_xor_sync), without shared "
                  "memory or __syncthreads()";
  } else if (atomics > 0) {
    c.array = "global memory";
    c.pattern = wb::Pattern::chapter_specific;
    c.diagnosis = "the results are right, but the kernel made " + std::to_string(atomics) +
                  " atomics on global memory (on " + array_at(a, atomic_at) +
                  "): this exercise combines a row's values within its warp with shuffles alone (__shfl_xor_sync); "
                  "one warp per row needs no atomics";
  } else if (!read_array.empty()) {
    c.array = "global memory";
    c.pattern = wb::Pattern::chapter_specific;
    c.diagnosis = "the results are right, but the kernel reads " + read_array +
                  (read_line ? " (line " + std::to_string(read_line) + ")" : std::string()) +
                  ": the lanes exchanged values through global memory; this exercise combines them with shuffles "
                  "alone (__shfl_xor_sync, which leaves the result in every lane), and reads only in";
  }
  return c;
}

// Runs student::row_max_sum on `in` once and checks everything it wrote; with `m`, in, row_max,
// row_sum and out start as many floats past a 16-byte boundary as it says (their guard zones stay
// around them).
wb::Comparison run_case(const std::vector<float>& in, int rows, int cols, const std::string& context,
                        const wb::Misalignment& m = {}) {
  const Reference ref = reference(in, rows, cols);
  wb::DeviceBuffer<float> din(in, m.guard("in")), dmax(rows, m.guard("row_max")), dsum(rows, m.guard("row_sum")),
      dout(in.size(), m.guard("out"));
  dmax.poison();
  dsum.poison();
  dout.poison();
  wb::LaunchLog log;
  wb::run_launch("row_max_sum (" + context + ")",
                 [&] { student::row_max_sum(din.data(), rows, cols, dmax.data(), dsum.data(), dout.data()); });
  wb::Comparison c =
      wb::inputs_then_output(wb::inputs_unchanged<float>({{"in", in, din}}, "row_max, row_sum and out", ref.out),
                             [&] { return judge(in, rows, cols, ref, {dmax, dsum, dout}); }, context);
  if (!c.ok()) return c;
  c = shuffles_only(log.launches(), {din.data(), dmax.data(), dsum.data(), dout.data(), in.size(), std::size_t(rows)});
  c.context = context;
  return c;
}

std::string ints_of(int rows, int cols) { return exercise::shape(rows, cols) + ", integers -3..9"; }

}  // namespace

TEST_CASE("row max, sum and in - max for awkward shapes", "[x07][correctness]") {
  WB_REQUIRE_DEVICE();
  const auto [rows, cols] = GENERATE(table<int, int>({{1, 1},     {1, 31},   {3, 32},    {5, 33},   {2, 64},
                                                      {7, 100},   {8, 128},  {9, 129},   {33, 257}, {64, 1000},
                                                      {100, 1024}, {17, 1025}, {3, 4099}, {4, 4100}}));
  CAPTURE(rows, cols);
  WB_REQUIRE_MATCH(run_case(int_matrix(rows, cols, std::uint64_t(rows) * 7919 + cols), rows, cols,
                            ints_of(rows, cols)));
}

TEST_CASE("rows whose elements are all negative: the maximum is negative too", "[x07][correctness]") {
  WB_REQUIRE_DEVICE();
  const auto [rows, cols] = GENERATE(table<int, int>({{4, 1}, {6, 5}, {3, 31}, {5, 64}, {2, 100}, {3, 200}}));
  CAPTURE(rows, cols);
  std::vector<float> in = exercise::random_ints(std::size_t(rows) * cols, -9, -1, std::uint64_t(cols) * 3 + 1);
  WB_REQUIRE_MATCH(run_case(in, rows, cols, exercise::shape(rows, cols) + ", integers -9..-1"));
}

TEST_CASE("random floats: row_sum within the float32 error bound", "[x07][correctness]") {
  WB_REQUIRE_DEVICE();
  const auto [rows, cols] = GENERATE(table<int, int>({{50, 777}, {20, 4096}}));
  CAPTURE(rows, cols);
  const std::vector<float> in = wb::random_floats(std::size_t(rows) * cols, -1.0f, 3.0f, std::uint64_t(cols));
  WB_REQUIRE_MATCH(run_case(in, rows, cols, exercise::shape(rows, cols) + ", random floats in [-1, 3)"));
}

TEST_CASE("in, row_max, row_sum and out off a 16-byte boundary, each alone and all together", "[x07][correctness]") {
  WB_REQUIRE_DEVICE();
  const int cols = GENERATE(64, 2048);
  const wb::Misalignment m = GENERATE(from_range(wb::misalignments({"in", "row_max", "row_sum", "out"})));
  CAPTURE(cols);
  WB_REQUIRE_MATCH(run_case(int_matrix(5, cols, 77), 5, cols, ints_of(5, cols) + ", " + m.context, m));
}

TEST_CASE("no rows at all, and more rows than the grid has warps", "[x07][correctness]") {
  WB_REQUIRE_DEVICE();
  WB_REQUIRE_MATCH(run_case({}, 0, 17, "0 x 17 (nothing to do: no launch, or a launch that does nothing)"));
  const int rows = wb::cpu_backend() ? 1999 : (1 << 20) + 3, cols = wb::cpu_backend() ? 3 : 33;
  WB_REQUIRE_MATCH(run_case(int_matrix(rows, cols, 4242), rows, cols, ints_of(rows, cols)));
}

TEST_CASE("shuffles only: no shared memory, no atomics, no exchange through global memory", "[x07][shuffles]") {
  // Every call of the cases above is checked too (run_case): here rows of a few hundred and a few
  // thousand columns, where a kernel might switch to another way of combining.
  WB_REQUIRE_DEVICE();
#ifndef WB_EMU
  wb::note_unchecked("whether the kernel declares __shared__ arrays, makes global atomics or exchanges values through "
                     "global memory (a GPU shows only a launch's dynamic shared memory; the CPU backend checks all)");
#endif
  const auto [rows, cols] = GENERATE(table<int, int>({{64, 100}, {8, 300}, {4, 2000}, {3, 1537}}));
  CAPTURE(rows, cols);
  WB_REQUIRE_MATCH(run_case(int_matrix(rows, cols, 64), rows, cols, ints_of(rows, cols)));
}

TEST_CASE("speed against the solution and PyTorch (amax, sum, sub)", "[x07][timing]") {
  WB_REQUIRE_GPU("timings of the CPU backend say nothing about a GPU");
  WB_REQUIRE_CORRECT_SO_FAR();
  const int rows = 65'536, cols = 1024;
  const std::size_t n = std::size_t(rows) * cols;
  const std::vector<float> in = wb::random_floats(n, -1.0f, 3.0f, 7);
  wb::DeviceBuffer<float> din(in), dmax(rows), dsum(rows), dout(n), tmax(rows), tsum(rows), tout(n);
  const std::string size = exercise::shape(rows, cols) + " floats";
  auto yours = [&] { student::row_max_sum(din.data(), rows, cols, dmax.data(), dsum.data(), dout.data()); };
  wb::grade_speed(
      wb::SpeedCase("row max, sum and in - max of " + size + " (8 bytes per element)",
                    wb::memory_bound(2.0 * sizeof(float) * n + 2.0 * sizeof(float) * rows))  // in read, out written
          .yours("your row_max_sum", yours)
          .solution("solution (warp per row, float4)",
                    [&] { solution::row_max_sum(din.data(), rows, cols, dmax.data(), dsum.data(), dout.data()); })
          .anchor(wb::anchors::torch_anchor("PyTorch amax + sum + sub",
                                            [&] {
                                              wb::anchors::torch_row_max_sum(din.data(), tmax.data(), tsum.data(),
                                                                             tout.data(), rows, cols);
                                            }))
          .bar(size, "the row maxima, sums and out")
          .table_row("x07-warp-reduce", exercise::shape(rows, cols)),
      [&] {
        for (auto* b : {&dmax, &dsum, &dout}) b->poison();
        wb::run_launch("row_max_sum (after timing, " + size + ")", yours);
        wb::Comparison c = judge(in, rows, cols, reference(in, rows, cols), {dmax, dsum, dout});
        c.context = size;
        return c;
      });
}

// The small case compute-sanitizer runs on a GPU (memcheck, racecheck, synccheck: wb/sanitizer.hpp): short rows and a long one, neither a multiple of a warp.
WB_SANITIZER_CASE("[x07]", "row max, sum and in - max of 9 rows of 129 and 3 rows of 4099") {
  const auto [rows, cols] = GENERATE(table<int, int>({{9, 129}, {3, 4099}}));
  CAPTURE(rows, cols);
  WB_REQUIRE_MATCH(run_case(int_matrix(rows, cols, std::uint64_t(rows) * 7919 + cols), rows, cols,
                            ints_of(rows, cols)));
}
