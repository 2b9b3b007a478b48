/// \file
/// \brief Honest GPU timing: CUDA events, warm-up, L2 flushed before every sample, the learner's
/// kernel and the solution interleaved, repeated until the median is stable or the budget is spent.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace wb {

/// One contender: a name and a callable that launches its kernel(s) on the default stream.
struct Timed {
  std::string name;           ///< the row's name in the table, e.g. "your add_inplace"
  std::function<void()> run;  ///< launches the contender's kernel(s); timed between two events
  double bytes = 0;  ///< bytes this contender moves, when not the `bytes` given to time_interleaved
};

/// What was measured for one contender.
struct Timing {
  std::string name;  ///< the contender's name
  ///@{
  /// Median or quartile of the samples, in milliseconds.
  double median_ms = 0, q1_ms = 0, q3_ms = 0;
  ///@}
  int samples = 0;       ///< how many samples were taken
  double rse = 0;        ///< relative standard error of the mean at the end
  double gbps = 0;       ///< bytes moved / median time
  double pct_peak = 0;   ///< gbps / theoretical peak, in percent (0 when the peak is unknown)
};

/// When time_interleaved() stops sampling.
struct TimingOptions {
  int warmup = 3;         ///< untimed rounds first (the first launches pay for loading the code)
  int min_samples = 10;   ///< samples per contender before the standard error is looked at
  int max_samples = 200;  ///< samples per contender at most
  double target_rse = 0.005;  ///< stop once every contender's standard error is this small...
  double budget_s = 3.0;      ///< ...or this much wall time has been spent (`WB_TIMING_BUDGET_S` overrides)
};

/// Times the contenders interleaved (round by round, order alternating), flushing L2 before every
/// sample. `bytes` is what each run must move through memory, for GB/s. GPU only.
std::vector<Timing> time_interleaved(const std::vector<Timed>& contenders, double bytes,
                                     const TimingOptions& options = {});

/// Prints a table: name | median | spread | GB/s | % of peak | ratio to `reference` (by name).
std::string format_timings(const std::string& title, const std::vector<Timing>& timings,
                           const std::string& reference);

/// Finds a contender's timing by name (throws when absent).
const Timing& timing_of(const std::vector<Timing>& timings, const std::string& name);

}  // namespace wb
