/// \file
/// \brief The grader's closing summary: one verdict per chapter (not started / wrong, and why /
/// correct, with the speed level on a GPU), printed at the end of every grader run and written
/// to `$WB_STATUS_FILE` for the grade command's table.
#pragma once

#include <string>

namespace wb {

/// What a chapter's speed measurement concluded, for the summary.
struct SpeedNote {
  double ratio = 0.0;          ///< solution time / learner time: 1.0 = as fast as the solution
  double minimum = 0.0;        ///< ratio needed to pass (0: speed is shown, not graded)
  std::string detail;          ///< e.g. "2^28 elements: 4172 GB/s, 87% of peak"
};

/// Records a speed measurement of the learner's kernel against the solution.
void note_speed(const SpeedNote& note);

/// A level for a speed ratio, e.g. "at the solution's speed".
std::string speed_level(double ratio);

/// Records a failure that is not a comparison (a CUDA error, a bad argument, a runaway kernel).
void note_error(const std::string& what);

/// Writes the summary and the status file now (used by the watchdog before it ends the
/// process); `verdict` overrides what the run so far concluded when not empty.
void finish_report(const std::string& verdict_override = "");

}  // namespace wb
