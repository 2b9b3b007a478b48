/// \file
/// \brief Checks a kernel's output against a host reference and explains what is wrong in the
/// chapter's terms: how many elements, the first few, and the pattern they make.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "wb/buffer.hpp"
#include "wb/random.hpp"

namespace wb {

/// A value as messages print it: `digits` significant digits, no trailing zeros (printf's %g).
/// Nine digits tell any two floats apart; four suit figures that vary with the random inputs.
std::string format_value(double v, int digits = 9);

/// The shape a set of wrong elements makes; each has a sentence in Comparison::diagnosis.
enum class Pattern {
  ok,                    ///< every element is right
  out_of_bounds,         ///< something was written outside the array (a guard zone changed)
  nothing_written,       ///< no element was written: the exercise is not started
  nan,                   ///< NaN where a number was expected
  only_one_block,        ///< exactly the first block's elements are right
  last_partial_block,    ///< all but the last, partial block are right: block count rounded down
  too_few_blocks,        ///< a whole number of blocks is right, then nothing
  tail_wrong,            ///< everything from some index on is wrong
  some_unwritten,        ///< some elements were never written (a fallback, as scattered)
  scattered,             ///< wrong values with no simpler pattern: a fallback, which names no cause
                         ///< (the verdict prefers a failed check that names one, wb::leading_check)
  chapter_specific,      ///< a chapter's grader named the pattern itself
};

/// One wrong element.
struct Mismatch {
  std::int64_t index;  ///< the element's index in the output
  double expected;     ///< the host reference's value
  double got;          ///< the kernel's value (meaningless when `unwritten`)
  bool unwritten;  ///< still holds the poison pattern: the kernel never wrote it
};

/// How to compare and what to call things in messages.
struct CompareOptions {
  std::string array = "out";  ///< the output's name in the chapter, e.g. "c"
  double abs_tol = 0.0;       ///< |got - expected| <= abs_tol + rel_tol * |expected| passes
  double rel_tol = 0.0;       ///< see abs_tol; both 0: only the exact value passes
  int block_size = 0;         ///< threads per block of the launch, for block patterns (0: unknown)
  std::size_t max_listed = 5; ///< how many wrong elements the message lists
};

/// The verdict on one output array.
struct Comparison {
  std::int64_t n = 0;                ///< elements compared
  std::int64_t wrong = 0;            ///< elements outside the tolerance, never-written ones included
  std::int64_t unwritten = 0;        ///< wrong elements that still hold the poison pattern
  std::int64_t first_wrong = -1;     ///< index of the first wrong element (-1: none)
  std::vector<Mismatch> listed;      ///< the first few wrong elements
  std::vector<GuardHit> guard_hits;  ///< writes outside the array
  Pattern pattern = Pattern::ok;     ///< the shape the wrong elements make
  std::string diagnosis;             ///< one sentence in the chapter's terms ("" when ok)
  std::string array = "out";         ///< the output's name, from CompareOptions::array
  std::string context;               ///< the case, e.g. "n = 1000, 256 threads per block"

  /// True when every element is right and nothing was written outside the array.
  bool ok() const { return pattern == Pattern::ok; }
  /// The whole explanation: count, diagnosis, the listed elements.
  std::string message() const;
};

/// Compares `got` (downloaded from the device) with `expected` (computed on the host, in double)
/// and names the pattern. `guard_hits` come from DeviceBuffer::guard_hits().
Comparison compare_values(const std::vector<double>& expected, const std::vector<double>& got,
                          const std::vector<bool>& unwritten, const std::vector<GuardHit>& guard_hits,
                          const CompareOptions& options);

/// Downloads `out`, checks its guard zones, and compares it with `expected`.
template <class T>
Comparison compare(const std::vector<double>& expected, const DeviceBuffer<T>& out, const CompareOptions& options) {
  std::vector<T> host = out.download();
  std::vector<double> got(host.size());
  std::vector<bool> unwritten(host.size());
  for (std::size_t i = 0; i < host.size(); ++i) {
    unwritten[i] = never_written(host[i]);
    got[i] = static_cast<double>(host[i]);
  }
  return compare_values(expected, got, unwritten, out.guard_hits(), options);
}

/// As compare() with a reference in float (exact for a result that is one float rounding, or a
/// permutation): a large output that is right is checked without a copy in double, on every
/// core; a wrong one gets the full diagnosis.
template <class T>
Comparison compare(const std::vector<float>& expected, const DeviceBuffer<T>& out, const CompareOptions& options) {
  const std::vector<T> host = out.download();
  std::vector<GuardHit> hits = out.guard_hits();
  bool right = hits.empty() && host.size() == expected.size();
  if (right) {
    std::vector<char> chunk_ok(64, 1);
    const std::size_t chunk = (host.size() + chunk_ok.size() - 1) / chunk_ok.size();
    const std::size_t serial_below = host.size() < (std::size_t(1) << 20) ? chunk_ok.size() + 1 : 0;
    parallel_ranges(chunk_ok.size(), [&](std::size_t first, std::size_t last) {
      for (std::size_t k = first; k < last; ++k)
        for (std::size_t i = k * chunk; i < std::min(host.size(), (k + 1) * chunk) && chunk_ok[k]; ++i) {
          const double e = expected[i], g = static_cast<double>(host[i]);
          chunk_ok[k] = !never_written(host[i]) && std::fabs(g - e) <= options.abs_tol + options.rel_tol * std::fabs(e);
        }
    }, serial_below);
    for (char ok : chunk_ok) right = right && ok;
  }
  if (right) {
    Comparison c;
    c.array = options.array;
    c.n = static_cast<std::int64_t>(host.size());
    return c;
  }
  std::vector<double> e(expected.begin(), expected.end()), got(host.size());
  std::vector<bool> unwritten(host.size());
  for (std::size_t i = 0; i < host.size(); ++i) {
    unwritten[i] = never_written(host[i]);
    got[i] = static_cast<double>(host[i]);
  }
  return compare_values(e, got, unwritten, hits, options);
}

/// Checks that a kernel left one of its inputs as it was: a change is reported as "the kernel
/// changed its input <name>: only <outputs> may be written".
template <class T>
Comparison compare_unchanged(const std::vector<T>& original, const DeviceBuffer<T>& input, const std::string& name,
                             const std::string& outputs) {
  // The usual case first, cheaply: the same bytes, and nothing written around them.
  const std::vector<T> now = input.download();
  if (now.size() == original.size() && (original.empty() || !std::memcmp(now.data(), original.data(), sizeof(T) * now.size())) &&
      input.guard_hits(1).empty()) {
    Comparison same;
    same.array = name;
    same.n = static_cast<std::int64_t>(now.size());
    return same;
  }
  CompareOptions same;
  same.array = name;
  Comparison c = compare(std::vector<double>(original.begin(), original.end()), input, same);
  if (!c.ok()) {
    c.pattern = Pattern::chapter_specific;
    c.diagnosis = "the kernel changed its input " + name + ": only " + outputs + " may be written";
  }
  return c;
}

/// An input of a launch and what it held before, for inputs_unchanged().
template <class T>
struct Input {
  std::string name;                ///< the input's name in the chapter, e.g. "a"
  const std::vector<T>& original;  ///< its values before the launch
  const DeviceBuffer<T>& buffer;   ///< the device array the launch was given
};

/// Checks that every input still holds what it held before the launch. Call it before any
/// other check of a case: a kernel that writes into an input is told so first, not judged on
/// an output it may never have written (which would read as *not started*). When the changed
/// input now holds the output's expected values (`expected`, optional), the message says the
/// result was written into that input.
/// \param inputs the case's inputs, in the order the messages should name them
/// \param outputs what may be written, for the message, e.g. "c"
/// \param expected the output's expected values ({} when they do not line up with the inputs)
/// \param options tolerances for recognising `expected` in an input
template <class T, class E = double>
Comparison inputs_unchanged(const std::vector<Input<T>>& inputs, const std::string& outputs,
                            const std::vector<E>& expected = std::vector<E>(), const CompareOptions& options = {}) {
  for (const Input<T>& in : inputs) {
    Comparison c = compare_unchanged(in.original, in.buffer, in.name, outputs);
    if (c.ok() || c.pattern == Pattern::out_of_bounds || expected.size() != in.original.size()) {
      if (!c.ok()) return c;
      continue;
    }
    // Does the changed input hold the output? Count its changed elements that equal expected.
    const std::vector<T> now = in.buffer.download();
    std::int64_t changed = 0, like_output = 0;
    for (std::size_t i = 0; i < now.size(); ++i) {
      if (!std::memcmp(&now[i], &in.original[i], sizeof(T))) continue;
      ++changed;
      const double e = expected[i], g = static_cast<double>(now[i]);
      like_output += std::fabs(g - e) <= options.abs_tol + options.rel_tol * std::fabs(e);
    }
    if (changed > 0 && like_output == changed)
      c.diagnosis = "the kernel wrote its result into its input " + in.name + " (" + in.name + " now holds what " +
                    outputs + " should): only " + outputs + " may be written";
    return c;
  }
  return {};
}

/// A case's verdict in the order the contract asks: the inputs' check first (`inputs`, from
/// inputs_unchanged()), and only when no input changed the output's (`output`, the grader's own
/// judge), under the case's `context`.
inline Comparison inputs_then_output(Comparison inputs, const std::function<Comparison()>& output,
                                     const std::string& context) {
  Comparison c = inputs.ok() ? output() : std::move(inputs);
  c.context = context;
  return c;
}

/// The start of a grader's own comparison of `out` (its `n` elements, named `array`, in
/// `context`): when a guard zone around `out` was written, an out_of_bounds comparison whose
/// diagnosis is `outside(index of the first write outside)`; otherwise an ok one, for the
/// grader's element checks to fill in.
template <class T>
Comparison guarded_comparison(const std::string& array, std::int64_t n, const std::string& context,
                              const DeviceBuffer<T>& out, const std::function<std::string(std::int64_t)>& outside) {
  Comparison c;
  c.array = array;
  c.n = n;
  c.context = context;
  c.guard_hits = out.guard_hits();
  if (!c.guard_hits.empty()) {
    c.pattern = Pattern::out_of_bounds;
    c.diagnosis = outside(c.guard_hits.front().index);
  }
  return c;
}

/// Records a failed comparison for the grader's summary; used by WB_REQUIRE_MATCH.
void note_failure(const Comparison& c);

/// Records a comparison that passed; used by WB_REQUIRE_MATCH. One of at least one element shows
/// that the kernel writes: the verdict is then never *not started*, whatever else failed.
void note_match(const Comparison& c);

}  // namespace wb

/// Fails the test case with the comparison's explanation unless every element is right.
/// \snippet chapters/01-naive-add/grade.cpp require match
#define WB_REQUIRE_MATCH(comparison)                          \
  do {                                                        \
    const ::wb::Comparison& wb_cmp_ = (comparison);           \
    if (!wb_cmp_.ok()) {                                      \
      ::wb::note_failure(wb_cmp_);                            \
      FAIL(wb_cmp_.message());                                \
    }                                                         \
    ::wb::note_match(wb_cmp_);                                \
    SUCCEED("every element of " + wb_cmp_.array + " is right"); \
  } while (0)
