// wb::Verdict (grader/include/wb/verdict.hpp): its JSON document, the block and status line made
// from it, and the schema page (docs/verdict-schema.md) against what the document holds.
#include "wb/verdict.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace {

wb::Verdict full_verdict() {
  wb::Verdict v;
  v.id = "03-coalescing";
  v.title = "memory coalescing";
  v.kernel_file = "tests/mutants/03-coalescing/naive.patch";
  v.backend = "cpu";
  v.device = "the CPU backend";
  v.kind = wb::VerdictKind::too_slow;
  v.detail = "the transpose is right but not coalesced";
  v.cause = "the transpose is right but not coalesced: a warp's reads touch 32 sectors \"per\" request\\";
  v.cause_report = "kernel fault in k, launched here\n  read of 4 bytes outside its array";
  v.fix = "stage a tile in shared memory";
  v.failing_case = "coalescing: sectors per request";
  v.other_causes = {"second", "third"};
  v.not_checked = {"elements past 2^31"};
  v.notes = {"a barrier some threads had exited before"};
  v.speed = "0.50x the solution: slower than the solution";
  v.speeds = {{0.5, 0.8, "2^28 floats: 1 GB/s"}, {1.25, 0.0, ""}};
  v.crash = wb::Crash{"SIGSEGV - Segmentation violation signal", "a misaligned float4", {"offset := 1", "n := 7"}};
  return v;
}

void require_same(const wb::Verdict& a, const wb::Verdict& b) {
  CHECK(a.id == b.id);
  CHECK(a.title == b.title);
  CHECK(a.kernel_file == b.kernel_file);
  CHECK(a.backend == b.backend);
  CHECK(a.device == b.device);
  CHECK(a.kind == b.kind);
  CHECK(a.detail == b.detail);
  CHECK(a.cause == b.cause);
  CHECK(a.cause_report == b.cause_report);
  CHECK(a.fix == b.fix);
  CHECK(a.failing_case == b.failing_case);
  CHECK(a.other_causes == b.other_causes);
  CHECK(a.not_checked == b.not_checked);
  CHECK(a.notes == b.notes);
  CHECK(a.speed == b.speed);
  REQUIRE(a.speeds.size() == b.speeds.size());
  for (std::size_t i = 0; i < a.speeds.size(); ++i) {
    CHECK(a.speeds[i].ratio == b.speeds[i].ratio);
    CHECK(a.speeds[i].minimum == b.speeds[i].minimum);
    CHECK(a.speeds[i].detail == b.speeds[i].detail);
  }
  REQUIRE(a.crash.has_value() == b.crash.has_value());
  if (a.crash) {
    CHECK(a.crash->signal == b.crash->signal);
    CHECK(a.crash->explanation == b.crash->explanation);
    CHECK(a.crash->captured == b.crash->captured);
  }
}

std::string read_file(const std::string& path) {
  std::ifstream f(path);
  REQUIRE(f.good());
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("a verdict read back from its JSON document is the same verdict", "[verdict]") {
  const wb::Verdict v = full_verdict();
  require_same(wb::verdict_from_json(wb::to_json(v)), v);

  wb::Verdict correct;  // the empty lists and no crash survive too
  correct.id = "01-naive-add";
  correct.kind = wb::VerdictKind::correct;
  const wb::Verdict back = wb::verdict_from_json(wb::to_json(correct));
  require_same(back, correct);
  CHECK_FALSE(back.crash.has_value());
}

TEST_CASE("every kind has one name, and a name that is none is refused", "[verdict]") {
  const auto kind = GENERATE(wb::VerdictKind::correct, wb::VerdictKind::wrong, wb::VerdictKind::not_started,
                             wb::VerdictKind::too_slow, wb::VerdictKind::skipped, wb::VerdictKind::crashed,
                             wb::VerdictKind::does_not_compile);
  const std::string name = wb::kind_name(kind);
  CAPTURE(name);
  REQUIRE(wb::kind_from_name(name) == kind);
  CHECK_FALSE(wb::kind_from_name("not_started").has_value());
  CHECK(wb::kind_name(wb::VerdictKind::not_started) == "not started");
  CHECK(wb::kind_name(wb::VerdictKind::does_not_compile) == "does not compile");
}

TEST_CASE("a document that is not a verdict is refused with the reason", "[verdict]") {
  using Catch::Matchers::ContainsSubstring;
  CHECK_THROWS_WITH(wb::verdict_from_json("{"), ContainsSubstring("not JSON"));
  CHECK_THROWS_WITH(wb::verdict_from_json("[1]"), ContainsSubstring("not a JSON object"));
  CHECK_THROWS_WITH(wb::verdict_from_json(R"({"schema": 2, "kind": "wrong"})"), ContainsSubstring("schema 2"));
  CHECK_THROWS_WITH(wb::verdict_from_json(R"({"schema": 1, "kind": "nearly"})"), ContainsSubstring("unknown kind"));
  CHECK_THROWS_WITH(wb::verdict_from_json(R"({"schema": 1, "kind": "wrong", "cause": 3})"),
                    ContainsSubstring("\"cause\""));
}

TEST_CASE("the printed block and the summary's why are made from the verdict", "[verdict]") {
  wb::Verdict v = full_verdict();
  CHECK(wb::verdict_block(v) ==
        "\n==== 03-coalescing (memory coalescing) on the CPU backend ====\n"
        "  verdict: too slow: the transpose is right but not coalesced\n"
        "  not checked: elements past 2^31\n"
        "  note: a barrier some threads had exited before\n"
        "  speed:   0.50x the solution: slower than the solution\n");
  CHECK(wb::why_text(v) == "the transpose is right but not coalesced; not checked: elements past 2^31; note: a barrier "
                           "some threads had exited before");

  v.title = "";
  v.device = "";
  v.detail = "";
  v.not_checked.clear();
  v.notes.clear();
  v.speed = "";
  v.detail = "line one\nline two\tand a tab";
  CHECK(wb::verdict_block(v) == "\n==== 03-coalescing ====\n  verdict: too slow: line one\n    line two\tand a tab\n");
  CHECK(wb::why_text(v) == "line one line two and a tab");  // one line
}

TEST_CASE("a long verdict line is wrapped at words, never cut", "[verdict]") {
  // cause, fix and case as a real verdict has them, far longer than one line
  const std::string detail =
      "only the first 256 elements are right: only one block ran, or every block wrote the same 256 elements (is "
      "blockIdx.x * blockDim.x part of the index?) [n = 1000, 256 threads per block] (in \"c = a + b for sizes "
      "around the block size, primes and about a million\"; 14 of 15 failed checks say the same)";
  wb::Verdict v;
  v.id = "01-naive-add";
  v.kind = wb::VerdictKind::wrong;
  v.detail = detail;
  const std::string block = wb::verdict_block(v);
  std::istringstream lines(block);
  std::string joined;
  int verdict_lines = 0;
  for (std::string line; std::getline(lines, line);) {
    CHECK(line.size() <= wb::verdict_block_width);
    if (line.rfind("  verdict: ", 0) == 0 || (verdict_lines > 0 && line.rfind("    ", 0) == 0)) {
      ++verdict_lines;
      joined += (joined.empty() ? "" : " ") + line.substr(line.find_first_not_of(' '));
    }
  }
  CHECK(verdict_lines >= 3);
  CHECK(joined == "verdict: wrong: " + detail);  // every word is there, in order: nothing cut
  CHECK(block.find("...") == std::string::npos);

  // a word longer than a line stays whole on its own line
  const std::string word(130, 'x');
  CHECK(wb::wrap_words("a " + word + " b", 100, "  ") == "a\n  " + word + "\n  b");
  CHECK(wb::wrap_words("short", 100, "  ") == "short");
  CHECK(wb::wrap_words("one two three", 8, "") == "one two\nthree");
}

namespace {

wb::FailedCheck check(const std::string& diagnosis, const std::string& where, bool certain = false,
                      bool nothing_written = false) {
  return {diagnosis + " [" + where + "]", wb::cause_key(diagnosis), "", "case " + where, certain, nothing_written};
}

}  // namespace

TEST_CASE("diagnoses that differ only in their numbers are one cause", "[verdict][lead]") {
  CHECK(wb::cause_key("only the first 256 elements are right (blocks of 256)") ==
        wb::cause_key("only the first 32 elements are right (blocks of 32)"));
  CHECK(wb::cause_key("only the first 256 elements are right") == "only the first # elements are right");
  CHECK(wb::cause_key("the last partial block is missing: n = 257") != wb::cause_key("only the first 256 elements"));
}

TEST_CASE("the cause most failed checks share leads, not the first one met", "[verdict][lead]") {
  // chapter 01 with the block index left out: n = 257 loses only its last element (which reads as
  // a block count rounded down); every larger case shows that only the first block's elements are right
  const std::vector<wb::FailedCheck> checks{
      check("the last partial block is missing: n = 257 is not a multiple of 256", "n = 257"),
      check("only the first 256 elements are right", "n = 1000"),
      check("only the first 256 elements are right", "n = 65537"),
      check("only the first 32 elements are right", "n = 100003, 32 threads"),
  };
  REQUIRE(wb::leading_check(checks) == 1);  // the first of the largest group
  CHECK(wb::checks_like(checks, 1) == 3);
  CHECK(wb::checks_like(checks, 0) == 1);
}

TEST_CASE("a tie goes to the cause met first", "[verdict][lead]") {
  const std::vector<wb::FailedCheck> checks{check("wrong values, first at c[0]", "n = 1"),
                                            check("an element past n was written", "n = 31"),
                                            check("wrong values, first at c[5]", "n = 32"),
                                            check("an element past n was written", "n = 33")};
  CHECK(wb::leading_check(checks) == 0);
  CHECK(wb::leading_check({}) == 0);
}

TEST_CASE("a certain cause leads however many guesses outnumber it", "[verdict][lead]") {
  const std::vector<wb::FailedCheck> checks{
      check("blocks overwrite one another's work: use atomicAdd", "n = 1000"),
      check("blocks overwrite one another's work: use atomicAdd", "n = 65537"),
      check("kernel fault: shared-memory race on `bins` at byte offset 12", "n = 31", true),
      check("blocks overwrite one another's work: use atomicAdd", "n = 1000003"),
      check("kernel fault: shared-memory race on `bins` at byte offset 40", "n = 33", true),
      check("kernel fault: a __syncthreads() reached by part of the block", "n = 17", true),
  };
  CHECK(wb::leading_check(checks) == 2);  // the most common of the certain ones
}

TEST_CASE("nothing written leads only when no failed check found anything written", "[verdict][lead]") {
  // chapter 04 with *sum cleared after the early return for n = 0: only n = 0 finds nothing
  const std::vector<wb::FailedCheck> some{check("*sum still holds what it held before the call", "n = 0", false, true),
                                          check("*sum still holds what it held before the call", "n = 0, 2", false, true),
                                          check("the sum is 3 too large", "n = 1000")};
  CHECK(wb::leading_check(some) == 2);
  const std::vector<wb::FailedCheck> none{check("no element of c was written", "n = 1", false, true),
                                          check("no element of c was written", "n = 31", false, true)};
  CHECK(wb::leading_check(none) == 0);
}

TEST_CASE("a diagnosis that is not UTF-8 still makes a document", "[verdict]") {
  wb::Verdict v;
  v.kind = wb::VerdictKind::wrong;
  v.cause = std::string("got \xff\xfe from the kernel");
  const wb::Verdict back = wb::verdict_from_json(wb::to_json(v));
  CHECK(back.kind == wb::VerdictKind::wrong);
  CHECK(back.cause.rfind("got ", 0) == 0);
}

TEST_CASE("the verdict file is written whole, where it is asked for", "[verdict]") {
  const std::string path = std::string(WB_UNIT_OUT) + "/verdict_test.json";
  std::remove(path.c_str());
  REQUIRE(wb::write_verdict_file(full_verdict(), path));
  require_same(wb::verdict_from_json(read_file(path)), full_verdict());
  std::ifstream tmp(path + ".tmp");
  CHECK_FALSE(tmp.good());  // renamed over the file, nothing left beside it
  CHECK_FALSE(wb::write_verdict_file(full_verdict(), std::string(WB_UNIT_OUT) + "/no/such/folder/v.json"));
}

TEST_CASE("the schema page lists every field the document has", "[verdict]") {
  // Rows of the page's table: | `field` | type | meaning |
  // The verdict's own table: the page up to the grades document's section.
  const std::string whole = read_file(WB_VERDICT_SCHEMA_PAGE);
  const std::string page = whole.substr(0, whole.find("\n## The grades document"));
  REQUIRE(page.size() < whole.size());
  const std::regex row(R"(\n\| `([a-z_]+)` \| ([a-z ]+) \|)");
  std::map<std::string, std::string> documented;
  for (auto it = std::sregex_iterator(page.begin(), page.end(), row); it != std::sregex_iterator(); ++it)
    documented[(*it)[1]] = (*it)[2];
  REQUIRE_FALSE(documented.empty());

  const auto type_of = [](const nlohmann::json& j) -> std::string {
    if (j.is_number()) return "number";
    if (j.is_string()) return "string";
    if (j.is_array()) return j.empty() || j.front().is_string() ? "list of strings" : "list of objects";
    if (j.is_object()) return "object";
    return "null";
  };
  // A verdict with every optional part set, so each field shows its type.
  const auto doc = nlohmann::json::parse(wb::to_json(full_verdict()));
  for (const auto& [key, value] : doc.items()) {
    CAPTURE(key);
    REQUIRE(documented.count(key) == 1);
    const std::string type = type_of(value);
    CAPTURE(type, documented[key]);
    CHECK(documented[key].rfind(type, 0) == 0);  // "object or null" begins with "object"
  }
  for (const auto& [key, type] : documented) {
    CAPTURE(key);
    CHECK(doc.contains(key));
  }
  // The example on the page is a document the reader accepts.
  const auto begin = page.find("```json\n"), end = page.find("\n```", begin + 8);
  REQUIRE(begin != std::string::npos);
  REQUIRE(end != std::string::npos);
  const wb::Verdict example = wb::verdict_from_json(page.substr(begin + 8, end - begin - 8));
  CHECK(example.kind == wb::VerdictKind::not_started);
}

TEST_CASE("a grader's progress file: written, read back, and nothing where there is none", "[verdict]") {
  const std::string path = std::string(WB_UNIT_OUT) + "/progress-test.json";
  wb::write_progress_file({"a case, with \"quotes\"", "its section"}, path);
  const auto p = wb::read_progress_file(path);
  REQUIRE(p);
  CHECK(p->test_case == "a case, with \"quotes\"");
  CHECK(p->section == "its section");
  CHECK_FALSE(wb::read_progress_file(path + ".none"));
  std::ofstream(path, std::ios::trunc) << "{\"case\": \"cut sh";  // a grader killed while writing it
  CHECK_FALSE(wb::read_progress_file(path));
}
