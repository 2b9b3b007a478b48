/// \file
/// \brief Which chapter a grader executable grades, known at run time: each executable links one
/// small generated file (cmake/WorkbookChapter.cmake writes it) that defines `wb::grader_info`, so
/// the grader's main (grader/src/report.cpp) is compiled once per backend, not once per grader.
#pragma once

namespace wb {

/// The chapter or exercise an executable grades, and on which backend.
struct GraderInfo {
  const char* id;           ///< "01-naive-add", "x01-histogram"
  const char* title;        ///< "naive add"
  const char* kernel_file;  ///< the file graded, relative to the repository root
  const char* backend;      ///< "cpu" or "cuda"
  const char* skip_reason;  ///< why this chapter cannot be graded here (grader/src/skipped_main.cpp), or ""
};

/// Defined by the executable's generated file.
extern const GraderInfo grader_info;

}  // namespace wb
