#include "wb/sanitizer.hpp"

#include <catch2/catch_test_macros.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "wb/device.hpp"
#include "report_internal.hpp"
#include "wb/report.hpp"

namespace wb {
namespace {

bool on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  if (!path) return false;
  std::string p = path;
  for (std::size_t start = 0; start <= p.size();) {
    const std::size_t end = p.find(':', start);
    const std::string dir = p.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!dir.empty() && access((dir + "/" + program).c_str(), X_OK) == 0) return true;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return false;
}

std::string self_path() {
  std::array<char, 4096> buf{};
  const ssize_t len = readlink("/proc/self/exe", buf.data(), buf.size() - 1);
  return len > 0 ? std::string(buf.data(), std::size_t(len)) : "";
}

// Single quotes for a shell word.
std::string quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

}  // namespace

bool sanitizer_child() { return std::getenv("WB_SANITIZER_CHILD") != nullptr; }

void require_sanitizer_clean(const std::string& tool, const std::string& tag, const std::string& what) {
  if (cpu_backend() || sanitizer_child()) return;
  // A kernel that was never started has nothing for the tool to find. One that failed a check may
  // fail it for a reason only the tool sees (a missing barrier makes wrong sums that look like
  // blocks overwriting one another): the tool runs, and its own finding, which is certain, leads
  // the verdict; the small cases merely failing again under it says nothing new.
  const int failed_before = failures_so_far();
  if (failed_before > 0 && failures_not_started_so_far() == failed_before)
    SKIP("not run: the kernel writes nothing yet");
  if (!on_path("compute-sanitizer")) {
    note_unchecked(what + " (compute-sanitizer " + tool + " is not on PATH)");
    return;
  }
  const std::string exe = self_path();
  // The copy writes no verdict file and runs only the hidden small cases.
  const std::string command = "env -u WB_VERDICT_FILE -u WB_PROGRESS_FILE WB_SANITIZER_CHILD=1 compute-sanitizer --tool " + tool +
                              " --error-exitcode 86 --print-limit 5 " + quoted(exe) + " " + quoted(tag) + " 2>&1";
  std::FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) {
    note_unchecked(what + " (compute-sanitizer could not be started)");
    return;
  }
  std::string out, first_error;
  std::array<char, 1024> line{};
  while (std::fgets(line.data(), int(line.size()), pipe)) {
    const std::string l = line.data();
    out += l;
    if (first_error.empty() && l.find("Error") != std::string::npos && l.rfind("=========", 0) == 0) {
      first_error = l.substr(l.find("Error"));
      while (!first_error.empty() && (first_error.back() == '\n' || first_error.back() == ' ')) first_error.pop_back();
    }
  }
  const int status = pclose(pipe);
  const int rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  const bool tool_found = rc == 86 || !first_error.empty();
  if (failed_before > 0 && !tool_found)
    SKIP("compute-sanitizer " + tool + " found nothing; the checks above failed: fix those first");
  if (rc == 0) {
    SUCCEED(what + ": compute-sanitizer " + tool + " found nothing");
    return;
  }
  // 86 (--error-exitcode) is the tool's own finding; any other failure is the small cases' verdict
  // under the tool's slower schedule (a result that depends on timing, such as a race).
  const std::string headline =
      tool_found
          ? what + ": compute-sanitizer " + tool + " reported " + (first_error.empty() ? "an error" : first_error)
          : what + ": under compute-sanitizer " + tool + " the same cases came out wrong (exit code " +
                std::to_string(rc) + "), though they were right without it: a result that depends on timing, such as "
                "a race";
  if (tool_found)
    note_certain_cause(headline);
  else
    note_error(headline);
  FAIL(headline + "\n" + out);
}

}  // namespace wb
