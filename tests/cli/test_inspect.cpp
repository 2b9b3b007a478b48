// check and profile, on both backends, with stand-ins for the graders, compute-sanitizer and
// Nsight Compute that give the recorded outputs of tests/cli/data/ (constructed from the tools'
// documented formats and the CPU backend's records: see data/README.md). Label `cli`.
#include <algorithm>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "support.hpp"

using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::Equals;
using namespace wb::cli;
using namespace wb::cli::test;

namespace {

// tests/cli/data/NAME with @ROOT@ made the scratch repository's root, into DEST.
std::string fixture(const Scratch& s, const std::string& name, const std::string& dest) {
  std::string t = slurp(std::string(WB_TEST_ROOT) + "/tests/cli/data/" + name);
  for (size_t at; (at = t.find("@ROOT@")) != std::string::npos;) t.replace(at, 6, s.root);
  write_file(dest, t);
  return dest;
}

// A stand-in grader: Catch2's JSON listing for --list-tests TAG (the names given per tag), else
// `body`.
std::string grader_body(const std::vector<std::pair<std::string, std::vector<std::string>>>& listings,
                        const std::string& body) {
  std::string sh = "if [ \"$1\" = --list-tests ]; then\n  out=${4#json::out=}\n  case \"$2\" in\n";
  for (const auto& [tag, names] : listings) {
    std::string tests;
    for (const auto& n : names) tests += (tests.empty() ? "" : ", ") + nlohmann::json({{"name", n}}).dump();
    sh += "    '" + tag + "') echo '{\"listings\": {\"tests\": [" + tests + "]}}' >\"$out\" ;;\n";
  }
  sh += "    *) echo '{\"listings\": {\"tests\": []}}' >\"$out\" ;;\n  esac\n  exit 0\nfi\n" + body;
  return sh;
}

// PATH with the scratch's bin/ first, for the test's length.
struct PathFirst {
  std::string old;
  explicit PathFirst(const std::string& bin) : old(std::getenv("PATH") ? std::getenv("PATH") : "") {
    ::setenv("PATH", (bin + ":" + old).c_str(), 1);
  }
  ~PathFirst() { ::setenv("PATH", old.c_str(), 1); }
};

}  // namespace

TEST_CASE("check's and profile's readers, on the recorded outputs", "[cli]") {
  Scratch s;
  Context c = s.context();
  const std::string d = s.top + "/data";
  CHECK_THAT(sanitizer_summary(c, "memcheck", fixture(s, "memcheck.log", d + "/m.log"), false),
             Equals("memcheck:  7 errors: Invalid __global__ write of size 4 bytes at chapters/03-coalescing/transpose.cu:24 "
                    "(by thread (0,3,0) in block (2,0,0))"));
  CHECK_THAT(sanitizer_summary(c, "racecheck", fixture(s, "racecheck.log", d + "/r.log"), false),
             Equals("racecheck: 1 hazard (1 error, 0 warnings): Error: Race reported between Write access at "
                    "chapters/03-coalescing/transpose.cu:19"));
  CHECK_THAT(sanitizer_summary(c, "synccheck", fixture(s, "synccheck.log", d + "/s.log"), false),
             Equals("synccheck: clean (0 errors)"));
  CHECK_THAT(sanitizer_summary(c, "synccheck", d + "/s.log", true), ContainsSubstring("but the cases themselves failed"));
  write_file(d + "/cut.log", "========= COMPUTE-SANITIZER\n");
  CHECK_THAT(sanitizer_summary(c, "memcheck", d + "/cut.log", false), ContainsSubstring("did not finish"));

  const auto yours = ncu_table(fixture(s, "ncu-yours.csv", d + "/y.csv"));
  REQUIRE(yours.size() == 1);  // one row per kernel: its first launch
  CHECK(yours[0] == std::vector<std::string>{"transpose_kernel", "1.412", "12.5", "4.0", "32.0", "87.2",
                                             "lg_throttle (31.7 cycles per instruction)"});
  const auto solution = ncu_table(fixture(s, "ncu-solution.csv", d + "/s.csv"));
  REQUIRE(solution.size() == 1);  // microseconds, a template in an anonymous namespace
  CHECK(solution[0] == std::vector<std::string>{"transpose_kernel<32, 4>", "0.191", "80.0", "4.0", "4.0", "91.5",
                                                "long_scoreboard (14.8 cycles per instruction)"});
  CHECK(ncu_table(d + "/none.csv").empty());

  const auto faults = emu_fault_summary(c, fixture(s, "emu-faults.jsonl", d + "/f.jsonl"), true);
  std::string all;
  for (const auto& l : faults) all += l + "\n";
  CHECK_THAT(all, ContainsSubstring("shared-memory races (as racecheck):         2 faults, the first: shared-memory race on "
                                    "`tile` (__shared__) at byte offset 4 (element [0][1] of 4 bytes): thread 1 read it at "
                                    "chapters/03-coalescing/transpose.cu:23; thread 32 writes it at "
                                    "chapters/03-coalescing/transpose.cu:19\n"));
  CHECK_THAT(all, ContainsSubstring("out-of-bounds or misaligned (as memcheck):  2 faults, the first: read of 4 bytes outside "
                                    "its array at chapters/03-coalescing/transpose.cu:18"));
  CHECK_THAT(all, ContainsSubstring("reads of unwritten shared memory:           1 fault, the first: read of `tile` at byte "
                                    "offset 132 (element 33 of 4 bytes), which no thread of the block has written, at "
                                    "chapters/03-coalescing/transpose.cu:23"));
  CHECK_THAT(all, ContainsSubstring("barriers and warp masks (as synccheck):     none"));
  CHECK_THAT(all, !ContainsSubstring("other kernel faults"));
  CHECK_THAT(all, ContainsSubstring("also failed their checks"));
  // A record cut short (a grader that died writing it) is passed over, not a crash of the command.
  write_file(d + "/cut.jsonl", slurp(d + "/f.jsonl") + "{\"kind\": \"race\", \"kern");
  CHECK(emu_fault_summary(c, d + "/cut.jsonl", false).size() == 4);

  const std::string table = emu_profile_table(c, fixture(s, "emu-profile.tsv", d + "/p.tsv"));
  CHECK_THAT(table, ContainsSubstring("chapters/03-coalescing/transpose.cu:18       load         192              4.0    4.0"));
  CHECK_THAT(table, ContainsSubstring("chapters/03-coalescing/transpose.cu:19       store        192             32.0    4.0"));
  CHECK_THAT(table, ContainsSubstring("  transpose_kernel, global memory:"));
  CHECK_THAT(table, ContainsSubstring("  transpose_kernel, shared memory:\n    line                                         "
                                      "access  requests   wavefronts/req  ideal"));
  CHECK_THAT(table, ContainsSubstring("chapters/03-coalescing/transpose.cu:23       load         128             32.0    1.0"));
  CHECK_THAT(table, ContainsSubstring("chapters/03-coalescing/transpose.cu:19       store        128              1.0    1.0"));

  CHECK(catch_escape("c = a + b for sizes, [primes]") == "c = a + b for sizes\\, \\[primes\\]");
}

TEST_CASE("check and profile on a GPU: compute-sanitizer's three tools, Nsight Compute beside the solution", "[cli]") {
  Scratch s("cuda");
  s.add("03-coalescing");
  s.add("01-naive-add");
  s.catalog();
  s.build_folder({"grade-03-coalescing-cuda", "03-coalescing.cuda.solution", "grade-01-naive-add-cuda",
                  "01-naive-add.cuda.solution"});
  for (const char* exe : {"grade-03-coalescing-cuda", "03-coalescing.cuda.solution"})
    s.script(exe, grader_body({{"[racecheck]", {"small transposes for compute-sanitizer racecheck"}}}, "echo ran"));
  s.script("grade-01-naive-add-cuda",
           grader_body({{"[correctness]", {"c = a + b for sizes around the block size, primes and about a million",
                                           "an empty array"}}},
                       "echo ran"));
  const std::string bin = s.top + "/bin", data = std::string(WB_TEST_ROOT) + "/tests/cli/data";
  s.script("compute-sanitizer",
           "echo \"compute-sanitizer $*\" >>'" + s.top + "/sanitizer-calls'\nsed 's|@ROOT@|" + s.root + "|g' '" + data +
               "/'$2.log\n[ \"$2\" = synccheck ] || exit 86",
           bin);
  s.script("ncu",
           "echo \"ncu $*\" >>'" + s.top + "/ncu-calls'\nwhile [ $# -gt 0 ]; do [ \"$1\" = --log-file ] && log=$2; "
           "last=$1; shift; done\nwhich=yours; case \"$(tail -n 1 '" + s.top + "/ncu-calls')\" in *solution*) which=solution;; esac\n"
           "sed 's|@ROOT@|" + s.root + "|g' '" + data + "/ncu-'$which.csv >\"$log\"",
           bin);
  PathFirst path(bin);
  Context c = s.context();

  REQUIRE(check(c, "3") == 0);
  std::string out = s.out.str();
  CHECK_THAT(out, ContainsSubstring("  memcheck:  7 errors: Invalid __global__ write of size 4 bytes at "
                                    "chapters/03-coalescing/transpose.cu:24"));
  CHECK_THAT(out, ContainsSubstring("  racecheck: 1 hazard (1 error, 0 warnings): Error: Race reported between Write access "
                                    "at chapters/03-coalescing/transpose.cu:19"));
  CHECK_THAT(out, ContainsSubstring("  synccheck: clean (0 errors)\n"));
  const std::string calls = slurp(s.top + "/sanitizer-calls");
  CHECK_THAT(calls, ContainsSubstring("--tool racecheck --error-exitcode 86 --print-limit 20 " + s.dir +
                                      "/grade-03-coalescing-cuda [racecheck]"));
  CHECK(std::count(calls.begin(), calls.end(), '\n') == 3);

  fs::remove(s.top + "/sanitizer-calls");
  ::setenv("WB_PRINT_COMMAND", "1", 1);
  s.out.str("");
  check(c, "1");
  CHECK_THAT(s.out.str(), ContainsSubstring("compute-sanitizer --tool memcheck --error-exitcode 86 --print-limit 20 " + s.dir +
                                            "/grade-01-naive-add-cuda c = a + b for sizes around the block size\\, primes "
                                            "and about a million"));
  CHECK_FALSE(exists(s.top + "/sanitizer-calls"));
  s.out.str("");
  profile(c, "3");
  CHECK_THAT(s.out.str(), ContainsSubstring("   ncu --clock-control none --kernel-name-base demangled"));
  ::unsetenv("WB_PRINT_COMMAND");
  CHECK_FALSE(exists(s.top + "/ncu-calls"));

  s.out.str("");
  REQUIRE(profile(c, "3") == 0);
  out = s.out.str();
  CHECK_THAT(out, ContainsSubstring("yours                      solution"));
  CHECK_THAT(out, ContainsSubstring("kernel                           transpose_kernel           transpose_kernel<32, 4>"));
  CHECK_THAT(out, ContainsSubstring("DRAM throughput (% of peak)      12.5                       80.0"));
  CHECK_THAT(out, ContainsSubstring("global loads: sectors/request    4.0                        4.0"));
  CHECK_THAT(out, ContainsSubstring("global stores: sectors/request   32.0                       4.0"));
  CHECK_THAT(out, ContainsSubstring("achieved occupancy (%)           87.2                       91.5"));
  CHECK_THAT(out, ContainsSubstring("top warp stall                   lg_throttle (31.7 cycles per instruction) long_scoreboard "
                                    "(14.8 cycles per instruction)"));
  const std::string ncu = slurp(s.top + "/ncu-calls");
  CHECK_THAT(ncu, ContainsSubstring("ncu --clock-control none --kernel-name-base demangled --kernel-name regex:student:: "
                                    "--launch-count 4 --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,"));
  CHECK_THAT(ncu, ContainsSubstring(s.dir + "/03-coalescing.cuda.solution [timing]"));

  ::setenv("PATH", "/nonexistent", 1);  // no compute-sanitizer: said, exit 1
  s.err.str("");
  CHECK(check(c, "3") == 1);
  CHECK_THAT(s.err.str(), ContainsSubstring("compute-sanitizer is not on PATH"));
}

TEST_CASE("check and profile on the CPU backend: the instrumented graders' records", "[cli]") {
  Scratch s;
  s.add("03-coalescing");
  s.catalog();
  s.build_folder({"inspect-03-coalescing-cpu", "inspect-03-coalescing-solution-cpu"});
  const std::string data = std::string(WB_TEST_ROOT) + "/tests/cli/data";
  const std::string body = "[ -n \"$WB_EMU_FAULTS\" ] && sed 's|@ROOT@|" + s.root + "|g' '" + data +
                           "/emu-faults.jsonl' >>\"$WB_EMU_FAULTS\"\n[ -n \"$WB_EMU_PROFILE\" ] && sed 's|@ROOT@|" + s.root +
                           "|g' '" + data + "/emu-profile.tsv' >>\"$WB_EMU_PROFILE\"\nexit 1";
  for (const char* exe : {"inspect-03-coalescing-cpu", "inspect-03-coalescing-solution-cpu"})
    s.script(exe, grader_body({{"[racecheck]", {"small transposes"}}}, body));
  Context c = s.context();
  REQUIRE(check(c, "coalescing") == 0);
  std::string out = s.out.str();
  CHECK_THAT(out, ContainsSubstring("== 03-coalescing: running [racecheck] instrumented"));
  CHECK_THAT(out, ContainsSubstring("  shared-memory races (as racecheck):         2 faults"));
  CHECK_THAT(out, ContainsSubstring("CPU backend: what a GPU's compute-sanitizer would find"));
  s.out.str("");
  REQUIRE(profile(c, "3") == 0);
  out = s.out.str();
  CHECK_THAT(out, ContainsSubstring("yours ([racecheck]), per source line"));
  CHECK_THAT(out, ContainsSubstring("solution ([racecheck]), per source line"));
  CHECK_THAT(out, ContainsSubstring("chapters/03-coalescing/transpose.cu:19       store        192             32.0    4.0"));
  CHECK_THAT(out, !ContainsSubstring("duration"));

  // A grader with a [coalescing] case: profile runs that one (what its verdict counts).
  s.script("inspect-03-coalescing-cpu",
           grader_body({{"[racecheck]", {"small transposes"}}, {"[coalescing]", {"coalescing"}}}, body));
  s.out.str("");
  profile(c, "3");
  CHECK_THAT(s.out.str(), ContainsSubstring("yours ([coalescing]), per source line"));

  // A file that does not compile: said, and nothing run.
  write_file(s.dir + "/inspect-03-coalescing-cpu.compile-error",
             s.root + "/chapters/03-coalescing/kernel.cu:7:1: error: expected declaration\n");
  s.out.str("");
  check(c, "3");
  CHECK_THAT(s.out.str(), ContainsSubstring("inspect-03-coalescing-cpu does not compile: chapters/03-coalescing/kernel.cu:7:1: "
                                            "error: expected declaration"));
  CHECK_THAT(s.out.str(), !ContainsSubstring("running"));
}

TEST_CASE("check and profile of a chapter this backend does not grade say so", "[cli]") {
  Scratch s;
  s.add("05-autograd");
  s.catalog();
  std::string cat = slurp(s.dir + "/catalog.json");
  const std::string from = "\"skipped\": null";
  cat.replace(cat.find(from), from.size(), "\"skipped\": \"libtorch was not found\"");
  write_file(s.dir + "/catalog.json", cat);
  Context c = s.context();
  CHECK(profile(c, "5") == 0);
  CHECK_THAT(s.out.str(), ContainsSubstring("05-autograd is not built for this on the CPU backend: it is graded as skipped here "
                                            "(libtorch was not found)"));
}
