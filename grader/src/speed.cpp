#include "wb/speed.hpp"

#include <catch2/catch_test_macros.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "wb/cuda_check.hpp"
#include "wb/device.hpp"
#include "wb/flow.hpp"
#include "wb/report.hpp"

namespace wb {

SpeedVerdict speed_verdict(const std::vector<Timing>& timings, const SpeedBar& bar, const Work& work,
                           const Peaks& peaks) {
  const Timing& yours = timing_of(timings, bar.yours);
  const Timing& sol = timing_of(timings, bar.solution);
  SpeedVerdict v;
  v.ratio = sol.median_ms / yours.median_ms;
  v.detail = speed_detail(yours, bar.size, work, peaks);
  if (!bar.anchor.empty()) {
    const Timing& anchor = timing_of(timings, bar.anchor);
    v.anchor_ratio = anchor.median_ms / yours.median_ms;
    v.detail += ", " + format_ratio(v.anchor_ratio) + "x " + bar.anchor + "'s speed";
  }
  if (!bar.compiled.empty())
    v.detail += ", " + format_ratio(timing_of(timings, bar.compiled).median_ms / yours.median_ms) + "x " +
                bar.compiled + "'s speed";
  v.fast_enough = bar.minimum <= 0 || v.ratio >= bar.minimum;
  note_speed({v.ratio, bar.minimum, v.detail});
  if (!v.fast_enough)
    WB_FAIL_TOO_SLOW(bar.result + " is right but runs at " + format_ratio(v.ratio) + "x the solution's speed (" +
                     v.detail + "); at least " + format_ratio(bar.minimum) + "x is needed. " + bar.advice);
  return v;
}

namespace {

// Times the contenders; a contender's CUDA fault is reported as the learner's call would be.
std::vector<Timing> timed(const std::string& title, const std::vector<Timed>& contenders, double bytes) {
  try {
    return time_interleaved(contenders, bytes);
  } catch (const CudaError& e) {
    fail_with_cuda_error("timing " + title, e.code());
  }
  return {};
}

void require_after_timing(const std::function<Comparison()>& recheck) {
  Comparison again = recheck();
  if (again.context.rfind("after timing", 0) != 0)
    again.context = "after timing" + (again.context.empty() ? "" : ", " + again.context);
  WB_REQUIRE_MATCH(again);
}

}  // namespace

SpeedVerdict grade_speed(const SpeedCase& sc, const std::function<Comparison()>& recheck) {
  for (const Anchor* a : {&sc.library, &sc.torch_compile})
    if (!a->name.empty() && !a->run) std::cout << a->kind << " not available: " << a->missing << "\n";
  const std::vector<Timing> t = timed(sc.title, sc.contenders, sc.work.bytes);
  const Peaks peaks = device_peaks();
  std::cout << format_speed_table(sc.title, t, sc.speed_bar.solution, sc.work, peaks, device_name());
  if (!sc.row_id.empty()) {
    const bool have = !sc.library.name.empty() && sc.library.run;
    const std::string row =
        format_table_row(sc.row_id, sc.row_size.empty() ? sc.speed_bar.size : sc.row_size,
                         timing_of(t, sc.speed_bar.solution), have ? &timing_of(t, sc.library.name) : nullptr,
                         have || sc.library.name.empty() ? sc.library.name : sc.library.name + " (not available)", sc.work);
    std::cout << row << "\n";
    // bench/exercise_table.sh's row, as a file of its own: the table is never read from the log.
    if (const char* file = std::getenv("WB_TABLE_ROW_FILE"); file && *file) {
      const std::string prefix = "table row: ";
      std::ofstream(file, std::ios::trunc) << (row.rfind(prefix, 0) == 0 ? row.substr(prefix.size()) : row) << "\n";
    }
  }
  require_after_timing(recheck);
  return speed_verdict(t, sc.speed_bar, sc.work, peaks);
}

}  // namespace wb
