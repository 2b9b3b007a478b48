#include "wb/sanitizer.hpp"

#include <catch2/catch_test_macros.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

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

// The options each tool runs with, beyond the exit code and the number of reports.
std::string options_of(const std::string& tool) {
  // memcheck: a padding after every allocation, so that a read a little past one array is not
  // inside the next (the copy allocates its arrays without guard zones, wb/buffer.hpp).
  if (tool == "memcheck") return " --padding 65536";
  // racecheck: one report per pair of accesses in the source, not one per hazard.
  if (tool == "racecheck") return " --racecheck-report analysis";
  return "";
}

std::string seconds(double s) {
  std::ostringstream o;
  o.setf(std::ios::fixed);
  o.precision(1);
  o << s;
  return o.str();
}

// "<tool>\t<seconds>\t<outcome>" appended to $WB_SANITIZER_TIMES_FILE, where it names a file.
void record_time(const std::string& tool, double s, const std::string& outcome) {
  std::cout << "  compute-sanitizer " << tool << ": " << seconds(s) << " s (" << outcome << ")\n" << std::flush;
  const char* path = std::getenv("WB_SANITIZER_TIMES_FILE");
  if (!path || !*path) return;
  std::ofstream(path, std::ios::app) << tool << "\t" << seconds(s) << "\t" << outcome << "\n";
}

// What one tool's child run came to.
struct ToolRun {
  bool ran = false;      // the copy ran its cases to the end under the tool
  int rc = 0;            // the tool's exit status (86: it reported an error)
  std::string finding;   // sanitizer_finding of its output, or ""
  std::string out;       // its whole output
};

ToolRun run_tool(const std::string& tool, const std::string& tag) {
  ToolRun r;
  // The copy writes no verdict file and runs only the hidden small cases; its watchdog allows for
  // the tool's slowdown (tens of times, more for racecheck).
  const std::string command = "env -u WB_VERDICT_FILE -u WB_PROGRESS_FILE -u WB_SANITIZER_TIMES_FILE WB_SANITIZER_CHILD=1 "
                              "WB_WATCHDOG_SECONDS=300 "
                              "compute-sanitizer --tool " + tool + " --error-exitcode 86 --print-limit 5" +
                              options_of(tool) + " " + quoted(self_path()) + " " + quoted(tag) + " 2>&1";
  std::FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return r;
  std::array<char, 1024> line{};
  while (std::fgets(line.data(), int(line.size()), pipe)) r.out += line.data();
  const int status = pclose(pipe);
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.finding = sanitizer_finding(tool, r.out);
  // Catch2's closing line: "All tests passed (...)" or "test cases: N | M failed".
  r.ran = r.out.find("All tests passed") != std::string::npos || r.out.find("test cases:") != std::string::npos;
  return r;
}

}  // namespace

bool sanitizer_child() { return std::getenv("WB_SANITIZER_CHILD") != nullptr; }

void require_sanitizer_clean(const std::string& tool, const std::string& tag, const std::string& what) {
  require_sanitizers_clean({tool}, tag, what);
}

void require_sanitizers_clean(const std::vector<std::string>& tools, const std::string& tag, const std::string& what) {
  if (cpu_backend() || sanitizer_child()) return;
  // A kernel that was never started has nothing for the tools to find. One that failed a check may
  // fail it for a reason only a tool sees (a missing barrier makes wrong sums that look like
  // blocks overwriting one another): the tools run, and their own finding, which is certain, leads
  // the verdict; the small cases merely failing again under them says nothing new.
  const int failed_before = failures_so_far();
  if (failed_before > 0 && failures_not_started_so_far() == failed_before)
    SKIP("not run: the kernel writes nothing yet");
  if (!on_path("compute-sanitizer")) {
    std::string names;
    for (const auto& t : tools) names += (names.empty() ? "" : ", ") + t;
    note_unchecked(what + " under compute-sanitizer " + names + " (compute-sanitizer is not on PATH)");
    return;
  }
  int found = 0, timing_failures = 0;
  std::string clean;
  for (const auto& tool : tools) {
    const auto start = std::chrono::steady_clock::now();
    const ToolRun r = run_tool(tool, tag);
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const bool tool_found = r.rc == 86 || !r.finding.empty();
    if (tool_found) {
      record_time(tool, took, "reported an error");
      // 86 (--error-exitcode) is the tool's own finding, which is certain: it leads the verdict.
      const std::string headline =
          what + ": " + (r.finding.empty() ? "compute-sanitizer " + tool + " reported an error" : r.finding);
      note_certain_cause(headline);
      ++found;
      FAIL_CHECK(headline + "\n" + r.out);
    } else if (r.rc == 0) {
      record_time(tool, took, "found nothing");
      clean += (clean.empty() ? "" : ", ") + tool;
    } else if (r.ran && failed_before == 0 && found == 0) {
      // The small cases' own verdict under the tool's slower schedule: they were right without it
      // (after another tool's finding, their failing says nothing more).
      record_time(tool, took, "the cases failed under it");
      const std::string headline = what + ": under compute-sanitizer " + tool + " the same cases came out wrong (exit code " +
                                   std::to_string(r.rc) + "), though they were right without it: a result that depends "
                                   "on timing, such as a race";
      note_error(headline);
      ++timing_failures;
      FAIL_CHECK(headline + "\n" + r.out);
    } else if (r.ran) {
      record_time(tool, took, found ? "the cases failed under it" : "the cases failed under it, as without it");
    } else {
      // The tool itself did not run the cases (an option this version lacks, a device it does not support).
      record_time(tool, took, "did not run");
      std::string last = r.out;
      while (!last.empty() && (last.back() == '\n' || last.back() == ' ')) last.pop_back();
      if (const auto nl = last.rfind('\n'); nl != std::string::npos) last = last.substr(nl + 1);
      note_unchecked(what + " under compute-sanitizer " + tool + " (it did not run the cases, exit code " +
                     std::to_string(r.rc) + (last.empty() ? "" : ": " + last) + ")");
    }
  }
  if (found || timing_failures) return;
  if (failed_before > 0) SKIP("compute-sanitizer found nothing; the checks above failed: fix those first");
  if (!clean.empty()) SUCCEED(what + ": compute-sanitizer " + clean + " found nothing");
}

}  // namespace wb
