/// \file
/// \brief A chapter's verdict as a value: what a grader concluded (kind, cause, fix, the case it
/// came from, what was not checked, speed, crash), written as one JSON document
/// (docs/verdict-schema.md) to the file `$WB_VERDICT_FILE` names, and read back by whatever shows
/// or checks it (the test suite's cmake/RunGrader.cmake, the grade command). Nothing reads a
/// grader's printed text: the block it prints is made from this value too.
#pragma once

#include <cstddef>
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
  std::string detail;        ///< the line shown after the kind: cause, fix and case, whole (the printed block
                             ///< wraps it at words; it is never cut)
  std::string cause;         ///< the whole diagnosis that leads (one line, never cut); "" when correct
  std::string cause_report;  ///< the whole report behind the cause, where there is one (the CPU backend's
                             ///< fault report: kernel, place, block, thread, explanation), as lines
  std::string fix;           ///< what to do, where the grader knows it apart from the cause (e.g. not started)
  std::string failing_case;  ///< the test case the cause came from, or ""
  std::vector<std::string> other_causes;  ///< the other failing checks' diagnoses, distinct, at most 10
  std::vector<std::string> not_checked;   ///< what this run could not check: a *correct* claims no more
  std::vector<std::string> notes;         ///< what passed but is not promised (e.g. a barrier some threads
                                          ///< exited before, which the CUDA Programming Guide does not allow)
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

/// `text` in lines of at most `width` characters, broken at spaces (a word longer than a line stays
/// whole), each line after the first starting with `indent` (counted in the width); a newline in
/// `text` starts a new line too. Nothing is cut.
std::string wrap_words(const std::string& text, std::size_t width, const std::string& indent);

/// The width the printed block wraps its lines at.
inline constexpr std::size_t verdict_block_width = 100;

/// One failed check as the verdict weighs it against the others (the grader's summary keeps one
/// per failure, in the order they happened).
struct FailedCheck {
  std::string cause;             ///< its diagnosis, one line, with its case ("... [n = 257, ...]")
  std::string key;               ///< what makes two diagnoses the same cause (cause_key of the diagnosis)
  std::string report;            ///< the whole report behind it (a CPU backend fault's), or ""
  std::string test_case;         ///< the test case it failed in
  bool certain = false;          ///< a tool's own finding (compute-sanitizer, the CPU backend's fault
                                 ///< report), not a guess from the wrong values
  bool nothing_written = false;  ///< it found nothing written
  bool tentative = false;        ///< a fallback that names no cause ("wrong values, first at c[3]")
};

/// The diagnosis with every run of digits replaced by `#`: diagnoses of the same cause in cases
/// of different sizes ("only the first 256 elements are right" for n = 1000 and n = 65537, or for
/// 32 and 1024 threads) have the same key.
std::string cause_key(const std::string& diagnosis);

/// Which failed check's diagnosis leads the verdict (an index into `checks`; 0 when it is empty):
/// among the certain ones if there are any, else among those that name a cause (not tentative)
/// if there are any, else among those that found something written if there are any, the cause
/// (same key) that the most of them share, and of those the first; a tie goes to the cause met
/// first. So a telling diagnosis that most cases give is not hidden behind a less telling one
/// that the first failing case happened to give.
std::size_t leading_check(const std::vector<FailedCheck>& checks);

/// How many of `checks` share the cause of checks[i] (its key), i itself included.
std::size_t checks_like(const std::vector<FailedCheck>& checks, std::size_t i);

/// The block a grader ends its log with (a `not checked:` line for each, a `note:` line for each,
/// a `speed:` line when there is one; a long line is wrapped at words, never cut):
/// \verbatim
/// ==== 01-naive-add (naive add) on the CPU backend ====
///   verdict: wrong: only the first 256 elements are right: only one block ran
///   not checked: elements past 2^31
///   note: ...
///   speed:   not timed
/// \endverbatim
std::string verdict_block(const Verdict& v);

/// The "why" of the grade command's table: the detail, then what was not checked, then the notes,
/// on one line.
std::string why_text(const Verdict& v);

/// Writes the JSON document to the file `$WB_VERDICT_FILE` names, when it is set.
void write_requested_files(const Verdict& v);

}  // namespace wb
