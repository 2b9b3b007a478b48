#include "wb/launches.hpp"

#include <mutex>

#include "wb/report.hpp"

namespace wb {
namespace detail {

// The log being recorded, if any: one at a time.
std::mutex log_mutex;
std::vector<LaunchRecord>* active_log = nullptr;

std::vector<cudaStream_t>* active_graph_log = nullptr;

void record_launch(const LaunchRecord& r) {
  std::lock_guard<std::mutex> lock(log_mutex);
  if (active_log) active_log->push_back(r);
}

void record_graph_launch(cudaStream_t stream) {
  std::lock_guard<std::mutex> lock(log_mutex);
  if (active_graph_log) active_graph_log->push_back(stream);
}

}  // namespace detail
namespace {

std::vector<LaunchRecord> recorded;
std::vector<cudaStream_t> recorded_graphs;

std::string dims(const dim3& d) {
  if (d.y == 1 && d.z == 1) return std::to_string(d.x);
  return std::to_string(d.x) + " x " + std::to_string(d.y) + (d.z == 1 ? "" : " x " + std::to_string(d.z));
}

}  // namespace

std::string LaunchRecord::describe() const {
  return dims(grid) + (blocks() == 1 ? " block of " : " blocks of ") + dims(block) +
         (threads_per_block() == 1 ? " thread" : " threads");
}

#ifdef WB_EMU
// The CPU backend keeps the log itself (wb_emu::log_launches).
LaunchLog::LaunchLog() { wb_emu::log_launches(true); }
LaunchLog::~LaunchLog() { wb_emu::log_launches(false); }
std::vector<LaunchRecord> LaunchLog::launches() const {
  std::vector<LaunchRecord> out;
  for (const wb_emu::LaunchConfig& l : wb_emu::launch_log()) out.push_back({l.grid, l.block, l.shared_bytes, l.stream});
  return out;
}
std::vector<cudaStream_t> LaunchLog::graph_launches() const { return wb_emu::graph_launch_log(); }
bool LaunchLog::available() { return true; }
std::string LaunchLog::unavailable_reason() { return ""; }
#else
LaunchLog::LaunchLog() {
  std::lock_guard<std::mutex> lock(detail::log_mutex);
  recorded.clear();
  recorded_graphs.clear();
  detail::active_log = &recorded;
  detail::active_graph_log = &recorded_graphs;
}
LaunchLog::~LaunchLog() {
  std::lock_guard<std::mutex> lock(detail::log_mutex);
  detail::active_log = nullptr;
  detail::active_graph_log = nullptr;
}
std::vector<LaunchRecord> LaunchLog::launches() const {
  std::lock_guard<std::mutex> lock(detail::log_mutex);
  return recorded;
}
std::vector<cudaStream_t> LaunchLog::graph_launches() const {
  std::lock_guard<std::mutex> lock(detail::log_mutex);
  return recorded_graphs;
}
bool LaunchLog::available() { return true; }
std::string LaunchLog::unavailable_reason() { return ""; }
#endif

std::string check_configuration(const std::vector<LaunchRecord>& launches, const std::string& launcher,
                                std::int64_t blocks, int threads) {
  for (const LaunchRecord& l : launches) {
    const bool threads_ok = l.threads_per_block() == std::uint64_t(threads) && l.block.y == 1 && l.block.z == 1;
    const bool blocks_ok = blocks <= 0 || (l.blocks() == std::uint64_t(blocks) && l.grid.y == 1 && l.grid.z == 1);
    if (threads_ok && blocks_ok) continue;
    std::string given = std::to_string(threads) + " threads per block";
    if (blocks > 0) given = std::to_string(blocks) + (blocks == 1 ? " block of " : " blocks of ") + std::to_string(threads) + " threads";
    return launcher + " launched " + l.describe() + ", not the " + given +
           " it was given: launch with the configuration passed in";
  }
  return "";
}

Comparison configuration_honoured(const std::vector<LaunchRecord>& launches, const std::string& launcher,
                                  std::int64_t blocks, int threads) {
  Comparison c;
  if (!LaunchLog::available()) {
    note_unchecked("whether " + launcher + " launches the configuration it is given (" +
                   LaunchLog::unavailable_reason() + ")");
    return c;
  }
  const std::string why = check_configuration(launches, launcher, blocks, threads);
  if (why.empty()) return c;
  c.pattern = Pattern::chapter_specific;
  c.diagnosis = why;
  return c;
}

}  // namespace wb
