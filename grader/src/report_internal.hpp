// The grader library's own notes to the summary (report.cpp), beside the public ones in
// wb/report.hpp.
#pragma once

#include <string>

namespace wb {

/// note_error, with the whole report behind `what` (e.g. the CPU backend's fault report, of
/// which `what` is the headline): the verdict's cause_report when `what` leads.
void note_error_with_report(const std::string& what, const std::string& report);

}  // namespace wb
