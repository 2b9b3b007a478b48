// The grade command: naming chapters, the verdict block, the summary row of a grader that is
// correct, crashes, does not compile or ends without a verdict (stand-in graders), and the grades
// document. Label `cli`.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "grades.hpp"
#include "support.hpp"

using Catch::Matchers::ContainsSubstring;
using namespace wb::cli;
using namespace wb::cli::test;
using wb::Verdict;
using wb::VerdictKind;

TEST_CASE("a chapter or exercise is named by number, by x and number, or by part of its name", "[cli]") {
  Scratch s;
  for (const char* id : {"01-naive-add", "02-grid-stride", "03-coalescing", "04-reduction", "05-autograd",
                         "x01-histogram", "x02-scan", "x03-sgemm", "x07-warp-reduce"})
    s.add(id);
  s.catalog();
  Context c = s.context();
  const std::pair<const char*, const char*> pairs[] = {
      {"1", "01-naive-add"},     {"01", "01-naive-add"},    {"ch1", "01-naive-add"},     {"ch01", "01-naive-add"},
      {"CH04", "04-reduction"},  {"naive", "01-naive-add"}, {"grid", "02-grid-stride"},  {"01-naive-add", "01-naive-add"},
      {"x3", "x03-sgemm"},       {"x03", "x03-sgemm"},      {"x1", "x01-histogram"},     {"hist", "x01-histogram"},
      {"7", "x07-warp-reduce"},  {"reduction", "04-reduction"}};
  for (const auto& [name, id] : pairs) {
    CAPTURE(name);
    CHECK(resolve(c, name) == id);
  }
  try {
    resolve(c, "re");
    FAIL("'re' names two: it must be refused");
  } catch (const UsageError& e) {
    CHECK_THAT(e.what(), ContainsSubstring("matches more than one") && ContainsSubstring("04-reduction") &&
                             ContainsSubstring("x07-warp-reduce"));
  }
  try {
    resolve(c, "9");
    FAIL("no chapter 9");
  } catch (const UsageError& e) {
    CHECK_THAT(e.what(), ContainsSubstring("no chapter or exercise matches '9'"));
  }
  CHECK_THROWS_AS(resolve(c, "ch7"), UsageError);  // ch names chapters only
  CHECK_THROWS_AS(resolve_all(c, {"1", "bogus"}), UsageError);
  CHECK(resolve_all(c, {}).size() == 9);
}

TEST_CASE("without a catalog, the folders name the chapters and exercises", "[cli]") {
  Scratch s;
  s.add("01-naive-add");
  s.add("x02-scan");
  Context c = s.context();
  REQUIRE(c.entries.size() == 2);
  CHECK(c.entries[0].id == "01-naive-add");
  CHECK(c.entries[0].kernel_file == "chapters/01-naive-add/kernel.cu");
  CHECK(c.entries[1].id == "x02-scan");
  CHECK(c.entries[1].stub == "tests/stubs/exercises/02-scan/kernel.cu");
  CHECK(c.entries[1].hints == "exercises/02-scan/README.md");
}

namespace {
std::string grade_text(Scratch& s, const std::string& id, bool verbose = false) {
  Context c = s.context();
  std::ostringstream out;
  grade_one(c, id, verbose, out);
  return out.str();
}
Verdict kept(Scratch& s, const std::string& id) { return read_verdict_file(s.dir + "/grades/" + id + ".json"); }
}  // namespace

TEST_CASE("grade: the grader's verdict block, the log kept, and each way a grader can end", "[cli]") {
  Scratch s;
  for (const char* id : {"01-naive-add", "02-grid-stride", "03-coalescing", "04-reduction", "05-autograd"}) s.add(id);
  s.catalog();
  s.build_folder({"grade-01-naive-add-cpu", "grade-02-grid-stride-cpu", "grade-03-coalescing-cpu",
                  "grade-04-reduction-cpu", "grade-05-autograd-cpu"});
  Verdict ok = verdict("01-naive-add", VerdictKind::correct, "", "not timed");
  ok.title = "naive add";
  ok.device = "the CPU backend";
  s.script("grade-01-naive-add-cpu", "echo 'lots of Catch2 output'\n" + writes_verdict(ok));

  SECTION("a correct verdict: its block, no Catch2 noise, the log") {
    const std::string out = grade_text(s, "01-naive-add");
    CHECK_THAT(out, ContainsSubstring("==== 01-naive-add (naive add) on the CPU backend ===="));
    CHECK_THAT(out, ContainsSubstring("  verdict: correct"));
    CHECK_THAT(out, ContainsSubstring("  speed:   not timed"));
    CHECK_THAT(out, ContainsSubstring("(full log: build/cpu/grades/01-naive-add.log)"));
    CHECK_THAT(out, !ContainsSubstring("lots of Catch2 output"));
    CHECK_THAT(slurp(s.dir + "/grades/01-naive-add.log"), ContainsSubstring("lots of Catch2 output"));
    CHECK(kept(s, "01-naive-add").kind == VerdictKind::correct);
    CHECK_FALSE(exists(s.dir + "/grades/01-naive-add.speed"));  // "not timed" is no speed to keep
    CHECK_THAT(grade_text(s, "01-naive-add", true), ContainsSubstring("lots of Catch2 output"));
  }
  SECTION("the line that says the timing began comes as it comes, nothing else of the log") {
    Verdict timed = ok;
    timed.device = "NVIDIA H200";
    timed.speed = "1.01x the solution: at the solution's speed";
    s.script("grade-01-naive-add-cpu",
             "echo 'Catch2 output before'\necho '  correct so far: every check passed; now timing your kernel against the "
             "solution'\necho 'Catch2 output after'\n" + writes_verdict(timed));
    const std::string out = grade_text(s, "01-naive-add");
    CHECK_THAT(out, ContainsSubstring("  correct so far: every check passed; now timing"));
    CHECK_THAT(out, !ContainsSubstring("Catch2 output"));
    CHECK_THAT(out, ContainsSubstring("==== 01-naive-add (naive add) on NVIDIA H200 ===="));
    CHECK(out.find("correct so far") < out.find("  verdict: correct"));
    CHECK(slurp(s.dir + "/grades/01-naive-add.speed") == "1.01x the solution: at the solution's speed\n");
  }
  SECTION("Catch2 caught the signal: it wrote the verdict, with the case and its captured values, then died") {
    Verdict v = verdict("02-grid-stride", VerdictKind::wrong, "SIGSEGV - Segmentation violation signal");
    v.failing_case = "y += x on pointers that are not 16-byte aligned";
    v.crash = wb::Crash{"SIGSEGV - Segmentation violation signal", "", {"offset := 1"}};
    s.script("grade-02-grid-stride-cpu", writes_verdict(v) + "kill -SEGV $$");
    const std::string out = grade_text(s, "02-grid-stride");
    CHECK_THAT(out, ContainsSubstring("verdict: crashed: SIGSEGV in \"y += x on pointers that are not 16-byte aligned\" "
                                      "(offset := 1)"));
    const Verdict k = kept(s, "02-grid-stride");
    CHECK(k.kind == VerdictKind::crashed);
    REQUIRE(k.crash);
    CHECK(k.crash->signal == "SIGSEGV");
  }
  SECTION("the grader named the signal's cause: the row keeps it, the case once") {
    Verdict v = verdict("02-grid-stride", VerdictKind::wrong, "SIGSEGV - ...: thread (0,0,0) overflowed its stack");
    v.crash = wb::Crash{"SIGSEGV - Segmentation violation signal",
                        "thread (0,0,0), block (0,0,0) of k overflowed its 256 KiB stack", {}};
    s.script("grade-02-grid-stride-cpu",
             "echo '{\"case\": \"a case\", \"section\": \"\"}' >\"$WB_PROGRESS_FILE\"\n" + writes_verdict(v) + "kill -SEGV $$");
    const std::string out = grade_text(s, "02-grid-stride");
    CHECK_THAT(out, ContainsSubstring("verdict: crashed: SIGSEGV in \"a case\": thread (0,0,0), block (0,0,0) of k "
                                      "overflowed its 256 KiB stack\n"));
  }
  SECTION("killed before any verdict: the progress file says where") {
    s.script("grade-03-coalescing-cpu",
             "echo '{\"case\": \"a large matrix\", \"section\": \"the second half\"}' >\"$WB_PROGRESS_FILE\"\nkill -KILL $$");
    const std::string out = grade_text(s, "03-coalescing");
    CHECK_THAT(out, ContainsSubstring("verdict: crashed: SIGKILL in \"a large matrix\", section \"the second half\""));
    CHECK_FALSE(exists(s.dir + "/grades/03-coalescing.progress"));
  }
  SECTION("a wrong verdict, then a crash Catch2 did not catch: both are in the row") {
    s.script("grade-04-reduction-cpu",
             writes_verdict(verdict("04-reduction", VerdictKind::wrong, "the sum is 3, expected 4")) +
                 "echo '{\"case\": \"a case\", \"section\": \"\"}' >\"$WB_PROGRESS_FILE\"\nkill -ABRT $$");
    CHECK_THAT(grade_text(s, "04-reduction"),
               ContainsSubstring("verdict: crashed: SIGABRT in \"a case\"; before it: wrong: the sum is 3, expected 4"));
  }
  SECTION("an exit without a verdict and without a signal") {
    s.script("grade-05-autograd-cpu", "exit 1");
    CHECK_THAT(grade_text(s, "05-autograd"), ContainsSubstring("verdict: crashed: the grader ended (exit status 1) without a verdict"));
    CHECK(kept(s, "05-autograd").kind == VerdictKind::crashed);
  }
  SECTION("a grader that is not there (a target that built nothing) is a crash with its reason, not a hang") {
    fs::remove(s.dir + "/grade-05-autograd-cpu");
    CHECK_THAT(grade_text(s, "05-autograd"), ContainsSubstring("verdict: crashed: the grader ended (exit status 127)"));
  }
  SECTION("does not compile: the first error in the learner's file, kept for status") {
    write_file(s.dir + "/grade-01-naive-add-cpu.compile-error",
               "In file included from x.cpp:1:\n" + s.root + "/other/place.h:3:1: error: not this one\n" + s.root +
                   "/chapters/01-naive-add/kernel.cu:20:3: error: expected ';' before 'int'\n");
    const std::string out = grade_text(s, "01-naive-add");
    CHECK_THAT(out, ContainsSubstring("does not compile: chapters/01-naive-add/kernel.cu:20:3: error: expected ';' before 'int'"));
    CHECK_THAT(out, ContainsSubstring("(whole compiler output: build/cpu/grades/01-naive-add.log)"));
    const Verdict k = kept(s, "01-naive-add");
    CHECK(k.kind == VerdictKind::does_not_compile);
    CHECK(k.kernel_file == "chapters/01-naive-add/kernel.cu");
  }
  SECTION("the summary has a row for each, crashed ones included, none too long") {
    s.script("grade-03-coalescing-cpu", "kill -KILL $$");
    s.script("grade-02-grid-stride-cpu", writes_verdict(verdict("02-grid-stride", VerdictKind::wrong, std::string(400, 'w'))));
    Context c = s.context();
    std::ostringstream sink, out;
    for (const char* id : {"01-naive-add", "02-grid-stride", "03-coalescing"}) grade_one(c, id, false, sink);
    print_summary(c, {"01-naive-add", "02-grid-stride", "03-coalescing", "05-autograd"}, out);
    const std::string t = out.str();
    CHECK_THAT(t, ContainsSubstring("Summary (CPU backend: correctness only; full logs in build/cpu/grades/)"));
    CHECK_THAT(t, ContainsSubstring("  01-naive-add       correct           not timed"));
    CHECK_THAT(t, ContainsSubstring("  03-coalescing      crashed           SIGKILL"));
    CHECK_THAT(t, ContainsSubstring("  05-autograd        ?"));
    std::istringstream lines(t);
    for (std::string line; std::getline(lines, line);) CHECK(line.size() <= 240);
  }
}

TEST_CASE("grade --json: the grades document lists every entry of the catalog, graded or not", "[cli]") {
  Scratch s;
  s.add("01-naive-add");
  s.add("x07-warp-reduce");
  s.catalog();
  s.build_folder({"grade-01-naive-add-cpu", "grade-x07-warp-reduce-cpu"});
  s.script("grade-01-naive-add-cpu", writes_verdict(verdict("01-naive-add", VerdictKind::wrong, "only one block ran")));
  Context c = s.context();
  GradeOptions json;
  json.json = true;
  REQUIRE(grade(c, {"1"}, json) == 0);
  const std::string doc = s.out.str();
  CHECK_THAT(s.err.str(), ContainsSubstring("== 01-naive-add: grading"));  // the grading on stderr
  CHECK_THAT(doc, !ContainsSubstring("== 01-naive-add"));
  CHECK(doc == slurp(s.dir + "/grades.json"));
  const auto j = nlohmann::json::parse(doc);
  REQUIRE(j["graded"].size() == 2);
  CHECK(j["graded"][0]["id"] == "01-naive-add");
  CHECK(j["graded"][0]["verdict"]["kind"] == "wrong");
  CHECK(j["graded"][1]["verdict"].is_null());
}
