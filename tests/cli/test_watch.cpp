// watch, run as the learner runs it (the real program, in its own process): a save re-grades that
// chapter, a save made during a grade is graded next, other files' saves do not, and SIGINT
// (Ctrl-C) stops it cleanly with exit status 0; with file events and with polling. Label `cli`.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "support.hpp"

using Catch::Matchers::ContainsSubstring;
using namespace wb::cli;
using namespace wb::cli::test;

namespace {

struct Watching {
  pid_t pid = -1;
  std::string log;
  Watching(Scratch& s, const std::vector<std::string>& args, const std::vector<std::string>& env) {
    log = s.top + "/watch.log";
    s.context();  // WB_ROOT, WB_BACKEND, WB_BUILD_DIR for the child
    pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      for (const auto& e : env) ::putenv(const_cast<char*>(e.c_str()));
      const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(fd, 1);
      ::dup2(fd, 2);
      std::vector<std::string> argv = {WB_CLI_EXE, "watch"};
      argv.insert(argv.end(), args.begin(), args.end());
      std::vector<char*> p;
      for (auto& a : argv) p.push_back(a.data());
      p.push_back(nullptr);
      ::execv(p[0], p.data());
      ::_exit(127);
    }
  }
  std::string text() const { return exists(log) ? slurp(log) : ""; }
  int count(const std::string& what) const {
    const std::string t = text();
    int n = 0;
    for (size_t at = 0; (at = t.find(what, at)) != std::string::npos; at += what.size()) ++n;
    return n;
  }
  // Waits up to 30 s for `what` to have appeared `times` times.
  bool wait_for(const std::string& what, int times = 1) const {
    for (int i = 0; i < 300; ++i) {
      if (count(what) >= times) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }
  int stop() {
    ::kill(pid, SIGINT);
    int status = 0;
    ::waitpid(pid, &status, 0);
    pid = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  ~Watching() {
    if (pid > 0) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
  }
};

void save(const std::string& file, const std::string& text) {
  std::ofstream(file, std::ios::app) << text;
}

}  // namespace

TEST_CASE("watch re-grades a chapter each time its file is saved, until Ctrl-C", "[cli]") {
  Scratch s;
  s.add("01-naive-add");
  s.add("02-grid-stride");
  s.catalog();
  s.build_folder({"grade-01-naive-add-cpu", "grade-02-grid-stride-cpu"});
  // A stand-in grader (the terminal shows "== ID: grading" for each run); the first grade of 01 takes a second when asked to (a
  // save lands while it runs).
  for (const char* id : {"01-naive-add", "02-grid-stride"})
    s.script(std::string("grade-") + id + "-cpu",
             std::string("echo GRADED ") + id + "\n[ -f '" + s.top + "/slow' ] && rm '" + s.top + "/slow' && sleep 1\n" +
                 writes_verdict(verdict(id, wb::VerdictKind::correct)));
  const std::string f1 = s.root + "/chapters/01-naive-add/kernel.cu", f2 = s.root + "/chapters/02-grid-stride/kernel.cu";

  for (const bool polling : {false, true}) {
    DYNAMIC_SECTION((polling ? "looking every 0.2 s" : "file events")) {
      std::vector<std::string> env = {"WB_WATCH_INTERVAL=0.2"};
      env.push_back(polling ? "WB_WATCH_POLL=1" : "WB_WATCH_POLL=");
      {
        Watching w(s, {"1", "2"}, env);
        REQUIRE(w.wait_for(polling ? "Watching 2 files (looking every 0.2 s)" : "Watching 2 files (file events)"));
        CHECK(w.count(": grading") == 0);  // several files: nothing is graded before a save
        save(f2, "// edited\n");
        REQUIRE(w.wait_for("chapters/02-grid-stride/kernel.cu changed"));
        REQUIRE(w.wait_for("== 02-grid-stride: grading"));
        // An editor that writes a new file and renames it over the old one.
        write_file(s.top + "/new.cu", slurp(f1) + "// edited too\n");
        fs::rename(s.top + "/new.cu", f1);
        REQUIRE(w.wait_for("== 01-naive-add: grading"));
        std::this_thread::sleep_for(std::chrono::milliseconds(600));
        CHECK(w.count(": grading") == 2);  // one grade per save
        CHECK(w.stop() == 0);
        CHECK_THAT(w.text(), ContainsSubstring("Stopped watching."));
      }
      {
        // One chapter: graded at once, then at each save; a save during a grade is graded next.
        Watching w(s, {"naive"}, env);
        REQUIRE(w.wait_for("Watching 1 file"));
        CHECK(w.count("== 01-naive-add: grading") == 1);
        write_file(s.top + "/slow", "");
        save(f1, "// saved\n");
        REQUIRE(w.wait_for("== 01-naive-add: grading", 2));
        std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the slow grade runs
        save(f1, "// saved during the grade\n");
        CHECK(w.wait_for("== 01-naive-add: grading", 3));
        CHECK(w.stop() == 0);
      }
    }
  }
}
