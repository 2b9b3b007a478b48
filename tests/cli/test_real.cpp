// The command for real, in this build folder (CPU backend): the bootstrap as the README runs it,
// a real grade of chapter 01 with whatever its file holds, and grade --json. Label `cli`.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <regex>

#include <nlohmann/json.hpp>

#include "wb.hpp"

using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::StartsWith;
using namespace wb::cli;

namespace {

struct Result {
  Exit exit;
  std::string out;
};

// bash cmake/workbook.sh ARGS with this build's program and folder; stdout and stderr together,
// or stdout alone (the log gets stderr).
Result workbook(const std::vector<std::string>& args, const std::map<std::string, std::string>& env = {},
                bool stdout_only = false) {
  Command cmd{{"bash", std::string(WB_TEST_ROOT) + "/cmake/workbook.sh"}};
  cmd.argv.insert(cmd.argv.end(), args.begin(), args.end());
  if (stdout_only) cmd.argv = {"sh", "-c", "exec \"$@\" 2>/dev/null", "sh", cmd.argv[0], cmd.argv[1]};
  if (stdout_only) cmd.argv.insert(cmd.argv.end(), args.begin(), args.end());
  cmd.set_env = {{"WB_BACKEND", "cpu"}, {"WB_NO_CONFIGURE", "1"}, {"WB_BUILD_DIR", WB_TEST_BUILD}, {"WB_CLI", WB_CLI_EXE}};
  for (const auto& [k, v] : env) cmd.set_env[k] = v;
  Result r;
  r.exit = run(cmd, [&r](const std::string& line) { r.out += line + "\n"; });
  return r;
}

}  // namespace

TEST_CASE("grade 1 for real: the verdict block, the log, the summary; --verbose streams the log", "[cli]") {
  Result r = workbook({"grade", "1"});
  CHECK(r.exit.ok());
  CHECK_THAT(r.out, ContainsSubstring("==== 01-naive-add (naive add) on the CPU backend ===="));
  CHECK_THAT(r.out, ContainsSubstring("  verdict: "));
  CHECK_THAT(r.out, ContainsSubstring("(full log: "));
  CHECK_THAT(r.out, ContainsSubstring("Summary (CPU backend: correctness only"));
  CHECK_THAT(r.out, !ContainsSubstring("Randomness seeded to"));
  CHECK(exists(std::string(WB_TEST_BUILD) + "/grades/01-naive-add.json"));
  r = workbook({"grade", "naive", "--verbose"});
  CHECK_THAT(r.out, ContainsSubstring("Randomness seeded to"));
  CHECK_THAT(r.out, ContainsSubstring("==== 01-naive-add (naive add) on the CPU backend ===="));
  r = workbook({"grade", "nosuchchapter"});
  CHECK(r.exit.code == 2);
  CHECK_THAT(r.out, ContainsSubstring("no chapter or exercise matches 'nosuchchapter'"));
}

TEST_CASE("grade 1 --json: the grades document alone on stdout, one entry per catalog entry", "[cli]") {
  const Result r = workbook({"grade", "1", "--json"}, {}, true);
  CHECK(r.exit.ok());
  CHECK_THAT(r.out, StartsWith("{"));
  CHECK(r.out == slurp(std::string(WB_TEST_BUILD) + "/grades.json"));
  const auto doc = nlohmann::json::parse(r.out);
  const auto catalog = nlohmann::json::parse(slurp(std::string(WB_TEST_BUILD) + "/catalog.json"));
  CHECK(doc["graded"].size() == catalog["graded"].size());
  CHECK(doc["graded"][0]["id"] == "01-naive-add");
  CHECK(doc["graded"][0]["kernel_file"] == "chapters/01-naive-add/naive_add.cu");
  CHECK(doc["graded"][0]["verdict"].is_object());
}

TEST_CASE("the bootstrap builds the command on its own and runs it; usage and unknown commands", "[cli]") {
  char pattern[] = "/tmp/wb-cli-bootstrap.XXXXXX";
  const std::string scratch = ::mkdtemp(pattern);
  // No WB_CLI: the bootstrap sets up (cmake/setup.sh cli), configures and builds cli/ by itself.
  Result r = workbook({"status", "1"}, {{"WB_CLI", ""}, {"WB_CLI_BUILD_DIR", scratch + "/cli"}});
  CHECK(r.exit.ok());
  CHECK_THAT(r.out, ContainsSubstring("Your progress on the CPU backend"));
  CHECK_THAT(r.out, ContainsSubstring("01-naive-add"));
  CHECK(exists(scratch + "/cli/wb"));
  r = workbook({"help"});
  CHECK(r.exit.ok());
  for (const char* cmd : {"grade", "status", "hint", "watch", "check", "profile", "reset", "test", "docs"})
    CHECK_THAT(r.out, ContainsSubstring(std::string("\n  ") + cmd + " "));
  r = workbook({"frobnicate"});
  CHECK(r.exit.code == 2);
  CHECK_THAT(r.out, ContainsSubstring("unknown command 'frobnicate'"));
  CHECK_THAT(r.out, ContainsSubstring("usage: bash cmake/workbook.sh"));
  r = workbook({"grade", "--bogus"});
  CHECK(r.exit.code == 2);
  CHECK_THAT(r.out, ContainsSubstring("--verbose, --json"));
  r = workbook({"status"}, {{"WB_BACKEND", "tpu"}});
  CHECK(r.exit.code == 2);
  CHECK_THAT(r.out, ContainsSubstring("WB_BACKEND must be cpu or cuda"));
  Command rm{{"rm", "-rf", scratch}};
  run(rm);
}

namespace {
// A grader of this build's test suite run on its small case, with the CPU backend's fault records
// and profile rows asked for.
void run_case(const std::string& exe, const std::string& spec, const std::string& faults, const std::string& profile) {
  Command cmd{{std::string(WB_TEST_BUILD) + "/" + exe, spec}, {{"WB_SANITIZER_CHILD", "1"}}, {"WB_VERDICT_FILE"}};
  if (!faults.empty()) cmd.set_env["WB_EMU_FAULTS"] = faults;
  if (!profile.empty()) cmd.set_env["WB_EMU_PROFILE"] = profile;
  cmd.log = faults.empty() ? profile + ".log" : faults + ".log";
  run(cmd);
}
Context real_context(std::ostream& out) {
  ::setenv("WB_BACKEND", "cpu", 1);
  ::setenv("WB_BUILD_DIR", WB_TEST_BUILD, 1);
  ::setenv("WB_ROOT", WB_TEST_ROOT, 1);
  return Context::from_environment(out, out);
}
// Whether `re` matches somewhere in `text` (one line of it: '.' does not cross a newline).
bool has(const std::string& text, const std::string& re) { return std::regex_search(text, std::regex(re)); }
std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}
}  // namespace

TEST_CASE("check's reader on the CPU backend's real fault records: chapter 03's planted race and its solution", "[cli]") {
  std::ostringstream sink;
  const Context c = real_context(sink);
  char pattern[] = "/tmp/wb-cli-faults.XXXXXX";
  const std::string d = ::mkdtemp(pattern);
  // The tile read with no __syncthreads() after it is filled: a race, with both lines.
  run_case("03-coalescing.cpu.mutants.no_barrier", "[racecheck]", d + "/race.jsonl", "");
  const std::string race = joined(emu_fault_summary(c, d + "/race.jsonl", false));
  CAPTURE(race);
  CHECK(has(race, R"(shared-memory races \(as racecheck\): +[0-9]+ faults?, the first: shared-memory race on .tile.*)"
                  R"(read it at [^ ]*transpose.cu:[0-9]+; thread [0-9]+ writes it at [^ ]*transpose.cu:[0-9]+)"));
  CHECK_THAT(race, ContainsSubstring("barriers and warp masks (as synccheck):     none"));
  // The solution: no fault of any kind.
  run_case("03-coalescing.cpu.solution", "[racecheck]", d + "/clean.jsonl", "");
  const auto clean = emu_fault_summary(c, d + "/clean.jsonl", false);
  REQUIRE(clean.size() == 3);
  for (const auto& l : clean) CHECK_THAT(l, Catch::Matchers::EndsWith(" none"));
  Command rm{{"rm", "-rf", d}};
  run(rm);
}

TEST_CASE("profile's reader on the CPU backend's real rows: coalesced and not, bank conflicts and not", "[cli]") {
  std::ostringstream sink;
  const Context c = real_context(sink);
  char pattern[] = "/tmp/wb-cli-profile.XXXXXX";
  const std::string d = ::mkdtemp(pattern);
  // The naive transpose's stores take a sector per thread; its loads, and the solution's stores, 4 per request.
  run_case("03-coalescing.cpu.mutants.naive", "[coalescing]", "", d + "/naive.tsv");
  const std::string naive = emu_profile_table(c, d + "/naive.tsv");
  CHECK(has(naive, R"(transpose.cu:[0-9]+ +store +[0-9]+ +32\.0 +4\.0)"));
  CHECK(has(naive, R"(transpose.cu:[0-9]+ +load +[0-9]+ +4\.0 +4\.0)"));
  run_case("03-coalescing.cpu.solution", "[coalescing]", "", d + "/solution.tsv");
  const std::string solution = emu_profile_table(c, d + "/solution.tsv");
  CHECK(has(solution, R"(transpose.cu:[0-9]+ +store +[0-9]+ +4\.0 +4\.0)"));
  // The tile without its padding column is read down a column: 32 ways; the padded one: none.
  run_case("03-coalescing.cpu.mutants.unpadded_tile", "[coalescing]", "", d + "/unpadded.tsv");
  const std::string unpadded = emu_profile_table(c, d + "/unpadded.tsv");
  CHECK_THAT(unpadded, ContainsSubstring("transpose_kernel, shared memory:"));
  CHECK(has(unpadded, R"(transpose.cu:[0-9]+ +load +[0-9]+ +32\.0 +1\.0)"));
  CHECK(has(solution, R"(transpose.cu:[0-9]+ +load +[0-9]+ +1\.0 +1\.0)"));
  Command rm{{"rm", "-rf", d}};
  run(rm);
}
