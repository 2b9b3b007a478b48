// The grader's main(): Catch2's session plus a listener that turns the run into one verdict.
#include "wb/report.hpp"

#include <algorithm>
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

#include "report_internal.hpp"
#include "wb/compare.hpp"
#include "wb/device.hpp"
#include "wb/grader_info.hpp"
#include "wb/speed.hpp"
#include "wb/verdict.hpp"

namespace wb {
namespace {

struct State {
  std::mutex m;
  std::string current_test;
  int failed_assertions = 0;
  int failures_not_started = 0;  // failed comparisons where nothing was written
  int failures_noted = 0;        // failed comparisons and errors noted with a diagnosis
  std::string first_diagnosis;   // the first wrong-answer explanation, in the chapter's terms
  bool first_certain = false;    // it came from note_certain_cause: no later guess replaces it
  std::string first_report;      // the whole report behind it (a CPU backend fault's), or ""
  std::string first_failure_test;
  std::string first_unexplained;  // an assertion failure the grader did not explain itself
  std::string first_unexplained_test;
  std::vector<std::string> other_causes;  // the other failures' diagnoses, distinct
  std::optional<Crash> crash;    // a fatal signal Catch2 caught
  std::vector<SpeedNote> speeds;
  int too_slow = 0;              // failures that are about speed, not correctness
  std::string too_slow_why, too_slow_test;
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
  if (const char* path = std::getenv("WB_PROGRESS_FILE"); path && *path) write_progress_file({test, section}, path);
}

std::string one_line(std::string s) {
  for (auto& c : s)
    if (c == '\n') c = ' ';
  return s;
}

// The verdict's other_causes: at most this many (docs/verdict-schema.md).
constexpr std::size_t other_causes_max = 10;

// A diagnosis besides the leading one, kept (once, ten at most) for the verdict's other_causes.
void note_other_cause(State& s, const std::string& what) {
  if (what.empty() || what == s.first_diagnosis || s.other_causes.size() >= other_causes_max) return;
  for (const auto& o : s.other_causes)
    if (o == what) return;
  s.other_causes.push_back(what);
}

}  // namespace

void note_failure(const Comparison& c) {
  auto& s = state();
  std::lock_guard<std::mutex> lock(s.m);
  ++s.failures_noted;
  if (c.pattern == Pattern::nothing_written) ++s.failures_not_started;
  if (c.pattern == Pattern::nothing_written) return;
  const std::string what = one_line(c.diagnosis + (c.context.empty() ? "" : " [" + c.context + "]"));
  if (s.first_diagnosis.empty()) {
    s.first_diagnosis = what;
    s.first_failure_test = s.current_test;
  } else {
    note_other_cause(s, what);
  }
}

void note_error(const std::string& what) { note_error_with_report(what, ""); }

void note_error_with_report(const std::string& what, const std::string& report) {
  auto& s = state();
  std::lock_guard<std::mutex> lock(s.m);
  ++s.failures_noted;
  if (s.first_diagnosis.empty()) {
    s.first_diagnosis = one_line(what);
    s.first_report = report;
    s.first_failure_test = s.current_test;
  } else {
    note_other_cause(s, one_line(what));
  }
}

void note_certain_cause(const std::string& what) {
  auto& s = state();
  std::lock_guard<std::mutex> lock(s.m);
  ++s.failures_noted;
  const std::string w = one_line(what);
  if (s.first_certain) {
    note_other_cause(s, w);
    return;
  }
  if (!s.first_diagnosis.empty() && s.first_diagnosis != w) {  // the guess leads the other causes
    s.other_causes.erase(std::remove(s.other_causes.begin(), s.other_causes.end(), s.first_diagnosis), s.other_causes.end());
    s.other_causes.insert(s.other_causes.begin(), s.first_diagnosis);
    if (s.other_causes.size() > other_causes_max) s.other_causes.resize(other_causes_max);
  }
  s.other_causes.erase(std::remove(s.other_causes.begin(), s.other_causes.end(), w), s.other_causes.end());
  s.first_diagnosis = w;
  s.first_report.clear();
  s.first_failure_test = s.current_test;
  s.first_certain = true;
}

int failures_not_started_so_far() {
  std::lock_guard<std::mutex> lock(state().m);
  return state().failures_not_started;
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
  if (!s.too_slow++) {
    s.too_slow_why = why;
    s.too_slow_test = s.current_test;
  }
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
  Verdict v;
  v.id = grader_info.id;
  v.title = grader_info.title;
  v.kernel_file = grader_info.kernel_file;
  v.backend = grader_info.backend;
  v.device = cpu_backend() ? "the CPU backend" : device_name();
  {
    std::lock_guard<std::mutex> lock(s.m);
    if (s.finished) return;
    s.finished = true;
    if (!verdict_override.empty()) {  // the watchdog's: "wrong\t<why>"
      auto tab = verdict_override.find('\t');
      v.kind = kind_from_name(verdict_override.substr(0, tab)).value_or(VerdictKind::wrong);
      v.cause = tab == std::string::npos ? "" : one_line(verdict_override.substr(tab + 1));
      v.detail = v.cause;
      v.failing_case = s.current_test;
      // What failed before the kernel that never ended, so that it is not lost with the run.
      if (!s.first_diagnosis.empty()) v.other_causes.push_back(s.first_diagnosis);
      else if (!s.first_unexplained.empty()) v.other_causes.push_back(s.first_unexplained);
      v.other_causes.insert(v.other_causes.end(), s.other_causes.begin(), s.other_causes.end());
    } else if (s.failed_assertions == 0 && s.cases > 0 && s.cases_skipped == s.cases) {
      v.kind = VerdictKind::skipped;
      v.cause = no_device_reason().empty() ? "every check was skipped" : no_device_reason();
      v.detail = v.cause;
    } else if (s.failed_assertions == 0) {
      v.kind = VerdictKind::correct;
    } else if (s.too_slow > 0 && s.too_slow == s.failed_assertions) {
      v.kind = VerdictKind::too_slow;
      v.cause = one_line(s.too_slow_why);
      v.detail = v.cause;
      v.failing_case = s.too_slow_test;
    } else if (s.failures_not_started == s.failed_assertions) {
      v.kind = VerdictKind::not_started;
      v.cause = "every failed check found nothing written: the kernel does not write its output yet";
      v.fix = std::string("edit ") + grader_info.kernel_file + " (look for // TODO:)";
      v.detail = v.fix;
    } else {
      v.kind = VerdictKind::wrong;
      // The first diagnosis leads, cut to fit one line (the whole of it is in the log above and
      // in the verdict's cause); the test's name follows when there is room.
      const bool explained = !s.first_diagnosis.empty();
      v.cause = explained ? s.first_diagnosis : s.first_unexplained;
      if (explained) v.cause_report = s.first_report;
      v.failing_case = explained ? s.first_failure_test : s.first_unexplained_test;
      v.detail = shorten(v.cause);
      const std::string in = " (in \"" + v.failing_case + "\")";
      if (explained && !v.failing_case.empty() && v.detail.size() + in.size() <= summary_detail_max) v.detail += in;
      if (!explained) v.detail = shorten(v.cause + in);  // as before: the case is part of the message
      v.other_causes = s.other_causes;
      if (explained && !s.first_unexplained.empty() && s.first_unexplained != v.cause)
        v.other_causes.insert(v.other_causes.begin(), s.first_unexplained);
    }
    if (v.other_causes.size() > other_causes_max) v.other_causes.resize(other_causes_max);
    v.crash = s.crash;
    if (const std::string lost = context_lost_reason(); !lost.empty()) v.not_checked.push_back(lost);
    v.not_checked.insert(v.not_checked.end(), s.unchecked.begin(), s.unchecked.end());
    for (const auto& sp : s.speeds) {
      std::ostringstream o;
      o << format_ratio(sp.ratio) << "x the solution: " << speed_level(sp.ratio);
      if (!sp.detail.empty()) o << " (" << sp.detail << ")";
      if (sp.minimum > 0 && sp.ratio < sp.minimum) o << "; at least " << format_ratio(sp.minimum) << "x is needed to pass";
      v.speed = o.str();
      v.speeds.push_back({sp.ratio, sp.minimum, sp.detail});
    }
    if (v.speed.empty() && v.kind == VerdictKind::correct)
      v.speed = cpu_backend() ? "not timed: the CPU backend's times say nothing about a GPU" : "not timed";
  }
  std::cout << verdict_block(v) << std::flush;
  write_requested_files(v);
}

namespace {

class Listener : public Catch::EventListenerBase {
 public:
  using Catch::EventListenerBase::EventListenerBase;

  void testRunStarting(Catch::TestRunInfo const&) override {
    std::cout << "Grading " << grader_info.kernel_file << " on "
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
      if (msg.rfind("SIG", 0) == 0) {
        std::string why = s.crash_hint;
#ifdef WB_EMU
        // the CPU backend said why before the signal came here: a kernel thread overflowed its stack
        if (why.empty())
          if (const char* overflow = wb_emu::stack_overflow_summary()) why = overflow;
#endif
        s.crash = Crash{one_line(msg), one_line(why), {}};
        for (const auto& info : stats.infoMessages)  // what the case had captured (CAPTURE, INFO)
          s.crash->captured.push_back(one_line(std::string(info.message)));
        if (!why.empty()) msg += ": " + why;
      }
      s.first_unexplained = one_line(msg);
      s.first_unexplained_test = s.current_test;
    } else {
      std::string msg = r.hasMessage() ? std::string(r.getMessage()) : r.getExpressionInMacro();
      if (r.hasExpandedExpression() && !r.hasMessage()) msg += " with " + r.getExpandedExpression();
      if (one_line(msg) != s.first_unexplained) note_other_cause(s, one_line(msg));
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
