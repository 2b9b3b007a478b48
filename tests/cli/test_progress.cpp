// status, hint and reset in a scratch repository, and the hints' markup on every real page.
// Label `cli`.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "support.hpp"

using Catch::Matchers::ContainsSubstring;
using namespace wb::cli;
using namespace wb::cli::test;
using wb::Verdict;
using wb::VerdictKind;

namespace {
void write_verdict(const std::string& path, const Verdict& v) {
  fs::create_directories(fs::path(path).parent_path());
  REQUIRE(wb::write_verdict_file(v, path));
}
void set_age(const std::string& path, std::chrono::seconds ago) {
  fs::last_write_time(path, fs::file_time_type::clock::now() - ago);
}
}  // namespace

TEST_CASE("status: a row per chapter and exercise from the kept verdicts, nothing built", "[cli]") {
  Scratch s;
  for (const char* id : {"01-naive-add", "02-grid-stride", "03-coalescing", "x01-histogram", "x02-scan"}) s.add(id);
  const std::string g = s.dir + "/grades";
  write_verdict(g + "/01-naive-add.json",
                verdict("01-naive-add", VerdictKind::correct, "", "1.02x the solution: at the solution's speed (2^28 floats: 3500 GB/s)"));
  write_verdict(g + "/02-grid-stride.json", verdict("02-grid-stride", VerdictKind::wrong, "only the first 256 elements are right"));
  write_file(g + "/02-grid-stride.speed", "0.41x the solution: much slower than the solution\n");
  write_verdict(g + "/03-coalescing.json", verdict("03-coalescing", VerdictKind::too_slow, "not coalesced"));
  Verdict crashed = verdict("x01-histogram", VerdictKind::crashed, "SIGSEGV in \"a large input\"");
  crashed.not_checked = {"inputs past 2^31 bytes"};
  write_verdict(g + "/x01-histogram.json", crashed);
  using std::chrono::hours;
  for (const char* f : {"chapters/01-naive-add", "chapters/02-grid-stride", "chapters/03-coalescing", "exercises/01-histogram",
                        "exercises/02-scan"})
    set_age(s.root + "/" + f + "/kernel.cu", hours(4));
  for (const auto& f : fs::directory_iterator(g)) set_age(f.path().string(), hours(3));
  write_file(s.root + "/chapters/03-coalescing/kernel.cu", "// edited since its last grade\n");

  s.context();
  ::unsetenv("WB_BUILD_DIR");  // the default folder, build/cpu: the other backend's is looked at too
  Context c = Context::from_environment(s.out, s.err);
  REQUIRE(status(c, {}) == 0);
  const std::string out = s.out.str();
  CHECK_THAT(out, ContainsSubstring("chapter            verdict           why / last speed"));
  CHECK_THAT(out, ContainsSubstring("01-naive-add       correct           1.02x the solution: at the solution's speed (2^28 floats: "
                                    "3500 GB/s) (graded 3 h ago)"));
  CHECK_THAT(out, ContainsSubstring("02-grid-stride     wrong             only the first 256 elements are right; last timed 3 h ago: "
                                    "0.41x the solution"));
  CHECK_THAT(out, ContainsSubstring("03-coalescing      too slow          not coalesced (graded 3 h ago, file changed since)"));
  CHECK_THAT(out, ContainsSubstring("x01-histogram      crashed           SIGSEGV in \"a large input\"; not checked: inputs past 2^31 bytes"));
  CHECK_THAT(out, ContainsSubstring("x02-scan           not graded        run: bash cmake/workbook.sh grade x02"));
  CHECK_THAT(out, ContainsSubstring("1 of 5 correct; 1 not graded yet."));
  CHECK_THAT(out, !ContainsSubstring("kept apart"));

  write_verdict(s.root + "/build/gpu/grades/01-naive-add.json", verdict("01-naive-add", VerdictKind::correct, "", "0.98x"));
  s.out.str("");
  status(c, {});
  CHECK_THAT(s.out.str(), ContainsSubstring("Grades on the GPU are kept apart: WB_BACKEND=cuda bash cmake/workbook.sh status"));
  s.out.str("");
  status(c, {"hist"});
  CHECK_THAT(s.out.str(), ContainsSubstring("x01-histogram"));
  CHECK_THAT(s.out.str(), !ContainsSubstring("01-naive-add "));
}

TEST_CASE("hint: one at a time, remembered, then the end; never the solution", "[cli]") {
  Scratch s;
  s.add("01-naive-add", 3);
  s.add("x01-histogram", 2);
  s.add("02-grid-stride", 0);
  Context c = s.context();
  auto says = [&](const std::string& name, std::optional<int> which = std::nullopt, bool reset = false) {
    s.out.str("");
    REQUIRE(hint(c, name, which, reset) == 0);
    return s.out.str();
  };
  std::string out = says("1");
  CHECK_THAT(out, ContainsSubstring("Hint 1 of 3 for 01-naive-add: step 1"));
  CHECK_THAT(out, ContainsSubstring("  The text of hint 1.\n  Its second line.\n"));
  CHECK_THAT(out, ContainsSubstring("2 more hints: bash cmake/workbook.sh hint 01"));
  CHECK_THAT(out, !ContainsSubstring("hint 2"));
  out = says("naive");
  CHECK_THAT(out, ContainsSubstring("Hint 2 of 3 for 01-naive-add: step 2"));
  CHECK_THAT(out, ContainsSubstring("1 more hint: bash cmake/workbook.sh hint 01"));
  out = says("01");
  CHECK_THAT(out, ContainsSubstring("Hint 3 of 3 for 01-naive-add: step 3"));
  CHECK_THAT(out, ContainsSubstring("That was the last hint."));
  out = says("01");
  CHECK_THAT(out, ContainsSubstring("All 3 hints of 01-naive-add are shown"));
  CHECK_THAT(out, !ContainsSubstring("no peeking"));
  CHECK_THAT(says("01", 2), ContainsSubstring("Hint 2 of 3 for 01-naive-add: step 2"));
  CHECK_THROWS_AS(hint(c, "01", 4, false), UsageError);
  CHECK_THAT(says("x01"), ContainsSubstring("Hint 1 of 2 for x01-histogram: step 1"));  // hints per chapter
  CHECK_THAT(says("01", std::nullopt, true), ContainsSubstring("the next bash cmake/workbook.sh hint 01 shows hint 1 of 3"));
  CHECK_THAT(says("01"), ContainsSubstring("Hint 1 of 3 for 01-naive-add"));
  CHECK_THAT(says("02"), ContainsSubstring("chapters/02-grid-stride/README.md has no hints."));
}

TEST_CASE("reset: asks, keeps the learner's version, puts the stub back", "[cli]") {
  Scratch s;
  s.add("01-naive-add");
  Context c = s.context();
  const std::string file = s.root + "/chapters/01-naive-add/kernel.cu", stub = slurp(file);
  auto reset_with = [&](const std::string& answer, bool yes = false) {
    std::istringstream in(answer);
    s.out.str("");
    CHECK(reset(c, "01", yes, in) == 0);
    return s.out.str();
  };
  CHECK_THAT(reset_with(""), ContainsSubstring("is already the stub: nothing to do."));
  write_file(file, "// my work\n");
  CHECK_THAT(reset_with("n\n"), ContainsSubstring("Nothing changed."));
  CHECK(slurp(file) == "// my work\n");
  const std::string out = reset_with("y\n");
  CHECK_THAT(out, ContainsSubstring("Replace chapters/01-naive-add/kernel.cu with the stub?"));
  CHECK_THAT(out, ContainsSubstring("is the stub again. Your version: build/backups/01-naive-add/kernel.cu."));
  CHECK(slurp(file) == stub);
  int backups = 0;
  for (const auto& f : fs::directory_iterator(s.root + "/build/backups/01-naive-add")) {
    ++backups;
    CHECK(slurp(f.path().string()) == "// my work\n");
  }
  CHECK(backups == 1);
  fs::remove(file);
  CHECK_THAT(reset_with("", true), ContainsSubstring("was missing: it is the stub again."));
  CHECK(slurp(file) == stub);
  fs::remove(s.root + "/tests/stubs/01-naive-add/kernel.cu");
  write_file(file, "// more work\n");
  std::istringstream in("y\n");
  CHECK(reset(c, "01", true, in) == 1);
  CHECK_THAT(s.err.str(), ContainsSubstring("is missing from this checkout"));
  CHECK(slurp(file) == "// more work\n");
}

TEST_CASE("every real chapter's and exercise's hints: numbered 1..N, each with text", "[cli]") {
  int pages = 0;
  for (const std::string top : {"chapters", "exercises"})
    for (const auto& d : fs::directory_iterator(std::string(WB_TEST_ROOT) + "/" + top)) {
      const std::string page = d.path().string() + "/README.md";
      if (!d.is_directory() || !exists(page)) continue;
      const auto hints = hints_of(page);
      if (hints.empty()) continue;
      ++pages;
      CAPTURE(page);
      for (size_t i = 0; i < hints.size(); ++i) {
        CHECK(hints[i].number == int(i + 1));
        CHECK_FALSE(hints[i].title.empty());
        CHECK_FALSE(hints[i].lines.empty());
      }
      // Every <details> is closed on its own line: an unclosed one would run into the next.
      const std::string text = slurp(page);
      size_t opened = 0, closed = 0;
      for (size_t at = 0; (at = text.find("\n<details>", at)) != std::string::npos; ++at) ++opened;
      for (size_t at = 0; (at = text.find("\n</details>", at)) != std::string::npos; ++at) ++closed;
      CHECK(opened == closed);
    }
  CHECK(pages >= 10);
}
