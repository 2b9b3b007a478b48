// wb::sanitizer_finding on compute-sanitizer's reports. The reports are hand-written, not captured:
// they follow the tool's documented layout (every line of the tool's starts "========= ", a
// finding's head right after it, its place, thread and address on indented lines under it, a
// summary line last). Replace them with captured ones when a GPU run shows a difference.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <string>

#include "wb/sanitizer.hpp"

using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::Equals;

namespace {

const std::string memcheck_read =
    "========= COMPUTE-SANITIZER\n"
    "Grading chapters/03-coalescing/transpose.cu on NVIDIA H200\n"
    "========= Invalid __global__ read of size 4 bytes\n"
    "=========     at student::transpose_kernel(const float *, float *, int, int)+0x1a0 in "
    "/work/build/variants/mutants/03-coalescing/load_unguarded/transpose.cu:19\n"
    "=========     by thread (3,7,0) in block (2,1,0)\n"
    "=========     Address 0x7f3a5c0021f8 is out of bounds\n"
    "=========     and is 248 bytes after the nearest allocation at 0x7f3a5c000000 of size 8580 bytes\n"
    "=========     Saved host backtrace up to driver entry point at kernel launch time\n"
    "=========         Host Frame: [0x2f2b3e] in libcuda.so.1\n"
    "=========\n"
    "========= Invalid __global__ read of size 4 bytes\n"
    "=========     at student::transpose_kernel(const float *, float *, int, int)+0x1a0 in "
    "/work/build/variants/mutants/03-coalescing/load_unguarded/transpose.cu:19\n"
    "=========     by thread (4,7,0) in block (2,1,0)\n"
    "=========\n"
    "========= Program hit cudaErrorLaunchFailure (error 719) due to \"unspecified launch failure\" on CUDA API call "
    "to cudaDeviceSynchronize.\n"
    "=========\n"
    "test cases: 1 | 1 failed\n"
    "========= ERROR SUMMARY: 62 errors\n";

const std::string racecheck_race =
    "========= COMPUTE-SANITIZER\n"
    "Grading exercises/06-conv1d/conv1d.cu on NVIDIA H200\n"
    "========= Warning: Race reported between Write access at student::conv1d_kernel(...)+0x90 in /r/conv1d.cu:30\n"
    "=========     and Write access at student::conv1d_kernel(...)+0x90 in /r/conv1d.cu:31 [4 hazards]\n"
    "=========\n"
    "========= Error: Race reported between Write access at student::conv1d_kernel(const float *, float *, long)+0x1c0 "
    "in /r/exercises/06-conv1d/conv1d.cu:37\n"
    "=========     and Read access at student::conv1d_kernel(const float *, float *, long)+0x2a0 in "
    "/r/exercises/06-conv1d/conv1d.cu:44 [992 hazards]\n"
    "=========\n"
    "All tests passed (4 assertions in 1 test case)\n"
    "========= RACECHECK SUMMARY: 2 hazards displayed (1 error, 1 warning)\n";

const std::string racecheck_hazards =
    "========= COMPUTE-SANITIZER\n"
    "========= ERROR: Potential RAW hazard detected at __shared__ 0x84 in block (0,0,0) :\n"
    "=========     Write Thread (31,0,0) at 0x00000138 in /r/attention.cu:61:student::attention_kernel(...)\n"
    "=========     Read Thread (32,0,0) at 0x000001b0 in /r/attention.cu:70:student::attention_kernel(...)\n"
    "=========     Current Value : 0\n"
    "=========\n"
    "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)\n";

const std::string synccheck_barrier =
    "========= COMPUTE-SANITIZER\n"
    "Grading chapters/04-reduction/reduce.cu on NVIDIA H200\n"
    "========= Barrier error detected. Divergent thread(s) in block\n"
    "=========     at student::reduce_kernel(const float *, float *, long)+0x110 in /r/chapters/04-reduction/reduce.cu:27\n"
    "=========     by thread (37,0,0) in block (0,0,0)\n"
    "=========\n"
    "All tests passed (2 assertions in 1 test case)\n"
    "========= ERROR SUMMARY: 4 errors\n";

const std::string clean =
    "========= COMPUTE-SANITIZER\n"
    "Grading exercises/02-scan/scan.cu on NVIDIA H200\n"
    "All tests passed (2 assertions in 1 test case)\n"
    "========= ERROR SUMMARY: 0 errors\n";

}  // namespace

TEST_CASE("memcheck: the first invalid access, its place, thread and how far outside", "[sanitizer]") {
  CHECK_THAT(wb::sanitizer_finding("memcheck", memcheck_read),
             Equals("compute-sanitizer memcheck reported an invalid __global__ read of size 4 bytes at transpose.cu:19, "
                    "by thread (3,7,0) in block (2,1,0): out of bounds, 248 bytes after the nearest allocation, of 8580 "
                    "bytes (62 errors in all)"));
}

TEST_CASE("memcheck: a failed call alone is reported when there is nothing before it", "[sanitizer]") {
  const std::string log =
      "========= COMPUTE-SANITIZER\n"
      "========= Program hit cudaErrorInvalidConfiguration (error 9) due to \"invalid configuration argument\" on CUDA "
      "API call to cudaLaunchKernel.\n"
      "=========     Saved host backtrace up to driver entry point at error\n"
      "========= ERROR SUMMARY: 1 error\n";
  CHECK_THAT(wb::sanitizer_finding("memcheck", log),
             ContainsSubstring("reported program hit cudaErrorInvalidConfiguration (error 9)"));
}

TEST_CASE("racecheck: the error's two accesses, not the warning before it", "[sanitizer]") {
  CHECK_THAT(wb::sanitizer_finding("racecheck", racecheck_race),
             Equals("compute-sanitizer racecheck reported a shared-memory hazard between a write at conv1d.cu:37 and a "
                    "read at conv1d.cu:44 (992 hazards)"));
}

TEST_CASE("racecheck: the hazard report's layout, as older versions print it", "[sanitizer]") {
  CHECK_THAT(wb::sanitizer_finding("racecheck", racecheck_hazards),
             Equals("compute-sanitizer racecheck reported a shared-memory RAW hazard between a write at attention.cu:61 "
                    "and a read at attention.cu:70"));
}

TEST_CASE("synccheck: a barrier that not every thread of the block reaches", "[sanitizer]") {
  CHECK_THAT(wb::sanitizer_finding("synccheck", synccheck_barrier),
             Equals("compute-sanitizer synccheck reported a barrier error: divergent thread(s) in block at reduce.cu:27, "
                    "by thread (37,0,0) in block (0,0,0) (4 errors in all)"));
}

TEST_CASE("a clean run, a run cut short and only warnings are no finding", "[sanitizer]") {
  CHECK(wb::sanitizer_finding("memcheck", clean).empty());
  CHECK(wb::sanitizer_finding("memcheck", "========= COMPUTE-SANITIZER\nGrading x on y\n").empty());
  CHECK(wb::sanitizer_finding("racecheck", "").empty());
  const std::string warnings_only =
      "========= COMPUTE-SANITIZER\n"
      "========= Warning: Race reported between Write access at k()+0x90 in /r/a.cu:30\n"
      "=========     and Write access at k()+0x90 in /r/a.cu:31 [4 hazards]\n"
      "========= RACECHECK SUMMARY: 1 hazard displayed (0 errors, 1 warning)\n";
  CHECK(wb::sanitizer_finding("racecheck", warnings_only).empty());
}

#ifdef WB_CLI_DATA
#include <fstream>
#include <sstream>

namespace {
std::string fixture(const std::string& name) {
  std::ifstream in(std::string(WB_CLI_DATA) + "/" + name);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}
}  // namespace

TEST_CASE("the reports the check command's tests read give the same findings", "[sanitizer]") {
  CHECK_THAT(wb::sanitizer_finding("memcheck", fixture("memcheck.log")),
             Equals("compute-sanitizer memcheck reported an invalid __global__ write of size 4 bytes at transpose.cu:24, "
                    "by thread (0,3,0) in block (2,0,0): out of bounds, 1 bytes after the nearest allocation, of 1024 "
                    "bytes (7 errors in all)"));
  CHECK_THAT(wb::sanitizer_finding("racecheck", fixture("racecheck.log")),
             Equals("compute-sanitizer racecheck reported a shared-memory hazard between a write at transpose.cu:19 and "
                    "a read at transpose.cu:23 (992 hazards)"));
  CHECK(wb::sanitizer_finding("synccheck", fixture("synccheck.log")).empty());
}
#endif
