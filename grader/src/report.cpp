// The grader's main(): Catch2's session plus a listener that turns the run into one verdict.
#include "wb/report.hpp"

#include <atomic>
#include <catch2/catch_section_info.hpp>
#include <catch2/catch_session.hpp>
#include <catch2/catch_test_case_info.hpp>
#include <catch2/reporters/catch_reporter_event_listener.hpp>
#include <catch2/reporters/catch_reporter_registrars.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include <cuda_runtime.h>  // the CPU backend's defines WB_EMU
#ifdef WB_EMU
#include <wb_emu/launch.hpp>
#endif

#include "wb/compare.hpp"
#include "wb/device.hpp"
#include "wb/speed.hpp"

#ifndef WB_CHAPTER_ID
#define WB_CHAPTER_ID "chapter"
#endif
#ifndef WB_CHAPTER_TITLE
#define WB_CHAPTER_TITLE ""
#endif
#ifndef WB_STUDENT_FILE
#define WB_STUDENT_FILE "the chapter's kernel file"
#endif

namespace wb {
namespace {

struct State {
  std::mutex m;
  std::string current_test;
  int failed_assertions = 0;
  int failures_not_started = 0;  // failed comparisons where nothing was written
  int failures_noted = 0;        // failed comparisons and errors noted with a diagnosis
  std::string first_diagnosis;   // the first wrong-answer explanation, in the chapter's terms
  std::string first_failure_test;
  std::string first_unexplained;  // an assertion failure the grader did not explain itself
  std::vector<SpeedNote> speeds;
  int too_slow = 0;              // failures that are about speed, not correctness
  std::string too_slow_why;
  int cases = 0, cases_skipped = 0;
  std::string crash_hint;        // set by a live CrashHint
  std::vector<std::string> unchecked;  // what this run could not check
  bool finished = false;
};

State& state() {
  static State s;
  return s;
}

// `$WB_PROGRESS_FILE` holds the test case (and section) running now, so that the grade command can
// say where a grader that died without a verdict (a signal Catch2 could not catch) was.
void note_progress(const std::string& test, const std::string& section) {
  if (const char* path = std::getenv("WB_PROGRESS_FILE")) {
    std::ofstream f(path, std::ios::trunc);
    f << test << "\t" << section << "\n";
  }
}

std::string one_line(std::string s) {
  for (auto& c : s)
    if (c == '\n') c = ' ';
  return s;
}

}  // namespace

void note_failure(const Comparison& c) {
  auto& s = state();
  std::lock_guard<std::mutex> lock(s.m);
  ++s.failures_noted;
  if (c.pattern == Pattern::nothing_written) ++s.failures_not_started;
  if (s.first_diagnosis.empty() && c.pattern != Pattern::nothing_written) {
    s.first_diagnosis = c.diagnosis + (c.context.empty() ? "" : " [" + c.context + "]");
    s.first_failure_test = s.current_test;
  }
}

void note_error(const std::string& what) {
  auto& s = state();
  std::lock_guard<std::mutex> lock(s.m);
  ++s.failures_noted;
  if (s.first_diagnosis.empty()) {
    s.first_diagnosis = what;
    s.first_failure_test = s.current_test;
  }
}

void note_unchecked(const std::string& what) {
  auto& s = state();
  std::lock_guard<std::mutex> lock(s.m);
  for (const auto& u : s.unchecked)
    if (u == what) return;
  s.unchecked.push_back(what);
}

std::string shorten(const std::string& detail, std::size_t max) {
  std::string s = one_line(detail);
  if (s.size() <= max) return s;
  std::size_t cut = s.rfind(' ', max - 3);  // room for "..."
  if (cut == std::string::npos || cut < max / 2) cut = max - 3;
  while (cut > 0 && (s[cut - 1] == ',' || s[cut - 1] == ':' || s[cut - 1] == ';' || s[cut - 1] == ' ')) --cut;
  return s.substr(0, cut) + "...";
}

CrashHint::CrashHint(const std::string& why) {
  std::lock_guard<std::mutex> lock(state().m);
  state().crash_hint = why;
}

CrashHint::~CrashHint() {
  std::lock_guard<std::mutex> lock(state().m);
  state().crash_hint.clear();
}

void note_too_slow(const std::string& why) {
  auto& s = state();
  std::lock_guard<std::mutex> lock(s.m);
  if (!s.too_slow++) s.too_slow_why = why;
}

void note_speed(const SpeedNote& note) {
  auto& s = state();
  std::lock_guard<std::mutex> lock(s.m);
  s.speeds.push_back(note);
}

std::string speed_level(double r) {
  if (r >= 1.05) return "faster than the solution";
  if (r >= 0.95) return "at the solution's speed";
  if (r >= 0.80) return "close to the solution";
  if (r >= 0.50) return "slower than the solution";
  return "much slower than the solution";
}

int failures_so_far() {
  auto& s = state();
  std::lock_guard<std::mutex> lock(s.m);
  return s.failed_assertions;
}

void announce_timing() {
  static std::atomic<bool> announced{false};
  if (announced.exchange(true)) return;
  std::cout << "  correct so far: every check passed; now timing your kernel against the solution\n" << std::flush;
}

void finish_report(const std::string& verdict_override) {
  auto& s = state();
  std::string verdict, detail, speed;
  std::vector<std::string> unchecked;
  {
    std::lock_guard<std::mutex> lock(s.m);
    if (s.finished) return;
    s.finished = true;
    if (!verdict_override.empty()) {
      auto tab = verdict_override.find('\t');
      verdict = verdict_override.substr(0, tab);
      detail = tab == std::string::npos ? "" : verdict_override.substr(tab + 1);
    } else if (s.failed_assertions == 0 && s.cases > 0 && s.cases_skipped == s.cases) {
      verdict = "skipped";
      detail = no_device_reason().empty() ? "every check was skipped" : no_device_reason();
    } else if (s.failed_assertions == 0) {
      verdict = "correct";
    } else if (s.too_slow > 0 && s.too_slow == s.failed_assertions) {
      verdict = "too slow";
      detail = s.too_slow_why;
    } else if (s.failures_not_started == s.failed_assertions) {
      verdict = "not started";
      detail = "edit " WB_STUDENT_FILE " (look for // TODO:)";
    } else {
      verdict = "wrong";
      // The first diagnosis leads, cut to fit one line (the whole of it is in the log above);
      // the test's name follows when there is room.
      detail = shorten(!s.first_diagnosis.empty() ? s.first_diagnosis : s.first_unexplained);
      const std::string in = " (in \"" + s.first_failure_test + "\")";
      if (!s.first_failure_test.empty() && !s.first_diagnosis.empty() && detail.size() + in.size() <= summary_detail_max)
        detail += in;
    }
    if (const std::string lost = context_lost_reason(); !lost.empty()) unchecked.push_back(lost);
    unchecked.insert(unchecked.end(), s.unchecked.begin(), s.unchecked.end());
    for (const auto& sp : s.speeds) {
      std::ostringstream o;
      o << format_ratio(sp.ratio) << "x the solution: " << speed_level(sp.ratio);
      if (!sp.detail.empty()) o << " (" << sp.detail << ")";
      if (sp.minimum > 0 && sp.ratio < sp.minimum) o << "; at least " << format_ratio(sp.minimum) << "x is needed to pass";
      speed = o.str();
    }
    if (speed.empty() && verdict == "correct")
      speed = cpu_backend() ? "not timed: the CPU backend's times say nothing about a GPU" : "not timed";
  }
  std::ostringstream out;
  out << "\n==== " << WB_CHAPTER_ID << (std::string(WB_CHAPTER_TITLE).empty() ? "" : " (" WB_CHAPTER_TITLE ")")
      << " on " << (cpu_backend() ? "the CPU backend" : device_name()) << " ====\n";
  out << "  verdict: " << verdict << (detail.empty() ? "" : ": " + detail) << "\n";
  std::string summary = detail;  // the status file's "why": the detail, then what was not checked
  for (const auto& u : unchecked) {
    out << "  not checked: " << u << "\n";
    summary += (summary.empty() ? "" : "; ") + std::string("not checked: ") + u;
  }
  if (!speed.empty()) out << "  speed:   " << speed << "\n";
  std::cout << out.str() << std::flush;
  if (const char* path = std::getenv("WB_STATUS_FILE")) {
    std::ofstream f(path);
    f << verdict << "\t" << one_line(summary) << "\t" << one_line(speed) << "\n";
  }
}

namespace {

class Listener : public Catch::EventListenerBase {
 public:
  using Catch::EventListenerBase::EventListenerBase;

  void testRunStarting(Catch::TestRunInfo const&) override {
    std::cout << "Grading " WB_STUDENT_FILE " on "
              << (cpu_backend() ? "the CPU backend (no GPU: correctness only, timing skipped)"
                                : (device_available() ? device_name() : "the CUDA backend: " + no_device_reason()))
              << "\n";
  }
  void testCaseStarting(Catch::TestCaseInfo const& info) override {
    std::lock_guard<std::mutex> lock(state().m);
    state().current_test = info.name;
    note_progress(info.name, "");
  }
  void sectionStarting(Catch::SectionInfo const& info) override {
    std::lock_guard<std::mutex> lock(state().m);
    if (info.name != state().current_test) note_progress(state().current_test, info.name);
  }
  void assertionEnded(Catch::AssertionStats const& stats) override {
    const auto& r = stats.assertionResult;
    if (r.isOk()) return;
    auto& s = state();
    std::lock_guard<std::mutex> lock(s.m);
    ++s.failed_assertions;
    if (s.first_unexplained.empty()) {
      std::string msg = r.hasMessage() ? std::string(r.getMessage()) : r.getExpressionInMacro();
      if (r.hasExpandedExpression() && !r.hasMessage()) msg += " with " + r.getExpandedExpression();
      // Catch2 reports a fatal signal as a failure whose message names it ("SIGSEGV - ...")
      if (!s.crash_hint.empty() && msg.rfind("SIG", 0) == 0) msg += ": " + s.crash_hint;
#ifdef WB_EMU
      // the CPU backend said why before the signal came here: a kernel thread overflowed its stack
      else if (const char* why = msg.rfind("SIG", 0) == 0 ? wb_emu::stack_overflow_summary() : nullptr)
        msg += std::string(": ") + why;
#endif
      s.first_unexplained = one_line(msg) + " (in \"" + s.current_test + "\")";
    }
  }
  void testCaseEnded(Catch::TestCaseStats const& stats) override {
    auto& s = state();
    std::lock_guard<std::mutex> lock(s.m);
    ++s.cases;
    if (stats.totals.testCases.skipped > 0 && stats.totals.assertions.failed == 0) ++s.cases_skipped;
  }
  void testRunEnded(Catch::TestRunStats const&) override { finish_report(); }
};

}  // namespace
}  // namespace wb

CATCH_REGISTER_LISTENER(wb::Listener)

int main(int argc, char* argv[]) { return Catch::Session().run(argc, argv); }
