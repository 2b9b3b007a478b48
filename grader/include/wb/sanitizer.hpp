/// \file
/// \brief What a GPU hides: a GPU grade also runs one small case of the chapter under
/// compute-sanitizer: memcheck (an access outside an array, which on the hardware reads
/// whatever lies there), racecheck (a shared-memory race that happens to give the right answer)
/// and synccheck (a barrier some threads of the block never reach). The CPU backend needs no such
/// pass: its instrumented build checks every access of every case.
#pragma once

#include <string>
#include <vector>

#include <catch2/catch_test_macros.hpp>

namespace wb {

/// True in the copy of the grader that compute-sanitizer runs (the variable
/// `WB_SANITIZER_CHILD` is set): the hidden cases it runs check this.
bool sanitizer_child();

/// compute-sanitizer's first finding in `log` (the tool's whole output), in words for the
/// verdict: "compute-sanitizer racecheck reported a shared-memory hazard between a write at
/// transpose.cu:19 and a read at transpose.cu:23 (992 hazards)"; "" when the log reports none.
/// Places are the file's name and line (the tool prints whole paths).
std::string sanitizer_finding(const std::string& tool, const std::string& log);

/// The tools every grader's small case runs under, one child run each, in this order.
inline const std::vector<std::string> sanitizer_tools = {"memcheck", "racecheck", "synccheck"};

/// On a GPU with `compute-sanitizer` on PATH: runs this grader again under each of `tools` in
/// turn (`compute-sanitizer --tool <tool>`, one child process each), with only the test cases
/// tagged `tag` (hidden cases, e.g. "[.racecheck]", that run a small case), and fails the
/// calling test case with what each tool reports, as "<what>: compute-sanitizer <tool> reported
/// ..." (the first finding leads the verdict, even when other checks failed before it). Each
/// tool's time is printed ("compute-sanitizer racecheck: 1.8 s") and, where the variable
/// `WB_SANITIZER_TIMES_FILE` names a file, appended to it as "<tool>\t<seconds>\t<outcome>"
/// (bench/sanitizer_costs.sh). Without compute-sanitizer it notes what was not checked and
/// returns; on the CPU backend it does nothing.
void require_sanitizers_clean(const std::vector<std::string>& tools, const std::string& tag, const std::string& what);

/// require_sanitizers_clean with one tool.
void require_sanitizer_clean(const std::string& tool, const std::string& tag, const std::string& what);

}  // namespace wb

/// A grader's one small case for compute-sanitizer, declared once: the body that follows runs
/// the case (a few blocks, with the edges the chapter is about), e.g.
///
///     WB_SANITIZER_CASE("[x06]", "out = filter * in for n = 1025, radius 64") {
///       WB_REQUIRE_MATCH(run_case(int_case(1025, 64)));
///     }
///
/// It makes two test cases: the hidden one, tagged "[.racecheck]", that holds the body (only the
/// copy under compute-sanitizer runs it, as `check NN` does), and "no hidden fault (GPU:
/// compute-sanitizer on <what>)", tagged `tags` and "[sanitizer]", that runs the copy under
/// memcheck, racecheck and synccheck (wb::require_sanitizers_clean). Being last in grade.cpp, it
/// runs after the timing case. On the CPU backend the second is skipped: compute-sanitizer is a
/// GPU tool, and the graders built instrumented there check every access of every case.
#define WB_SANITIZER_CASE(tags, what)                                                                     \
  TEST_CASE("no hidden fault (GPU: compute-sanitizer memcheck, racecheck and synccheck on " what ")",   \
            tags "[sanitizer]") {                                                                         \
    WB_REQUIRE_DEVICE();                                                                                  \
    if (::wb::cpu_backend())                                                                              \
      SKIP("compute-sanitizer runs on a GPU; the CPU backend checks accesses in its instrumented builds"); \
    ::wb::require_sanitizers_clean(::wb::sanitizer_tools, "[racecheck]", what);                           \
  }                                                                                                       \
  TEST_CASE(what " (the small case for compute-sanitizer)", "[.racecheck]")
