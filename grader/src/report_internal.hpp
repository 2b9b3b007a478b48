// The grader library's own notes to the summary (report.cpp), beside the public ones in
// wb/report.hpp.
#pragma once

#include <string>

namespace wb {

/// note_error, with the whole report behind `what` (e.g. the CPU backend's fault report, of
/// which `what` is the headline): the verdict's cause_report when `what` leads. `certain`: as
/// note_certain_cause (the CPU backend saw the fault happen; it is not a guess from the values).
void note_error_with_report(const std::string& what, const std::string& report, bool certain = false);

/// A diagnosis whose pattern is certain (a tool's own finding, such as compute-sanitizer
/// reporting a race): it leads the verdict even when other checks failed before it or more
/// checks gave another diagnosis, a guess from the wrong values, which stays among the other
/// causes (wb::leading_check).
void note_certain_cause(const std::string& what);

/// How many failed checks so far found nothing written (the kernel was not started).
int failures_not_started_so_far();

}  // namespace wb
