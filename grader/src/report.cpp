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
#include <wb_emu/diagnostics.hpp>
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
  std::vector<FailedCheck> checks;  // every noted failure, in order: the verdict weighs them all
  int explained_pending = 0;     // notes whose failed assertion (the FAIL after them) has not come yet
  bool written_somewhere = false;  // a comparison of at least one element was right: the kernel writes
  std::string first_unexplained;  // an assertion failure the grader did not explain itself
  std::string first_unexplained_test;
  std::vector<std::string> other_causes;  // the unexplained failures' messages after the first, distinct
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

// An unexplained failure's message besides the first, kept (once, ten at most) for the verdict's
// other_causes.
void note_other_cause(State& s, const std::string& what) {
  if (what.empty() || s.other_causes.size() >= other_causes_max) return;
  for (const auto& o : s.other_causes)
    if (o == what) return;
  s.other_causes.push_back(what);
}

// A noted failure: weighed with the others when the verdict is made (leading_check); the failed
// assertion that follows it (its FAIL) is then not counted as a failure the grader left unexplained.
void add_check(State& s, const std::string& what, const std::string& key, const std::string& report, bool certain,
               bool nothing_written, bool tentative = false) {
  ++s.failures_noted;
  ++s.explained_pending;
  s.checks.push_back({one_line(what), key, report, s.current_test, certain, nothing_written, tentative});
}

}  // namespace

void note_failure(const Comparison& c) {
  auto& s = state();
  std::lock_guard<std::mutex> lock(s.m);
  const bool nothing = c.pattern == Pattern::nothing_written;
  if (nothing) ++s.failures_not_started;
  if (!nothing && c.n > c.unwritten) s.written_somewhere = true;
  const bool tentative = c.pattern == Pattern::scattered || c.pattern == Pattern::some_unwritten;
  add_check(s, c.diagnosis + (c.context.empty() ? "" : " [" + c.context + "]"), cause_key(c.diagnosis), "", false,
            nothing, tentative);
}

void note_match(const Comparison& c) {
  if (!c.ok() || c.n == 0) return;
  auto& s = state();
  std::lock_guard<std::mutex> lock(s.m);
  s.written_somewhere = true;
}

void note_error(const std::string& what) { note_error_with_report(what, ""); }

void note_error_with_report(const std::string& what, const std::string& report, bool certain) {
  auto& s = state();
  std::lock_guard<std::mutex> lock(s.m);
  add_check(s, what, cause_key(one_line(what)), report, certain, false);
}

void note_certain_cause(const std::string& what) {
  auto& s = state();
  std::lock_guard<std::mutex> lock(s.m);
  add_check(s, what, cause_key(one_line(what)), "", true, false);
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

namespace {

#ifdef WB_EMU
// "/home/me/workbook/chapters/04-reduction/reduce.cu" -> "chapters/04-reduction/reduce.cu"
std::string from_repository(const std::string& path) {
  for (const char* top : {"/chapters/", "/exercises/", "/solutions/", "/tests/"})
    if (const auto at = path.rfind(top); at != std::string::npos) return path.substr(at + 1);
  return path;
}

// The verdict's notes from the CPU backend: each barrier that some threads of a block had exited
// before. It passes, as on the H200 and under compute-sanitizer's synccheck, but it is not promised.
std::vector<std::string> barrier_notes() {
  std::vector<std::string> notes;
  for (const auto& e : wb_emu::exits_before_barriers()) {
    const std::string block =
        "(" + std::to_string(e.block.x) + "," + std::to_string(e.block.y) + "," + std::to_string(e.block.z) + ")";
    notes.push_back("the __syncthreads() at " + from_repository(e.barrier_file) + ":" + std::to_string(e.barrier_line) +
                    " in " + e.kernel + " was reached while " + std::to_string(e.exited.size()) + " of the " +
                    std::to_string(e.block_threads) + " threads of block " + block +
                    " had exited: the H200 and compute-sanitizer's synccheck count an exited thread as arrived, so "
                    "it passes, but the CUDA Programming Guide allows __syncthreads() in conditional code only where "
                    "the condition is the same for the whole block; keep every thread to the barrier and guard its "
                    "work with an if instead");
  }
  return notes;
}
#endif

// The verdict's other_causes: one diagnosis of each cause but the leading one's (checks[lead]; past
// the end: none leads), in the order met, then the unexplained failures' messages after the first.
std::vector<std::string> other_causes_of(const State& s, std::size_t lead) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < s.checks.size() && out.size() < other_causes_max; ++i) {
    if (lead < s.checks.size() && s.checks[i].key == s.checks[lead].key) continue;
    bool seen = false;
    for (std::size_t j = 0; j < i && !seen; ++j) seen = s.checks[j].key == s.checks[i].key;
    if (!seen) out.push_back(s.checks[i].cause);
  }
  for (const auto& o : s.other_causes)
    if (out.size() < other_causes_max && std::find(out.begin(), out.end(), o) == out.end()) out.push_back(o);
  return out;
}

}  // namespace

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
      v.other_causes = other_causes_of(s, s.checks.size());
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
    } else if (s.failures_not_started == s.failed_assertions && !s.written_somewhere) {
      v.kind = VerdictKind::not_started;
      v.cause = "every failed check found nothing written: the kernel does not write its output yet";
      v.fix = std::string("edit ") + grader_info.kernel_file + " (look for // TODO:)";
      v.detail = v.fix;
    } else {
      v.kind = VerdictKind::wrong;
      // The diagnosis that explains the most failed checks (or is certain) leads, whole, with the
      // case it came from; nothing written leads only when no failure says more.
      bool explained = !s.checks.empty();
      if (explained && s.checks[leading_check(s.checks)].nothing_written && !s.first_unexplained.empty())
        explained = false;
      const std::size_t lead = explained ? leading_check(s.checks) : s.checks.size();
      if (explained) {
        const FailedCheck& c = s.checks[lead];
        v.cause = c.cause;
        v.cause_report = c.report;
        v.failing_case = c.test_case;
        v.detail = v.cause;
        const std::size_t same = checks_like(s.checks, lead);
        if (!v.failing_case.empty() || same > 1) {
          v.detail += " (";
          if (!v.failing_case.empty()) v.detail += "in \"" + v.failing_case + "\"";
          if (same > 1)
            v.detail += std::string(v.failing_case.empty() ? "" : "; ") + std::to_string(same) + " of " +
                        std::to_string(s.checks.size()) + " failed checks say the same";
          v.detail += ")";
        }
      } else {
        v.cause = s.first_unexplained;
        v.failing_case = s.first_unexplained_test;
        v.detail = v.cause + (v.failing_case.empty() ? "" : " (in \"" + v.failing_case + "\")");
      }
      v.other_causes = other_causes_of(s, lead);
      if (explained && !s.first_unexplained.empty() && s.first_unexplained != v.cause)
        v.other_causes.insert(v.other_causes.begin(), s.first_unexplained);
    }
    if (v.other_causes.size() > other_causes_max) v.other_causes.resize(other_causes_max);
    v.crash = s.crash;
    if (const std::string lost = context_lost_reason(); !lost.empty()) v.not_checked.push_back(lost);
    v.not_checked.insert(v.not_checked.end(), s.unchecked.begin(), s.unchecked.end());
#ifdef WB_EMU
    v.notes = barrier_notes();
#endif
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
    std::string msg = r.hasMessage() ? std::string(r.getMessage()) : r.getExpressionInMacro();
    if (r.hasExpandedExpression() && !r.hasMessage()) msg += " with " + r.getExpandedExpression();
    // Catch2 reports a fatal signal as a failure whose message names it ("SIGSEGV - ...")
    const bool signal = msg.rfind("SIG", 0) == 0;
    if (!signal && s.explained_pending > 0) {  // the FAIL of a noted failure: its diagnosis is weighed already
      --s.explained_pending;
      return;
    }
    if (s.first_unexplained.empty()) {
      if (signal) {
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
    } else if (one_line(msg) != s.first_unexplained) {
      note_other_cause(s, one_line(msg));
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
