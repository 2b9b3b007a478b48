/// \file
/// \brief The grader's closing summary: one verdict per chapter (not started / wrong, and why /
/// correct, with the speed level on a GPU), printed at the end of every grader run and written
/// as a JSON document to `$WB_VERDICT_FILE` (wb/verdict.hpp) for the grade command and the tests.
#pragma once

#include <string>

#include <catch2/catch_test_macros.hpp>

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

/// Records that the kernel is correct but misses the chapter's performance bar (a speed ratio on
/// a GPU, the sectors per request on the CPU backend); used by WB_FAIL_TOO_SLOW.
void note_too_slow(const std::string& why);

/// Records a failure that is not a comparison (a CUDA error, a bad argument, a runaway kernel).
void note_error(const std::string& what);

/// Records something the grader could not check in this run, e.g. "elements past 2^31 (the
/// device has 9 GiB free; 17 GiB are needed)": the summary lists it under the verdict, so a
/// *correct* verdict never claims more than was checked.
void note_unchecked(const std::string& what);

/// How many checks have failed so far in this run (a timing case skips itself when any has:
/// timing a wrong kernel says nothing, and its re-check would blame the timing).
int failures_so_far();

/// Says, once per run, that every check so far passed and the timing begins: on a GPU the
/// timing takes seconds, and `grade` shows this line as it comes, so the learner reads that
/// the kernel is right before the speed verdict. Called by WB_REQUIRE_CORRECT_SO_FAR.
void announce_timing();

/// The longest text a table cell of one line carries (a verdict's detail is never cut: the
/// printed block wraps it, wb::wrap_words).
inline constexpr std::size_t summary_detail_max = 180;

/// `detail` cut to at most `max` characters at a word boundary, ending in "..." when cut: for a
/// table of one line per chapter, never for the verdict itself.
std::string shorten(const std::string& detail, std::size_t max = summary_detail_max);

/// While alive, explains a crash of the grader (a fatal signal: SIGSEGV, SIGBUS...) in the
/// chapter's terms: for a check whose likely failure is a crash, not a wrong value, e.g. a
/// misaligned 16-byte access on the CPU backend.
class CrashHint {
 public:
  explicit CrashHint(const std::string& why);  ///< `why` explains a crash until this is destroyed
  ~CrashHint();                                 ///< no hint from here on
  CrashHint(const CrashHint&) = delete;
  CrashHint& operator=(const CrashHint&) = delete;
};

/// Writes the summary and the verdict document now (used by the watchdog before it ends the
/// process); `verdict` overrides what the run so far concluded when not empty.
void finish_report(const std::string& verdict_override = "");

}  // namespace wb

/// Fails the test case as "too slow" (not "wrong"): correct, but short of the chapter's bar.
#define WB_FAIL_TOO_SLOW(why)                 \
  do {                                        \
    const std::string wb_why_ = (why);        \
    ::wb::note_too_slow(wb_why_);             \
    FAIL(wb_why_);                            \
  } while (0)

/// Ends the current test case as skipped when an earlier check of this run failed, and otherwise
/// announces the timing (announce_timing): put at the start of a timing case, after WB_REQUIRE_GPU.
#define WB_REQUIRE_CORRECT_SO_FAR()                                                                \
  do {                                                                                             \
    if (::wb::failures_so_far() > 0) SKIP("not timed: the checks above failed; fix those first");  \
    ::wb::announce_timing();                                                                       \
  } while (0)
