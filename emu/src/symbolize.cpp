// CPU backend: an instruction's address to its source line, with libbacktrace (GCC's library, which
// reads the program's own DWARF line tables in the process; WB_EMU_HAVE_BACKTRACE, set by
// emu/CMakeLists.txt where the compiler provides it). Without it the line is unknown ("?:0"). Each
// address is looked up once and kept: a kernel's accesses come from a few dozen instructions,
// looked up again at every launch.
#include "symbolize.hpp"

#if WB_EMU_HAVE_BACKTRACE
#include <backtrace.h>
#endif

#include <cstdint>
#include <mutex>
#include <set>
#include <unordered_map>

namespace wb_emu::internal {
namespace {
std::mutex cache_mutex;
std::unordered_map<const void*, SourceLine> cache;
std::set<std::string> files;  // the names SourceLine points at

#if WB_EMU_HAVE_BACKTRACE
struct Found {
  std::string file;
  int line = 0;
};
void ignore_error(void*, const char*, int) {}
// Called once per level of inlining, innermost first: the innermost is the source's own line
// (a kernel inlined into the launch's code is still at its line in the .cu file).
int on_line(void* data, std::uintptr_t, const char* file, int line, const char*) {
  if (!file) return 0;
  auto* f = static_cast<Found*>(data);
  f->file = file;
  f->line = line;
  return 1;
}
backtrace_state* state() {
  static backtrace_state* s = backtrace_create_state(nullptr, /*threaded=*/1, &ignore_error, nullptr);
  return s;
}
#endif
}  // namespace

SourceLine source_line(const void* pc) {
  std::lock_guard<std::mutex> lock(cache_mutex);
  auto it = cache.find(pc);
  if (it != cache.end()) return it->second;
  SourceLine result;
#if WB_EMU_HAVE_BACKTRACE
  Found found;
  if (backtrace_state* s = state())
    backtrace_pcinfo(s, reinterpret_cast<std::uintptr_t>(pc), &on_line, &ignore_error, &found);
  if (!found.file.empty()) {
    result.file = files.insert(found.file).first->c_str();
    result.line = found.line;
  }
#endif
  cache.emplace(pc, result);
  return result;
}

std::string where_pc(const void* pc) {
  const SourceLine l = source_line(pc);
  return std::string(l.file) + ":" + std::to_string(l.line);
}
}  // namespace wb_emu::internal
