// CPU backend: an instruction's address to its source line, with Boost.Stacktrace (its libbacktrace
// back end, which reads the executable's DWARF line tables in the process; WB_EMU_HAVE_BACKTRACE,
// set by emu/CMakeLists.txt where the compiler provides libbacktrace). Without it the line is
// unknown ("?:0"). Each address is looked up once and kept: a kernel's accesses come from a few
// dozen instructions, looked up again at every launch.
#include "symbolize.hpp"

#if WB_EMU_HAVE_BACKTRACE
#define BOOST_STACKTRACE_USE_BACKTRACE
#include <boost/stacktrace/frame.hpp>
#endif

#include <mutex>
#include <set>
#include <unordered_map>

namespace wb_emu::internal {
namespace {
std::mutex cache_mutex;
std::unordered_map<const void*, SourceLine> cache;
std::set<std::string> files;  // the names SourceLine points at
}  // namespace

SourceLine source_line(const void* pc) {
  std::lock_guard<std::mutex> lock(cache_mutex);
  auto it = cache.find(pc);
  if (it != cache.end()) return it->second;
  SourceLine found;
#if WB_EMU_HAVE_BACKTRACE
  const boost::stacktrace::frame frame(pc);
  const std::string file = frame.source_file();
  if (!file.empty()) {
    found.file = files.insert(file).first->c_str();
    found.line = static_cast<int>(frame.source_line());
  }
#endif
  cache.emplace(pc, found);
  return found;
}

std::string where_pc(const void* pc) {
  const SourceLine l = source_line(pc);
  return std::string(l.file) + ":" + std::to_string(l.line);
}
}  // namespace wb_emu::internal
