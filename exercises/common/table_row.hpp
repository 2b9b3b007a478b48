// The exercises' graders print one machine-readable line from their timing case, for the table
// of solution vs library on exercises/README.md (bench/exercise_table.sh collects them from
// the solutions' graders run on a GPU):
//   table row: x03-sgemm | 4096 x 4096 x 4096 | 2.1100 ms | 65.1 TFLOP/s | cuBLAS sgemm | 1.5000 ms | 91.6 TFLOP/s | 0.71
// The figures are the *solution's* row and the library's, from the same interleaved timing; the
// last field is the library's time / the solution's (above 1: the solution is faster).
#pragma once

#include <cstdio>
#include <iostream>
#include <string>

#include "wb/timing.hpp"

namespace exercise {

/// How a kernel's speed is best stated: bandwidth (GB/s of the bytes it must move) or
/// arithmetic (TFLOP/s of the floating-point operations it must do).
struct Work {
  double amount;     ///< bytes or floating-point operations per run
  bool flops;        ///< true: TFLOP/s; false: GB/s
};

inline std::string rate(const wb::Timing& t, const Work& w) {
  char b[64];
  if (w.flops) std::snprintf(b, sizeof b, "%.1f TFLOP/s", w.amount / (t.median_ms * 1e-3) / 1e12);
  else std::snprintf(b, sizeof b, "%.0f GB/s", w.amount / (t.median_ms * 1e-3) / 1e9);
  return b;
}

/// Prints the `table row:` line (see the top of this file). `anchor` may be null ("anchor not
/// available", with `anchor_name` saying why).
inline void print_table_row(const std::string& exercise, const std::string& size, const wb::Timing& solution,
                            const wb::Timing* anchor, const std::string& anchor_name, const Work& work) {
  char ms[32];
  std::snprintf(ms, sizeof ms, "%.4f ms", solution.median_ms);
  std::string line = "table row: " + exercise + " | " + size + " | " + ms + " | " + rate(solution, work) + " | " +
                     anchor_name + " | ";
  if (anchor) {
    char a[96];
    std::snprintf(a, sizeof a, "%.4f ms | %s | %.2f", anchor->median_ms, rate(*anchor, work).c_str(),
                  anchor->median_ms / solution.median_ms);
    line += a;
  } else {
    line += "- | - | -";
  }
  std::cout << line << "\n";
}

}  // namespace exercise
