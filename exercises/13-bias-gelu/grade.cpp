// Exercise 13's grader: student::bias_gelu_residual against a host reference in double for
// matrices of awkward shapes (1 x 1, columns around multiples of 4, 32 and 128, rows * cols not
// a multiple of 4, so that a float4 path needs a scalar tail), inputs where the exact GELU and
// its tanh approximation differ (|v| between 1 and 4), inputs where GELU is the identity or 0
// (|v| up to 12), a negative scale, each pointer off a 16-byte boundary on its own and all
// together, no rows, more rows than a grid of resident threads; then, on a GPU, its speed
// against the solution and PyTorch's chain of ops (shown, not graded).
//
// Tolerance, per element, v = x + bias, g = gelu(v), u = 2^-24:
//   |got - exact| <= |scale| 8 u (|v| + |g|) + 4 u (|resid| + |scale g|) + 1e-30
// (v rounded to float; erff within 2 units in the last place, as CUDA's is; the products and
// the final add rounded once each). The tanh approximation is off by up to about 5e-4 for
// |v| around 2: far outside it.
//
// A wrong out is explained in the exercise's terms: rows, columns or a last few elements never
// written, the tanh approximation of GELU, the bias taken by row (bias[r]) or not added, the
// residual not added, the scale left out, applied twice or applied to the residual too, GELU
// left out.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "../common/inputs.hpp"
#include "bias_gelu.cuh"
#include "wb/alignment.hpp"
#include "wb/grader.hpp"
#include "wb/library_anchors.hpp"

namespace {

struct Case {
  std::vector<float> x, bias, resid;
  int rows, cols;
  float scale;
  std::string context;
};

double gelu(double v) { return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))); }
double gelu_tanh(double v) {
  return 0.5 * v * (1 + std::tanh(std::sqrt(2 / 3.14159265358979323846) * (v + 0.044715 * v * v * v)));
}

// ---- CPU reference ----
struct Reference {
  std::vector<double> out, tol;  // per element
};

Reference reference(const Case& k) {
  Reference r;
  const std::size_t n = std::size_t(k.rows) * k.cols;
  r.out.resize(n);
  r.tol.resize(n);
  const double u = std::ldexp(1.0, -24), s = k.scale;
  wb::parallel_ranges(n, [&](std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last; ++i) {
      const double v = double(k.x[i]) + k.bias[i % k.cols], g = gelu(v);
      r.out[i] = k.resid[i] + s * g;
      r.tol[i] = std::fabs(s) * 8 * u * (std::fabs(v) + std::fabs(g)) +
                 4 * u * (std::fabs(k.resid[i]) + std::fabs(s * g)) + 1e-30;
    }
  }, std::size_t(1) << 16);
  return r;
}

// ---- inputs ----
// x in [lo, hi), bias in [-1, 1), resid in [1, 3) (never 0: a residual left out always shows).
Case random_case(int rows, int cols, float lo, float hi, float scale, const std::string& what) {
  const std::uint64_t s = std::uint64_t(rows) * 7919 + cols;
  const std::size_t n = std::size_t(rows) * cols;
  return {wb::random_floats(n, lo, hi, s), wb::random_floats(cols, -1.0f, 1.0f, s + 1),
          wb::random_floats(n, 1.0f, 3.0f, s + 2), rows, cols, scale,
          exercise::shape(rows, cols) + ", " + what + ", scale " + wb::format_value(scale)};
}

// ---- diagnosis ----
// What out would hold for a recognisable mistake: each is a whole matrix of alternatives.
struct Mistake {
  const char* sentence;
  std::function<double(std::size_t i, int r, int c, double v)> value;  // v = x + bias[c]
};

wb::Comparison judge(const Case& k, const Reference& ref, const wb::DeviceBuffer<float>& out) {
  const std::int64_t n = std::int64_t(k.rows) * k.cols;
  wb::Comparison c = wb::guarded_comparison("out", n, k.context, out, [&](std::int64_t at) {
    return "out[" + std::to_string(at) + "] was written, " +
           (at < 0 ? std::string("before the start of out: an index went negative")
                   : "past the end of out (rows x cols = " + std::to_string(n) +
                         " floats): a thread past the last element wrote (is the bound rows * cols?)");
  });
  if (!c.ok()) return c;
  const std::vector<float> got = out.download();
  std::int64_t first_unwritten = -1, last_written = -1, nonfinite = 0;
  int min_row_unwritten = k.rows, min_col_unwritten = k.cols;
  bool unwritten_suffix = true;  // in every row, the unwritten columns are the last ones
  std::vector<std::int64_t> bad;  // written but wrong
  for (int r = 0; r < k.rows; ++r) {
    bool seen = false;
    for (int col = 0; col < k.cols; ++col) {
      const std::int64_t i = std::int64_t(r) * k.cols + col;
      const bool miss = wb::never_written(got[i]);
      if (!miss) last_written = i;
      if (!miss && std::fabs(double(got[i]) - ref.out[i]) <= ref.tol[i]) {
        if (seen) unwritten_suffix = false;
        continue;
      }
      if (!c.wrong++) c.first_wrong = i;
      if (c.listed.size() < 4) c.listed.push_back({i, ref.out[i], double(got[i]), miss});
      if (miss) {
        if (!c.unwritten++) first_unwritten = i;
        min_row_unwritten = std::min(min_row_unwritten, r);
        if (!seen) min_col_unwritten = std::min(min_col_unwritten, col);
        seen = true;
        continue;
      }
      if (seen) unwritten_suffix = false;
      if (!std::isfinite(got[i])) ++nonfinite;
      bad.push_back(i);
    }
  }
  if (c.wrong == 0) return c;
  c.pattern = wb::Pattern::chapter_specific;
  const std::int64_t f = c.first_wrong;
  const std::string first = exercise::cell("out", f / k.cols, f % k.cols);
  if (c.unwritten == n) {
    c.pattern = wb::Pattern::nothing_written;
    c.diagnosis = "no element of out was written: the kernel did not run or wrote nothing";
    return c;
  }
  if (c.unwritten == c.wrong) {
    if (c.unwritten == std::int64_t(k.rows - min_row_unwritten) * k.cols && min_row_unwritten > 0)
      c.diagnosis = "out is never written from row " + std::to_string(min_row_unwritten) + " on (of " +
                    std::to_string(k.rows) + " rows): the grid reached only the first " +
                    std::to_string(min_row_unwritten) + " rows; cover all rows * cols elements (enough blocks, or "
                    "a grid-stride loop)";
    else if (last_written < first_unwritten && n - first_unwritten < 4)
      c.diagnosis = "the last " + std::to_string(n - first_unwritten) + " elements of out (from " + first +
                    ", rows x cols = " + std::to_string(n) + ") are never written: " + std::to_string(n) +
                    " is not a multiple of 4, and the float4 loop stops at the last whole float4; the rest needs a "
                    "scalar tail";
    else if (last_written < first_unwritten)
      c.diagnosis = "out is never written from element " + std::to_string(first_unwritten) + " (" + first +
                    ") on, of rows x cols = " + std::to_string(n) +
                    ": the grid covers too few elements (are the blocks rounded down, or is the loop's bound short?)";
    else if (unwritten_suffix && min_col_unwritten > 0)
      c.diagnosis = "out is never written from column " + std::to_string(min_col_unwritten) + " on (cols = " +
                    std::to_string(k.cols) + "): every column of every row is written (is the last, partial step "
                    "of a row skipped?)";
    else
      c.diagnosis = std::to_string(c.unwritten) + " elements of out were never written, first " + first +
                    ": every element (r, c) below rows x cols is written once";
    return c;
  }
  const double s = k.scale;
  const std::vector<Mistake> mistakes = {
      {"out is resid + scale * gelu_tanh(v), the tanh approximation of GELU; this exercise's GELU is the exact "
       "one, 0.5 * v * (1 + erff(v / sqrt(2)))",
       [&](std::size_t i, int, int, double v) { return k.resid[i] + s * gelu_tanh(v); }},
      {"the bias is taken by row, bias[r]: it belongs to the column, v = x[r][c] + bias[c]",
       [&](std::size_t i, int r, int, double) {
         return r < k.cols ? k.resid[i] + s * gelu(double(k.x[i]) + k.bias[r]) : std::nan("");
       }},
      {"the bias is not added: out is resid + scale * gelu(x), not gelu(x + bias[c])",
       [&](std::size_t i, int, int, double) { return k.resid[i] + s * gelu(k.x[i]); }},
      {"the residual is not added: out is scale * gelu(x + bias), without resid[r][c]",
       [&](std::size_t, int, int, double v) { return s * gelu(v); }},
      {"the scale is applied twice: out is resid + scale^2 * gelu(v)",
       [&](std::size_t i, int, int, double v) { return k.resid[i] + s * s * gelu(v); }},
      {"the scale is left out: out is resid + gelu(v), not resid + scale * gelu(v)",
       [&](std::size_t i, int, int, double v) { return k.resid[i] + gelu(v); }},
      {"the scale multiplies the residual too: out is scale * (resid + gelu(v)), not resid + scale * gelu(v)",
       [&](std::size_t i, int, int, double v) { return s * (k.resid[i] + gelu(v)); }},
      {"GELU is left out: out is resid + scale * (x + bias), not resid + scale * gelu(x + bias)",
       [&](std::size_t i, int, int, double v) { return k.resid[i] + s * v; }},
  };
  // Wrong only in a row's first columns, each in a float4 (4 elements from a multiple of 4) that
  // starts in the row before: the float4's columns ran on past cols instead of wrapping to 0.
  bool straddling = c.unwritten == 0 && !bad.empty() && k.cols % 4 != 0;
  for (std::int64_t i : bad) straddling = straddling && i % k.cols < 3 && (i - i % 4) / k.cols < i / k.cols;
  if (straddling) {
    c.diagnosis = "every wrong element is in the first 3 columns of its row, in a float4 that starts in the row "
                  "before (first " + first + "): its columns must wrap to 0 at cols, and bias[cols] and past are "
                  "outside the bias";
    return c;
  }
  if (c.unwritten == 0 && nonfinite == 0) {
    for (const Mistake& m : mistakes) {
      bool all = true;
      for (std::int64_t i : bad) {
        const int r = int(i / k.cols), col = int(i % k.cols);
        const double want = m.value(std::size_t(i), r, col, double(k.x[i]) + k.bias[col]);
        if (!(std::fabs(double(got[i]) - want) <= 4 * ref.tol[i] + std::ldexp(std::fabs(want), -20))) {
          all = false;
          break;
        }
      }
      if (all) {
        c.diagnosis = std::string(m.sentence) + " (first at " + first + ")";
        return c;
      }
    }
  }
  if (nonfinite > 0)
    c.diagnosis = std::to_string(nonfinite) + " elements of out are NaN or infinite, first " + first +
                  ": memory nothing wrote was read (past the end of x, bias or resid?), or erff got NaN";
  else
    c.diagnosis = "wrong values in " + std::to_string(c.wrong) + " elements of out, first " + first + " (expected " +
                  wb::format_value(ref.out[f]) + ", got " + wb::format_value(got[f]) + ")" +
                  (c.unwritten ? "; " + std::to_string(c.unwritten) + " more never written" : std::string());
  return c;
}

// Runs student::bias_gelu_residual on the case once; with `m`, each pointer starts as many
// floats past a 16-byte boundary as it says (their guard zones stay around them).
wb::Comparison run_case(const Case& k, const wb::Misalignment& m = {}) {
  const std::size_t n = std::size_t(k.rows) * k.cols;
  wb::DeviceBuffer<float> dx(k.x, m.guard("x")), db(k.bias, m.guard("bias")), dr(k.resid, m.guard("resid")),
      dout(n, m.guard("out"));
  dout.poison();
  const Reference ref = reference(k);
  wb::run_launch("bias_gelu_residual (" + k.context + ")", [&] {
    student::bias_gelu_residual(dx.data(), db.data(), dr.data(), dout.data(), k.rows, k.cols, k.scale);
  });
  return wb::inputs_then_output(
      wb::inputs_unchanged<float>({{"x", k.x, dx}, {"bias", k.bias, db}, {"resid", k.resid, dr}}, "out"),
      [&] { return judge(k, ref, dout); }, k.context);
}

}  // namespace

TEST_CASE("out = resid + scale * gelu(x + bias) for awkward shapes", "[x13][correctness]") {
  WB_REQUIRE_DEVICE();
  const auto [rows, cols] =
      GENERATE(table<int, int>({{1, 1},    {1, 3},     {3, 5},    {2, 31},    {4, 32},   {5, 33},   {7, 127},
                                {9, 128},  {3, 257},   {64, 1000}, {17, 1025}, {3, 4099}, {1000, 3}, {2, 8197}}));
  CAPTURE(rows, cols);
  WB_REQUIRE_MATCH(run_case(random_case(rows, cols, -4.0f, 4.0f, 0.75f, "x random in [-4, 4)")));
}

TEST_CASE("where the exact GELU and its tanh approximation differ, and where GELU is x or 0", "[x13][correctness]") {
  WB_REQUIRE_DEVICE();
  const int cols = GENERATE(6, 300);
  CAPTURE(cols);
  // Rows 0-3: |v| from 1 to 4, where erf and tanh differ most; rows 4-5: |x| up to 12, where
  // gelu(v) is v (or 0) to float precision.
  Case k = random_case(6, cols, 1.0f, 4.0f, 0.75f, "|x| from 1 to 4 and up to 12");
  for (int r = 0; r < 6; ++r)
    for (int c = 0; c < cols; ++c) {
      float& v = k.x[std::size_t(r) * cols + c];
      if (r >= 4) v *= 3.0f;
      if ((r + c) % 2) v = -v;
    }
  WB_REQUIRE_MATCH(run_case(k));
  Case neg = random_case(7, cols + 1, -4.0f, 4.0f, -1.5f, "x random in [-4, 4)");
  WB_REQUIRE_MATCH(run_case(neg));
}

TEST_CASE("x, bias, resid and out off a 16-byte boundary, each alone and all together", "[x13][correctness]") {
  WB_REQUIRE_DEVICE();
  const int cols = GENERATE(64, 2048);
  const wb::Misalignment m = GENERATE(from_range(wb::misalignments({"x", "bias", "resid", "out"})));
  CAPTURE(cols);
  Case k = random_case(5, cols, -4.0f, 4.0f, 0.75f, "x random in [-4, 4)");
  k.context += ", " + m.context;
  WB_REQUIRE_MATCH(run_case(k, m));
}

TEST_CASE("no rows at all, and more rows than the grid has threads", "[x13][correctness]") {
  WB_REQUIRE_DEVICE();
  WB_REQUIRE_MATCH(run_case(random_case(0, 17, -4.0f, 4.0f, 0.75f, "nothing to do")));
  const int rows = wb::cpu_backend() ? 1999 : (1 << 20) + 3, cols = wb::cpu_backend() ? 3 : 33;
  WB_REQUIRE_MATCH(run_case(random_case(rows, cols, -4.0f, 4.0f, 0.75f, "x random in [-4, 4)")));
}

TEST_CASE("speed against the solution and PyTorch's chain of ops", "[x13][timing]") {
  WB_REQUIRE_GPU("timings of the CPU backend say nothing about a GPU");
  WB_REQUIRE_CORRECT_SO_FAR();
  const int rows = 65536, cols = 4096;  // 2^28 floats: tokens x hidden size of a large MLP
  const std::size_t n = std::size_t(rows) * cols;
  const Case k = random_case(rows, cols, -4.0f, 4.0f, 0.75f, "x random in [-4, 4)");
  wb::DeviceBuffer<float> dx(k.x), db(k.bias), dr(k.resid), dout(n), tout(n);
  const std::string size = exercise::shape(rows, cols) + " floats";
  auto yours = [&] {
    student::bias_gelu_residual(dx.data(), db.data(), dr.data(), dout.data(), rows, cols, k.scale);
  };
  wb::grade_speed(
      wb::SpeedCase("resid + scale * gelu(x + bias), " + size + " (12 bytes per element)",
                    wb::memory_bound(3.0 * sizeof(float) * n + sizeof(float) * cols))  // x, resid read; out written
          .yours("your bias_gelu_residual", yours)
          .solution("solution (one pass, float4)",
                    [&] {
                      solution::bias_gelu_residual(dx.data(), db.data(), dr.data(), dout.data(), rows, cols, k.scale);
                    })
          .anchor(wb::anchors::torch_anchor("PyTorch add, gelu, mul, add", [&] {
            wb::anchors::torch_bias_gelu_residual(dx.data(), db.data(), dr.data(), tout.data(), rows, cols, k.scale);
          }))
          .bar(size, "out")
          .table_row("x13-bias-gelu", exercise::shape(rows, cols)),
      [&] {
        dout.poison();
        wb::run_launch("bias_gelu_residual (after timing, " + size + ")", yours);
        Case after = k;
        after.context = "after timing, " + size;
        return judge(after, reference(k), dout);
      });
}

// The small case compute-sanitizer runs on a GPU (memcheck, racecheck, synccheck: wb/sanitizer.hpp):
// a few blocks, a row length that leaves a scalar tail.
WB_SANITIZER_CASE("[x13]", "13 x 1027 elements") {
  WB_REQUIRE_MATCH(run_case(random_case(13, 1027, -4.0f, 4.0f, 0.75f, "x random in [-4, 4)")));
}
