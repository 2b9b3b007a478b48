// Exercise 12's grader (CUDA backend only: the CPU backend has no tensor cores): student::wmma_gemm
// against a host reference for shapes that are multiples of 16 but not of a block's tile (16, 48,
// 80, 144, 272...), square shapes (where A^T or B^T would fit), then its speed against the
// solution and cuBLAS's cublasGemmEx (half in, float accumulate).
//
// Exactness: most cases use halves k / 4 for integers k from -8 to 12 (never 0): every product is
// a multiple of 1/16 below 9 and every partial sum, in any order, a multiple of 1/16 below
// 9 K < 2^20 for K <= 2^16, so float32 holds it exactly and C must be exact, whatever order the
// tensor cores add in. One case uses random halves, with the bound gamma(K) sum |A[i][k] B[k][j]|.
//
// A wrong C is explained in the exercise's terms: tiles of C never written (the grid or a warp's
// tile numbering), only the first slices of K added, B or A read as column-major, non-finite
// values (an accumulator never set to 0), wrong 16 x 16 tiles.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <tuple>
#include <vector>

#include "../common/against_library.hpp"
#include "../common/inputs.hpp"
#include "wb/grader.hpp"
#include "wb/library_anchors.hpp"
#include "wmma_gemm.cuh"

namespace {

struct Case {
  std::vector<__half> A, B;
  std::vector<float> a, b;  // the same values as float, for the reference
  int M, N, K;
  std::string context;
};

// ---- inputs ----
Case make_case(int M, int N, int K, bool random_halves = false) {
  Case t;
  t.M = M;
  t.N = N;
  t.K = K;
  const std::uint64_t s = std::uint64_t(M) * 7919 + std::uint64_t(N) * 31 + K;
  if (random_halves) {
    t.a = wb::random_floats(std::size_t(M) * K, -1.0f, 2.0f, s);
    t.b = wb::random_floats(std::size_t(K) * N, -1.0f, 2.0f, s + 1);
  } else {
    t.a = exercise::random_ints(std::size_t(M) * K, -8, 12, s);
    t.b = exercise::random_ints(std::size_t(K) * N, -8, 12, s + 1);
    for (auto& x : t.a) x /= 4;
    for (auto& x : t.b) x /= 4;
  }
  for (float x : t.a) t.A.push_back(__float2half(x));
  for (float x : t.b) t.B.push_back(__float2half(x));
  for (std::size_t i = 0; i < t.a.size(); ++i) t.a[i] = __half2float(t.A[i]);  // what the tensor cores see
  for (std::size_t i = 0; i < t.b.size(); ++i) t.b[i] = __half2float(t.B[i]);
  t.context = "M x N x K = " + std::to_string(M) + " x " + std::to_string(N) + " x " + std::to_string(K) +
              (random_halves ? ", random halves" : ", halves k/4");
  return t;
}

// ---- CPU reference ----
struct Reference {
  std::vector<double> C, bound;  // bound 0: exact
};

// C[i][j] over the k with from <= k < to (ta, tb: read A or B transposed, for the diagnosis).
double entry(const Case& t, int i, int j, int from, int to, bool ta = false, bool tb = false) {
  double s = 0;
  for (int k = from; k < to; ++k)
    s += double(ta ? t.a[std::size_t(k) * t.M + i] : t.a[std::size_t(i) * t.K + k]) *
         (tb ? t.b[std::size_t(j) * t.K + k] : t.b[std::size_t(k) * t.N + j]);
  return s;
}

Reference reference(const Case& t, bool exact) {
  Reference r;
  r.C.resize(std::size_t(t.M) * t.N);
  r.bound.assign(r.C.size(), 0);
  const double u = std::ldexp(1.0, -24), g = t.K * u / (1 - t.K * u);
  std::vector<double> row(t.N), abs_row(t.N);
  for (int i = 0; i < t.M; ++i) {
    std::fill(row.begin(), row.end(), 0.0);
    std::fill(abs_row.begin(), abs_row.end(), 0.0);
    for (int k = 0; k < t.K; ++k) {
      const double aik = t.a[std::size_t(i) * t.K + k];
      const float* brow = t.b.data() + std::size_t(k) * t.N;
      for (int j = 0; j < t.N; ++j) {
        row[j] += aik * brow[j];
        abs_row[j] += std::fabs(aik * brow[j]);
      }
    }
    for (int j = 0; j < t.N; ++j) {
      r.C[std::size_t(i) * t.N + j] = row[j];
      if (!exact) r.bound[std::size_t(i) * t.N + j] = g * abs_row[j];
    }
  }
  return r;
}

// ---- diagnosis ----
wb::Comparison judge(const Case& t, const Reference& ref, const wb::DeviceBuffer<float>& out) {
  wb::Comparison c = wb::guarded_comparison("C", std::int64_t(t.M) * t.N, t.context, out, [&](std::int64_t at) {
    return "C[" + std::to_string(at) + "] was written, outside C (M x N = " +
           std::to_string(std::int64_t(t.M) * t.N) + " floats): a fragment past row M or column N was stored (a block's tile "
           "reaches past the matrix when M or N is not a multiple of it: skip those fragments)";
  });
  if (!c.ok()) return c;
  const std::vector<float> got = out.download();
  std::int64_t nonfinite = 0;
  std::vector<int> bad_tiles;  // 16 x 16 tiles of C with a wrong element, numbered row-major
  const int tiles_n = t.N / 16;
  for (int i = 0; i < t.M; ++i)
    for (int j = 0; j < t.N; ++j) {
      const std::size_t k = std::size_t(i) * t.N + j;
      const bool miss = wb::never_written(got[k]);
      if (!miss && std::fabs(double(got[k]) - ref.C[k]) <= ref.bound[k]) continue;
      if (!c.wrong++) c.first_wrong = std::int64_t(k);
      c.unwritten += miss;
      nonfinite += !miss && !std::isfinite(got[k]);
      if (c.listed.size() < 4) c.listed.push_back({std::int64_t(k), ref.C[k], double(got[k]), miss});
      const int tile = (i / 16) * tiles_n + j / 16;
      if (bad_tiles.empty() || bad_tiles.back() != tile) bad_tiles.push_back(tile);
    }
  if (c.wrong == 0) return c;
  c.pattern = wb::Pattern::chapter_specific;
  std::sort(bad_tiles.begin(), bad_tiles.end());
  bad_tiles.erase(std::unique(bad_tiles.begin(), bad_tiles.end()), bad_tiles.end());
  const std::int64_t f = c.first_wrong;
  const int fi = int(f / t.N), fj = int(f % t.N);
  const std::string first = exercise::cell("C", fi, fj);
  const std::string tile_of_first = "the 16 x 16 tile at rows " + std::to_string(fi / 16 * 16) + ".." +
                                    std::to_string(fi / 16 * 16 + 15) + ", columns " + std::to_string(fj / 16 * 16) +
                                    ".." + std::to_string(fj / 16 * 16 + 15);
  const std::string tiles = std::to_string(bad_tiles.size()) + " of the " + std::to_string((t.M / 16) * tiles_n) +
                            " tiles of 16 x 16";
  if (c.unwritten == c.n) {
    c.pattern = wb::Pattern::nothing_written;
    c.diagnosis = "no element of C was written: the kernel did not run or stored nothing";
  } else if (c.unwritten == c.wrong) {
    c.diagnosis = tiles + " were never written, first " + tile_of_first + ": does the grid cover every tile of C (M / 16 "
                  "x N / 16 of them; round a block's tile count up), and does each warp store each of its fragments "
                  "at its own tile?";
  } else if (nonfinite > 0) {
    c.diagnosis = first + " is " + wb::format_value(got[f]) +
                  " (the inputs are small: no sum of them overflows): an accumulator "
                  "fragment that was never set to 0 (wmma::fill_fragment) holds whatever its registers held";
  } else {
    // The first wrong element: a prefix of K's slices, or a transposed operand?
    std::string why;
    for (int to = t.K - 16; to >= 0 && why.empty(); to -= 16)
      if (std::fabs(got[f] - entry(t, fi, fj, 0, to)) <= ref.bound[f])
        why = first + (to == 0 ? " is 0: no slice of K was multiplied in (K = " + std::to_string(t.K) + ")"
                               : " is the sum over k < " + std::to_string(to) + " only, of K = " + std::to_string(t.K) +
                                     ": the slices of K from " + std::to_string(to) + " on were never multiplied in") +
              " (the loop over K stops early: a last, partial slice?)";
    if (why.empty() && t.N == t.K && std::fabs(got[f] - entry(t, fi, fj, 0, t.K, false, true)) <= ref.bound[f])
      why = first + " is (A B^T)[" + std::to_string(fi) + "][" + std::to_string(fj) + "]: B was read as column-major; "
            "its fragments are wmma::row_major, with the leading dimension N";
    if (why.empty() && t.M == t.K && std::fabs(got[f] - entry(t, fi, fj, 0, t.K, true, false)) <= ref.bound[f])
      why = first + " is (A^T B)[" + std::to_string(fi) + "][" + std::to_string(fj) + "]: A was read as column-major; "
            "its fragments are wmma::row_major, with the leading dimension K";
    c.diagnosis = !why.empty()
                      ? why
                      : "wrong values in " + tiles + ", first " + first + " (expected " + wb::format_value(ref.C[f]) +
                            ", got " + wb::format_value(got[f]) + ", in " + tile_of_first + ")";
  }
  return c;
}

wb::Comparison run_case(const Case& t, bool exact = true) {
  wb::DeviceBuffer<__half> dA(t.A), dB(t.B);
  wb::DeviceBuffer<float> dC(std::size_t(t.M) * t.N);
  dC.poison();
  const Reference ref = reference(t, exact);
  wb::run_launch("wmma_gemm (" + t.context + ")",
                 [&] { student::wmma_gemm(dA.data(), dB.data(), dC.data(), t.M, t.N, t.K); });
  // The inputs, compared as raw 16-bit patterns.
  auto bits = [](const std::vector<__half>& h) {
    std::vector<std::uint16_t> v(h.size());
    std::memcpy(v.data(), h.data(), h.size() * 2);
    return v;
  };
  for (const auto& [name, host, dev] : {std::tuple{"A", &t.A, &dA}, std::tuple{"B", &t.B, &dB}}) {
    if (bits(*host) == bits(dev->download())) continue;
    wb::Comparison c;
    c.array = name;
    c.context = t.context;
    c.pattern = wb::Pattern::chapter_specific;
    c.diagnosis = std::string("the kernel changed its input ") + name + ": only C may be written";
    return c;
  }
  return judge(t, ref, dC);
}

}  // namespace

TEST_CASE("C = A B for shapes that are multiples of 16, not of a block's tile", "[x12][correctness]") {
  WB_REQUIRE_DEVICE();
  const auto [M, N, K] = GENERATE(table<int, int, int>({{16, 16, 16},    {16, 32, 48},    {48, 16, 16},
                                                        {128, 128, 32},  {144, 272, 80},  {256, 128, 1040},
                                                        {80, 400, 16},   {272, 48, 336},  {1024, 1024, 1024}}));
  CAPTURE(M, N, K);
  WB_REQUIRE_MATCH(run_case(make_case(M, N, K)));
}

TEST_CASE("square shapes: A and B are row-major", "[x12][correctness]") {
  WB_REQUIRE_DEVICE();
  const int n = GENERATE(64, 208);
  CAPTURE(n);
  WB_REQUIRE_MATCH(run_case(make_case(n, n, n)));
}

TEST_CASE("random halves: within the float32 error bound", "[x12][correctness]") {
  WB_REQUIRE_DEVICE();
  WB_REQUIRE_MATCH(run_case(make_case(336, 208, 512, true), false));
}

TEST_CASE("speed against the solution and cuBLAS (cublasGemmEx, half in, float out)", "[x12][timing]") {
  WB_REQUIRE_GPU("timings of the CPU backend say nothing about a GPU");
  WB_REQUIRE_CORRECT_SO_FAR();
  const int M = 4096, N = 4096, K = 4096;
  const Case t = make_case(M, N, K);
  wb::DeviceBuffer<__half> dA(t.A), dB(t.B);
  wb::DeviceBuffer<float> dC(std::size_t(M) * N), lC(std::size_t(M) * N);
  const double flops = 2.0 * M * N * double(K);
  const double bytes = 2.0 * (double(M) * K + double(K) * N) + 4.0 * double(M) * N;  // each matrix once
  const std::string size = "4096 x 4096 x 4096";
  auto yours = [&] { student::wmma_gemm(dA.data(), dB.data(), dC.data(), M, N, K); };
  wb::grade_speed(wb::SpeedCase("C = A B, " + size + " (half in, float out)", wb::tensor_bound(flops, bytes))
                      .yours("your wmma_gemm", yours)
                      .solution("solution (128x128 tiles, WMMA)",
                                [&] { solution::wmma_gemm(dA.data(), dB.data(), dC.data(), M, N, K); })
                      .anchor({"cuBLAS cublasGemmEx",
                               [&] { wb::anchors::cublas_gemm_f16_f32(M, N, K, dA.data(), dB.data(), lC.data()); }})
                      .bar(size, "C")
                      .table_row("x12-wmma-gemm"),
                  [&] {  // against cuBLAS's C (exact here: the inputs are halves k/4)
                    dC.poison();
                    wb::run_launch("wmma_gemm (after timing, " + size + ")", yours);
                    return exercise::against_library(lC, dC, "C", size + ", against cuBLAS's C");
                  });
}

// The small case compute-sanitizer runs on a GPU (memcheck, racecheck, synccheck: wb/sanitizer.hpp): block tiles that are partial on both sides.
WB_SANITIZER_CASE("[x12]", "C = A B for 144 x 272 x 80") {
  WB_REQUIRE_MATCH(run_case(make_case(144, 272, 80)));
}
