/// \file
/// \brief A grader's timing case in one call: time the learner's version against the solution
/// and the library anchors (wb::time_interleaved), print the table in the kernel's terms (GB/s
/// and % of peak bandwidth for a memory-bound kernel, FLOP/s and % of the FP32 or tensor-core
/// peak for a compute-bound one), the exercises' `table row:` line, check the learner's output
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

/// What one run of a timed kernel must do at the least, and which peak its speed is a share of.
struct Work {
  /// Which limit the kernel runs into.
  enum class Bound {
    memory,  ///< bandwidth-bound: GB/s of `bytes`, % of the peak bandwidth
    fp32,    ///< compute-bound in FP32: FLOP/s of `flops`, % of the FP32 peak
    tensor,  ///< compute-bound on tensor cores: FLOP/s of `flops`, % of the tensor-core peak
  };
  Bound bound = Bound::memory;  ///< what the speed is measured in and a share of
  double bytes = 0;  ///< bytes one run must move (each input read and each output written once)
  double flops = 0;  ///< floating-point operations one run must do (compute-bound forms)
};

/// A bandwidth-bound kernel that must move `bytes` per run.
Work memory_bound(double bytes);
/// A compute-bound FP32 kernel: `flops` per run (and the `bytes` it must move at the least).
Work fp32_bound(double flops, double bytes);
/// A compute-bound tensor-core kernel (half in, float accumulate): `flops` per run.
Work tensor_bound(double flops, double bytes);

/// The device's theoretical peaks a speed is a share of (0: unknown, no share is shown).
struct Peaks {
  double gbps = 0;           ///< memory bandwidth, wb::peak_bandwidth_gbps()
  double fp32_tflops = 0;    ///< FP32, wb::peak_fp32_tflops()
  double tensor_tflops = 0;  ///< tensor cores, fp16 in, fp32 accumulate: wb::peak_tensor_tflops()
};
/// This device's peaks (all 0 on the CPU backend).
Peaks device_peaks();

/// A rate as the learner reads it: "4172 GB/s" for memory-bound work; "51.6 TFLOP/s", or
/// "850 GFLOP/s" below 1 TFLOP/s, for compute-bound work. `per_s` is bytes or FLOPs per second.
std::string format_rate(double per_s, const Work& work);

/// One run's rate in the work's terms (bytes or FLOPs per second) at a median of `ms`.
double rate_per_s(double ms, const Work& work);

/// `per_s` as a percentage of the peak that `work` is measured against (0 when unknown).
double share_of_peak(double per_s, const Work& work, const Peaks& peaks);

/// How a chapter judges speed: which rows of the timings to compare, and its bar.
struct SpeedBar {
  std::string yours;     ///< the learner's row, e.g. "your reduce_sum"
  std::string solution;  ///< the solution's row: the ratio is its median time / the learner's
  std::string anchor;    ///< a library's row ("" for none): its ratio to the learner's is shown too
  std::string size;      ///< what was timed, for the summary, e.g. "2^28 floats"
  double minimum = 0;    ///< ratio to the solution needed to pass; 0: the speed is shown, not graded
  std::string result;    ///< what is right but slow, e.g. "the sum" (in "the sum is right but runs at...")
  std::string advice;    ///< what usually makes a correct version slow, said below the minimum
  std::string compiled;  ///< a torch.compile row ("" for none): its ratio is shown after the anchor's
};

/// What speed_verdict() concluded.
struct SpeedVerdict {
  double ratio = 0;         ///< the solution's median time / the learner's: above 1 is faster
  double anchor_ratio = 0;  ///< the anchor's median time / the learner's (0 without an anchor)
  bool fast_enough = true;  ///< ratio >= the bar's minimum (always true when the minimum is 0)
  std::string detail;       ///< e.g. "2^28 floats: 4172 GB/s, 87% of peak, 0.98x cub::DeviceReduce::Sum's speed"
};

/// A speed ratio as the learner reads it: two decimals from 0.1 up ("0.97"), two significant
/// digits below ("0.00053"), never a long tail of digits. No "x".
std::string format_ratio(double ratio);

/// The verdict's detail for the learner's row: for memory-bound work (the default, which reads
/// the row's gbps and pct_peak) "2^28 floats: 4172 GB/s, 87% of peak"; for compute-bound work
/// "4096 x 4096 x 4096: 51.6 TFLOP/s, 77% of the FP32 peak" (or "of the tensor-core peak").
std::string speed_detail(const Timing& yours, const std::string& size, const Work& work = {}, const Peaks& peaks = {});

/// Computes the ratios of `bar.yours` to the solution and the anchor, records them for the
/// summary (wb::note_speed), and, when the ratio is below `bar.minimum`, fails the test case as
/// *too slow* (WB_FAIL_TOO_SLOW) with the ratio, the bar and `bar.advice`. `work` and `peaks`
/// say the learner's rate in the kernel's terms (speed_detail()).
SpeedVerdict speed_verdict(const std::vector<Timing>& timings, const SpeedBar& bar, const Work& work = {},
                           const Peaks& peaks = {});

/// The table of timings: name | median | q1..q3 | rate | % of peak | ratio to `reference` (by
/// name), under "title (device, theoretical peak ...)". The rate is GB/s for memory-bound work
/// (each row's own gbps and pct_peak, as time_interleaved() measured them), FLOP/s of
/// `work.flops` otherwise. Where `WB_TIMINGS_CSV` names a file, each row is also appended to it
/// (wb::csv_row): the data the docs' charts are drawn from (bench/charts.py).
std::string format_speed_table(const std::string& title, const std::vector<Timing>& timings,
                               const std::string& reference, const Work& work, const Peaks& peaks,
                               const std::string& device);

/// Appends one row of a timing table to the CSV file `WB_TIMINGS_CSV` names (nothing when it is
/// unset), its header first when the file is new: table, device, variant, median_ms, q1_ms, q3_ms,
/// rate, unit ("GB/s", "TFLOP/s", "GFLOP/s"), pct_peak, speed_vs_reference (0 when none).
void csv_row(const std::string& table, const std::string& device, const Timing& t, double rate,
             const std::string& unit, double pct_peak, double speed);

/// The exercises' machine-readable line (bench/exercise_table.sh collects them for the table
/// on exercises/README.md), the *solution's* figures and the library's from the same run:
///   table row: x03-sgemm | 4096 x 4096 x 4096 | 2.1100 ms | 65.1 TFLOP/s | cuBLAS sgemm | 1.5000 ms | 91.6 TFLOP/s | 0.71
/// The last field is the library's time / the solution's (above 1: the solution is faster).
/// `anchor` null: "<anchor_name> | - | - | -". No newline at the end.
std::string format_table_row(const std::string& id, const std::string& size, const Timing& solution,
                             const Timing* anchor, const std::string& anchor_name, const Work& work);

/// A library's row for a SpeedCase that may be missing from this build (PyTorch's where the
/// build has no libtorch): `run` empty and `missing` says why.
struct Anchor {
  std::string name;           ///< the row's name, e.g. "cuBLAS sgemm", "PyTorch softmax"
  std::function<void()> run;  ///< launches the library's kernel(s) (empty: missing)
  std::string missing;        ///< why it cannot run here ("" when it can)
  std::string kind = "PyTorch anchor";  ///< for "PyTorch anchor not available: <why>"
};

/// A whole timing case, built by its setters and run by grade_speed():
/// \code
///   wb::grade_speed(wb::SpeedCase("C = A B, 4096 x 4096 x 4096 floats", wb::fp32_bound(flops, bytes))
///                       .yours("your sgemm", [&] { student::sgemm(...); })
///                       .solution("solution (128x128 tiles, 8x8 per thread)", [&] { solution::sgemm(...); })
///                       .anchor({"cuBLAS sgemm", [&] { wb::anchors::cublas_sgemm(...); }})
///                       .bar("4096 x 4096 x 4096", "C", kMinSpeed, "advice...")
///                       .table_row("x03-sgemm"),
///                   [&] { ...; return comparison; });
/// \endcode
/// Rows are timed and shown in the order given, yours and the solution first.
struct SpeedCase {
  /// A case titled `title` (the table's heading) whose runs must do `work`.
  SpeedCase(std::string title, Work work);
  /// The learner's row ("your ...") and the solution's: the ratio is the solution's time / yours.
  SpeedCase& yours(std::string name, std::function<void()> run);
  /// The solution's row, which every other row is a ratio to.
  SpeedCase& solution(std::string name, std::function<void()> run);
  /// A further row shown in the table only (another launch of the solution, a device copy);
  /// `bytes` when it moves other than the work's bytes.
  SpeedCase& row(std::string name, std::function<void()> run, double bytes = 0);
  /// The library anchor, a row here: its ratio is in the verdict and the `table row:` line. A
  /// missing one is left out, and grade_speed() prints "<kind> not available: <why>".
  SpeedCase& anchor(Anchor a);
  /// The torch.compile anchor, where the grader has one: a row here, and a ratio in the verdict.
  SpeedCase& compiled(Anchor a);
  /// What was timed (the summary's "2^28 floats"), what is right but slow ("the sum"), and, where
  /// speed is graded, the minimum ratio to the solution and what usually makes a version slow.
  SpeedCase& bar(std::string size, std::string result, double minimum = 0, std::string advice = "");
  /// Prints the `table row:` line for exercise `id` (e.g. "x03-sgemm"), with `size` (bar's when "").
  SpeedCase& table_row(std::string id, std::string size = "");

  std::string title;  ///< the table's heading
  Work work;  ///< what one run must do, and which peak it is a share of
  SpeedBar speed_bar;             ///< rows' names and the bar (yours, solution, anchor set by the setters)
  std::vector<Timed> contenders;  ///< every row, in order (yours and solution first)
  Anchor library;        ///< the library anchor, as given (name "" for none)
  Anchor torch_compile;  ///< the torch.compile anchor, as given (name "" for none)
  std::string row_id;    ///< the `table row:` line's exercise ("" for none)
  std::string row_size;  ///< the `table row:` line's size ("" for the bar's)
};

/// Runs a SpeedCase: times its rows (wb::time_interleaved), prints the table with ratios to the
/// solution and the `table row:` line, then calls `recheck`, which runs the learner's version
/// once more on fresh output and compares it (the timing runs must not have broken anything:
/// its context is prefixed "after timing" unless it starts so), then speed_verdict().
/// GPU only: call it after WB_REQUIRE_GPU.
SpeedVerdict grade_speed(const SpeedCase& speed, const std::function<Comparison()>& recheck);

}  // namespace wb
