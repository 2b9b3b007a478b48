// Exercise 11's grader: student::attention against a float64 reference for every head dimension
// (32, 64, 128) and sequence lengths around the tile sizes (1, 2, 31, 32, 33, 63, 65, 129, ...),
// scores large enough to overflow exp() unless the row's maximum is subtracted, rows whose
// largest score comes late (past the first 32 keys, the last key) and 100 above the rest, then, on a GPU,
// its speed against the solution and PyTorch's scaled_dot_product_attention.
//
// Tolerance, per query i, from an error bound rather than a guess: a float32 dot product of
// length d is within gamma(d + 2) * S_i of the exact score, S_i = max_j sum_c |Q[i][c] K[j][c]| /
// sqrt(d); a score error e moves the softmax weights by at most 2e in total, so O moves by at most
// 4 e max|V|; the sums of n weighted values, in tiles or in a row, add gamma(n / 16 + 64) max|V|.
// gamma(k) = k u / (1 - k u), u = 2^-24. Inputs: Q and K uniform in [-1, 1), V in [0.5, 2.5)
// (non-zero mean: a dropped key shows).
//
// A wrong O is explained by comparing it with what common mistakes compute: scores not scaled
// by 1/sqrt(d) (or scaled by 1/d), weights not divided by their sum, the softmax taken down the
// columns, every key weighted equally, K's rows summed instead of V's, only the first keys used
// (a tile or a tail skipped), keys past n in a partial tile scored 0 (not -infinity), O stored
// transposed, NaN or infinity from exp() overflowing (the maximum not subtracted, or taken over
// the first keys only: rows whose largest score comes late), queries never written.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "../common/inputs.hpp"
#include "attention.cuh"
#include "wb/grader.hpp"
#include "wb/library_anchors.hpp"

namespace {

struct Case {
  std::vector<float> Q, K, V;
  int n, d;
  std::string context;
};

double gamma(double k) {
  const double u = std::ldexp(1.0, -24);
  return k * u / (1 - k * u);
}

// ---- CPU reference ----
// One query's output row, in double: weights w_j = f(score_j) for a chosen scoring, then
// O = sum_j w_j V[j] / (normalise ? sum_j w_j : 1), over keys j < keys. The variants are what
// common mistakes compute (see the top of this file).
struct Variant {
  double scale = 0;            // the scores' factor (1 / sqrt(d) in the contract)
  int keys = 0;                // keys used: n in the contract
  bool normalise = true;       // divide by the sum of the weights
  bool uniform = false;        // every key the same weight
  bool values_from_k = false;  // sum K's rows instead of V's
};

std::vector<double> row_output(const Case& t, int i, const Variant& v) {
  const int d = t.d, keys = v.keys;
  std::vector<double> s(keys);
  double m = -INFINITY;
  for (int j = 0; j < keys; ++j) {
    double dot = 0;
    for (int c = 0; c < d; ++c) dot += double(t.Q[std::size_t(i) * d + c]) * t.K[std::size_t(j) * d + c];
    s[j] = v.uniform ? 0.0 : dot * v.scale;
    m = std::max(m, s[j]);
  }
  std::vector<double> out(d, 0.0);
  double sum = 0;
  const std::vector<float>& rows = v.values_from_k ? t.K : t.V;
  for (int j = 0; j < keys; ++j) {
    const double w = std::exp(s[j] - m);
    sum += w;
    for (int c = 0; c < d; ++c) out[c] += w * rows[std::size_t(j) * d + c];
  }
  if (!v.normalise) return out;  // sum_j exp(s_j - max) V[j]
  for (auto& x : out) x /= sum;
  return out;
}

struct Reference {
  std::vector<double> O;
  std::vector<double> bound;  // per query row
  double max_score = 0;       // the largest |s[i][j]|: exp() overflows float32 past 88.7
};

Reference reference(const Case& t) {
  Reference r;
  r.O.resize(std::size_t(t.n) * t.d);
  r.bound.resize(t.n);
  double vmax = 0;
  for (float x : t.V) vmax = std::max(vmax, double(std::fabs(x)));
  const Variant exact{1.0 / std::sqrt(double(t.d)), t.n};
  for (int i = 0; i < t.n; ++i) {
    const std::vector<double> row = row_output(t, i, exact);
    std::copy(row.begin(), row.end(), r.O.begin() + std::size_t(i) * t.d);
    double S = 0;
    for (int j = 0; j < t.n; ++j) {
      double a = 0, dot = 0;
      for (int c = 0; c < t.d; ++c) {
        const double p = double(t.Q[std::size_t(i) * t.d + c]) * t.K[std::size_t(j) * t.d + c];
        a += std::fabs(p);
        dot += p;
      }
      S = std::max(S, a / std::sqrt(double(t.d)));
      r.max_score = std::max(r.max_score, std::fabs(dot) / std::sqrt(double(t.d)));
    }
    const double score_error = gamma(t.d + 2) * S + 4 * std::ldexp(1.0, -24) * S;  // + exp's own rounding
    r.bound[i] = 4 * score_error * vmax + gamma(t.n / 16.0 + 64) * vmax + 1e-6 * vmax;
  }
  return r;
}

// ---- inputs ----
Case random_case(int n, int d, float qk_scale = 1.0f) {
  const std::uint64_t s = std::uint64_t(n) * 977 + d;
  Case t{wb::random_floats(std::size_t(n) * d, -qk_scale, qk_scale, s),
         wb::random_floats(std::size_t(n) * d, -qk_scale, qk_scale, s + 1),
         wb::random_floats(std::size_t(n) * d, 0.5f, 2.5f, s + 2), n, d,
         "n = " + std::to_string(n) + ", d = " + std::to_string(d)};
  if (qk_scale != 1.0f) t.context += ", Q and K in [-" + std::to_string(int(qk_scale)) + ", " +
                                     std::to_string(int(qk_scale)) + ") (scores past 100)";
  return t;
}

// ---- diagnosis ----
// Does query row i of `got` match `want` within the row's bound (scaled by `slack`)?
bool row_matches(const std::vector<float>& got, int i, int d, const std::vector<double>& want, double bound) {
  for (int c = 0; c < d; ++c)
    if (!(std::fabs(double(got[std::size_t(i) * d + c]) - want[c]) <= bound)) return false;
  return true;
}

// The softmax taken down each column of the scores (over queries) instead of along each row.
std::vector<double> column_softmax_row(const Case& t, int i) {
  const double scale = 1.0 / std::sqrt(double(t.d));
  auto score = [&](int a, int j) {
    double dot = 0;
    for (int c = 0; c < t.d; ++c) dot += double(t.Q[std::size_t(a) * t.d + c]) * t.K[std::size_t(j) * t.d + c];
    return dot * scale;
  };
  std::vector<double> out(t.d, 0.0);
  for (int j = 0; j < t.n; ++j) {
    double m = -INFINITY, sum = 0;
    for (int a = 0; a < t.n; ++a) m = std::max(m, score(a, j));
    for (int a = 0; a < t.n; ++a) sum += std::exp(score(a, j) - m);
    const double w = std::exp(score(i, j) - m) / sum;
    for (int c = 0; c < t.d; ++c) out[c] += w * t.V[std::size_t(j) * t.d + c];
  }
  return out;
}

wb::Comparison judge(const Case& t, const Reference& ref, const wb::DeviceBuffer<float>& out) {
  wb::Comparison c = wb::guarded_comparison("O", std::int64_t(t.n) * t.d, t.context, out, [&](std::int64_t at) {
    return "O[" + std::to_string(at) + "] was written, outside O (n x d = " +
           std::to_string(std::int64_t(t.n) * t.d) + " floats): a query past the last one (i >= n) was written";
  });
  if (!c.ok()) return c;
  const std::vector<float> got = out.download();
  int first_row = -1, first_unwritten_row = -1, unwritten_rows = 0, bad_rows = 0;
  bool nonfinite = false;
  for (int i = 0; i < t.n; ++i) {
    bool row_unwritten = true, row_ok = true;
    for (int col = 0; col < t.d; ++col) {
      const std::size_t k = std::size_t(i) * t.d + col;
      const bool miss = wb::never_written(got[k]);
      row_unwritten = row_unwritten && miss;
      if (!miss && std::fabs(double(got[k]) - ref.O[k]) <= ref.bound[i]) continue;
      row_ok = false;
      nonfinite = nonfinite || (!miss && !std::isfinite(got[k]));
      if (!c.wrong++) c.first_wrong = std::int64_t(k);
      c.unwritten += miss;
      if (c.listed.size() < 4) c.listed.push_back({std::int64_t(k), ref.O[k], double(got[k]), miss});
    }
    if (row_ok) continue;
    ++bad_rows;
    if (row_unwritten && !unwritten_rows++) first_unwritten_row = i;
    if (!row_unwritten && first_row < 0) first_row = i;
  }
  if (c.wrong == 0) return c;
  c.pattern = wb::Pattern::chapter_specific;
  if (c.unwritten == c.n) {
    c.pattern = wb::Pattern::nothing_written;
    c.diagnosis = "no element of O was written: the kernel did not run or wrote nothing";
    return c;
  }
  if (first_row < 0) {  // only whole rows unwritten
    c.diagnosis = std::to_string(unwritten_rows) + " queries' rows of O were never written, first query " +
                  std::to_string(first_unwritten_row) +
                  (unwritten_rows == t.n - first_unwritten_row
                       ? " and every one after it: the grid covers only the first " +
                             std::to_string(first_unwritten_row) + " queries (round the block count up)"
                       : "");
    return c;
  }
  const std::string row = "O[" + std::to_string(first_row) + "]";
  if (t.n > 1) {  // O[i][c] stored at c * n + i?
    bool transposed = true;
    for (int i = 0; i < t.n && transposed; ++i)
      for (int col = 0; col < t.d && transposed; ++col)
        transposed = std::fabs(double(got[std::size_t(col) * t.n + i]) - ref.O[std::size_t(i) * t.d + col]) <=
                     ref.bound[i];
    if (transposed) {
      c.diagnosis = "O is stored transposed: O[i][c] (query i, dimension c) was written at c * n + i; O is n x d, "
                    "row-major: query i's output row starts at i * d";
      return c;
    }
  }
  if (nonfinite) {
    // Queries whose largest score is at least 88 above every earlier one (key > 0): a maximum that
    // missed that key overflows exp(). Are those the only NaN rows, and is a row whose largest
    // score comes first right?
    auto score = [&](int i, int j) {
      double dot = 0;
      for (int col = 0; col < t.d; ++col) dot += double(t.Q[std::size_t(i) * t.d + col]) * t.K[std::size_t(j) * t.d + col];
      return dot / std::sqrt(double(t.d));
    };
    struct Peak {
      int key = 0;
      double top = -INFINITY, before = -INFINITY;  // the largest score, and the largest at an earlier key
    };
    auto peak = [&](int i) {
      Peak p;
      for (int j = 0; j < t.n; ++j) {
        const double sc = score(i, j);
        if (sc > p.top) {
          p.before = std::max(p.before, p.top);
          p.top = sc;
          p.key = j;
        } else {
          p.before = std::max(p.before, sc);  // (only its value before the peak matters: see below)
        }
      }
      return p;
    };
    bool all_late = t.n <= 512;  // (n^2 d scores: the diagnosis is for the small cases)
    int right_first = -1, bad = -1;
    Peak bad_peak;
    for (int i = 0; i < t.n && all_late; ++i) {
      bool row_nonfinite = false, right = true;
      for (int col = 0; col < t.d; ++col) {
        const std::size_t k = std::size_t(i) * t.d + col;
        row_nonfinite = row_nonfinite || (!wb::never_written(got[k]) && !std::isfinite(got[k]));
        right = right && std::fabs(double(got[k]) - ref.O[k]) <= ref.bound[i];
      }
      if (!row_nonfinite && !right) continue;
      Peak p = peak(i);
      double earlier = -INFINITY;  // the largest score at a key before the peak
      for (int j = 0; j < p.key; ++j) earlier = std::max(earlier, score(i, j));
      if (row_nonfinite) {
        all_late = p.key > 0 && p.top - earlier >= 88;
        if (bad < 0) {
          bad = i;
          bad_peak = p;
          bad_peak.before = earlier;
        }
      } else if (p.key == 0 && p.top - p.before >= 88 && right_first < 0) {
        right_first = i;
      }
    }
    if (all_late && bad >= 0 && right_first >= 0) {
      c.diagnosis = "O holds NaN or infinity (first in row " + std::to_string(bad) + "): query " +
                    std::to_string(bad) + "'s largest score, " + wb::format_value(bad_peak.top, 4) + " at key " +
                    std::to_string(bad_peak.key) + ", is " + wb::format_value(bad_peak.top - bad_peak.before, 3) +
                    " above every earlier key's, while query " + std::to_string(right_first) +
                    ", whose largest score is at key 0, is right: the maximum subtracted missed that key, and exp() "
                    "of more than 88.7 overflows. Every key's score must go into the running maximum (is it taken "
                    "over the first tile, or the first 32 keys, only?)";
      return c;
    }
    c.diagnosis = "O holds NaN or infinity (first in row " + std::to_string(first_row) + ")" +
                  (ref.max_score > 80 ? ": exp() of a large score overflowed float32 (exp(89) already does); subtract "
                                        "each row's maximum score before exp(), which changes no weight (the factor "
                                        "exp(-max) cancels in the division)"
                                      : ": no score here is large enough to overflow exp(), so a sum of weights was 0 "
                                        "(no key reached it? a tile of keys skipped?) or memory nothing wrote was read");
    return c;
  }
  const double b = ref.bound[first_row];
  const double sqrt_d = std::sqrt(double(t.d));
  const struct {
    Variant v;
    const char* what;
  } mistakes[] = {
      {{1.0, t.n}, "the scores were not scaled by 1/sqrt(d): s = Q[i] . K[j] / sqrt(d)"},
      {{1.0 / t.d, t.n}, "the scores were scaled by 1/d, not by 1/sqrt(d)"},
      {{1.0 / sqrt_d, t.n, false}, "the weights exp(s - max) were not divided by their sum"},
      {{1.0 / sqrt_d, t.n, true, true}, "every key got the same weight: the scores never reached the softmax"},
      {{1.0 / sqrt_d, t.n, true, false, true}, "K's rows are summed, not V's"},
  };
  for (const auto& m : mistakes) {
    if (row_matches(got, first_row, t.d, row_output(t, first_row, m.v), 100 * b)) {
      c.diagnosis = row + " is what you get when " + std::string(m.what);
      return c;
    }
  }
  for (int keys = t.n - 1; keys >= 1; --keys) {  // only the first `keys` keys used?
    if (keys % 16 != 0 && keys != t.n - 1) continue;
    if (row_matches(got, first_row, t.d, row_output(t, first_row, {1.0 / sqrt_d, keys}), b)) {
      c.diagnosis = row + " uses only the first " + std::to_string(keys) + " of the " + std::to_string(t.n) +
                    " keys: keys from " + std::to_string(keys) + " on never reached the softmax or the sum (a last, "
                    "partial tile of keys skipped, or a loop bound of n - 1?)";
      return c;
    }
  }
  {  // keys past n (a partial last tile) scored 0, not -infinity, with values 0: O shrunk by S / (S + p)
    const std::vector<double> want(ref.O.begin() + std::size_t(first_row) * t.d,
                                   ref.O.begin() + std::size_t(first_row + 1) * t.d);
    double S = 0;  // sum_j exp(s_j), the exact weights' total
    for (int j = 0; j < t.n; ++j) {
      double dot = 0;
      for (int col = 0; col < t.d; ++col)
        dot += double(t.Q[std::size_t(first_row) * t.d + col]) * t.K[std::size_t(j) * t.d + col];
      S += std::exp(dot / sqrt_d);
    }
    for (int pad = 1; pad <= 256 && std::isfinite(S); ++pad) {
      std::vector<double> shrunk = want;
      for (auto& x : shrunk) x *= S / (S + pad);
      if (row_matches(got, first_row, t.d, shrunk, b)) {
        c.diagnosis = row + " is as if " + std::to_string(pad) + " more key" + (pad > 1 ? "s" : "") +
                      " of score 0 and value 0 were in its softmax: the keys past n in the last, partial tile "
                      "(loaded as zeros) were scored 0, so each weighs as much as a real key of score 0; give them the "
                      "score -INFINITY (weight 0)";
        return c;
      }
    }
  }
  if (t.n <= 512 && t.n > 1 && row_matches(got, first_row, t.d, column_softmax_row(t, first_row), 100 * b)) {
    c.diagnosis = row + " is what a softmax down each column of the scores gives: the softmax runs along each row, "
                        "over the keys j of query i";
    return c;
  }
  const std::int64_t f = c.first_wrong;
  c.diagnosis = "wrong values in " + std::to_string(bad_rows) + " of " + std::to_string(t.n) + " queries, first " +
                exercise::cell("O", f / t.d, f % t.d) + ": expected " + wb::format_value(ref.O[f]) + ", got " +
                wb::format_value(got[f]) + " (the float32 bound there is " + wb::format_value(ref.bound[f / t.d]) + ")";
  return c;
}

wb::Comparison run_case(const Case& t) {
  wb::DeviceBuffer<float> dq(t.Q), dk(t.K), dv(t.V), dout(t.Q.size());
  dout.poison();
  const Reference ref = reference(t);
  wb::run_launch("attention (" + t.context + ")",
                 [&] { student::attention(dq.data(), dk.data(), dv.data(), dout.data(), t.n, t.d); });
  return wb::inputs_then_output(wb::inputs_unchanged<float>({{"Q", t.Q, dq}, {"K", t.K, dk}, {"V", t.V, dv}}, "O"),
                                [&] { return judge(t, ref, dout); }, t.context);
}

}  // namespace

TEST_CASE("attention for every head dimension and awkward sequence lengths", "[x11][correctness]") {
  WB_REQUIRE_DEVICE();
  const auto [n, d] = GENERATE(table<int, int>({{1, 32},  {2, 64},   {3, 128},  {31, 32}, {32, 64},  {33, 128},
                                                {63, 32}, {65, 64},  {100, 32}, {127, 128}, {129, 64}, {200, 32}}));
  CAPTURE(n, d);
  WB_REQUIRE_MATCH(run_case(random_case(n, d)));
}

TEST_CASE("large scores: exp() overflows unless each row's maximum is subtracted", "[x11][correctness]") {
  WB_REQUIRE_DEVICE();
  const int d = GENERATE(32, 128);
  CAPTURE(d);
  const Case t = random_case(97, d, 10.0f);
  REQUIRE(reference(t).max_score > 89);  // exp(89) overflows float32: the case tests what it says
  WB_REQUIRE_MATCH(run_case(t));
}

TEST_CASE("the largest score late in the row and 100 above the others", "[x11][correctness]") {
  WB_REQUIRE_DEVICE();
  // Even queries lie near (1, 1, ..., 1) and odd ones near -(1, 1, ..., 1); key 0 is
  // (b, b, ..., b) and key `late` is -(b, b, ..., b), b = 100 / sqrt(d) (scores about +-100 at
  // those keys, within +-1 elsewhere): an even query's largest score comes first, an odd one's
  // at key `late` (past the first 32 keys, in the last tile, the last key). exp(100) overflows
  // float32: a maximum taken over the first keys only shows as infinity or NaN.
  const auto [n, d, late] = GENERATE(table<int, int, int>({{40, 32, 32}, {97, 64, 96}, {129, 128, 100}}));
  CAPTURE(n, d, late);
  Case t = random_case(n, d);
  const float b = 100.0f / std::sqrt(float(d));
  for (int i = 0; i < n; ++i)
    for (int col = 0; col < d; ++col) {
      float& q = t.Q[std::size_t(i) * d + col];
      q = (i % 2 ? -1.0f : 1.0f) + 0.05f * q;
      t.K[std::size_t(col)] = b;
      t.K[std::size_t(late) * d + col] = -b;
    }
  t.context += ", scores about 100 at key 0 (even queries) and at key " + std::to_string(late) + " (odd queries)";
  WB_REQUIRE_MATCH(run_case(t));
}

TEST_CASE("a longer sequence", "[x11][correctness]") {
  WB_REQUIRE_DEVICE();
  WB_REQUIRE_MATCH(run_case(random_case(wb::cpu_backend() ? 300 : 2049, 64)));
}

TEST_CASE("speed against the solution and PyTorch's scaled_dot_product_attention", "[x11][timing]") {
  WB_REQUIRE_GPU("timings of the CPU backend say nothing about a GPU");
  WB_REQUIRE_CORRECT_SO_FAR();
  const int n = 8192, d = 64;
  const Case t = random_case(n, d);
  wb::DeviceBuffer<float> dq(t.Q), dk(t.K), dv(t.V), dout(t.Q.size()), tout(t.Q.size());
  const double bytes = 4.0 * sizeof(float) * n * d;  // Q, K, V read and O written, once each at best
  const double flops = 4.0 * double(n) * n * d;      // Q K^T and P V: 2 n^2 d each
  auto yours = [&] { student::attention(dq.data(), dk.data(), dv.data(), dout.data(), n, d); };
  wb::grade_speed(
      wb::SpeedCase("attention forward, one head, " + t.context + " (float32)", wb::fp32_bound(flops, bytes))
          .yours("your attention", yours)
          .solution("solution (fused, online softmax)",
                    [&] { solution::attention(dq.data(), dk.data(), dv.data(), dout.data(), n, d); })
          .anchor(wb::anchors::torch_anchor("PyTorch scaled_dot_product_attention", [&] {
            wb::anchors::torch_attention(dq.data(), dk.data(), dv.data(), tout.data(), n, d);
          }))
          .bar(t.context, "O")
          .table_row("x11-attention", "n = 8192, d = 64"),
      [&] {  // on every 127th query (the whole reference is n^2 d = 4 G products)
        dout.poison();
        wb::run_launch("attention (after timing, " + t.context + ")", yours);
        const std::vector<float> got = dout.download();
        wb::Comparison c;
        c.array = "O";
        c.context = t.context + ", every 127th query";
        for (int i = 0; i < n; i += 127) {
          const std::vector<double> want = row_output(t, i, {1.0 / std::sqrt(double(d)), n});
          for (int col = 0; col < d; ++col) {
            const std::size_t k = std::size_t(i) * d + col;
            ++c.n;
            if (std::fabs(double(got[k]) - want[col]) <= 1e-3) continue;  // well above the bound for these inputs
            if (!c.wrong++) c.first_wrong = std::int64_t(k);
            if (c.listed.size() < 4)
              c.listed.push_back({std::int64_t(k), want[col], double(got[k]), wb::never_written(got[k])});
          }
        }
        if (c.wrong) {
          c.pattern = wb::Pattern::chapter_specific;
          c.diagnosis = "O is wrong after the timing runs (first " +
                        exercise::cell("O", c.first_wrong / d, c.first_wrong % d) +
                        "), though it was right before: does a call depend on what an earlier call left in scratch "
                        "memory?";
        }
        return c;
      });
}

// The small case compute-sanitizer runs on a GPU (memcheck, racecheck, synccheck: wb/sanitizer.hpp): a few blocks of queries and tiles of keys, the last ones partial.
WB_SANITIZER_CASE("[x11]", "attention for n = 65, d = 64 and n = 33, d = 128") {
  const auto [n, d] = GENERATE(table<int, int>({{65, 64}, {33, 128}}));
  CAPTURE(n, d);
  WB_REQUIRE_MATCH(run_case(random_case(n, d)));
}
