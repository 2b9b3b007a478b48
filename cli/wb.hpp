// The learner's command (cmake/workbook.sh builds it and runs it): what its commands share.
// Each command is one file (grade.cpp, status.cpp, hint.cpp, reset.cpp, watch.cpp, check.cpp,
// profile.cpp); main.cpp reads the arguments. docs/command-line.md shows every command at work.
#pragma once

#include <functional>
#include <iosfwd>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace wb::cli {

/// A wrong argument, a name that names nothing: the message is printed, the command exits 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// What the build says of one chapter or exercise on one backend (catalog.json, "targets").
struct Targets {
  std::string grade;             ///< the learner's grader, e.g. grade-01-naive-add-cpu
  std::string inspect;           ///< CPU backend: the learner's file built instrumented
  std::string inspect_solution;  ///< CPU backend: the solution built instrumented
  std::string solution;          ///< the test suite's grader of the solution (profile on a GPU)
  std::string skipped;           ///< why it is not graded on this backend, or ""
};

/// One chapter or exercise, as the build's catalog lists it (docs/command-line.md, "The catalog").
struct Entry {
  std::string id;           ///< "01-naive-add", "x01-histogram"
  std::string kind;         ///< "chapter" or "exercise"
  std::string title;        ///< "naive add"
  std::string folder;       ///< "chapters/01-naive-add", relative to the root
  std::string kernel_file;  ///< "chapters/01-naive-add/naive_add.cu"
  std::string stub;         ///< the pristine stub: "tests/stubs/01-naive-add/naive_add.cu"
  std::string hints;        ///< the page with the hints: "chapters/01-naive-add/README.md"
  std::map<std::string, Targets> targets;  ///< per backend of the build
  /// The short name the command suggests: "01", "x01".
  std::string short_name() const { return id.substr(0, id.find('-')); }
};

/// Where the command runs: the repository, the backend and its build folder, and its output.
struct Context {
  std::string root;       ///< the repository, absolute
  std::string backend;    ///< "cpu" or "cuda"
  std::string preset;     ///< the CMake preset of that backend: "cpu" or "gpu"
  std::string dir;        ///< its build folder, absolute (WB_BUILD_DIR, else build/<preset>)
  std::string state_dir;  ///< hints shown and backups, for every backend (WB_STATE_DIR, else build/)
  bool dir_given = false; ///< WB_BUILD_DIR was set
  int jobs = 2;           ///< build parallelism (WB_JOBS, else the machine's cores)
  std::string me = "bash cmake/workbook.sh";  ///< how the learner calls the command
  std::ostream* out;      ///< what the command says
  std::ostream* err;      ///< its errors (and, for grade --json, the grading)
  std::vector<Entry> entries;  ///< every chapter and exercise, in the grade command's order

  /// The context the environment describes (WB_ROOT, WB_BACKEND, WB_BUILD_DIR, WB_STATE_DIR,
  /// WB_JOBS), with the entries of the build's catalog, or of the folders when the
  /// build has none yet.
  static Context from_environment(std::ostream& out, std::ostream& err);
  /// Reads the entries: the build's catalog (cmake/workbook.sh configured the build before grade,
  /// watch, check and profile), else the folders.
  void load_entries();
  const Entry& entry(const std::string& id) const;
  /// The entry's targets on this backend (empty names where the build lists none).
  Targets targets(const Entry& e) const;
  std::string path(const std::string& relative) const { return root + "/" + relative; }
  std::string grades_dir() const { return dir + "/grades"; }
  /// "the CPU backend" or "the GPU".
  std::string backend_words() const;
};

/// The one entry `name` names: a number is a chapter's (1, 01, ch1, ch01), or an exercise's when no
/// chapter has it; xN an exercise's (x3, x03); otherwise a whole id or a unique part of one.
/// Throws UsageError with the candidates otherwise.
std::string resolve(const Context& c, const std::string& name);
/// The entries named, every one when `names` is empty.
std::vector<std::string> resolve_all(const Context& c, const std::vector<std::string>& names);

// ---- processes (process.cpp: libuv) ----

/// How a process ended.
struct Exit {
  int code = 0;    ///< its exit status (0 when a signal ended it)
  int signal = 0;  ///< the signal that ended it, or 0
  bool ok() const { return code == 0 && signal == 0; }
};

struct Command {
  std::vector<std::string> argv;
  std::map<std::string, std::string> set_env;  ///< variables to set
  std::vector<std::string> unset_env;          ///< variables to remove
  std::string cwd;                             ///< "" for the command's own
  std::string log;                             ///< the file stdout and stderr go to ("" for none)
  bool append_log = false;                     ///< append to the log rather than replace it
  bool inherit_stdin = false;                  ///< let the child read the terminal
};

/// Runs a command to its end, its stdout and stderr together into `log` (as they come) and, line
/// by line, to `on_line` when given. No core file is left by a child that crashes.
Exit run(const Command& cmd, const std::function<void(const std::string&)>& on_line = {});
/// "SIGSEGV", "SIGKILL", or "signal 42".
std::string signal_name(int signal);
/// Whether a program is on PATH.
bool on_path(const std::string& program);

// ---- the build (build.cpp) ----

/// Builds the targets; false when it failed, its output in `log`.
bool build(const Context& c, const std::vector<std::string>& targets, const std::string& log);
/// The first compiler error in a build log in the learner's folder, else the first error at all,
/// its path relative to the root.
std::string first_error(const Context& c, const std::string& log, const std::string& folder);

// ---- small things the commands share (util.cpp) ----

/// At most 180 characters, cut at a space with "...".
std::string shorten(const std::string& s);
/// "5 s ago", "5 min ago", "3 h ago", "2 days ago": how long since the file changed.
std::string age(const std::string& path);
std::string slurp(const std::string& path);
bool exists(const std::string& path);
/// Whether file `a` changed after file `b`.
bool newer(const std::string& a, const std::string& b);
/// The path, relative to the root when it lies under it.
std::string relative(const Context& c, const std::string& path);
/// A test case's name as a Catch2 test spec (',', '[', ']' and '\' escaped).
std::string catch_escape(const std::string& name);
/// A command's words, joined by spaces (WB_PRINT_COMMAND).
std::string words(const std::vector<std::string>& argv);
/// A test spec as the learner reads it: without Catch2's escapes.
std::string unescaped(std::string spec);

// ---- the commands: each returns the exit status ----

struct GradeOptions {
  bool verbose = false;
  bool json = false;
};
int grade(Context& c, const std::vector<std::string>& names, const GradeOptions& o);
/// Builds and grades one entry, prints its block, leaves grades/ID.json (and ID.log).
void grade_one(Context& c, const std::string& id, bool verbose, std::ostream& out);
/// The summary table of the grade command.
void print_summary(const Context& c, const std::vector<std::string>& ids, std::ostream& out);
/// The grades document (docs/verdict-schema.md): on `out` when given, always in DIR/grades.json.
void grades_document(const Context& c, std::ostream* out);
int status(Context& c, const std::vector<std::string>& names);
/// One hint of a page: <details><summary>Hint N: title</summary> text </details>.
struct Hint {
  int number = 0;  ///< the N of its summary
  std::string title;
  std::vector<std::string> lines;  ///< its text, without the blank lines around it
};
/// The hints of a page, in order (hint N is element N - 1).
std::vector<Hint> hints_of(const std::string& page);
int hint(Context& c, const std::string& name, const std::optional<int>& which, bool reset);
int reset(Context& c, const std::string& name, bool yes, std::istream& in);
/// Re-grades an entry each time its file is saved, until SIGINT or SIGTERM (exit status 0).
int watch(Context& c, const std::vector<std::string>& names);
int check(Context& c, const std::string& name);
int profile(Context& c, const std::string& name);

// ---- check's and profile's readers (check.cpp, profile.cpp) ----

/// compute-sanitizer's log -> "racecheck: 1 hazard (...): <first report> at <file:line> (<by thread>)";
/// `cases_failed`: the grader's own cases failed too.
std::string sanitizer_summary(const Context& c, const std::string& tool, const std::string& log, bool cases_failed);
/// The names of a grader's test cases with a tag, from Catch2's JSON reporter.
std::vector<std::string> list_tests(const Context& c, const std::string& exe, const std::string& tag);
/// The Catch2 test spec of a short run of a grader: its hidden `[racecheck]` cases where it has
/// them (the small inputs it runs under compute-sanitizer itself), else its first `[correctness]` case.
std::string small_case(const Context& c, const std::string& exe);
/// Builds one target for check or profile, or says why not; false when there is nothing to run.
bool build_for_inspection(const Context& c, const Entry& e, const std::string& target, const std::string& log);
/// The CPU backend's fault records (WB_EMU_FAULTS, JSON Lines) -> a line per kind.
std::vector<std::string> emu_fault_summary(const Context& c, const std::string& faults, bool cases_failed);
/// One row per kernel of Nsight Compute's `--csv --page raw` file: name, ms, DRAM %, load and store
/// sectors per request, occupancy %, top stall.
std::vector<std::vector<std::string>> ncu_table(const std::string& csv);
/// The CPU backend's per-line profile (WB_EMU_PROFILE rows), summed over the run, as tables.
std::string emu_profile_table(const Context& c, const std::string& tsv);

}  // namespace wb::cli
