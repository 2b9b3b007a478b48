// Exercise 03's grader: student::sgemm against a host reference for shapes that are not
// multiples of any tile (1, 31, 33, 127, primes, K shorter and longer than a slice, thin and
// wide), M and N whole tiles with a K that is not (30: not a multiple of 4 either, while N is;
// and K = 1), square shapes (where A^T or B^T would fit), A off a 16-byte boundary, random floats;
// then the exercise's bar: on the CPU backend (instrumented) how many multiply-adds each float
// fetched from global memory serves, on a GPU its speed against the solution; cuBLAS's sgemm is
// timed beside it.
//
// Exactness: most cases use non-zero integers (A from -3 to 9, B from -2 to 4), whose products
// and every partial sum of them, in any order, are integers far below 2^24: C must be exact.
// Random floats get the bound |computed - exact| <= gamma(K) * sum_k |A[i][k] B[k][j]|,
// gamma(K) = K u / (1 - K u), u = 2^-24, which holds for any order of the additions.
//
// A wrong C is explained in the exercise's terms: rows or columns of C never written (the grid
// too small, or its axes swapped), only the products of the first slices of K added (the last,
// partial slice skipped), A or B read as if column-major (A^T B or A B^T in a square product),
// C[i][j] written outside C (a store past row M or column N), non-finite values (shared memory
// or an accumulator read before it was set).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "../common/against_library.hpp"
#include "../common/inputs.hpp"
#include "sgemm.cuh"
#include "wb/alignment.hpp"
#include "wb/grader.hpp"
#include "wb/library_anchors.hpp"

namespace {

// GPU: at least 0.4x the solution's speed. Measured on an H200 with bench-sgemm-variants: the accepted
// 64x64 tile with 4x4 per thread 0.50x, 16x16 shared tiles with one output per thread 0.19x, a
// thread per output 0.14x (the solution 41 TFLOP/s, cuBLAS 51).
constexpr double kMinSpeed = 0.4;
constexpr double kMinReuse = 6.0;  // CPU backend: multiply-adds per float fetched from global memory

struct Case {
  std::vector<float> A, B;
  int M, N, K;
  std::string context;
};

// ---- inputs ----
Case int_case(int M, int N, int K) {
  const std::uint64_t s = std::uint64_t(M) * 7919 + std::uint64_t(N) * 104729 + K;
  return {exercise::random_ints(std::size_t(M) * K, -3, 9, s), exercise::random_ints(std::size_t(K) * N, -2, 4, s + 1),
          M, N, K, "M x N x K = " + std::to_string(M) + " x " + std::to_string(N) + " x " + std::to_string(K) +
                       ", integers"};
}

// ---- CPU reference ----
struct Reference {
  std::vector<double> C, bound;  // bound 0: exact
};

// C[i][j] summed over from <= k < to; ta / tb read A or B as if column-major (for the diagnosis).
double entry(const Case& t, int i, int j, int from, int to, bool ta = false, bool tb = false) {
  double s = 0;
  for (int k = from; k < to; ++k)
    s += double(ta ? t.A[std::size_t(k) * t.M + i] : t.A[std::size_t(i) * t.K + k]) *
         (tb ? t.B[std::size_t(j) * t.K + k] : t.B[std::size_t(k) * t.N + j]);
  return s;
}

Reference reference(const Case& t) {
  Reference r;
  r.C.resize(std::size_t(t.M) * t.N);
  r.bound.assign(r.C.size(), 0);
  bool integers = true;
  for (float v : t.A) integers = integers && v == std::floor(v);
  for (float v : t.B) integers = integers && v == std::floor(v);
  const double u = std::ldexp(1.0, -24), g = t.K * u / (1 - t.K * u);
  wb::parallel_ranges(std::size_t(t.M), [&](std::size_t first, std::size_t last) {
    std::vector<double> row(t.N), abs_row(t.N);
    for (std::size_t i = first; i < last; ++i) {
      std::fill(row.begin(), row.end(), 0.0);
      std::fill(abs_row.begin(), abs_row.end(), 0.0);
      for (int k = 0; k < t.K; ++k) {
        const double aik = t.A[i * t.K + k];
        const float* brow = t.B.data() + std::size_t(k) * t.N;
        for (int j = 0; j < t.N; ++j) {
          row[j] += aik * brow[j];
          abs_row[j] += std::fabs(aik * brow[j]);
        }
      }
      for (int j = 0; j < t.N; ++j) {
        r.C[i * t.N + j] = row[j];
        if (!(integers && abs_row[j] < 16777216.0)) r.bound[i * t.N + j] = g * abs_row[j];
      }
    }
  }, 64);
  return r;
}

// ---- diagnosis ----
wb::Comparison judge(const Case& t, const Reference& ref, const wb::DeviceBuffer<float>& out) {
  wb::Comparison c = wb::guarded_comparison("C", std::int64_t(t.M) * t.N, t.context, out, [&](std::int64_t at) {
    return "C[" + std::to_string(at) + "] was written, " +
           (at < 0 ? std::string("before the start of C: an index went negative")
                   : "past the end of C (M x N = " + std::to_string(std::int64_t(t.M) * t.N) +
                         " floats): a thread stored an output whose row is M or more, or whose column is N or "
                         "more (which lands in the next row); store only outputs with row < M and column < N");
  });
  if (!c.ok()) return c;
  const std::vector<float> got = out.download();
  std::int64_t nonfinite = 0;
  int min_row_unwritten = t.M, min_col_unwritten = t.N;
  std::vector<std::int64_t> wrong_written;  // the first few wrong elements that were written
  for (int i = 0; i < t.M; ++i)
    for (int j = 0; j < t.N; ++j) {
      const std::size_t k = std::size_t(i) * t.N + j;
      const bool miss = wb::never_written(got[k]);
      if (!miss && std::fabs(double(got[k]) - ref.C[k]) <= ref.bound[k]) continue;
      if (!c.wrong++) c.first_wrong = std::int64_t(k);
      if (c.listed.size() < 4) c.listed.push_back({std::int64_t(k), ref.C[k], double(got[k]), miss});
      if (miss) {
        ++c.unwritten;
        min_row_unwritten = std::min(min_row_unwritten, i);
        min_col_unwritten = std::min(min_col_unwritten, j);
      } else {
        nonfinite += !std::isfinite(got[k]);
        if (wrong_written.size() < 8) wrong_written.push_back(std::int64_t(k));
      }
    }
  if (c.wrong == 0) return c;
  c.pattern = wb::Pattern::chapter_specific;
  const std::int64_t f = c.first_wrong;
  const int fi = int(f / t.N), fj = int(f % t.N);
  const std::string first = exercise::cell("C", fi, fj);
  if (c.unwritten == c.n) {
    c.pattern = wb::Pattern::nothing_written;
    c.diagnosis = "no element of C was written: the kernel did not run or stored nothing";
    return c;
  }
  if (c.unwritten == c.wrong) {
    // Every element of the rows (or columns) from some index on unwritten, and nothing else?
    const std::int64_t rows_after = std::int64_t(t.M - min_row_unwritten) * t.N;
    const std::int64_t cols_after = std::int64_t(t.N - min_col_unwritten) * t.M;
    if (c.unwritten == rows_after)
      c.diagnosis = "C is never written from row " + std::to_string(min_row_unwritten) + " on (of M = " +
                    std::to_string(t.M) + " rows): the grid's blocks reach only the first " +
                    std::to_string(min_row_unwritten) + " rows; round the number of blocks in y up: (M + tile rows - "
                    "1) / tile rows (and is the grid's y the tiles of rows, its x the tiles of columns?)";
    else if (c.unwritten == cols_after)
      c.diagnosis = "C is never written from column " + std::to_string(min_col_unwritten) + " on (of N = " +
                    std::to_string(t.N) + " columns): the grid's blocks reach only the first " +
                    std::to_string(min_col_unwritten) + " columns; round the number of blocks in x up: (N + tile "
                    "columns - 1) / tile columns (and is the grid's x the tiles of columns, its y the tiles of rows?)";
    else
      c.diagnosis = std::to_string(c.unwritten) + " elements of C were never written, first " + first +
                    ": does every thread store every one of its outputs that lies inside C?";
    return c;
  }
  if (nonfinite > 0) {
    const std::int64_t g = wrong_written.front();
    c.diagnosis = exercise::cell("C", g / t.N, g % t.N) + " is " + wb::format_value(got[g]) +
                  " (the inputs are small integers: no "
                  "sum of them overflows): a value read before it was written, from shared memory (a slice not "
                  "loaded yet: a missing __syncthreads()?) or an accumulator never set to 0";
    return c;
  }
  // Only the first K' products added, in every wrong element checked? The largest such K'.
  std::set<int> prefixes;
  for (std::size_t w = 0; w < wrong_written.size(); ++w) {
    const std::int64_t g = wrong_written[w];
    const int i = int(g / t.N), j = int(g % t.N);
    std::set<int> here;
    double s = 0;
    for (int k = 0; k < t.K; ++k) {
      if (std::fabs(got[g] - s) <= ref.bound[g]) here.insert(k);
      s += double(t.A[std::size_t(i) * t.K + k]) * t.B[std::size_t(k) * t.N + j];
    }
    if (w == 0) {
      prefixes = here;
    } else {
      std::set<int> both;
      for (int k : here)
        if (prefixes.count(k)) both.insert(k);
      prefixes = both;
    }
  }
  const int gi = int(wrong_written.front() / t.N), gj = int(wrong_written.front() % t.N);
  const std::string g0 = exercise::cell("C", gi, gj);
  const double gv = got[wrong_written.front()], gb = ref.bound[wrong_written.front()];
  if (!prefixes.empty()) {
    const int kp = *prefixes.rbegin();
    c.diagnosis = kp == 0 ? g0 + " is 0: none of the K = " + std::to_string(t.K) + " products was added"
                          : g0 + " is the sum over k < " + std::to_string(kp) + " only, of K = " + std::to_string(t.K) +
                                ": the products for k from " + std::to_string(kp) + " on were never added";
    c.diagnosis += " (does the loop over slices of K round up, (K + slice - 1) / slice, with 0 loaded past K?)";
  } else if (std::fabs(gv - entry(t, gi, gj, 0, t.K, false, true)) <= gb) {
    c.diagnosis = g0 + " is the sum over k of A[" + std::to_string(gi) + "][k] * B[" + std::to_string(gj) +
                  " * K + k]: B was read as if column-major (in a square product, A B^T); B is row-major K x N, "
                  "element (k, j) is B[k * N + j]";
  } else if (t.M > 1 && std::fabs(gv - entry(t, gi, gj, 0, t.K, true, false)) <= gb) {
    c.diagnosis = g0 + " is the sum over k of A[k * M + " + std::to_string(gi) + "] * B[k][" + std::to_string(gj) +
                  "]: A was read as if column-major (in a square product, A^T B); A is row-major M x K, element "
                  "(i, k) is A[i * K + k]";
  } else {
    c.diagnosis = "wrong values in " + std::to_string(c.wrong - c.unwritten) + " of the " + std::to_string(c.n) +
                  " elements of C, first " + g0 + " (expected " + wb::format_value(ref.C[wrong_written.front()]) +
                  ", got " + wb::format_value(gv) + ")";
  }
  return c;
}

// Runs student::sgemm on the case once; with `m`, A, B and C start as many floats past a
// 16-byte boundary as it says (their guard zones stay around them).
wb::Comparison run_case(const Case& t, const wb::Misalignment& m = {}) {
  wb::DeviceBuffer<float> dA(t.A, m.guard("A")), dB(t.B, m.guard("B")), dC(std::size_t(t.M) * t.N, m.guard("C"));
  dC.poison();
  const Reference ref = reference(t);
  wb::run_launch("sgemm (" + t.context + ")", [&] { student::sgemm(dA.data(), dB.data(), dC.data(), t.M, t.N, t.K); });
  return wb::inputs_then_output(wb::inputs_unchanged<float>({{"A", t.A, dA}, {"B", t.B, dB}}, "C"),
                                [&] { return judge(t, ref, dC); }, t.context);
}

}  // namespace

TEST_CASE("C = A B for shapes that are not multiples of a tile", "[x03][correctness]") {
  WB_REQUIRE_DEVICE();
  const auto [M, N, K] = GENERATE(table<int, int, int>({{1, 1, 1},      {1, 7, 3},      {31, 33, 17},  {33, 31, 8},
                                                        {2, 129, 33},   {127, 3, 64},   {97, 101, 103}, {128, 128, 128},
                                                        {129, 130, 31}, {64, 257, 40},  {300, 5, 9},   {5, 300, 257},
                                                        {17, 1, 1000},  {192, 64, 96},  {128, 128, 30},
                                                        {64, 132, 1}}));
  CAPTURE(M, N, K);
  WB_REQUIRE_MATCH(run_case(int_case(M, N, K)));
}

TEST_CASE("square shapes: A and B are row-major", "[x03][correctness]") {
  WB_REQUIRE_DEVICE();
  const int n = GENERATE(96, 131);
  CAPTURE(n);
  WB_REQUIRE_MATCH(run_case(int_case(n, n, n)));
}

TEST_CASE("A, B and C each start off a 16-byte boundary, alone and together", "[x03][correctness]") {
  WB_REQUIRE_DEVICE();
  const wb::Misalignment m = GENERATE(from_range(wb::misalignments({"A", "B", "C"})));
  Case t = int_case(40, 64, 64);
  t.context += ", " + m.context;
  WB_REQUIRE_MATCH(run_case(t, m));
}

TEST_CASE("random floats: within the float32 error bound", "[x03][correctness]") {
  WB_REQUIRE_DEVICE();
  const auto [M, N, K] = GENERATE(table<int, int, int>({{150, 70, 333}, {64, 128, 256}}));
  CAPTURE(M, N, K);
  Case t{wb::random_floats(std::size_t(M) * K, -1.0f, 2.0f, std::uint64_t(K)),
         wb::random_floats(std::size_t(K) * N, -1.0f, 2.0f, std::uint64_t(N)), M, N, K,
         "M x N x K = " + std::to_string(M) + " x " + std::to_string(N) + " x " + std::to_string(K) +
             ", random floats"};
  WB_REQUIRE_MATCH(run_case(t));
}

TEST_CASE("nothing to do, and a larger matrix", "[x03][correctness]") {
  WB_REQUIRE_DEVICE();
  WB_REQUIRE_MATCH(run_case({{}, exercise::random_ints(5 * 9, 1, 3, 1), 0, 9, 5, "M = 0 (nothing to do)"}));
  WB_REQUIRE_MATCH(run_case({exercise::random_ints(7 * 5, 1, 3, 2), {}, 7, 0, 5, "N = 0 (nothing to do)"}));
  if (wb::cpu_backend()) return;  // the larger case would take the CPU backend minutes
  WB_REQUIRE_MATCH(run_case(int_case(1031, 517, 1029)));
}

#ifdef WB_EMU
TEST_CASE("each float loaded is used many times (CPU backend: global memory traffic)", "[x03][reuse]") {
  const int n = 128;
  WB_REQUIRE_MATCH(run_case(int_case(n, n, n)));
  const wb_emu::MemoryStats stats = wb_emu::last_launch_memory_stats();
  REQUIRE(stats.instrumented);  // exercise 03 is built with the instrumented CPU backend
  REQUIRE(stats.loads.sectors > 0);
  const double floats = 8.0 * double(stats.loads.sectors), madds = double(n) * n * n;
  const double reuse = madds / floats;
  char line[256];
  std::snprintf(line, sizeof line, "%.0f multiply-adds, %.0f floats fetched from global memory (32-byte sectors): "
                "%.1f multiply-adds per float fetched", madds, floats, reuse);
  std::cout << "  " << line << "\n";
  if (reuse < kMinReuse)
    WB_FAIL_TOO_SLOW("C is right but each float fetched from global memory serves only " +
                     std::string(line).substr(std::string(line).rfind(": ") + 2) + " (at least " +
                     wb::format_value(kMinReuse) +
                     " needed): every element of A and B is read from global memory "
                     "again for each output that uses it. Copy slices of A and B into shared memory, once per block, "
                     "and let the block's threads multiply from there");
}
#else
TEST_CASE("each float loaded is used many times (CPU backend: global memory traffic)", "[x03][reuse]") {
  SKIP("skipped on a GPU: reuse is judged by speed there (next test)");
}
#endif

TEST_CASE("speed against the solution and cuBLAS sgemm", "[x03][timing]") {
  WB_REQUIRE_GPU("timings of the CPU backend say nothing about a GPU; the global-memory traffic stands in for them");
  WB_REQUIRE_CORRECT_SO_FAR();
  const int M = 4096, N = 4096, K = 4096;
  const Case t = int_case(M, N, K);  // integers: cuBLAS's C is exact, and so must the learner's be
  wb::DeviceBuffer<float> dA(t.A), dB(t.B), dC(std::size_t(M) * N), lC(std::size_t(M) * N);
  const double flops = 2.0 * M * N * double(K);
  const double bytes = 4.0 * (double(M) * K + double(K) * N + double(M) * N);  // each matrix once
  const std::string size = "4096 x 4096 x 4096";
  wb::grade_speed(
      wb::SpeedCase("C = A B, " + size + " floats", wb::fp32_bound(flops, bytes))
          .yours("your sgemm", [&] { student::sgemm(dA.data(), dB.data(), dC.data(), M, N, K); })
          .solution("solution (128x128 tiles, 8x8 per thread)",
                    [&] { solution::sgemm(dA.data(), dB.data(), dC.data(), M, N, K); })
          .anchor({"cuBLAS sgemm", [&] { wb::anchors::cublas_sgemm(M, N, K, dA.data(), dB.data(), lC.data()); }})
          .bar(size, "C", kMinSpeed,
               "A thread that computes one output reads two floats from shared memory per multiply-add: give each "
               "thread a block of outputs (4 x 4 or 8 x 8) in registers, so that the values it reads from shared "
               "memory serve several multiply-adds each, and give each block a larger tile (64 x 64 or 128 x 128)")
          .table_row("x03-sgemm"),
      [&] {  // checked again after timing, against cuBLAS's C (exact: the inputs are small integers)
        dC.poison();
        wb::run_launch("sgemm (after timing, " + size + ")",
                       [&] { student::sgemm(dA.data(), dB.data(), dC.data(), M, N, K); });
        return exercise::against_library(lC, dC, "C", size + ", against cuBLAS's C");
      });
}

// The small case compute-sanitizer runs on a GPU (memcheck, racecheck, synccheck: wb/sanitizer.hpp): partial tiles on every side and a partial last slice of K.
WB_SANITIZER_CASE("[x03]", "C = A B for 31 x 33 x 17 and 129 x 130 x 31") {
  const auto [M, N, K] = GENERATE(table<int, int, int>({{31, 33, 17}, {129, 130, 31}}));
  CAPTURE(M, N, K);
  WB_REQUIRE_MATCH(run_case(int_case(M, N, K)));
}
