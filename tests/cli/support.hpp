// What the command's tests share: a scratch repository with chapters and exercises of its own
// (a stub and a page of hints each), a build folder whose targets are stand-ins (a CMake project
// of custom targets, so the command builds with the real cmake and ninja), stand-in graders and
// tools written as shell scripts, and a Context on it whose output the test reads.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch_test_macros.hpp>

#include "wb.hpp"
#include "wb/verdict.hpp"

namespace wb::cli::test {

namespace fs = std::filesystem;

inline void write_file(const std::string& path, const std::string& text, bool executable = false) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::trunc) << text;
  if (executable) fs::permissions(path, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec);
}

/// A shell script that writes `v` as the verdict document ($WB_VERDICT_FILE), as a grader does.
inline std::string writes_verdict(const Verdict& v) {
  return "cat >\"$WB_VERDICT_FILE\" <<'WB_VERDICT_EOF'\n" + to_json(v) + "\nWB_VERDICT_EOF\n";
}

inline Verdict verdict(const std::string& id, VerdictKind kind, const std::string& detail = "",
                       const std::string& speed = "") {
  Verdict v;
  v.id = id;
  v.kind = kind;
  v.detail = detail;
  v.cause = detail;
  v.speed = speed;
  return v;
}

struct Scratch {
  std::string top, root, dir;
  std::ostringstream out, err;
  std::vector<std::string> ids;

  explicit Scratch(const std::string& backend = "cpu") {
    char pattern[] = "/tmp/wb-cli-test.XXXXXX";
    top = ::mkdtemp(pattern);
    root = top + "/repo";
    dir = root + "/build/" + std::string(backend == "cpu" ? "cpu" : "gpu");
    fs::create_directories(dir);
    backend_ = backend;
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(top, ec);
  }
  Scratch(const Scratch&) = delete;

  /// A chapter (NN-topic) or exercise (xNN-name) with its file and `hints` hints.
  void add(const std::string& id, int hints = 3) {
    const bool exercise = id[0] == 'x';
    const std::string folder = exercise ? "exercises/" + id.substr(1) : "chapters/" + id;
    write_file(root + "/" + folder + "/kernel.cu", "// " + id + ": your file\n// TODO: the kernel\n");
    write_file(root + "/tests/stubs/" + (exercise ? "exercises/" + id.substr(1) : id) + "/kernel.cu",
               "// " + id + ": your file\n// TODO: the kernel\n");
    std::ostringstream page;
    page << "# " << id << "\n\n## Hints\n";
    for (int i = 1; i <= hints; ++i)
      page << "\n<details><summary>Hint " << i << ": step " << i << "</summary>\n\nThe text of hint " << i
           << ".\nIts second line.\n\n</details>\n";
    page << "\n<details><summary>The solution, step by step (try the hints first)</summary>\n\nno peeking\n\n</details>\n";
    write_file(root + "/" + folder + "/README.md", page.str());
    ids.push_back(id);
  }

  /// The build's catalog, as CMake writes it, listing every entry added.
  void catalog() {
    std::ostringstream j;
    j << "{\"schema\": 1, \"backends\": [\"" << backend_ << "\"], \"graded\": [";
    for (size_t i = 0; i < ids.size(); ++i) {
      const std::string& id = ids[i];
      const bool exercise = id[0] == 'x';
      const std::string folder = exercise ? "exercises/" + id.substr(1) : "chapters/" + id;
      const std::string stub = "tests/stubs/" + (exercise ? "exercises/" + id.substr(1) : id) + "/kernel.cu";
      j << (i ? ", " : "") << "{\"id\": \"" << id << "\", \"kind\": \"" << (exercise ? "exercise" : "chapter")
        << "\", \"title\": \"" << id << " title\", \"folder\": \"" << folder << "\", \"kernel_file\": \"" << folder
        << "/kernel.cu\", \"stub\": \"" << stub << "\", \"hints\": \"" << folder << "/README.md\", \"targets\": {\""
        << backend_ << "\": {\"grade\": \"grade-" << id << "-" << backend_ << "\", \"solution\": \"" << id << "."
        << backend_ << ".solution\", \"inspect\": \"inspect-" << id << "-cpu\", \"inspect_solution\": \"inspect-" << id
        << "-solution-cpu\", \"skipped\": null}}}";
    }
    j << "]}\n";
    write_file(dir + "/catalog.json", j.str());
  }

  /// A CMake build in `dir` with a custom target for each name: it succeeds, unless
  /// DIR/<name>.compile-error exists, whose text it prints before failing (a compiler's error).
  void build_folder(const std::vector<std::string>& targets) {
    const std::string step = top + "/standins/build-step.sh";
    write_file(step, "if [ -f \"" + dir + "/$1.compile-error\" ]; then cat \"" + dir + "/$1.compile-error\"; exit 1; fi\n");
    std::ostringstream cm;
    cm << "cmake_minimum_required(VERSION 3.24)\nproject(standins NONE)\n";
    for (const auto& t : targets) cm << "add_custom_target(" << t << " COMMAND sh \"" << step << "\" " << t << ")\n";
    write_file(top + "/standins/CMakeLists.txt", cm.str());
    Command configure{{"cmake", "-S", top + "/standins", "-B", dir, "-G", "Ninja"}};
    configure.log = top + "/configure.log";
    REQUIRE(run(configure).ok());
  }

  /// A stand-in program at DIR/<name> (a grader, or a tool on PATH when `dir` is given).
  void script(const std::string& name, const std::string& body, const std::string& where = "") {
    write_file((where.empty() ? dir : where) + "/" + name, "#!/bin/sh\n" + body + "\n", true);
  }

  Context context() {
    ::setenv("WB_ROOT", root.c_str(), 1);
    ::setenv("WB_BACKEND", backend_.c_str(), 1);
    ::setenv("WB_BUILD_DIR", dir.c_str(), 1);
    ::unsetenv("WB_STATE_DIR");
    ::setenv("WB_JOBS", "2", 1);
    out.str("");
    err.str("");
    return Context::from_environment(out, err);
  }

  std::string backend_;
};

}  // namespace wb::cli::test
