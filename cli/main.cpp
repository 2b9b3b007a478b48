// wb: the learner's command. cmake/workbook.sh builds it and runs it (docs/command-line.md).
#include <sys/resource.h>

#include <iostream>

#include <CLI/CLI.hpp>

#include "wb.hpp"

namespace {

const char* const usage = R"(usage: bash cmake/workbook.sh <command> [arguments]

For the learner:
  grade [NN ...] [--verbose] [--json]
                              build and grade your kernels: every chapter and exercise, or the ones
                              named; --verbose prints the grader's whole log, not only its verdict;
                              --json prints every chapter's and exercise's last verdict as JSON
                              (also kept in build/<preset>/grades.json), the grading on stderr
  status [NN ...]             the last grade of every chapter and exercise (nothing is rebuilt)
  hint NN [N | --reset]       the next hint for chapter or exercise NN, one at a time (N: that one)
  watch [NN ...]              re-grade a chapter or exercise each time you save its file (Ctrl-C stops)
  check NN                    your kernel on a short input under compute-sanitizer memcheck, racecheck
                              and synccheck (GPU), or built instrumented (CPU backend): one line each
  profile NN                  your kernel beside the solution's: Nsight Compute's DRAM throughput,
                              sectors per request, occupancy and top warp stall (GPU), or sectors
                              per request of each source line (CPU backend)
  reset NN [--yes]            put NN's stub back, after asking; your file is kept as a backup
For the workbook's maintainers:
  test [ctest options]        the workbook's own test suite (solutions pass, stubs fail, mutants caught);
                              the CUDA backend too with a GPU, or with WB_CUDA=ON
  docs                        render the lessons and the grader's API (build/cpu/docs/html/index.html)

NN names a chapter or an exercise: 1, 01, ch01, 01-naive-add or any unique part of the name
(naive, grid); x3, x03 or x03-... an exercise (hist).
Backend: a CUDA GPU when nvidia-smi sees one and nvcc is installed, else the CPU backend.
WB_BACKEND=cpu|cuda chooses; WB_JOBS sets build parallelism; WB_BUILD_DIR the build folder.
)";

}  // namespace

int main(int argc, char** argv) {
  // A grader that crashes leaves no core file (its children inherit the limit).
  struct rlimit no_core {0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  const std::string first = argc > 1 ? argv[1] : "";
  if (first == "help" || first == "-h" || first == "--help") {
    std::cout << usage;
    return 0;
  }
  if (first.empty()) {
    std::cerr << usage;
    return 2;
  }
  CLI::App app{"", "bash cmake/workbook.sh"};
  app.require_subcommand(1);
  app.set_help_flag();  // the usage above is the help

  std::vector<std::string> names;
  std::string name;
  wb::cli::GradeOptions grade_options;
  auto* grade = app.add_subcommand("grade", "grade your kernels");
  grade->add_option("NN", names, "chapters or exercises");
  grade->add_flag("-v,--verbose", grade_options.verbose, "the grader's whole log");
  grade->add_flag("--json", grade_options.json, "every verdict as JSON on stdout");
  auto* status = app.add_subcommand("status", "the last grade of each");
  status->add_option("NN", names, "chapters or exercises");
  auto* hint = app.add_subcommand("hint", "the next hint");
  int which = 0;
  bool forget = false;
  hint->add_option("NN", name, "a chapter or exercise")->required();
  hint->add_option("N", which, "that hint");
  hint->add_flag("--reset", forget, "forget the hints shown");
  auto* watch = app.add_subcommand("watch", "re-grade on each save");
  watch->add_option("NN", names, "chapters or exercises");
  auto* check = app.add_subcommand("check", "sanitizers, or the instrumented build");
  check->add_option("NN", name, "a chapter or exercise")->required();
  auto* profile = app.add_subcommand("profile", "your kernel beside the solution's");
  profile->add_option("NN", name, "a chapter or exercise")->required();
  auto* reset = app.add_subcommand("reset", "put the stub back");
  bool yes = false;
  reset->add_option("NN", name, "a chapter or exercise")->required();
  reset->add_flag("-y,--yes", yes, "without asking");
  for (auto* sub : {grade, status, hint, watch, check, profile, reset}) sub->set_help_flag("-h,--help", "this command's options");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    const std::string sub = app.get_subcommands().empty() ? "" : app.get_subcommands()[0]->get_name();
    if (sub.empty()) {
      std::cerr << usage << "\nunknown command '" << first << "'\n";
    } else {
      std::string options;
      for (const CLI::Option* o : app.get_subcommands()[0]->get_options())
        if (!o->get_lnames().empty() && o->get_lnames()[0] != "help")
          options += (options.empty() ? "" : ", ") + std::string("--") + o->get_lnames()[0];
      std::cerr << sub << ": " << e.what() << (options.empty() ? "" : " (its options: " + options + ")")
                << "; bash cmake/workbook.sh help shows every command\n";
    }
    return 2;
  }
  try {
    wb::cli::Context c = wb::cli::Context::from_environment(std::cout, std::cerr);
    if (*grade) return wb::cli::grade(c, names, grade_options);
    if (*status) return wb::cli::status(c, names);
    if (*hint) return wb::cli::hint(c, name, which ? std::optional<int>(which) : std::nullopt, forget);
    if (*watch) return wb::cli::watch(c, names);
    if (*check) return wb::cli::check(c, name);
    if (*profile) return wb::cli::profile(c, name);
    if (*reset) return wb::cli::reset(c, name, yes, std::cin);
  } catch (const wb::cli::UsageError& e) {
    std::cerr << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << first << ": " << e.what() << "\n";
    return 1;
  }
  return 2;
}
