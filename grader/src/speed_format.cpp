// The speed case's arithmetic, text and set-up (wb/speed.hpp): plain functions of fake or real timings,
// with no Catch2 and no device, so that tests/unit/speed_test.cpp can check them on any machine.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "wb/device.hpp"
#include "wb/speed.hpp"

namespace wb {

Work memory_bound(double bytes) { return {Work::Bound::memory, bytes, 0}; }
Work fp32_bound(double flops, double bytes) { return {Work::Bound::fp32, bytes, flops}; }
Work tensor_bound(double flops, double bytes) { return {Work::Bound::tensor, bytes, flops}; }

Peaks device_peaks() { return {peak_bandwidth_gbps(), peak_fp32_tflops(), peak_tensor_tflops()}; }

namespace {

bool compute(const Work& w) { return w.bound != Work::Bound::memory; }

// "the FP32 peak", "the tensor-core peak": what a compute-bound share is of.
const char* peak_name(const Work& w) { return w.bound == Work::Bound::tensor ? "the tensor-core peak" : "the FP32 peak"; }

// A table's rate column: TFLOP/s when its fastest row reaches 1 TFLOP/s, GFLOP/s otherwise.
struct FlopUnit {
  double scale;
  const char* name;
};
FlopUnit flop_unit(const std::vector<Timing>& timings, const Work& w) {
  double best = 0;
  for (const Timing& t : timings) best = std::max(best, rate_per_s(t.median_ms, w));
  return best >= 1e12 ? FlopUnit{1e12, "TFLOP/s"} : FlopUnit{1e9, "GFLOP/s"};
}

}  // namespace

double rate_per_s(double ms, const Work& w) {
  if (!(ms > 0)) return 0;
  return (compute(w) ? w.flops : w.bytes) / (ms * 1e-3);
}

double share_of_peak(double per_s, const Work& w, const Peaks& p) {
  const double peak = w.bound == Work::Bound::memory ? p.gbps * 1e9
                      : w.bound == Work::Bound::fp32 ? p.fp32_tflops * 1e12
                                                     : p.tensor_tflops * 1e12;
  return peak > 0 ? 100.0 * per_s / peak : 0.0;
}

std::string format_rate(double per_s, const Work& w) {
  char b[64];
  if (!compute(w)) std::snprintf(b, sizeof b, "%.0f GB/s", per_s / 1e9);
  else if (per_s >= 1e12) std::snprintf(b, sizeof b, "%.1f TFLOP/s", per_s / 1e12);
  else std::snprintf(b, sizeof b, "%.0f GFLOP/s", per_s / 1e9);
  return b;
}

std::string format_ratio(double r) {
  char b[32];
  if (!std::isfinite(r)) return "?";
  if (r == 0 || std::fabs(r) >= 0.1) std::snprintf(b, sizeof b, "%.2f", r);
  else std::snprintf(b, sizeof b, "%.2g", r);
  return b;
}

std::string speed_detail(const Timing& yours, const std::string& size, const Work& w, const Peaks& p) {
  char line[256];
  if (!compute(w)) {
    std::snprintf(line, sizeof line, "%s: %.0f GB/s", size.c_str(), yours.gbps);
    std::string d = line;
    if (yours.pct_peak > 0) {
      std::snprintf(line, sizeof line, ", %.0f%% of peak", yours.pct_peak);
      d += line;
    }
    return d;
  }
  const double per_s = rate_per_s(yours.median_ms, w);
  std::string d = size + ": " + format_rate(per_s, w);
  const double share = share_of_peak(per_s, w, p);
  if (share > 0) {
    std::snprintf(line, sizeof line, ", %.0f%% of %s", share, peak_name(w));
    d += line;
  }
  return d;
}

namespace {

// A field of the CSV file: quoted, its quotes doubled.
std::string csv_field(const std::string& v) {
  std::string q = "\"";
  for (char c : v) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

}  // namespace

void csv_row(const std::string& table, const std::string& device, const Timing& t, double rate,
             const std::string& unit, double pct_peak, double speed) {
  const char* path = std::getenv("WB_TIMINGS_CSV");
  if (!path || !*path) return;
  std::ifstream probe(path);
  const bool fresh = !probe.good() || probe.peek() == std::ifstream::traits_type::eof();
  probe.close();
  std::ofstream out(path, std::ios::app);
  if (fresh) out << "table,device,variant,median_ms,q1_ms,q3_ms,rate,unit,pct_peak,speed_vs_reference\n";
  char nums[160];
  std::snprintf(nums, sizeof nums, "%.6f,%.6f,%.6f,%.4g,", t.median_ms, t.q1_ms, t.q3_ms, rate);
  out << csv_field(table) << ',' << csv_field(device) << ',' << csv_field(t.name) << ',' << nums << csv_field(unit);
  std::snprintf(nums, sizeof nums, ",%.2f,%.4f\n", pct_peak, speed);
  out << nums;
}

std::string format_speed_table(const std::string& title, const std::vector<Timing>& timings,
                               const std::string& reference, const Work& work, const Peaks& peaks,
                               const std::string& device) {
  const Timing* ref = nullptr;
  for (const auto& t : timings)
    if (t.name == reference) ref = &t;
  const bool flops = compute(work);
  const FlopUnit unit = flop_unit(timings, work);
  std::ostringstream s;
  char line[256];
  s << title << " (" << device << ", ";
  if (!flops) {
    s << "theoretical peak " << static_cast<int>(peaks.gbps + 0.5) << " GB/s)\n";
  } else {
    const double peak = work.bound == Work::Bound::tensor ? peaks.tensor_tflops : peaks.fp32_tflops;
    std::snprintf(line, sizeof line, "%s %.1f TFLOP/s)\n",
                  work.bound == Work::Bound::tensor ? "theoretical tensor-core peak (half in, float accumulate)"
                                                    : "theoretical FP32 peak",
                  peak);
    s << line;
  }
  std::snprintf(line, sizeof line, "  %-26s %10s %17s %8s %7s %9s\n", "variant", "median", "q1..q3 (ms)",
                flops ? unit.name : "GB/s", "% peak", "speed");
  s << line;
  for (const auto& t : timings) {
    const std::string ratio = ref ? format_ratio(ref->median_ms / t.median_ms) + "x" : "";
    double rate = t.gbps, pct = t.pct_peak;
    if (flops) {
      const double per_s = rate_per_s(t.median_ms, work);
      rate = per_s / unit.scale;
      pct = share_of_peak(per_s, work, peaks);
    }
    std::snprintf(line, sizeof line, "  %-26s %8.4f ms %8.4f..%-8.4f %8.*f %6.1f%% %9s\n", t.name.c_str(),
                  t.median_ms, t.q1_ms, t.q3_ms, flops && unit.scale > 1e9 ? 1 : 0, rate, pct, ratio.c_str());
    s << line;
    csv_row(title, device, t, rate, flops ? unit.name : "GB/s", pct, ref ? ref->median_ms / t.median_ms : 0);
  }
  if (ref) s << "  (speed: time of " << reference << " / time of the variant; samples interleaved, L2 flushed)\n";
  return s.str();
}

std::string format_table_row(const std::string& id, const std::string& size, const Timing& solution,
                             const Timing* anchor, const std::string& anchor_name, const Work& work) {
  // The line's rates are TFLOP/s with one decimal for compute-bound work, whatever its size
  // (bench/exercise_table.sh puts them in one column).
  auto rate = [&](const Timing& t) {
    char b[64];
    const double per_s = rate_per_s(t.median_ms, work);
    if (compute(work)) std::snprintf(b, sizeof b, "%.1f TFLOP/s", per_s / 1e12);
    else std::snprintf(b, sizeof b, "%.0f GB/s", per_s / 1e9);
    return std::string(b);
  };
  char b[128];
  std::snprintf(b, sizeof b, "%.4f ms", solution.median_ms);
  std::string line = "table row: " + id + " | " + size + " | " + b + " | " + rate(solution) + " | " + anchor_name + " | ";
  if (!anchor) return line + "- | - | -";
  std::snprintf(b, sizeof b, "%.4f ms | %s | %.2f", anchor->median_ms, rate(*anchor).c_str(),
                anchor->median_ms / solution.median_ms);
  return line + b;
}

namespace {
// An anchor that runs here is a row, and the bar compares with it by name.
void anchor_row(const Anchor& a, std::string& bar_name, std::vector<Timed>& rows) {
  if (!a.run) return;
  bar_name = a.name;
  rows.push_back({a.name, a.run});
}
}  // namespace

SpeedCase::SpeedCase(std::string t, Work w) : title(std::move(t)), work(w) {
  contenders.resize(2);  // yours and the solution, first
}

SpeedCase& SpeedCase::yours(std::string name, std::function<void()> run) {
  speed_bar.yours = name;
  contenders[0] = {std::move(name), std::move(run)};
  return *this;
}

SpeedCase& SpeedCase::solution(std::string name, std::function<void()> run) {
  speed_bar.solution = name;
  contenders[1] = {std::move(name), std::move(run)};
  return *this;
}

SpeedCase& SpeedCase::row(std::string name, std::function<void()> run, double bytes) {
  contenders.push_back({std::move(name), std::move(run), bytes});
  return *this;
}

SpeedCase& SpeedCase::anchor(Anchor a) {
  library = std::move(a);
  anchor_row(library, speed_bar.anchor, contenders);
  return *this;
}

SpeedCase& SpeedCase::compiled(Anchor a) {
  torch_compile = std::move(a);
  anchor_row(torch_compile, speed_bar.compiled, contenders);
  return *this;
}

SpeedCase& SpeedCase::bar(std::string size, std::string result, double minimum, std::string advice) {
  speed_bar.size = std::move(size);
  speed_bar.result = std::move(result);
  speed_bar.minimum = minimum;
  speed_bar.advice = std::move(advice);
  return *this;
}

SpeedCase& SpeedCase::table_row(std::string id, std::string size) {
  row_id = std::move(id);
  row_size = std::move(size);
  return *this;
}

}  // namespace wb
