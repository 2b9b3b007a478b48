// Exercise 08's grader: student::sgemv against a host reference on awkward shapes (rows shorter
// than a warp, columns around multiples of 32 and 128, rows that do not start on a 16-byte
// boundary, more rows than a grid of resident warps), then the exercise's bar, coalesced loads:
// on the CPU backend the sectors each warp request touches (instrumented build), on a GPU a
// minimum speed against the solution; cuBLAS's sgemv is timed beside it.
//
// Tolerance: most cases use non-zero integers (A from -3 to 9, x from -2 to 4), whose products
// and every partial sum of them, in any order, are integers far below 2^24: y must be exact.
// Random floats get the bound |computed - exact| <= gamma(d) * sum |A[r][c] x[c]|,
// gamma(d) = d u / (1 - d u), u = 2^-24, d = cols / 8 + 16.
//
// A wrong y is explained in the exercise's terms: rows never reached, only the first k columns
// added, only lane 0's share of a row (the lanes' sums never combined), A^T x (A read as
// column-major), y + 2^20 (y added to instead of set: y holds 2^20 before every call).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "../common/inputs.hpp"
#include "sgemv.cuh"
#include "wb/alignment.hpp"
#include "wb/grader.hpp"
#include "wb/library_anchors.hpp"

namespace {

constexpr double kMinSpeed = 0.5;       // GPU: at least half the solution's speed (coalescing)
constexpr double kMinEfficiency = 0.6;  // CPU backend: share of a load line's sectors its requests needed
constexpr float kSentinel = 1048576.0f; // y holds 2^20 before every call: a y that is added to, not set, shows

struct Case {
  std::vector<float> A, x;
  int rows, cols;
  std::string context;
};

// ---- CPU reference ----
struct Reference {
  std::vector<double> y, bound;  // bound 0: exact
};

Reference reference(const Case& k) {
  Reference r;
  r.y.assign(k.rows, 0);
  r.bound.assign(k.rows, 0);
  const double u = std::ldexp(1.0, -24), d = k.cols / 8.0 + 16;
  bool integers = true;
  for (float v : k.A) integers = integers && v == std::floor(v);
  for (float v : k.x) integers = integers && v == std::floor(v);
  for (int i = 0; i < k.rows; ++i) {
    double s = 0, abs_sum = 0;
    for (int c = 0; c < k.cols; ++c) {
      const double p = double(k.A[std::size_t(i) * k.cols + c]) * k.x[c];
      s += p;
      abs_sum += std::fabs(p);
    }
    r.y[i] = s;
    if (!(integers && abs_sum < 16777216.0)) r.bound[i] = d * u / (1 - d * u) * abs_sum;
  }
  return r;
}

// The sum of A[r][c] x[c] over the columns c that `keep` selects.
template <class Keep>
double partial(const Case& k, int r, Keep keep) {
  double s = 0;
  for (int c = 0; c < k.cols; ++c)
    if (keep(c)) s += double(k.A[std::size_t(r) * k.cols + c]) * k.x[c];
  return s;
}

// ---- inputs ----
Case int_case(int rows, int cols) {
  const std::uint64_t s = std::uint64_t(rows) * 7919 + cols;
  return {exercise::random_ints(std::size_t(rows) * cols, -3, 9, s), exercise::random_ints(cols, -2, 4, s + 1), rows,
          cols, exercise::shape(rows, cols) + ", integers"};
}

// ---- diagnosis ----
// What a wrong y[r] is, if it is something recognisable.
enum class Kind { other, unwritten, added_to, nan, prefix, lane0_share, lane_group, transposed };

Kind classify(const Case& k, int r, float got, double want, double bound, int* prefix_cols) {
  if (got == kSentinel) return Kind::unwritten;
  if (std::isnan(got)) return Kind::nan;
  auto near = [&](double v) { return std::fabs(double(got) - v) <= bound + std::ldexp(std::fabs(v), -22); };
  if (near(want + kSentinel)) return Kind::added_to;
  if (k.cols > 1 && (near(partial(k, r, [](int c) { return c % 32 == 0; })) ||
                     near(partial(k, r, [](int c) { return c / 4 % 32 == 0; }))))
    return Kind::lane0_share;
  // the shares of lanes 0 to w - 1 only: a shuffle reduction over w lanes, not 32 (offsets w / 2, ..., 1)
  for (int w = 16; w >= 2 && k.cols > w; w /= 2)
    if (near(partial(k, r, [w](int c) { return c % 32 < w; })) ||
        near(partial(k, r, [w](int c) { return c / 4 % 32 < w; }))) {
      *prefix_cols = w;
      return Kind::lane_group;
    }
  double s = 0;
  for (int c = 0; c < k.cols; ++c) {  // only the first c columns added?
    if (near(s)) {
      *prefix_cols = c;
      return Kind::prefix;
    }
    s += double(k.A[std::size_t(r) * k.cols + c]) * k.x[c];
  }
  if (k.rows == k.cols) {
    double t = 0;
    for (int c = 0; c < k.cols; ++c) t += double(k.A[std::size_t(c) * k.cols + r]) * k.x[c];
    if (near(t)) return Kind::transposed;
  }
  return Kind::other;
}

wb::Comparison judge(const Case& k, const Reference& ref, const wb::DeviceBuffer<float>& y) {
  wb::Comparison c = wb::guarded_comparison("y", k.rows, k.context, y, [&](std::int64_t at) {
    return "y[" + std::to_string(at) + "] was written, outside y (" + std::to_string(k.rows) +
           " elements): a warp or thread past the last row wrote (rows r >= rows have no result)";
  });
  if (!c.ok()) return c;
  const std::vector<float> got = y.download();
  Kind kind = Kind::other;
  bool same_kind = true;
  int prefix_cols = 0, first_unwritten = -1;
  for (int r = 0; r < k.rows; ++r) {
    const bool miss = got[r] == kSentinel;
    if (!miss && std::fabs(double(got[r]) - ref.y[r]) <= ref.bound[r]) continue;
    if (!c.wrong++) c.first_wrong = r;
    if (miss && !c.unwritten++) first_unwritten = r;
    if (c.listed.size() < 5) c.listed.push_back({r, ref.y[r], double(got[r]), miss});
    int cols_here = 0;
    const Kind here = classify(k, r, got[r], ref.y[r], ref.bound[r], &cols_here);
    if (c.wrong == 1) {
      kind = here;
      prefix_cols = cols_here;
    } else if (here != kind || ((here == Kind::prefix || here == Kind::lane_group) && cols_here != prefix_cols)) {
      same_kind = false;
    }
  }
  if (c.wrong == 0) return c;
  c.pattern = wb::Pattern::chapter_specific;
  const std::string r0 = "y[" + std::to_string(c.first_wrong) + "]";
  if (c.unwritten == k.rows) {
    c.pattern = wb::Pattern::nothing_written;
    c.diagnosis = "y still holds 2^20, what it held before the call, in every row: nothing was written to it";
  } else if (c.unwritten == c.wrong && c.wrong == k.rows - first_unwritten) {
    c.diagnosis = "y is never written from row " + std::to_string(first_unwritten) + " on (of " +
                  std::to_string(k.rows) + " rows): the grid reached only the first " +
                  std::to_string(first_unwritten) + " rows; give every row a warp, or let each warp take rows r, "
                  "r + (warps in the grid), ...";
  } else if (c.unwritten == c.wrong) {
    c.diagnosis = std::to_string(c.unwritten) + " rows of y were never written, first y[" +
                  std::to_string(first_unwritten) + "]: every row needs a warp, and one lane of it writes y[row]";
  } else if (!same_kind || kind == Kind::other || kind == Kind::unwritten) {
    c.diagnosis = "wrong values, first " + r0 + " (expected " + wb::format_value(ref.y[c.first_wrong]) + ", got " +
                  wb::format_value(got[c.first_wrong]) + ")";
  } else if (kind == Kind::added_to) {
    c.diagnosis = r0 + " is 2^20 too large, exactly what y held before the call: y was added to rather than set "
                  "(y[row] = sum, not +=)";
  } else if (kind == Kind::nan) {
    c.diagnosis = r0 + " is NaN: memory nothing wrote was read (past the end of A or x, or an uninitialised sum?)";
  } else if (kind == Kind::prefix) {
    c.diagnosis = (prefix_cols == 0 ? r0 + " is 0: none of the row's " + std::to_string(k.cols) + " columns was added"
                                    : r0 + " is the sum over only the first " + std::to_string(prefix_cols) +
                                          " of the row's " + std::to_string(k.cols) + " columns: columns from " +
                                          std::to_string(prefix_cols) + " on were never added") +
                  " (does each lane loop until its column reaches cols, and is the last, partial step done?)";
  } else if (kind == Kind::lane0_share) {
    c.diagnosis = r0 + " holds only lane 0's share of the row: each lane summed its own columns, but the 32 lanes' sums "
                  "were never combined (a warp-shuffle reduction, as in exercise 07) before lane 0 wrote y[row]";
  } else if (kind == Kind::lane_group) {
    const std::string w = std::to_string(prefix_cols);
    c.diagnosis = r0 + " holds the shares of lanes 0 to " + std::to_string(prefix_cols - 1) +
                  " only: the shuffle reduction combined " + w + " lanes, not 32 (its first offset was " +
                  std::to_string(prefix_cols / 2) + ", or its width " + w +
                  "): a warp's reduction starts at offset 16 and halves it down to 1";
  } else {
    c.diagnosis = "y is A^T x, not A x: A was read as if column-major; A is row-major, element (r, c) is "
                  "A[r * cols + c], and row r's elements are next to each other";
  }
  return c;
}

// Runs student::sgemv on the case once; with `m`, A, x and y start as many floats past a
// 16-byte boundary as it says (their guard zones stay around them).
wb::Comparison run_case(const Case& k, const wb::Misalignment& m = {}) {
  wb::DeviceBuffer<float> dA(k.A, m.guard("A")), dx(k.x, m.guard("x")),
      dy(std::vector<float>(std::size_t(k.rows), kSentinel), m.guard("y"));
  const Reference ref = reference(k);
  wb::run_launch("sgemv (" + k.context + ")", [&] { student::sgemv(dA.data(), dx.data(), dy.data(), k.rows, k.cols); });
  return wb::inputs_then_output(wb::inputs_unchanged<float>({{"A", k.A, dA}, {"x", k.x, dx}}, "y"),
                                [&] { return judge(k, ref, dy); }, k.context);
}

}  // namespace

TEST_CASE("y = A x for awkward shapes", "[x08][correctness]") {
  WB_REQUIRE_DEVICE();
  const auto [rows, cols] =
      GENERATE(table<int, int>({{1, 1},    {1, 5},     {3, 31},     {2, 32},   {5, 33},    {7, 128},  {9, 129},
                                {33, 255}, {64, 1000}, {100, 1024}, {17, 1025}, {3, 4099}, {1000, 3}, {513, 64}}));
  CAPTURE(rows, cols);
  WB_REQUIRE_MATCH(run_case(int_case(rows, cols)));
}

TEST_CASE("a square matrix: A is row-major", "[x08][correctness]") {
  WB_REQUIRE_DEVICE();
  WB_REQUIRE_MATCH(run_case(int_case(96, 96)));
}

TEST_CASE("A, x and y off a 16-byte boundary, each alone and all together", "[x08][correctness]") {
  WB_REQUIRE_DEVICE();
  const wb::Misalignment m = GENERATE(from_range(wb::misalignments({"A", "x", "y"})));
  Case k = int_case(40, 256);
  k.context += ", " + m.context;
  WB_REQUIRE_MATCH(run_case(k, m));
}

TEST_CASE("random floats: within the float32 error bound", "[x08][correctness]") {
  WB_REQUIRE_DEVICE();
  const auto [rows, cols] = GENERATE(table<int, int>({{37, 3001}, {256, 2048}}));
  CAPTURE(rows, cols);
  Case k{wb::random_floats(std::size_t(rows) * cols, -1.0f, 3.0f, std::uint64_t(cols)),
         wb::random_floats(cols, -0.5f, 1.5f, std::uint64_t(rows)), rows, cols,
         exercise::shape(rows, cols) + ", random floats"};
  WB_REQUIRE_MATCH(run_case(k));
}

TEST_CASE("no rows at all, and more rows than the grid has warps", "[x08][correctness]") {
  WB_REQUIRE_DEVICE();
  WB_REQUIRE_MATCH(run_case({{}, exercise::random_ints(9, 1, 3, 1), 0, 9, "0 x 9 (nothing to do)"}));
  const int rows = wb::cpu_backend() ? 1999 : (1 << 20) + 3;
  WB_REQUIRE_MATCH(run_case(int_case(rows, 7)));
}

#ifdef WB_EMU
TEST_CASE("loads are coalesced (CPU backend: sectors per warp request)", "[x08][coalescing]") {
  const int rows = 256, cols = 1024;
  std::vector<wb_emu::LaunchConfig> launches;
  {
    wb::LaunchLog log;
    WB_REQUIRE_MATCH(run_case(int_case(rows, cols)));
    launches = wb_emu::launch_log();
  }
  // Every load line of every launch, judged request by request: a request's sectors past its ideal
  // are waste, and a broadcast (1 sector where the ideal counts 4) does not make up for them, on its
  // line or any other. The worst line among those that make at least a tenth of the requests.
  std::uint64_t requests = 0;
  for (const auto& l : launches) requests += l.memory.loads.requests;
  REQUIRE(!launches.empty());
  REQUIRE(launches.back().memory.instrumented);  // exercise 08 is built with the instrumented CPU backend
  REQUIRE(requests > 0);
  const wb_emu::LineStats* worst = nullptr;
  double worst_efficiency = 2;
  for (const auto& launch : launches)
    for (const auto& l : launch.memory.lines) {
      if (l.store || l.stats.sectors == 0 || 10 * l.stats.requests < requests) continue;
      const double e = double(l.stats.sectors - l.stats.excess_sectors) / double(l.stats.sectors);
      if (e < worst_efficiency) {
        worst_efficiency = e;
        worst = &l;
      }
    }
  REQUIRE(worst != nullptr);
  char line[512];
  std::snprintf(line, sizeof line, "loads at line %d: %.1f sectors per warp request where %.1f would do (%.0f%% of each "
                "sector used)", worst->line, double(worst->stats.sectors) / worst->stats.requests,
                double(worst->stats.sectors - worst->stats.excess_sectors) / worst->stats.requests,
                100 * worst_efficiency);
  std::cout << "  " << line << "\n";
  if (worst_efficiency < kMinEfficiency)
    WB_FAIL_TOO_SLOW("y is right but the loads are not coalesced: " + std::string(line) +
                     ": the lanes of a warp read far-apart addresses (a thread per row reads one element of each of 32 "
                     "rows, 32 sectors per request). Give each row a warp, whose lanes read consecutive columns");
}
#else
TEST_CASE("loads are coalesced (CPU backend: sectors per warp request)", "[x08][coalescing]") {
  SKIP("skipped on a GPU: coalescing is judged by speed there (next test)");
}
#endif

TEST_CASE("speed against the solution and cuBLAS sgemv", "[x08][timing]") {
  WB_REQUIRE_GPU("timings of the CPU backend say nothing about a GPU; the sector counts stand in for them");
  WB_REQUIRE_CORRECT_SO_FAR();
  const int rows = 8192, cols = 8192;
  Case k{wb::random_floats(std::size_t(rows) * cols, -1.0f, 3.0f, 5), wb::random_floats(cols, -0.5f, 1.5f, 6), rows,
         cols, exercise::shape(rows, cols) + " floats"};
  wb::DeviceBuffer<float> dA(k.A), dx(k.x), dy(rows), ly(rows);
  const std::string size = exercise::shape(rows, cols);
  auto yours = [&] { student::sgemv(dA.data(), dx.data(), dy.data(), rows, cols); };
  wb::grade_speed(
      wb::SpeedCase("y = A x, A " + size + " floats (A read once)",
                    wb::memory_bound(sizeof(float) * (double(rows) * cols + cols + rows)))
          .yours("your sgemv", yours)
          .solution("solution (warp per row, float4)",
                    [&] { solution::sgemv(dA.data(), dx.data(), dy.data(), rows, cols); })
          .anchor({"cuBLAS sgemv", [&] { wb::anchors::cublas_sgemv(rows, cols, dA.data(), dx.data(), ly.data()); }})
          .bar(size, "y", kMinSpeed,
               "A warp whose lanes each read a different row touches 32 sectors per request: give each row a warp "
               "whose lanes read consecutive columns (grade on the CPU backend to see the sectors per request), then "
               "wider loads and several loads in flight per lane")
          .table_row("x08-sgemv"),
      [&] {
        dy.upload(std::vector<float>(rows, kSentinel));
        wb::run_launch("sgemv (after timing, " + size + ")", yours);
        k.context = "after timing, " + k.context;
        return judge(k, reference(k), dy);
      });
}

// The small case compute-sanitizer runs on a GPU (memcheck, racecheck, synccheck: wb/sanitizer.hpp): rows that are not a multiple of a warp, short and long.
WB_SANITIZER_CASE("[x08]", "y = A x for 33 x 255 and 3 x 4099") {
  const auto [rows, cols] = GENERATE(table<int, int>({{33, 255}, {3, 4099}}));
  CAPTURE(rows, cols);
  WB_REQUIRE_MATCH(run_case(int_case(rows, cols)));
}
