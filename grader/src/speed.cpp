#include "wb/speed.hpp"

#include <catch2/catch_test_macros.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>

#include "wb/cuda_check.hpp"
#include "wb/flow.hpp"
#include "wb/report.hpp"

namespace wb {

std::string format_ratio(double r) {
  char b[32];
  if (!std::isfinite(r)) return "?";
  if (r == 0 || std::fabs(r) >= 0.1) std::snprintf(b, sizeof b, "%.2f", r);
  else std::snprintf(b, sizeof b, "%.2g", r);
  return b;
}

SpeedVerdict speed_verdict(const std::vector<Timing>& timings, const SpeedBar& bar) {
  const Timing& yours = timing_of(timings, bar.yours);
  const Timing& sol = timing_of(timings, bar.solution);
  SpeedVerdict v;
  v.ratio = sol.median_ms / yours.median_ms;
  char line[256];
  std::snprintf(line, sizeof line, "%s: %.0f GB/s", bar.size.c_str(), yours.gbps);
  v.detail = line;
  if (yours.pct_peak > 0) {
    std::snprintf(line, sizeof line, ", %.0f%% of peak", yours.pct_peak);
    v.detail += line;
  }
  if (!bar.anchor.empty()) {
    const Timing& anchor = timing_of(timings, bar.anchor);
    v.anchor_ratio = anchor.median_ms / yours.median_ms;
    v.detail += ", " + format_ratio(v.anchor_ratio) + "x " + bar.anchor + "'s speed";
  }
  v.fast_enough = bar.minimum <= 0 || v.ratio >= bar.minimum;
  note_speed({v.ratio, bar.minimum, v.detail});
  if (!v.fast_enough)
    WB_FAIL_TOO_SLOW(bar.result + " is right but runs at " + format_ratio(v.ratio) + "x the solution's speed (" +
                     v.detail + "); at least " + format_ratio(bar.minimum) + "x is needed. " + bar.advice);
  return v;
}

SpeedVerdict grade_speed(const std::string& title, const std::vector<Timed>& contenders, double bytes,
                         const SpeedBar& bar, const std::function<Comparison()>& recheck) {
  std::vector<Timing> t;
  try {
    t = time_interleaved(contenders, bytes);
  } catch (const CudaError& e) {  // a contender's fault: reported as the learner's call, context handled
    fail_with_cuda_error("timing " + title, e.code());
  }
  std::cout << format_timings(title, t, bar.solution);
  Comparison again = recheck();
  again.context = "after timing" + (again.context.empty() ? "" : ", " + again.context);
  WB_REQUIRE_MATCH(again);
  return speed_verdict(t, bar);
}

}  // namespace wb
