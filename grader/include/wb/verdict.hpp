/// \file
/// \brief A chapter's verdict as a value: what a grader concluded (kind, cause, fix, the case it
/// came from, what was not checked, speed, crash), written as one JSON document
/// (docs/verdict-schema.md) to the file `$WB_VERDICT_FILE` names, and read back by whatever shows
/// or checks it (the test suite's cmake/RunGrader.cmake, the grade command). Nothing reads a
/// grader's printed text: the block it prints is made from this value too.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace wb {

/// What the grader concluded. The words are the ones the learner reads (`kind_name`).
enum class VerdictKind {
  correct,           ///< every check passed (speed, where graded, too)
  wrong,             ///< a check failed: `cause` says which and why
  not_started,       ///< every failing check found nothing written: the stub as it was given
  too_slow,          ///< correct, but short of the chapter's speed bar
  skipped,           ///< nothing could be checked here (no GPU, no libtorch...): never a pass
  crashed,           ///< the grader died (a signal) before it could conclude
  does_not_compile,  ///< written by the grade command: the learner's file did not build
};

/// "correct", "wrong", "not started", "too slow", "skipped", "crashed", "does not compile".
std::string kind_name(VerdictKind kind);
/// The kind a name stands for; std::nullopt for a name that is none of them.
std::optional<VerdictKind> kind_from_name(const std::string& name);

/// One speed measurement of the learner's kernel against the solution.
struct SpeedMeasure {
  double ratio = 0.0;    ///< solution time / learner time: 1.0 = as fast as the solution
  double minimum = 0.0;  ///< ratio needed to pass (0: shown, not graded)
  std::string detail;    ///< e.g. "2^28 elements: 4172 GB/s, 87% of peak"
};

/// A grader's death by a signal that Catch2 caught (SIGSEGV...), and what the chapter says it means.
struct Crash {
  std::string signal;       ///< Catch2's words for it, e.g. "SIGSEGV - Segmentation violation signal"
  std::string explanation;  ///< the grader's or the CPU backend's explanation; may be empty
  std::vector<std::string> captured;  ///< the case's captured values then (Catch2's CAPTURE), e.g. "offset := 1"
};

/// Where a grader is: the test case and section it runs now, kept in the file `$WB_PROGRESS_FILE`
/// names, so that the grade command can say where a grader died without a verdict (a signal
/// Catch2 could not catch, such as SIGKILL).
struct Progress {
  std::string test_case;  ///< the Catch2 test case running, e.g. "sizes"
  std::string section;  ///< "" outside a section
};
/// Writes `p` to `path` as a small JSON document (replacing what was there).
void write_progress_file(const Progress& p, const std::string& path);
/// The progress a grader left; std::nullopt when there is none or it is unreadable.
std::optional<Progress> read_progress_file(const std::string& path);

/// The version of the JSON document below; raised when a field changes meaning or goes away.
inline constexpr int verdict_schema_version = 1;

/// What one grade concluded, and why: the document a grader writes to `$WB_VERDICT_FILE`
/// (docs/verdict-schema.md) and the grade command reads.
struct Verdict {
  // ---- which grader, where ----
  std::string id;            ///< "01-naive-add", "x01-histogram"
  std::string title;         ///< "naive add"
  std::string kernel_file;   ///< the file graded, relative to the repository, e.g. "chapters/01-naive-add/naive_add.cu"
  std::string backend;       ///< "cpu" or "cuda"
  std::string device;        ///< "the CPU backend", the GPU's name, or "" where none was asked
  // ---- what it concluded ----
  VerdictKind kind = VerdictKind::wrong;  ///< correct, wrong, too slow, crashed, ... (docs/grading.md)
  std::string detail;        ///< the one line shown after the kind (at most summary_detail_max characters)
  std::string cause;         ///< the whole diagnosis that leads (one line, never cut); "" when correct
  std::string cause_report;  ///< the whole report behind the cause, where there is one (the CPU backend's
                             ///< fault report: kernel, place, block, thread, explanation), as lines
  std::string fix;           ///< what to do, where the grader knows it apart from the cause (e.g. not started)
  std::string failing_case;  ///< the test case the cause came from, or ""
  std::vector<std::string> other_causes;  ///< the other failing checks' diagnoses, distinct, at most 10
  std::vector<std::string> not_checked;   ///< what this run could not check: a *correct* claims no more
  std::string speed;         ///< the speed line ("1.02x the solution: at the solution's speed (...)"), or ""
  std::vector<SpeedMeasure> speeds;       ///< every measurement, in the order made
  std::optional<Crash> crash;             ///< set when the grader ended by a signal
};

/// The verdict as a JSON document (docs/verdict-schema.md).
std::string to_json(const Verdict& v);
/// A verdict from its JSON document; throws std::runtime_error, naming the field, when it is not one.
Verdict verdict_from_json(const std::string& text);

/// Writes to_json(v) to `path` (through a temporary file renamed over it, so a reader never sees
/// half a document). Returns false when it could not.
bool write_verdict_file(const Verdict& v, const std::string& path);

/// The block a grader ends its log with (a `not checked:` line for each, a `speed:` line when
/// there is one):
/// \verbatim
/// ==== 01-naive-add (naive add) on the CPU backend ====
///   verdict: wrong: only the first 256 elements are right: only one block ran
///   not checked: elements past 2^31
///   speed:   not timed
/// \endverbatim
std::string verdict_block(const Verdict& v);

/// The "why" of the grade command's table: the detail, then what was not checked, on one line.
std::string why_text(const Verdict& v);

/// Writes the JSON document to the file `$WB_VERDICT_FILE` names, when it is set.
void write_requested_files(const Verdict& v);

}  // namespace wb
