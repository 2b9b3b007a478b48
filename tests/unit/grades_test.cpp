// The grades document (cli/grades.hpp, `grade --json`): the catalog's entries in order, each with
// its last verdict or null, and the schema page's table of its entries.
#include "grades.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <cstdio>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include <sys/stat.h>

namespace {

std::string read_file(const std::string& path) {
  std::ifstream f(path);
  REQUIRE(f.good());
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

void write_file(const std::string& path, const std::string& text) { REQUIRE(bool(std::ofstream(path) << text)); }

// A scratch folder of grades: 01 graded (wrong), 02 never graded, x01 with a broken verdict file.
// One folder per test case: ctest runs the cases as processes side by side.
struct Scratch {
  std::string dir, catalog;
  explicit Scratch(const std::string& name)
      : dir(std::string(WB_UNIT_OUT) + "/grades-test-" + name), catalog(dir + "/catalog.json") {
    ::mkdir(dir.c_str(), 0755);
    for (const char* f : {"01-naive-add.json", "02-grid-stride.json", "x01-histogram.json"})
      std::remove((dir + "/" + f).c_str());
    write_file(catalog, R"({"schema": 1, "backends": ["cpu"], "graded": [
      {"id": "01-naive-add", "kind": "chapter", "title": "naive add", "kernel_file": "chapters/01-naive-add/naive_add.cu"},
      {"id": "02-grid-stride", "kind": "chapter", "title": "grid-stride loop", "kernel_file": "chapters/02-grid-stride/g.cu"},
      {"id": "x01-histogram", "kind": "exercise", "title": "histogram", "kernel_file": "exercises/01-histogram/h.cu"}]})");
    wb::Verdict v;
    v.id = "01-naive-add";
    v.kind = wb::VerdictKind::wrong;
    v.detail = "only the first 256 elements are right";
    REQUIRE(wb::write_verdict_file(v, dir + "/01-naive-add.json"));
    write_file(dir + "/x01-histogram.json", "{\"schema\": 1, \"kind\": ");
  }
};

}  // namespace

TEST_CASE("the grades document lists every catalog entry in order, with its last verdict", "[grades]") {
  Scratch s("order");
  const auto doc = wb::cli::grades_document(wb::cli::read_catalog(s.catalog), s.dir, "cpu");
  CHECK(doc["schema"] == 1);
  CHECK(doc["backend"] == "cpu");
  const auto& graded = doc["graded"];
  REQUIRE(graded.size() == 3);
  CHECK(graded[0]["id"] == "01-naive-add");
  CHECK(graded[1]["id"] == "02-grid-stride");
  CHECK(graded[2]["id"] == "x01-histogram");
  CHECK(graded[2]["kind"] == "exercise");
  CHECK(graded[0]["kernel_file"] == "chapters/01-naive-add/naive_add.cu");
  // graded: the verdict document itself
  REQUIRE(graded[0]["verdict"].is_object());
  CHECK(graded[0]["verdict"]["kind"] == "wrong");
  CHECK(graded[0]["verdict"]["detail"] == "only the first 256 elements are right");
  CHECK_FALSE(graded[0].contains("error"));
  // never graded: null
  CHECK(graded[1]["verdict"].is_null());
  CHECK_FALSE(graded[1].contains("error"));
  // a broken verdict file: null, and why
  CHECK(graded[2]["verdict"].is_null());
  REQUIRE(graded[2].contains("error"));
  CHECK_THAT(graded[2]["error"].get<std::string>(), Catch::Matchers::ContainsSubstring("x01-histogram.json"));
}

TEST_CASE("a file that is not the catalog is refused with its name", "[grades]") {
  Scratch s("refused");
  write_file(s.dir + "/not-a-catalog.json", R"({"schema": 1})");
  CHECK_THROWS_WITH(wb::cli::read_catalog(s.dir + "/not-a-catalog.json"),
                    Catch::Matchers::ContainsSubstring("no \"graded\" list"));
  CHECK_THROWS_WITH(wb::cli::read_catalog(s.dir + "/missing.json"), Catch::Matchers::ContainsSubstring("cannot read"));
}

TEST_CASE("the schema page lists every field of a grades document's entry", "[grades]") {
  const std::string whole = read_file(WB_VERDICT_SCHEMA_PAGE);
  const auto at = whole.find("\n## The grades document");
  REQUIRE(at != std::string::npos);
  const std::string page = whole.substr(at);
  const std::regex row(R"(\n\| `([a-z_]+)` \| ([a-z ]+) \|)");
  std::set<std::string> documented;
  for (auto it = std::sregex_iterator(page.begin(), page.end(), row); it != std::sregex_iterator(); ++it)
    documented.insert((*it)[1]);

  Scratch s("schema");
  const auto doc = wb::cli::grades_document(wb::cli::read_catalog(s.catalog), s.dir, "cpu");
  std::set<std::string> seen;
  for (const auto& entry : doc["graded"])
    for (const auto& [key, value] : entry.items()) seen.insert(key);
  CHECK(seen == documented);  // the broken file's entry shows `error`, so every field is seen
}
