/// \file
/// \brief A chapter's timing case in one call: time the learner's version against the solution
/// and a library anchor (wb::time_interleaved), print the table, check the learner's output
/// once more, and give the speed verdict, with the chapter's minimum ratio where speed is graded.
///
/// \snippet chapters/04-reduction/grade.cpp speed
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "wb/compare.hpp"
#include "wb/timing.hpp"

namespace wb {

/// How a chapter judges speed: which rows of the timings to compare, and its bar.
struct SpeedBar {
  std::string yours;     ///< the learner's row, e.g. "your reduce_sum"
  std::string solution;  ///< the solution's row: the ratio is its median time / the learner's
  std::string anchor;    ///< a library's row ("" for none): its ratio to the learner's is shown too
  std::string size;      ///< what was timed, for the summary, e.g. "2^28 floats"
  double minimum = 0;    ///< ratio to the solution needed to pass; 0: the speed is shown, not graded
  std::string result;    ///< what is right but slow, e.g. "the sum" (in "the sum is right but runs at...")
  std::string advice;    ///< what usually makes a correct version slow, said below the minimum
};

/// What speed_verdict() concluded.
struct SpeedVerdict {
  double ratio = 0;         ///< the solution's median time / the learner's: above 1 is faster
  double anchor_ratio = 0;  ///< the anchor's median time / the learner's (0 without an anchor)
  bool fast_enough = true;  ///< ratio >= the bar's minimum (always true when the minimum is 0)
  std::string detail;       ///< e.g. "2^28 floats: 4172 GB/s, 87% of peak, 0.98x cub::DeviceReduce::Sum"
};

/// A speed ratio as the learner reads it: two decimals from 0.1 up ("0.97"), two significant
/// digits below ("0.00053"), never a long tail of digits. No "x".
std::string format_ratio(double ratio);

/// Computes the ratios of `bar.yours` to the solution and the anchor, records them for the
/// summary (wb::note_speed), and, when the ratio is below `bar.minimum`, fails the test case as
/// *too slow* (WB_FAIL_TOO_SLOW) with the ratio, the bar and `bar.advice`.
SpeedVerdict speed_verdict(const std::vector<Timing>& timings, const SpeedBar& bar);

/// A whole timing case: times `contenders` (wb::time_interleaved, `bytes` moved per run),
/// prints the table under `title` with ratios to the solution, then calls `recheck`, which runs
/// the learner's version once more on fresh output and compares it (the timing runs must not
/// have broken anything: its context is prefixed "after timing"), then speed_verdict().
/// GPU only: call it after WB_REQUIRE_GPU.
SpeedVerdict grade_speed(const std::string& title, const std::vector<Timed>& contenders, double bytes,
                         const SpeedBar& bar, const std::function<Comparison()>& recheck);

}  // namespace wb
