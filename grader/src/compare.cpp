#include "wb/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace wb {

std::string format_value(double v, int digits) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*g", digits, v);
  return b;
}

namespace {

std::string elem(const std::string& array, std::int64_t i) { return array + "[" + std::to_string(i) + "]"; }

// The sentence for writes outside the array.
std::string describe_guard_hits(const std::vector<GuardHit>& hits, std::int64_t n, const std::string& a) {
  std::int64_t before = 0, after = 0, first_after = -1, first_before = 0;
  for (const auto& h : hits) {
    if (h.index < 0) {
      if (!before++) first_before = h.index;
    } else {
      if (!after++) first_after = h.index;
    }
  }
  std::ostringstream s;
  if (after) {
    if (after == 1 && first_after == n)
      s << "an element past n was written (" << elem(a, n) << "): the thread with i == n wrote; "
        << "the bounds check must be `i < n` (is it `i <= n`?)";
    else
      s << "an element past n was written (" << elem(a, first_after)
        << (after > 1 ? " and more" : "") << "): threads with i >= n must not write; "
        << "guard the write with `if (i < n)`";
  }
  if (before) {
    if (after) s << "; also, ";
    s << "an element before the start was written (" << elem(a, first_before) << "): an index went negative";
  }
  return s.str();
}

}  // namespace

Comparison compare_values(const std::vector<double>& expected, const std::vector<double>& got,
                          const std::vector<bool>& unwritten, const std::vector<GuardHit>& guard_hits,
                          const CompareOptions& o) {
  Comparison c;
  c.array = o.array;
  c.n = static_cast<std::int64_t>(expected.size());
  c.guard_hits = guard_hits;
  std::int64_t nan = 0, first_nan = -1;
  for (std::int64_t i = 0; i < c.n; ++i) {
    const double e = expected[i], g = got[i];
    const bool miss = unwritten[i];
    bool bad = miss;
    if (!bad) {
      if (std::isnan(e)) bad = !std::isnan(g);
      else if (std::isnan(g)) {
        bad = true;
        if (!nan++) first_nan = i;
      } else if (std::isinf(e)) {
        bad = g != e;  // |inf - inf| is NaN and rel_tol * inf is inf: only the same infinity is right
      } else bad = !(std::fabs(g - e) <= o.abs_tol + o.rel_tol * std::fabs(e));
    }
    if (!bad) continue;
    if (!c.wrong++) c.first_wrong = i;
    c.unwritten += miss;
    if (c.listed.size() < o.max_listed) c.listed.push_back({i, e, g, miss});
  }

  if (!guard_hits.empty()) {
    c.pattern = Pattern::out_of_bounds;
    c.diagnosis = describe_guard_hits(guard_hits, c.n, c.array);
    return c;
  }
  if (c.wrong == 0) return c;

  const std::int64_t f = c.first_wrong, B = o.block_size, n = c.n;
  const bool suffix = c.wrong == n - f;  // everything from f on is wrong
  std::ostringstream s;
  if (c.unwritten == n) {
    c.pattern = Pattern::nothing_written;
    s << "no element of " << c.array << " was written: the kernel did not run or wrote nothing";
  } else if (nan) {
    c.pattern = Pattern::nan;
    s << "NaN where a number was expected (" << elem(c.array, first_nan)
      << "): a read of memory nothing wrote, or of the wrong element?";
  } else if (suffix && B > 0 && f > 0 && f == (n / B) * B) {
    c.pattern = Pattern::last_partial_block;
    s << "the last partial block is missing: n = " << n << " is not a multiple of " << B
      << ", so the block count must round up: (n + " << B << " - 1) / " << B;
    // 2^24: the first integer a float cannot hold exactly; ceilf(n / 256.0f) rounds n down past it
    if (n > (std::int64_t(1) << 24))
      s << "; n is past 2^24, where a float no longer holds every integer: compute the block count in "
           "integers, not by rounding up a float division";
  } else if (suffix && B > 0 && f == B && n > B) {
    c.pattern = Pattern::only_one_block;
    s << "only the first " << B << " elements are right: only one block ran, or every block wrote the same "
      << B << " elements (is blockIdx.x * blockDim.x part of the index?)";
  } else if (suffix && B > 0 && f > 0 && f % B == 0) {
    c.pattern = Pattern::too_few_blocks;
    s << "only the first " << f << " elements (" << f / B << " blocks of " << B
      << ") are right: the grid has too few blocks for n = " << n;
  } else if (suffix && f > 0) {
    c.pattern = Pattern::tail_wrong;
    s << "every element from " << elem(c.array, f) << " on is wrong";
    if (c.unwritten == c.wrong) s << " (never written)";
  } else if (c.unwritten) {
    c.pattern = Pattern::some_unwritten;
    s << c.unwritten << " element" << (c.unwritten > 1 ? "s were" : " was") << " never written";
  } else {
    c.pattern = Pattern::scattered;
    s << "wrong values, first at " << elem(c.array, f);
  }
  c.diagnosis = s.str();
  return c;
}

std::string Comparison::message() const {
  std::ostringstream s;
  if (!context.empty()) s << "[" << context << "] ";
  if (pattern == Pattern::out_of_bounds) {
    s << diagnosis << ".";
    if (wrong) s << "\nAlso " << wrong << " of " << n << " elements of " << array << " are wrong.";
  } else if (n == 0 && wrong == 0) {  // no elements to count: e.g. an op that returned no tensor at all
    s << diagnosis << ".";
  } else {
    s << wrong << " of " << n << " elements of " << array << " are wrong: " << diagnosis << ".";
  }
  // When nothing was written, two examples say it all.
  const std::size_t shown = pattern == Pattern::nothing_written ? std::min<std::size_t>(2, listed.size()) : listed.size();
  for (std::size_t k = 0; k < shown; ++k) {
    const Mismatch& m = listed[k];
    s << "\n  " << array << "[" << m.index << "]: expected " << format_value(m.expected) << ", got ";
    if (m.unwritten) s << "nothing (never written)";
    else
      s << format_value(m.got);
  }
  if (wrong > static_cast<std::int64_t>(shown)) s << "\n  ... and " << wrong - static_cast<std::int64_t>(shown) << " more";
  return s.str();
}

}  // namespace wb
