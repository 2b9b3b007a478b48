// Exercise 16's grader: student::quantize_rows and student::int8_gemv against host references.
//
// quantize_rows: rows of awkward lengths (1 to 4099 columns, around multiples of 4 and 16, for
// vector loads), rows of zeros, rows with one huge outlier (1e4 among values below 1), with and
// without a clip, values at exactly halfway between two steps (x / scale = k + 0.5, with a scale
// that is a power of 2, so every way of computing x / scale gives the tie exactly), negative
// values beyond the clip (where -128 must not appear), each pointer off an alignment boundary
// alone and all together, no rows, more rows than a grid of resident warps.
//   scale[r] must be within 4 u of m / 127 (u = 2^-24; exactly 0 for m = 0). q[r][c] must be the
//   rounded, clamped x / scale; where x / scale lies within 8 u |t| of a halfway point without
//   being one exactly (the kernel's x / scale and the exact one may sit on either side), either
//   neighbour is accepted; an exact tie must go to the even integer.
//   q holds -128 before the call, and, when -128 is found after it, the call runs again over
//   q = 127: an element that then holds 127 was never written; one that holds -128 was written so.
//
// int8_gemv: the same shapes, weights from -127 to 127, x small integers (so the unscaled row
// sums are exact in float32 in any order), scales k 2^-12 for odd k (distinct, so a wrong row's
// scale shows) and rows of scale 0, pointers off a 16-byte boundary, no rows, more rows than
// warps. y holds 2^20 before every call. Bound: |got - exact| <= gamma(d) scale sum |W x| +
// 2 u |exact|, gamma(d) = d u / (1 - d u), d = cols / 8 + 16.
//
// Then, on a GPU, the GEMV's speed against the solution and cuBLAS's float32 sgemv of the
// dequantized matrix (4x the bytes), and the quantization's against the solution (shown, not
// graded).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "../common/inputs.hpp"
#include "int8_quant.cuh"
#include "wb/alignment.hpp"
#include "wb/grader.hpp"
#include "wb/library_anchors.hpp"

namespace {

constexpr double kU = 1.0 / 16777216.0;      // 2^-24
constexpr float kSentinel = 1048576.0f;      // y holds 2^20 before every GEMV call
constexpr std::int8_t kFirstFill = -128;     // q before the first quantize call
constexpr std::int8_t kSecondFill = 127;     // q before the second, when -128 was found

std::string bytes_word(int n) { return std::to_string(n) + (n == 1 ? " byte" : " bytes"); }

// Misalignment cases for an int8 array: `name` alone, `bytes` past a boundary of `boundary`.
wb::Misalignment byte_misalignment(const std::string& name, int bytes, int boundary) {
  wb::Misalignment m{{name}, {bytes}, 1, name + " starts " + bytes_word(bytes) + " past a " +
                                             std::to_string(boundary) + "-byte boundary"};
  return m;
}

// ---- quantization: inputs ----
struct QCase {
  std::vector<float> x;
  int rows, cols;
  float clip;
  std::string context;
};

std::string clip_words(float clip) {
  return std::isinf(clip) ? "no clip" : "clip " + wb::format_value(clip);
}

QCase random_qcase(int rows, int cols, float clip, const std::string& what = "x random in [-4, 4)") {
  return {wb::random_floats(std::size_t(rows) * cols, -4.0f, 4.0f, std::uint64_t(rows) * 7919 + cols), rows, cols,
          clip, exercise::shape(rows, cols) + ", " + what + ", " + clip_words(clip)};
}

// ---- quantization: reference ----
struct QRef {
  std::vector<float> m;         // per row: min(absmax, clip)
  std::vector<double> scale;    // per row: m / 127
  std::vector<double> t;        // per element: x * 127 / m (0 where m = 0)
  std::vector<int> lo, hi;      // per element: the accepted q
  std::vector<char> tie;        // per element: an exact tie (lo == hi, the even one)
};

QRef qreference(const QCase& k) {
  QRef r;
  const std::size_t n = std::size_t(k.rows) * k.cols;
  r.m.resize(k.rows);
  r.scale.resize(k.rows);
  r.t.assign(n, 0);
  r.lo.assign(n, 0);
  r.hi.assign(n, 0);
  r.tie.assign(n, 0);
  for (int row = 0; row < k.rows; ++row) {
    float a = 0;
    for (int c = 0; c < k.cols; ++c) a = std::max(a, std::fabs(k.x[std::size_t(row) * k.cols + c]));
    const float m = std::min(a, k.clip);
    r.m[row] = m;
    r.scale[row] = double(m) / 127;
    if (m == 0) continue;
    int e = 0;
    const bool exact = std::frexp(r.scale[row], &e) == 0.5 && double(float(r.scale[row])) == r.scale[row];
    for (int c = 0; c < k.cols; ++c) {
      const std::size_t i = std::size_t(row) * k.cols + c;
      const double t = double(k.x[i]) * 127 / m, f = std::floor(t);
      r.t[i] = t;
      int lo, hi;
      if (t - f == 0.5 && exact) {
        lo = hi = std::fmod(f, 2) == 0 ? int(f) : int(f) + 1;
        r.tie[i] = 1;
      } else if (std::fabs(t - f - 0.5) <= 8 * kU * std::fabs(t)) {
        lo = int(std::max(f, -1000.0));
        hi = int(std::min(f + 1, 1000.0));
      } else {
        lo = hi = int(std::max(std::min(std::nearbyint(t), 1000.0), -1000.0));
      }
      r.lo[i] = std::clamp(lo, -127, 127);
      r.hi[i] = std::clamp(hi, -127, 127);
    }
  }
  return r;
}

// ---- quantization: a run ----
struct QGot {
  std::vector<std::int8_t> q;   // after the first call
  std::vector<char> unwritten;  // per element: -128 after the first call and 127 after the second
  std::vector<float> scale;
  std::vector<wb::GuardHit> q_hits, scale_hits;
};

bool near_rel(double got, double want, double rel) { return std::fabs(got - want) <= rel * std::fabs(want); }

// True when q is `round` of x / scale, clamped, for x / scale = t or within the float error of
// the kernel's computation of it (m * (127 / m) may be 126.99999).
template <class Round>
bool rounds_to(int q, double t, Round round) {
  if (std::fabs(t) > 1000) return false;
  for (double v : {t, t * (1 - 8 * kU), t * (1 + 8 * kU)})
    if (q == int(std::clamp(round(v), -127.0, 127.0))) return true;
  return false;
}

wb::Comparison judge_q(const QCase& k, const QRef& ref, const QGot& g) {
  const std::int64_t n = std::int64_t(k.rows) * k.cols;
  wb::Comparison c;
  c.context = k.context;
  if (!g.q_hits.empty() || !g.scale_hits.empty()) {
    const bool in_q = !g.q_hits.empty();
    const std::int64_t at = in_q ? g.q_hits.front().index : g.scale_hits.front().index;
    c.array = in_q ? "q" : "scale";
    c.pattern = wb::Pattern::out_of_bounds;
    c.guard_hits = in_q ? g.q_hits : g.scale_hits;
    c.diagnosis = c.array + "[" + std::to_string(at) + "] was written, " +
                  (at < 0 ? std::string("before the start of ") + c.array + ": an index went negative"
                          : "past the end of " + c.array + " (" + std::to_string(in_q ? n : k.rows) +
                                " elements): a thread past the last row or column wrote");
    return c;
  }
  // scale first: a wrong scale makes every q of its row wrong.
  c.array = "scale";
  c.n = k.rows;
  int scale_unwritten = 0;
  for (int r = 0; r < k.rows; ++r) {
    const float s = g.scale[r];
    const bool miss = wb::never_written(s);
    const bool ok = !miss && (ref.m[r] == 0 ? s == 0.0f : near_rel(s, ref.scale[r], 4 * kU));
    if (ok) continue;
    if (!c.wrong++) c.first_wrong = r;
    if (miss) ++c.unwritten, ++scale_unwritten;
    if (c.listed.size() < 4) c.listed.push_back({r, ref.scale[r], double(s), miss});
  }
  std::int64_t q_unwritten = 0;
  for (char u : g.unwritten) q_unwritten += u;
  if (scale_unwritten == k.rows && q_unwritten == n && n > 0) {
    c.pattern = wb::Pattern::nothing_written;
    c.diagnosis = "no element of q or scale was written: the kernel did not run or wrote nothing";
    return c;
  }
  if (c.wrong > 0) {
    c.pattern = wb::Pattern::chapter_specific;
    const int r = int(c.first_wrong);
    const float s = g.scale[r];
    const std::string at = "scale[" + std::to_string(r) + "]";
    const float* row = k.x.data() + std::size_t(r) * k.cols;
    float absmax = 0, top = 0, low = 0;
    for (int col = 0; col < k.cols; ++col) {
      absmax = std::max(absmax, std::fabs(row[col]));
      top = std::max(top, row[col]);
      low = std::min(low, row[col]);
    }
    const double m = ref.m[r], tol = 4 * kU;
    if (wb::never_written(s)) {
      c.diagnosis = std::to_string(scale_unwritten) + " of " + std::to_string(k.rows) + " rows' scales were never "
                    "written, first " + at + ": lane 0 of each row's warp writes scale[row] = m / 127";
    } else if (m == 0) {
      c.diagnosis = "row " + std::to_string(r) + " is all zeros (m = 0), and " + at + " is " + wb::format_value(s) +
                    ": a row of zeros gets scale 0 and q 0 (127 / m would divide by 0)";
    } else if (s == 0.0f && top <= 0.0f) {
      c.diagnosis = at + " is 0, but row " + std::to_string(r) + " is not all zeros: all its elements are <= 0 and its "
                    "largest magnitude is " + wb::format_value(absmax, 4) +
                    ": the scale comes from the largest |x| (fabsf), not the largest x";
    } else if (top < absmax && near_rel(s, std::min(top, k.clip) / 127.0, tol)) {
      c.diagnosis = at + " is " + wb::format_value(top, 4) + " / 127, from the row's largest element; its largest "
                    "magnitude is " + wb::format_value(absmax, 4) + " (" + wb::format_value(low, 4) +
                    "): the scale comes from the largest |x| (fabsf), not the largest x";
    } else if (absmax > k.clip && near_rel(s, absmax / 127.0, tol)) {
      c.diagnosis = at + " is " + wb::format_value(absmax, 4) + " / 127, the row's absmax, but the clip is " +
                    wb::format_value(k.clip) + ": m = min(absmax, clip), and elements beyond the clip saturate at "
                    "+-127";
    } else if (near_rel(s, m / 128, tol) || near_rel(s, m / 255, tol) || near_rel(s, m / 256, tol)) {
      c.diagnosis = at + " is m / " + (near_rel(s, m / 128, tol) ? "128" : near_rel(s, m / 255, tol) ? "255" : "256") +
                    ", not m / 127 (m = " + wb::format_value(m, 4) + "): symmetric int8 uses [-127, 127], so the "
                    "largest magnitude maps to 127";
    } else if (near_rel(s, 127 / m, tol)) {
      c.diagnosis = at + " is 127 / m, the reciprocal: scale[r] = m / 127 is what dequantizes, x = q * scale";
    } else if (near_rel(s, m, tol)) {
      c.diagnosis = at + " is m = " + wb::format_value(m, 4) + ", not divided by 127: scale[r] = m / 127";
    } else {
      c.diagnosis = std::to_string(c.wrong) + " of " + std::to_string(k.rows) + " scales are wrong, first " + at +
                    " (expected " + wb::format_value(ref.scale[r]) + " = m / 127 with m = " + wb::format_value(m) +
                    ", got " + wb::format_value(s) + ")";
    }
    return c;
  }
  // q.
  c = wb::Comparison{};
  c.context = k.context;
  c.array = "q";
  c.n = n;
  enum Kind { other, minus128, truncated, floored, away, zero_row, count };
  std::int64_t kinds[count] = {};
  std::int64_t first_of[count];
  std::fill(first_of, first_of + count, -1);
  std::int64_t first_unwritten = -1, last_written = -1;
  int min_col_unwritten = k.cols, min_row_unwritten = k.rows;
  bool suffix = true;
  for (int r = 0; r < k.rows; ++r) {
    bool seen = false;
    for (int col = 0; col < k.cols; ++col) {
      const std::int64_t i = std::int64_t(r) * k.cols + col;
      const int q = g.q[i];
      const bool miss = g.unwritten[i];
      if (!miss) last_written = i;
      if (!miss && q >= ref.lo[i] && q <= ref.hi[i]) {
        if (seen) suffix = false;
        continue;
      }
      if (!c.wrong++) c.first_wrong = i;
      if (c.listed.size() < 4) c.listed.push_back({i, double(ref.lo[i]), double(q), miss});
      if (miss) {
        if (!c.unwritten++) first_unwritten = i;
        min_row_unwritten = std::min(min_row_unwritten, r);
        if (!seen) min_col_unwritten = std::min(min_col_unwritten, col);
        seen = true;
        continue;
      }
      if (seen) suffix = false;
      const double t = ref.t[i];
      Kind kind = other;
      if (q == -128) kind = minus128;
      else if (ref.m[r] == 0) kind = zero_row;
      else if (ref.tie[i] && q == int(std::clamp(std::round(t), -127.0, 127.0))) kind = away;
      else if (rounds_to(q, t, [](double v) { return std::trunc(v); })) kind = truncated;
      else if (rounds_to(q, t, [](double v) { return std::floor(v); })) kind = floored;
      if (!kinds[kind]++) first_of[kind] = i;
    }
  }
  if (c.wrong == 0) return c;
  c.pattern = wb::Pattern::chapter_specific;
  auto cell = [&](std::int64_t i) { return exercise::cell("q", i / k.cols, i % k.cols); };
  auto t_of = [&](std::int64_t i) { return wb::format_value(ref.t[i], 6); };
  const std::int64_t written_wrong = c.wrong - c.unwritten;
  if (c.unwritten == c.wrong) {
    if (c.unwritten == std::int64_t(k.rows - min_row_unwritten) * k.cols && min_row_unwritten > 0)
      c.diagnosis = "q is never written from row " + std::to_string(min_row_unwritten) + " on (of " +
                    std::to_string(k.rows) + " rows): the grid reached only the first " +
                    std::to_string(min_row_unwritten) + " rows; give every row a warp, or let each warp take rows r, "
                    "r + (warps in the grid), ...";
    else if (suffix && min_col_unwritten > 0)
      c.diagnosis = "q is never written from column " + std::to_string(min_col_unwritten) + " on (cols = " +
                    std::to_string(k.cols) + "): each lane writes all its columns up to cols (is the last, partial "
                    "step, or the tail after the vector loads, skipped?)";
    else
      c.diagnosis = std::to_string(c.unwritten) + " elements of q were never written, first " + cell(first_unwritten) +
                    ": every element of every row is written, 0 in a row of zeros";
    return c;
  }
  if (kinds[minus128] > 0) {
    const std::int64_t i = first_of[minus128];
    c.diagnosis = cell(i) + " is -128 (x / scale = " + t_of(i) + "): clamp to [-127, 127], not [-128, 127]: "
                  "symmetric int8 has no +128 to mirror -128, and q * scale would go past -m";
  } else if (kinds[zero_row] == written_wrong) {
    const std::int64_t i = first_of[zero_row];
    c.diagnosis = cell(i) + " is " + std::to_string(int(g.q[i])) + " in row " + std::to_string(i / k.cols) +
                  ", which is all zeros: its q must be 0 (m = 0: x * 127 / m is 0 / 0 = NaN, so the row needs its own "
                  "case)";
  } else if (kinds[truncated] == written_wrong) {
    const std::int64_t i = first_of[truncated];
    c.diagnosis = cell(i) + " is " + std::to_string(int(g.q[i])) + ", x / scale = " + t_of(i) +
                  " truncated toward 0: round to the nearest integer (rintf or __float2int_rn), not a cast to int";
  } else if (kinds[floored] == written_wrong) {
    const std::int64_t i = first_of[floored];
    c.diagnosis = cell(i) + " is " + std::to_string(int(g.q[i])) + ", x / scale = " + t_of(i) +
                  " rounded down (floorf): round to the nearest integer (rintf or __float2int_rn)";
  } else if (kinds[away] == written_wrong) {
    const std::int64_t i = first_of[away];
    c.diagnosis = cell(i) + " is " + std::to_string(int(g.q[i])) + ": x / scale is exactly " + t_of(i) +
                  ", halfway, and ties go to the even integer, " + std::to_string(ref.lo[i]) +
                  " (rintf, __float2int_rn, torch.round); roundf rounds them away from zero";
  } else {
    const std::int64_t i = c.first_wrong;
    c.diagnosis = "wrong values in " + std::to_string(written_wrong) + " elements of q, first " + cell(i) +
                  " (x / scale = " + t_of(i) + ", expected " + std::to_string(ref.lo[i]) +
                  (ref.hi[i] != ref.lo[i] ? " or " + std::to_string(ref.hi[i]) : std::string()) + ", got " +
                  std::to_string(int(g.q[i])) + ")" +
                  (c.unwritten ? "; " + std::to_string(c.unwritten) + " more never written" : std::string());
  }
  return c;
}

// Runs student::quantize_rows on the case (twice when -128 is found, to tell it from unwritten).
wb::Comparison run_qcase(const QCase& k, const std::vector<wb::Misalignment>& ms = {}) {
  auto guard = [&](const std::string& name) {
    std::size_t g = wb::DeviceBuffer<unsigned char>::default_guard;
    for (const auto& m : ms) g = std::max(g, m.guard(name));
    return g;
  };
  const std::size_t n = std::size_t(k.rows) * k.cols;
  wb::DeviceBuffer<float> dx(k.x, guard("x")), dscale(std::size_t(k.rows), guard("scale"));
  wb::DeviceBuffer<std::int8_t> dq(std::vector<std::int8_t>(n, kFirstFill), guard("q"));
  dscale.poison();
  const QRef ref = qreference(k);
  auto call = [&] {
    wb::run_launch("quantize_rows (" + k.context + ")", [&] {
      student::quantize_rows(dx.data(), dq.data(), dscale.data(), k.rows, k.cols, k.clip);
    });
  };
  call();
  return wb::inputs_then_output(wb::inputs_unchanged<float>({{"x", k.x, dx}}, "q and scale"), [&] {
    QGot g{dq.download(), std::vector<char>(n, 0), dscale.download(), dq.guard_hits(), dscale.guard_hits()};
    if (std::find(g.q.begin(), g.q.end(), kFirstFill) != g.q.end()) {
      dq.upload(std::vector<std::int8_t>(n, kSecondFill));
      call();
      const std::vector<std::int8_t> again = dq.download();
      for (std::size_t i = 0; i < n; ++i) g.unwritten[i] = g.q[i] == kFirstFill && again[i] == kSecondFill;
    }
    return judge_q(k, ref, g);
  }, k.context);
}

// ---- GEMV: inputs and reference ----
struct GCase {
  std::vector<std::int8_t> W;
  std::vector<float> scale, x;
  int rows, cols;
  std::string context;
};

std::vector<std::int8_t> random_weights(std::size_t n, std::uint64_t stream) {
  auto rng = wb::rng_for(stream);
  std::uniform_int_distribution<int> d(-127, 127);
  std::vector<std::int8_t> w(n);
  for (auto& v : w) v = std::int8_t(d(rng));
  return w;
}

// Weights from -127 to 127, x integers from -2 to 4 (never 0), scales k 2^-12 for odd k from 1
// to 255; every seventh row's scale 0 (a row of zeros, quantized).
GCase int_gcase(int rows, int cols) {
  const std::uint64_t s = std::uint64_t(rows) * 7919 + cols + 5;
  GCase k{random_weights(std::size_t(rows) * cols, s), std::vector<float>(rows),
          exercise::random_ints(cols, -2, 4, s + 1), rows, cols,
          exercise::shape(rows, cols) + ", integer weights and x"};
  auto rng = wb::rng_for(s + 2);
  std::uniform_int_distribution<int> d(0, 127);
  for (int r = 0; r < rows; ++r) k.scale[r] = r % 7 == 6 ? 0.0f : std::ldexp(float(2 * d(rng) + 1), -12);
  return k;
}

struct GRef {
  std::vector<double> y, bound, dot;  // dot: the unscaled row sum
};

GRef greference(const GCase& k) {
  GRef r;
  r.y.assign(k.rows, 0);
  r.bound.assign(k.rows, 0);
  r.dot.assign(k.rows, 0);
  const double d = k.cols / 8.0 + 16, gamma = d * kU / (1 - d * kU);
  wb::parallel_ranges(std::size_t(k.rows), [&](std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last; ++i) {
      double s = 0, a = 0;
      for (int c = 0; c < k.cols; ++c) {
        const double p = double(k.W[i * k.cols + c]) * k.x[c];
        s += p;
        a += std::fabs(p);
      }
      r.dot[i] = s;
      r.y[i] = k.scale[i] * s;
      r.bound[i] = gamma * std::fabs(k.scale[i]) * a + 2 * kU * std::fabs(r.y[i]);
    }
  }, 256);
  return r;
}

enum class GKind {
  other, unwritten, nan, added_to, no_scale, scale_twice, divided, other_row, unsigned_w, prefix, lane0
};

GKind gclassify(const GCase& k, const GRef& ref, int r, float got, int* detail) {
  if (got == kSentinel) return GKind::unwritten;
  if (std::isnan(got)) return GKind::nan;
  const double s = k.scale[r], dot = ref.dot[r];
  const double slack = ref.bound[r] + std::ldexp(std::fabs(double(got)), -20) + 1e-30;
  auto near = [&](double v) { return std::fabs(double(got) - v) <= slack + std::ldexp(std::fabs(v), -20); };
  if (near(ref.y[r] + kSentinel)) return GKind::added_to;
  if (s != 0 && s != 1 && near(dot)) return GKind::no_scale;
  if (s != 0 && std::fabs(s) != 1 && near(s * s * dot)) return GKind::scale_twice;
  if (s != 0 && std::fabs(s) != 1 && near(dot / s)) return GKind::divided;
  double unsigned_dot = 0;
  bool any_negative = false;
  for (int c = 0; c < k.cols; ++c) {
    const int w = k.W[std::size_t(r) * k.cols + c];
    any_negative = any_negative || w < 0;
    unsigned_dot += double(w < 0 ? w + 256 : w) * k.x[c];
  }
  if (any_negative && near(s * unsigned_dot)) return GKind::unsigned_w;
  if (dot != 0)
    for (int j = 0; j < k.rows; ++j)
      if (k.scale[j] != 0 && k.scale[j] != k.scale[r] && near(double(k.scale[j]) * dot)) {
        *detail = j;
        return GKind::other_row;
      }
  if (k.cols > 1) {
    double lane0 = 0;
    for (int c = 0; c < k.cols; c += 32) lane0 += double(k.W[std::size_t(r) * k.cols + c]) * k.x[c];
    if (near(s * lane0) && !near(ref.y[r])) return GKind::lane0;
  }
  {
    double p = 0;
    for (int c = 0; c < k.cols; ++c) {
      if (near(s * p)) {
        *detail = c;
        return GKind::prefix;
      }
      p += double(k.W[std::size_t(r) * k.cols + c]) * k.x[c];
    }
  }
  return GKind::other;
}

wb::Comparison judge_g(const GCase& k, const GRef& ref, const wb::DeviceBuffer<float>& y) {
  wb::Comparison c = wb::guarded_comparison("y", k.rows, k.context, y, [&](std::int64_t at) {
    return "y[" + std::to_string(at) + "] was written, outside y (" + std::to_string(k.rows) +
           " elements): a warp or thread past the last row wrote";
  });
  if (!c.ok()) return c;
  const std::vector<float> got = y.download();
  GKind kind = GKind::other;
  bool same = true;
  int detail = 0, first_unwritten = -1;
  for (int r = 0; r < k.rows; ++r) {
    const bool miss = got[r] == kSentinel;
    if (!miss && std::fabs(double(got[r]) - ref.y[r]) <= ref.bound[r]) continue;
    if (!c.wrong++) c.first_wrong = r;
    if (miss && !c.unwritten++) first_unwritten = r;
    if (c.listed.size() < 5) c.listed.push_back({r, ref.y[r], double(got[r]), miss});
    if (c.wrong > 64) continue;  // the kind is judged on the first rows
    int here_detail = 0;
    const GKind here = gclassify(k, ref, r, got[r], &here_detail);
    if (c.wrong == 1) {
      kind = here;
      detail = here_detail;
    } else if (here != kind || (here == GKind::prefix && here_detail != detail)) {
      same = false;
    }
  }
  if (c.wrong == 0) return c;
  c.pattern = wb::Pattern::chapter_specific;
  const int r = int(c.first_wrong);
  const std::string at = "y[" + std::to_string(r) + "]";
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
  } else if (!same || kind == GKind::other || kind == GKind::unwritten) {
    c.diagnosis = "wrong values in " + std::to_string(c.wrong) + " rows of y, first " + at + " (expected " +
                  wb::format_value(ref.y[r]) + ", got " + wb::format_value(got[r]) + ")";
  } else if (kind == GKind::nan) {
    c.diagnosis = at + " is NaN: memory nothing wrote was read (past the end of W, x or scale?)";
  } else if (kind == GKind::added_to) {
    c.diagnosis = at + " is 2^20 too large, exactly what y held before the call: y was added to rather than set";
  } else if (kind == GKind::no_scale) {
    c.diagnosis = at + " is the row's sum of W[r][c] x[c] without its scale (" + wb::format_value(k.scale[r]) +
                  "): the int8 weights stand for W[r][c] * scale[r]; multiply the row's sum by scale[r]";
  } else if (kind == GKind::scale_twice) {
    c.diagnosis = at + " is scale[r]^2 times the row's sum: the scale is applied twice (once per weight and once "
                  "to the sum?): dequantize once";
  } else if (kind == GKind::divided) {
    c.diagnosis = at + " is the row's sum divided by scale[r]: dequantization multiplies, W[r][c] * scale[r] "
                  "(scale = m / 127; dividing by it is what quantizing does)";
  } else if (kind == GKind::unsigned_w) {
    c.diagnosis = at + " is what the row gives with its negative weights read as w + 256: the weights are signed "
                  "int8 (-127 to 127); read them as signed char / int8_t, not unsigned char";
  } else if (kind == GKind::other_row) {
    c.diagnosis = at + " is row " + std::to_string(r) + "'s sum times scale[" + std::to_string(detail) +
                  "], another row's scale: each row is dequantized with its own scale[r] (is the index the warp's "
                  "place in the block, or the lane, instead of the row?)";
  } else if (kind == GKind::lane0) {
    c.diagnosis = at + " holds only lane 0's share of the row: the 32 lanes' sums were never combined (shuffles) "
                  "before lane 0 wrote y[row]";
  } else {
    const std::string all_cols = k.cols == 1 ? std::string("1 column") : std::to_string(k.cols) + " columns";
    c.diagnosis = (detail == 0 ? at + " is 0: none of the row's " + all_cols + " was added"
                               : at + " is the scaled sum over only the first " + std::to_string(detail) +
                                     " of the row's " + std::to_string(k.cols) + " columns: columns from " +
                                     std::to_string(detail) + " on were never added") +
                  " (does each lane loop until its column reaches cols, and is the last, partial step done?)";
  }
  return c;
}

wb::Comparison run_gcase(const GCase& k, const std::vector<wb::Misalignment>& ms = {}) {
  auto guard = [&](const std::string& name) {
    std::size_t g = wb::DeviceBuffer<unsigned char>::default_guard;
    for (const auto& m : ms) g = std::max(g, m.guard(name));
    return g;
  };
  wb::DeviceBuffer<std::int8_t> dW(k.W, guard("W"));
  wb::DeviceBuffer<float> dscale(k.scale, guard("scale")), dx(k.x, guard("x")),
      dy(std::vector<float>(std::size_t(k.rows), kSentinel), guard("y"));
  const GRef ref = greference(k);
  wb::run_launch("int8_gemv (" + k.context + ")", [&] {
    student::int8_gemv(dW.data(), dscale.data(), dx.data(), dy.data(), k.rows, k.cols);
  });
  wb::Comparison w = wb::inputs_unchanged<std::int8_t>({{"W", k.W, dW}}, "y");
  if (!w.ok()) {
    w.context = k.context;
    return w;
  }
  return wb::inputs_then_output(wb::inputs_unchanged<float>({{"scale", k.scale, dscale}, {"x", k.x, dx}}, "y"),
                                [&] { return judge_g(k, ref, dy); }, k.context);
}

// The misalignment cases: each of `floats` 4, 8 and 12 bytes off alone, `bytes_name` (an int8
// array) each of `byte_offsets` off a `boundary`-byte boundary alone, then all together (floats
// 4 bytes off, the int8 array 1).
std::vector<std::vector<wb::Misalignment>> misalignment_sets(const std::vector<std::string>& floats,
                                                             const std::string& bytes_name, int boundary,
                                                             const std::vector<int>& byte_offsets) {
  std::vector<std::vector<wb::Misalignment>> sets;
  for (const auto& m : wb::misalignments(floats))
    if (std::count(m.offsets.begin(), m.offsets.end(), 0) == int(floats.size()) - 1) sets.push_back({m});
  for (int b : byte_offsets) sets.push_back({byte_misalignment(bytes_name, b, boundary)});
  wb::Misalignment all{floats, std::vector<int>(floats.size(), 1), 4, ""};
  sets.push_back({all, byte_misalignment(bytes_name, 1, boundary)});
  return sets;
}

std::string context_of(const std::vector<wb::Misalignment>& ms) {
  if (ms.size() == 1) return ms[0].context;
  return "every pointer off: " + ms[1].context + ", the others 4 bytes past a 16-byte boundary";
}

}  // namespace

TEST_CASE("quantize: rows of awkward lengths", "[x16][correctness][quantize]") {
  WB_REQUIRE_DEVICE();
  const auto [rows, cols] =
      GENERATE(table<int, int>({{1, 1},   {3, 3},    {2, 4},     {5, 5},     {2, 7},    {4, 15},   {3, 16},  {6, 17},
                                {2, 31},  {5, 33},   {7, 100},   {9, 128},   {3, 257},  {33, 1000}, {4, 1023},
                                {3, 1025}, {2, 4099}, {1000, 3}}));
  CAPTURE(rows, cols);
  WB_REQUIRE_MATCH(run_qcase(random_qcase(rows, cols, INFINITY)));
}

TEST_CASE("quantize: rows of zeros, one huge outlier, a clip", "[x16][correctness][quantize]") {
  WB_REQUIRE_DEVICE();
  const int cols = GENERATE(9, 64, 700);
  const float clip = GENERATE(INFINITY, 2.0f);
  CAPTURE(cols, clip);
  // Rows 0 and 3: zeros. Row 1: values below 1 and one of 1e4. Row 2: values below 1 and one of
  // -1e4. Row 4: negative values down to -4 (beyond the clip of 2). Row 5: random in [-4, 4).
  QCase k = random_qcase(6, cols, clip, "zeros, outliers, negatives");
  k.context = exercise::shape(6, cols) + ", rows of zeros, an outlier of +-1e4, negatives, " + clip_words(clip);
  for (int c = 0; c < cols; ++c) {
    float* x = k.x.data();
    x[c] = 0.0f;
    x[3 * cols + c] = 0.0f;
    x[cols + c] *= 0.25f;
    x[2 * cols + c] *= 0.25f;
    x[4 * cols + c] = -std::fabs(x[4 * cols + c]);
  }
  k.x[cols + cols / 2] = 1e4f;
  k.x[2 * cols + cols - 1] = -1e4f;
  WB_REQUIRE_MATCH(run_qcase(k));
}

TEST_CASE("quantize: values exactly halfway between two steps (ties to even)", "[x16][correctness][quantize]") {
  WB_REQUIRE_DEVICE();
  // Row 0: absmax 127 (scale 1), x = k + 0.5 for k from -8 to 7, then 127. Row 1: absmax 254
  // (scale 2), x = 2k + 1. Row 2: absmax 31.75 (scale 1/4), x = (k + 0.5) / 4. The scales are
  // powers of 2, so x / scale is exactly halfway however it is computed.
  const int cols = 17;
  QCase k{std::vector<float>(3 * cols), 3, cols, INFINITY, exercise::shape(3, cols) + ", x / scale exactly k + 0.5"};
  for (int c = 0; c < 16; ++c) {
    const float half = float(c - 8) + 0.5f;
    k.x[c] = half;
    k.x[cols + c] = 2 * half;
    k.x[2 * cols + c] = half / 4;
  }
  k.x[16] = 127.0f;
  k.x[cols + 16] = -254.0f;
  k.x[2 * cols + 16] = 31.75f;
  WB_REQUIRE_MATCH(run_qcase(k));
}

TEST_CASE("quantize: x, q and scale off an alignment boundary, each alone and all together",
          "[x16][correctness][quantize]") {
  WB_REQUIRE_DEVICE();
  const int cols = GENERATE(64, 2048);
  const auto ms = GENERATE(from_range(misalignment_sets({"x", "scale"}, "q", 4, {1, 2, 3})));
  CAPTURE(cols);
  QCase k = random_qcase(5, cols, INFINITY);
  k.context += ", " + context_of(ms);
  WB_REQUIRE_MATCH(run_qcase(k, ms));
}

TEST_CASE("quantize: no rows at all, and more rows than the grid has warps", "[x16][correctness][quantize]") {
  WB_REQUIRE_DEVICE();
  WB_REQUIRE_MATCH(run_qcase(random_qcase(0, 9, INFINITY, "nothing to do")));
  const int rows = wb::cpu_backend() ? 1999 : (1 << 20) + 3;
  WB_REQUIRE_MATCH(run_qcase(random_qcase(rows, 7, 3.0f)));
}

TEST_CASE("int8 GEMV: awkward shapes", "[x16][correctness][gemv]") {
  WB_REQUIRE_DEVICE();
  const auto [rows, cols] =
      GENERATE(table<int, int>({{1, 1},   {3, 3},    {2, 4},     {5, 15},   {4, 16},   {6, 17},    {2, 31},
                                {5, 33},  {7, 100},  {9, 128},   {3, 257},  {33, 1000}, {17, 1023}, {3, 1040},
                                {2, 4099}, {1000, 3}, {64, 512}}));
  CAPTURE(rows, cols);
  WB_REQUIRE_MATCH(run_gcase(int_gcase(rows, cols)));
}

TEST_CASE("int8 GEMV: W, scale, x and y off an alignment boundary, each alone and all together",
          "[x16][correctness][gemv]") {
  WB_REQUIRE_DEVICE();
  const auto ms = GENERATE(from_range(misalignment_sets({"scale", "x", "y"}, "W", 16, {1, 4, 8})));
  GCase k = int_gcase(40, 256);
  k.context += ", " + context_of(ms);
  WB_REQUIRE_MATCH(run_gcase(k, ms));
}

TEST_CASE("int8 GEMV: random float scales and x, within the float32 error bound", "[x16][correctness][gemv]") {
  WB_REQUIRE_DEVICE();
  const auto [rows, cols] = GENERATE(table<int, int>({{37, 3001}, {128, 2048}}));
  CAPTURE(rows, cols);
  GCase k{random_weights(std::size_t(rows) * cols, std::uint64_t(cols)),
          wb::random_floats(rows, 0.001f, 0.05f, std::uint64_t(rows)),
          wb::random_floats(cols, -1.0f, 3.0f, std::uint64_t(rows) + 1), rows, cols,
          exercise::shape(rows, cols) + ", random float scales and x"};
  WB_REQUIRE_MATCH(run_gcase(k));
}

TEST_CASE("int8 GEMV: no rows at all, and more rows than the grid has warps", "[x16][correctness][gemv]") {
  WB_REQUIRE_DEVICE();
  WB_REQUIRE_MATCH(run_gcase({{}, {}, exercise::random_ints(9, 1, 3, 1), 0, 9, "0 x 9 (nothing to do)"}));
  const int rows = wb::cpu_backend() ? 1999 : (1 << 20) + 3;
  WB_REQUIRE_MATCH(run_gcase(int_gcase(rows, 7)));
}

TEST_CASE("int8 GEMV speed against the solution and cuBLAS's float32 sgemv", "[x16][timing]") {
  WB_REQUIRE_GPU("timings of the CPU backend say nothing about a GPU");
  WB_REQUIRE_CORRECT_SO_FAR();
  const int rows = 16384, cols = 16384;
  const std::size_t n = std::size_t(rows) * cols;
  GCase k{random_weights(n, 11), wb::random_floats(rows, 0.001f, 0.05f, 12), wb::random_floats(cols, -1.0f, 3.0f, 13),
          rows, cols, exercise::shape(rows, cols) + " int8 weights"};
  std::vector<float> dequantized(n);
  wb::parallel_ranges(n, [&](std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last; ++i) dequantized[i] = float(k.W[i]) * k.scale[i / cols];
  });
  wb::DeviceBuffer<std::int8_t> dW(k.W);
  wb::DeviceBuffer<float> dscale(k.scale), dx(k.x), dy(rows), dA(dequantized), ly(rows);
  const std::string size = exercise::shape(rows, cols);
  auto yours = [&] { student::int8_gemv(dW.data(), dscale.data(), dx.data(), dy.data(), rows, cols); };
  const double int8_bytes = double(n) + sizeof(float) * (2.0 * rows + cols);  // W, scale and y, x
  wb::SpeedCase sc("y = (W * scale) x, W " + size + " int8 (read once)", wb::memory_bound(int8_bytes));
  sc.yours("your int8_gemv", yours)
      .solution("solution (warp per row, 16 weights per load)",
                [&] { solution::int8_gemv(dW.data(), dscale.data(), dx.data(), dy.data(), rows, cols); })
      .anchor({"cuBLAS sgemv (float32 W)",
               [&] { wb::anchors::cublas_sgemv(rows, cols, dA.data(), dx.data(), ly.data()); }})
      .bar(size, "y")
      .table_row("x16-int8-quant", size + " int8");
  for (auto& t : sc.contenders)  // cuBLAS moves the float32 matrix: its GB/s are of those bytes
    if (t.name == "cuBLAS sgemv (float32 W)") t.bytes = sizeof(float) * (double(n) + rows + cols);
  wb::grade_speed(sc, [&] {
    dy.upload(std::vector<float>(rows, kSentinel));
    wb::run_launch("int8_gemv (after timing, " + size + ")", yours);
    GCase after = k;
    after.context = "after timing, " + k.context;
    return judge_g(after, greference(k), dy);
  });
}

TEST_CASE("quantize speed against the solution", "[x16][timing]") {
  WB_REQUIRE_GPU("timings of the CPU backend say nothing about a GPU");
  WB_REQUIRE_CORRECT_SO_FAR();
  const int rows = 16384, cols = 16384;
  const std::size_t n = std::size_t(rows) * cols;
  const QCase k = random_qcase(rows, cols, INFINITY);
  wb::DeviceBuffer<float> dx(k.x), dscale(rows);
  wb::DeviceBuffer<std::int8_t> dq(n);
  const std::string size = exercise::shape(rows, cols) + " floats";
  auto yours = [&] { student::quantize_rows(dx.data(), dq.data(), dscale.data(), rows, cols, k.clip); };
  wb::grade_speed(
      wb::SpeedCase("quantize " + size + " to int8 (5 bytes per element)",
                    wb::memory_bound(5.0 * double(n) + sizeof(float) * rows))  // x read once, q written once
          .yours("your quantize_rows", yours)
          .solution("solution (warp per row, float4 in, char4 out)",
                    [&] { solution::quantize_rows(dx.data(), dq.data(), dscale.data(), rows, cols, k.clip); })
          .bar(size, "q and scale"),
      [&] {
        dq.upload(std::vector<std::int8_t>(n, kFirstFill));
        dscale.poison();
        wb::run_launch("quantize_rows (after timing, " + size + ")", yours);
        QGot g{dq.download(), std::vector<char>(n, 0), dscale.download(), dq.guard_hits(), dscale.guard_hits()};
        for (std::size_t i = 0; i < n; ++i) g.unwritten[i] = g.q[i] == kFirstFill;
        QCase after = k;
        after.context = "after timing, " + k.context;
        return judge_q(after, qreference(k), g);
      });
}

// The small case compute-sanitizer runs on a GPU (memcheck, racecheck, synccheck: wb/sanitizer.hpp):
// the quantization and the GEMV on a few rows of awkward length.
WB_SANITIZER_CASE("[x16]", "quantize 9 x 1027 and a GEMV of 37 x 301") {
  WB_REQUIRE_MATCH(run_qcase(random_qcase(9, 1027, INFINITY)));
  WB_REQUIRE_MATCH(run_gcase(int_gcase(37, 301)));
}
