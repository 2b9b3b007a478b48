/// \file
/// \brief What a GPU hides: a GPU grade also runs a small case of the chapter under
/// compute-sanitizer (racecheck finds shared-memory races that happen to give the right answer
/// on the hardware). The CPU backend needs no such pass: its instrumented build checks every
/// shared-memory access of every case.
#pragma once

#include <string>

namespace wb {

/// True in the copy of the grader that compute-sanitizer runs (the variable
/// `WB_SANITIZER_CHILD` is set): the hidden cases it runs check this.
bool sanitizer_child();

/// On a GPU with `compute-sanitizer` on PATH: runs this grader again under
/// `compute-sanitizer --tool <tool>`, with only the test cases tagged `tag` (hidden cases, e.g.
/// "[.racecheck]", that run a small case), and fails the calling test case with the first
/// hazard it reports, as "<what>: compute-sanitizer <tool> reported ...". Without
/// compute-sanitizer it notes what was not checked and returns; on the CPU backend it does nothing.
void require_sanitizer_clean(const std::string& tool, const std::string& tag, const std::string& what);

}  // namespace wb
