// Exercise 05's grader: student::layernorm against a host reference in double for rows of awkward
// lengths (1, 31, 33, around multiples of 32, 128 and 1024), rows whose mean is large next to
// their spread (where E[x^2] - E[x]^2 in float32 loses everything to cancellation), rows of equal
// elements (variance 0: only eps keeps rstd finite), rows of one value but for the last element,
// a large eps (so that forgetting it shows),
// pointers off a 16-byte boundary, more rows than a grid of resident warps; then, on a GPU, its
// speed against the solution and PyTorch's layer norm (shown, not graded).
//
// Tolerance, from float32's error bounds with d = cols / 8 + 16 (each thread accumulates up to an
// eighth of the row, then a tree), u = 2^-24, kappa = sqrt(1 + mean^2 / (var + eps)) (how badly
// the variance is conditioned: Welford's and the two-pass variance's errors grow with it, the
// sum of squares' with its square):
//   mean:  d u (|mean| + std) + 1e-30
//   rstd:  rstd (d u kappa + 8 u)
//   y:     |gamma| rstd (tol(mean) + |x - mean| (d u kappa + 12 u)) + 4 u (|y| + |beta|) + 1e-30
//
// A wrong result is explained in the exercise's terms: rows or columns never written, a mean
// that is the row's sum, a variance divided by cols - 1, eps left out (rstd infinite for a row
// of equal elements) or added after the square root, a wrong rstd for a row of equal elements
// (the per-thread update is wrong: no merge can change a variance of 0), rstd = sqrt(var + eps)
// instead of its reciprocal, a variance lost to
// cancellation (a row whose mean is large next to its spread), a variance too small or too
// large (two threads' statistics merged without the term for their means' difference), y
// without gamma or without beta.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "../common/inputs.hpp"
#include "layernorm.cuh"
#include "wb/alignment.hpp"
#include "wb/grader.hpp"
#include "wb/library_anchors.hpp"

namespace {

constexpr float kEps = 1e-5f;  // torch.nn.LayerNorm's default

struct Case {
  std::vector<float> x, gamma, beta;
  int rows, cols;
  float eps;
  std::string context;
};

// ---- CPU reference ----
struct Reference {
  std::vector<double> mean, var, rstd, mean_tol, rstd_tol;  // per row
  std::vector<double> y, y_tol;                             // per element
};

Reference reference(const Case& k) {
  Reference r;
  const int rows = k.rows, cols = k.cols;
  r.mean.resize(rows);
  r.var.resize(rows);
  r.rstd.resize(rows);
  r.mean_tol.resize(rows);
  r.rstd_tol.resize(rows);
  r.y.resize(std::size_t(rows) * cols);
  r.y_tol.resize(r.y.size());
  const double u = std::ldexp(1.0, -24), d = cols / 8.0 + 16;
  wb::parallel_ranges(std::size_t(rows), [&](std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last; ++i) {
      const float* row = k.x.data() + i * cols;
      double s = 0;
      for (int c = 0; c < cols; ++c) s += row[c];
      const double mean = s / cols;
      double m2 = 0;
      for (int c = 0; c < cols; ++c) m2 += (row[c] - mean) * (row[c] - mean);
      const double var = m2 / cols, rstd = 1 / std::sqrt(var + k.eps);
      const double kappa = std::sqrt(1 + mean * mean / (var + k.eps));
      r.mean[i] = mean;
      r.var[i] = var;
      r.rstd[i] = rstd;
      r.mean_tol[i] = d * u * (std::fabs(mean) + std::sqrt(var)) + 1e-30;
      r.rstd_tol[i] = rstd * (d * u * kappa + 8 * u);
      for (int c = 0; c < cols; ++c) {
        const double dev = row[c] - mean, y = dev * rstd * k.gamma[c] + k.beta[c];
        r.y[i * cols + c] = y;
        r.y_tol[i * cols + c] = std::fabs(k.gamma[c]) * rstd * (r.mean_tol[i] + std::fabs(dev) * (d * u * kappa + 12 * u)) +
                                4 * u * (std::fabs(y) + std::fabs(k.beta[c])) + 1e-30;
      }
    }
  }, 256);
  return r;
}

// ---- inputs ----
// x random in [lo, hi) (non-zero mean), gamma in [0.5, 1.5), beta in [-1, 1).
Case random_case(int rows, int cols, float lo, float hi, const std::string& what, float eps = kEps) {
  const std::uint64_t s = std::uint64_t(rows) * 7919 + std::uint64_t(cols) * 31 + std::uint64_t(hi);
  return {wb::random_floats(std::size_t(rows) * cols, lo, hi, s), wb::random_floats(cols, 0.5f, 1.5f, s + 1),
          wb::random_floats(cols, -1.0f, 1.0f, s + 2), rows, cols, eps, exercise::shape(rows, cols) + ", " + what};
}

// ---- diagnosis ----
struct Outputs {
  std::vector<float> y, mean, rstd;
  std::vector<wb::GuardHit> y_hits, mean_hits, rstd_hits;
};

wb::Comparison out_of_bounds(const std::string& name, std::int64_t size, const std::vector<wb::GuardHit>& hits,
                             const std::string& who) {
  wb::Comparison c;
  c.array = name;
  c.n = size;
  c.pattern = wb::Pattern::out_of_bounds;
  c.guard_hits = hits;
  const std::int64_t at = hits.front().index;
  c.diagnosis = name + "[" + std::to_string(at) + "] was written, " +
                (at < 0 ? "before the start of " + name + ": an index went negative"
                        : "past the end of " + name + " (" + std::to_string(size) + " floats): " + who);
  return c;
}

// mean or rstd (per row) against the reference: the first wrong row and why.
wb::Comparison judge_rows(const std::string& name, const std::vector<float>& got, const std::vector<double>& want,
                          const std::vector<double>& tol, const Case& k, const Reference& ref) {
  wb::Comparison c;
  c.array = name;
  c.n = k.rows;
  for (int r = 0; r < k.rows; ++r) {
    const bool miss = wb::never_written(got[r]);
    if (!miss && std::fabs(double(got[r]) - want[r]) <= tol[r]) continue;
    if (!c.wrong++) c.first_wrong = r;
    c.unwritten += miss;
    if (c.listed.size() < 4) c.listed.push_back({r, want[r], double(got[r]), miss});
  }
  if (c.wrong == 0) return c;
  c.pattern = wb::Pattern::chapter_specific;
  const int r = int(c.first_wrong);
  const std::string at = name + "[" + std::to_string(r) + "]";
  const double g = got[r];
  if (c.unwritten == c.wrong) {
    c.diagnosis = std::to_string(c.unwritten) + " rows of " + name + " were never written, first " + at +
                  ": one thread of each row writes mean[r] and rstd[r]";
    return c;
  }
  if (wb::never_written(got[r])) {  // the first wrong row is unwritten, others are wrong: say the values
    c.diagnosis = "wrong values in " + std::to_string(c.wrong - c.unwritten) + " rows of " + name + ", and " +
                  std::to_string(c.unwritten) + " never written, first " + at;
    return c;
  }
  // (an infinite v is near only an infinite g: |g - inf| <= inf would match every finite g)
  auto near = [&](double v) {
    return std::isfinite(v) ? std::fabs(g - v) <= tol[r] + 1e-6 * std::fabs(v) : g == v;
  };
  const double mean = ref.mean[r], var = ref.var[r], stdev = std::sqrt(var);
  const std::string row = "row " + std::to_string(r);
  if (name == "mean") {
    c.diagnosis = near(mean * k.cols)
                      ? at + " is the row's sum, not its mean: divide by cols (" + std::to_string(k.cols) + ")"
                      : at + " is " + wb::format_value(g) + ", the row's mean is " + wb::format_value(mean) +
                            ": are all of the row's elements added, and the threads' counts and "
                            "means combined with their weights?";
    return c;
  }
  // rstd
  const bool cancellation = var > 0 && std::fabs(mean) > 100 * stdev;
  if (cancellation) {  // first: in such a row any formula that squares x is far off, by chance near another
    c.diagnosis = at + " is " + wb::format_value(g, 4) + ", expected " + wb::format_value(ref.rstd[r], 4) + ": " + row +
                  "'s mean (" + wb::format_value(mean, 4) + ") is large next to its spread (standard deviation " +
                  wb::format_value(stdev, 4) +
                  "), and E[x^2] - E[x]^2 in "
                  "float32 loses the variance to cancellation (the two terms agree in almost every digit). Use "
                  "Welford's update, or two passes: the mean first, then the average of (x - mean)^2";
  } else if (k.cols > 1 && near(1 / std::sqrt(var * k.cols / (k.cols - 1) + k.eps))) {
    c.diagnosis = at + " is 1 / sqrt(var' + eps) with var' the sum of squared deviations divided by cols - 1 (the "
                  "sample variance): layer norm divides by cols";
  } else if (k.cols == 1 && std::isnan(g)) {
    c.diagnosis = at + " is " + wb::format_value(g) +
                  " for a row of one element, whose variance is 0: the sum of squared "
                  "deviations was divided by cols - 1 = 0 (0 / 0 is NaN); layer norm divides by cols";
  } else if (var == 0 && std::isinf(g)) {
    c.diagnosis = at + " is infinite for a row whose elements are all equal (variance 0): eps must be added to the "
                  "variance before the square root, 1 / sqrt(var + eps)";
  } else if (std::isfinite(g) && near(1 / (stdev + k.eps))) {
    c.diagnosis = at + " is 1 / (sqrt(var) + eps) (" + wb::format_value(g, 4) + ", expected " +
                  wb::format_value(ref.rstd[r], 4) + (var == 0 ? " for a row of variance 0" : "") +
                  "): eps goes inside the square root, rstd = 1 / sqrt(var + eps)";
  } else if (near(1 / stdev)) {
    c.diagnosis =
        at + " is 1 / sqrt(var), without eps (eps = " + wb::format_value(k.eps) + " here): rstd = 1 / sqrt(var + eps)";
  } else if (near(std::sqrt(var + k.eps))) {
    c.diagnosis = at + " is sqrt(var + eps), the standard deviation, not its reciprocal 1 / sqrt(var + eps)";
  } else if (var == 0 && std::isfinite(g)) {
    c.diagnosis = at + " is " + wb::format_value(g, 4) + ", expected 1 / sqrt(eps) = " +
                  wb::format_value(ref.rstd[r], 4) + ": " + row + "'s elements are all equal (" +
                  (k.cols == 1 ? std::string("it has one element") : "variance 0") +
                  "), so every thread's M2 is 0 and merging cannot change that: the variance each thread accumulates "
                  "is wrong. Welford's update is n += 1; d = x - mean; mean += d / n; M2 += d * (x - mean), the last "
                  "factor with the new mean (with the old one, d * d, the first element alone adds x^2)";
  } else {
    c.diagnosis = at + " is " + wb::format_value(g, 4) + ", expected " + wb::format_value(ref.rstd[r], 4) +
                  ": the variance is too " + (std::isfinite(g) && g > ref.rstd[r] ? "small" : "large") +
                  " (when two threads' (n, mean, M2) are combined, M2 = M2a + M2b + (mean_b - mean_a)^2 na nb / n: "
                  "is the last term there?)";
  }
  return c;
}

wb::Comparison judge(const Case& k, const Reference& ref, const Outputs& o) {
  const std::int64_t n = std::int64_t(k.rows) * k.cols;
  if (!o.y_hits.empty()) return out_of_bounds("y", n, o.y_hits, "a thread past the last row or column wrote");
  if (!o.mean_hits.empty()) return out_of_bounds("mean", k.rows, o.mean_hits, "a row past the last one wrote");
  if (!o.rstd_hits.empty()) return out_of_bounds("rstd", k.rows, o.rstd_hits, "a row past the last one wrote");
  auto none = [](const std::vector<float>& v) {
    return std::all_of(v.begin(), v.end(), [](float f) { return wb::never_written(f); });
  };
  if (k.rows > 0 && none(o.y) && none(o.mean) && none(o.rstd)) {
    wb::Comparison c;
    c.array = "y, mean and rstd";
    c.n = n;
    c.wrong = c.unwritten = n;
    c.first_wrong = 0;
    c.pattern = wb::Pattern::nothing_written;
    c.listed.push_back({0, ref.y[0], 0, true});
    c.diagnosis = "nothing was written to y, mean or rstd: the kernel did not run or wrote nothing";
    return c;
  }
  // y's unwritten elements first: rows or columns never reached say more than wrong statistics.
  {
    wb::Comparison c;
    c.array = "y";
    c.n = n;
    int min_row = k.rows, min_col = k.cols;
    bool suffix = true;
    for (int r = 0; r < k.rows; ++r) {
      bool seen = false;
      for (int col = 0; col < k.cols; ++col) {
        const std::size_t e = std::size_t(r) * k.cols + col;
        if (!wb::never_written(o.y[e])) {
          suffix = suffix && !seen;
          continue;
        }
        if (!c.unwritten++) c.first_wrong = std::int64_t(e);
        if (c.listed.size() < 4) c.listed.push_back({std::int64_t(e), ref.y[e], 0, true});
        min_row = std::min(min_row, r);
        if (!seen) min_col = std::min(min_col, col);
        seen = true;
      }
    }
    c.wrong = c.unwritten;
    if (c.unwritten > 0) {
      c.pattern = wb::Pattern::chapter_specific;
      if (c.unwritten == std::int64_t(k.rows - min_row) * k.cols)
        c.diagnosis = "y is never written from row " + std::to_string(min_row) + " on (of " + std::to_string(k.rows) +
                      " rows): the grid reached only the first " + std::to_string(min_row) + " rows; give every row a "
                      "block (or a warp), or let each take rows r, r + (rows the grid holds), ...";
      else if (suffix)
        c.diagnosis = "y is never written from column " + std::to_string(min_col) + " on (cols = " +
                      std::to_string(k.cols) + "): each thread must write all its columns, c = t, t + (threads per "
                      "row), ... up to cols (is the last, partial step skipped?)";
      else
        c.diagnosis = std::to_string(c.unwritten) + " elements of y were never written, first " +
                      exercise::cell("y", c.first_wrong / k.cols, c.first_wrong % k.cols);
      return c;
    }
  }
  wb::Comparison c = judge_rows("mean", o.mean, ref.mean, ref.mean_tol, k, ref);
  if (!c.ok()) return c;
  c = judge_rows("rstd", o.rstd, ref.rstd, ref.rstd_tol, k, ref);
  if (!c.ok()) return c;
  // y, given the right mean and rstd.
  c = wb::Comparison{};
  c.array = "y";
  c.n = n;
  std::int64_t no_gamma = 0, no_beta = 0, neither = 0;
  for (int r = 0; r < k.rows; ++r)
    for (int col = 0; col < k.cols; ++col) {
      const std::size_t e = std::size_t(r) * k.cols + col;
      if (std::fabs(double(o.y[e]) - ref.y[e]) <= ref.y_tol[e]) continue;
      if (!c.wrong++) c.first_wrong = std::int64_t(e);
      if (c.listed.size() < 4) c.listed.push_back({std::int64_t(e), ref.y[e], double(o.y[e]), false});
      const double z = (k.x[e] - ref.mean[r]) * ref.rstd[r], tol = ref.y_tol[e] + 1e-6;
      no_gamma += std::fabs(o.y[e] - (z + k.beta[col])) <= tol;
      no_beta += std::fabs(o.y[e] - z * k.gamma[col]) <= tol;
      neither += std::fabs(o.y[e] - z) <= tol;
    }
  if (c.wrong == 0) return c;
  c.pattern = wb::Pattern::chapter_specific;
  const std::int64_t f = c.first_wrong;
  const std::string first = exercise::cell("y", f / k.cols, f % k.cols);
  if (no_beta == c.wrong)  // (also y = 0 for rows of one element, whose x - mean is 0)
    c.diagnosis = "y is (x - mean) * rstd * gamma, without beta: add beta[c]";
  else if (no_gamma == c.wrong)
    c.diagnosis = "y is (x - mean) * rstd + beta, without gamma: multiply by gamma[c]";
  else if (neither == c.wrong)
    c.diagnosis = "y is (x - mean) * rstd, without gamma and beta: y[r][c] = (x[r][c] - mean) * rstd * gamma[c] + "
                  "beta[c]";
  else
    c.diagnosis = "mean and rstd are right, but y is wrong in " + std::to_string(c.wrong) + " elements, first " +
                  first + " (expected " + wb::format_value(ref.y[f]) + ", got " + wb::format_value(o.y[f]) +
                  "): y[r][c] = (x[r][c] - mean) * rstd * "
                  "gamma[c] + beta[c]";
  return c;
}

// Runs student::layernorm on the case once; with `m`, x, gamma, beta and y start as many floats
// past a 16-byte boundary as it says (their guard zones stay around them).
wb::Comparison run_case(const Case& k, const wb::Misalignment& m = {}) {
  const Reference ref = reference(k);
  wb::DeviceBuffer<float> dx(k.x, m.guard("x")), dg(k.gamma, m.guard("gamma")), db(k.beta, m.guard("beta")),
      dy(k.x.size(), m.guard("y")), dmean(k.rows), drstd(k.rows);
  dy.poison();
  dmean.poison();
  drstd.poison();
  wb::run_launch("layernorm (" + k.context + ")", [&] {
    student::layernorm(dx.data(), dg.data(), db.data(), dy.data(), dmean.data(), drstd.data(), k.rows, k.cols, k.eps);
  });
  wb::Comparison c = wb::inputs_unchanged<float>({{"x", k.x, dx}, {"gamma", k.gamma, dg}, {"beta", k.beta, db}},
                                                 "y, mean and rstd");
  if (c.ok()) {
    Outputs o;
    o.y = dy.download();
    o.y_hits = dy.guard_hits();
    o.mean = dmean.download();
    o.rstd = drstd.download();
    o.mean_hits = dmean.guard_hits();
    o.rstd_hits = drstd.guard_hits();
    c = judge(k, ref, o);
  }
  c.context = k.context;
  return c;
}

}  // namespace

TEST_CASE("layer norm of rows of awkward lengths", "[x05][correctness]") {
  WB_REQUIRE_DEVICE();
  const auto [rows, cols] = GENERATE(table<int, int>({{1, 1},    {3, 1},     {1, 31},   {3, 32},   {5, 33},
                                                      {2, 100},  {7, 128},   {9, 129},  {33, 257}, {64, 1000},
                                                      {4, 1024}, {17, 1025}, {3, 4099}, {2, 8192}, {2, 8197}}));
  CAPTURE(rows, cols);
  WB_REQUIRE_MATCH(run_case(random_case(rows, cols, -3.0f, 5.0f, "x random in [-3, 5)")));
}

TEST_CASE("rows whose mean is large next to their spread", "[x05][correctness]") {
  WB_REQUIRE_DEVICE();
  const auto [rows, cols] = GENERATE(table<int, int>({{4, 64}, {3, 1000}, {2, 4100}}));
  CAPTURE(rows, cols);
  WB_REQUIRE_MATCH(run_case(random_case(rows, cols, 998.0f, 1002.0f, "x random in [998, 1002)")));
}

TEST_CASE("rows of equal elements (variance 0), and a large eps", "[x05][correctness]") {
  WB_REQUIRE_DEVICE();
  const int cols = GENERATE(7, 300, 2000);
  CAPTURE(cols);
  Case k = random_case(3, cols, -3.0f, 5.0f, "rows of equal elements");
  for (int r = 0; r < 3; ++r) std::fill(k.x.begin() + std::size_t(r) * cols, k.x.begin() + std::size_t(r + 1) * cols, 2.5f * r - 1);
  WB_REQUIRE_MATCH(run_case(k));
  WB_REQUIRE_MATCH(run_case(random_case(5, cols, -0.5f, 0.5f, "x random in [-0.5, 0.5), eps = 0.25", 0.25f)));
}

TEST_CASE("rows of one value but for a last element far from it", "[x05][correctness]") {
  WB_REQUIRE_DEVICE();
  // All the variance is in the last column: a mean or variance that misses some columns (the
  // last, partial step; those past what a thread keeps in registers) is far off, not a little.
  const int cols = GENERATE(33, 1025, 8197);
  CAPTURE(cols);
  Case k = random_case(2, cols, -3.0f, 5.0f, "rows of 1.5 but for the last element, 40 and -20");
  for (int r = 0; r < 2; ++r) {
    std::fill(k.x.begin() + std::size_t(r) * cols, k.x.begin() + std::size_t(r + 1) * cols, 1.5f);
    k.x[std::size_t(r + 1) * cols - 1] = r ? -20.0f : 40.0f;
  }
  WB_REQUIRE_MATCH(run_case(k));
}

TEST_CASE("x, gamma, beta and y off a 16-byte boundary, each alone and all together", "[x05][correctness]") {
  WB_REQUIRE_DEVICE();
  const int cols = GENERATE(64, 2048);
  const wb::Misalignment m = GENERATE(from_range(wb::misalignments({"x", "gamma", "beta", "y"})));
  CAPTURE(cols);
  WB_REQUIRE_MATCH(run_case(random_case(5, cols, -3.0f, 5.0f, m.context), m));
}

TEST_CASE("no rows at all, and more rows than the grid has warps", "[x05][correctness]") {
  WB_REQUIRE_DEVICE();
  WB_REQUIRE_MATCH(run_case(random_case(0, 17, -3.0f, 5.0f, "nothing to do")));
  const int rows = wb::cpu_backend() ? 1999 : (1 << 20) + 3, cols = wb::cpu_backend() ? 3 : 33;
  WB_REQUIRE_MATCH(run_case(random_case(rows, cols, -3.0f, 5.0f, "x random in [-3, 5)")));
}

TEST_CASE("speed against the solution and PyTorch's layer norm", "[x05][timing]") {
  WB_REQUIRE_GPU("timings of the CPU backend say nothing about a GPU");
  WB_REQUIRE_CORRECT_SO_FAR();
  const int rows = 8192, cols = 8192;
  const Case k = random_case(rows, cols, -3.0f, 5.0f, "x random in [-3, 5)");
  const std::size_t n = std::size_t(rows) * cols;
  wb::DeviceBuffer<float> dx(k.x), dg(k.gamma), db(k.beta), dy(n), dmean(rows), drstd(rows), ty(n), tmean(rows),
      trstd(rows);
  const std::string size = exercise::shape(rows, cols) + " floats";
  auto yours = [&] {
    student::layernorm(dx.data(), dg.data(), db.data(), dy.data(), dmean.data(), drstd.data(), rows, cols, kEps);
  };
  wb::grade_speed(
      wb::SpeedCase("layer norm of " + size + " (8 bytes per element)",
                    wb::memory_bound(2.0 * sizeof(float) * n))  // x read once, y written once
          .yours("your layernorm", yours)
          .solution("solution (Welford, row in registers)",
                    [&] {
                      solution::layernorm(dx.data(), dg.data(), db.data(), dy.data(), dmean.data(), drstd.data(), rows,
                                          cols, kEps);
                    })
          .anchor(wb::anchors::torch_anchor("PyTorch layer_norm",
                                            [&] {
                                              wb::anchors::torch_layer_norm(dx.data(), dg.data(), db.data(), ty.data(),
                                                                            tmean.data(), trstd.data(), rows, cols, kEps);
                                            }))
          .bar(size, "y, mean and rstd")
          .table_row("x05-layernorm", exercise::shape(rows, cols)),
      [&] {
        for (auto* b : {&dy, &dmean, &drstd}) b->poison();
        wb::run_launch("layernorm (after timing, " + size + ")", yours);
        Outputs o{dy.download(), dmean.download(), drstd.download(), dy.guard_hits(), dmean.guard_hits(),
                  drstd.guard_hits()};
        Case after = k;
        after.context = "after timing, " + k.context;
        wb::Comparison c = judge(after, reference(k), o);
        c.context = after.context;
        return c;
      });
}

// The small case compute-sanitizer runs on a GPU (memcheck, racecheck, synccheck: wb/sanitizer.hpp): short rows and a long one, neither a multiple of a warp.
WB_SANITIZER_CASE("[x05]", "layer norm of 9 rows of 129 and 3 rows of 4099") {
  const auto [rows, cols] = GENERATE(table<int, int>({{9, 129}, {3, 4099}}));
  CAPTURE(rows, cols);
  WB_REQUIRE_MATCH(run_case(random_case(rows, cols, -3.0f, 5.0f, "x random in [-3, 5)")));
}
