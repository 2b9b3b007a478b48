// A kernel fault as a record (wb_emu::last_fault(), <wb_emu/fault.hpp>): each kind the backend
// finds gives its kind, kernel, launch, block, thread and source line in fields, its text is
// describe() of the record, and WB_EMU_FAULTS=<file> appends each fault to the file as a line of
// JSON that a tool reads back without parsing sentences. The kernels are the other tests' (bounds.cu,
// diagnostics.cu and instrumented.cu built instrumented, barriers.cu and warp_ops.cu plain).
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "compat.hpp"
#include "compat_runtime.hpp"
#include "diagnostics.hpp"
#include "kernels.hpp"
#include "support.hpp"

#include <wb_emu/diagnostics.hpp>
#include <wb_emu/fault.hpp>
#include <wb_emu/launch.hpp>

using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::EndsWith;
using Catch::Matchers::StartsWith;
using wb_emu::Fault;
using wb_emu::FaultKind;

namespace {

// The line of tests/emu/<file> marked `// line: <marker>`.
int marked(const char* file, const char* marker) { return line_of(file, (std::string("// line: ") + marker).c_str()); }

// Runs `launch` (blocks in index order), which must fault with `code`; returns the fault's record after checking that it
// is what was printed (describe() of it is last_fault_message() and stderr), and resets the device.
template <class F>
Fault record_of(F launch, cudaError_t code = cudaErrorLaunchFailure) {
  cudaError_t e = cudaSuccess;
  // Blocks start in index order here: the records checked are those of given blocks of launches
  // in which several blocks fault, and the one reported is the first in start order.
  BlockSeed index_order(0);
  const std::string err = capture_stderr([&] { e = launch(); });
  CHECK(e == code);
  Fault f;
  REQUIRE(wb_emu::last_fault(&f));
  CHECK(wb_emu::describe(f) == wb_emu::last_fault_message());
  CHECK(wb_emu::describe(f) + "\n" == without_order_note(err));
  CHECK(wb_emu::describe(f) == f.launch_file + ":" + std::to_string(f.launch_line) + ": error: kernel fault in " +
                                   f.kernel + ", launched here with grid (" + std::to_string(f.grid[0]) + "," +
                                   std::to_string(f.grid[1]) + "," + std::to_string(f.grid[2]) + ") and block (" +
                                   std::to_string(f.block_dim[0]) + "," + std::to_string(f.block_dim[1]) + "," +
                                   std::to_string(f.block_dim[2]) + "); in block (" + std::to_string(f.block[0]) + "," +
                                   std::to_string(f.block[1]) + "," + std::to_string(f.block[2]) + "):\n  " +
                                   f.explanation);
  REQUIRE(cudaDeviceReset() == cudaSuccess);
  return f;
}

void check_triple(const unsigned* v, unsigned x, unsigned y, unsigned z) {
  CHECK(v[0] == x);
  CHECK(v[1] == y);
  CHECK(v[2] == z);
}

std::vector<nlohmann::json> read_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<nlohmann::json> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));  // throws if not JSON
  return lines;
}

// A file name in /tmp for WB_EMU_FAULTS, not yet there.
std::string temp_path() {
  char path[] = "/tmp/wb-emu-faults-XXXXXX";
  const int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  close(fd);
  unlink(path);
  return path;
}

}  // namespace

TEST_CASE("every kind has its name", "[emu][faults]") {
  CHECK(std::string(wb_emu::fault_kind_name(FaultKind::race)) == "race");
  CHECK(std::string(wb_emu::fault_kind_name(FaultKind::unwritten_read)) == "unwritten_read");
  CHECK(std::string(wb_emu::fault_kind_name(FaultKind::out_of_bounds)) == "out_of_bounds");
  CHECK(std::string(wb_emu::fault_kind_name(FaultKind::misaligned)) == "misaligned");
  CHECK(std::string(wb_emu::fault_kind_name(FaultKind::illegal_address)) == "illegal_address");
  CHECK(std::string(wb_emu::fault_kind_name(FaultKind::barrier)) == "barrier");
  CHECK(std::string(wb_emu::fault_kind_name(FaultKind::warp)) == "warp");
  CHECK(std::string(wb_emu::fault_kind_name(FaultKind::stack_overflow)) == "stack_overflow");
  CHECK(std::string(wb_emu::fault_kind_name(FaultKind::resources)) == "resources");
  CHECK(std::string(wb_emu::fault_kind_name(FaultKind::cooperative)) == "cooperative");
  CHECK(std::string(wb_emu::fault_kind_name(FaultKind::other)) == "other");
}

TEST_CASE("a shared-memory race is a record of kind race naming the second thread and its line",
          "[emu][faults][instrument]") {
  float* in = device_array<float>(512, 1.0f);
  float* out = device_array<float>(2, 0.0f);
  // variant 1: no barrier in the tree; thread 0 read sdata[1], thread 1 writes it
  const Fault f = record_of([&] { return emu_test::reduce(in, out, 512, 256, 1); });
  CHECK(f.kind == FaultKind::race);
  CHECK(f.kernel == "reduce_kernel");
  CHECK_THAT(f.launch_file, EndsWith("instrumented.cu"));
  CHECK(f.launch_line > 0);
  check_triple(f.grid, 2, 1, 1);
  check_triple(f.block_dim, 256, 1, 1);
  check_triple(f.block, 0, 0, 0);
  REQUIRE(f.has_thread);
  check_triple(f.thread, 1, 0, 0);
  CHECK(f.file == std::string(EMU_TEST_DIR) + "/instrumented.cu");
  CHECK(f.line == marked("instrumented.cu", "reduce add"));
  CHECK_THAT(f.explanation, StartsWith("shared-memory race on `sdata` (extern __shared__) at byte offset 4"));
  cudaFree(in);
  cudaFree(out);
}

TEST_CASE("a read of unwritten shared memory is a record of kind unwritten_read with its block and thread",
          "[emu][faults][instrument]") {
  float* out = device_array<float>(4 * 64, 0.0f);
  const Fault f = record_of([&] { return emu_test::partial_tile(out, 4, 3, 60); });
  CHECK(f.kind == FaultKind::unwritten_read);
  CHECK(f.kernel == "partial_tile_kernel");
  check_triple(f.block, 3, 0, 0);
  REQUIRE(f.has_thread);
  check_triple(f.thread, 60, 0, 0);
  CHECK(f.line == marked("diagnostics.cu", "tile read"));
  CHECK_THAT(f.file, EndsWith("/diagnostics.cu"));
  cudaFree(out);
}

TEST_CASE("an out-of-bounds access is a record of kind out_of_bounds with a 2-D thread index",
          "[emu][faults][instrument]") {
  float* out = device_array<float>(1, 0.0f);
  Fault f = record_of([&] { return emu_test::tile_access(out, 32, 0, true); });  // by thread (5,3) of 32x4
  CHECK(f.kind == FaultKind::out_of_bounds);
  CHECK(f.kernel == "tile_kernel");
  check_triple(f.block_dim, 32, 4, 1);
  check_triple(f.block, 0, 0, 0);
  REQUIRE(f.has_thread);
  check_triple(f.thread, 5, 3, 0);
  CHECK(f.line == marked("bounds.cu", "tile write"));
  CHECK_THAT(f.file, EndsWith("/bounds.cu"));
  CHECK_THAT(f.explanation, StartsWith("write of 4 bytes just past the end of `tile`"));
  // global memory: one past the end of an array whose extent a grader gave (element 100: block 1, thread 36)
  float* array = device_array<float>(128, 1.0f);
  wb_emu::set_logical_extent(array, 100 * sizeof(float), sizeof(float), "grade.cpp", 13);
  f = record_of([&] { return emu_test::write_one_past(array, 100); });
  CHECK(f.kind == FaultKind::out_of_bounds);
  CHECK(f.kernel == "guard_zone_kernel");
  check_triple(f.block, 1, 0, 0);
  REQUIRE(f.has_thread);
  check_triple(f.thread, 36, 0, 0);
  CHECK(f.line == marked("bounds.cu", "one past"));
  CHECK_THAT(f.explanation, StartsWith("write of 4 bytes outside its array at "));
  cudaFree(out);
  cudaFree(array);
}

TEST_CASE("a misaligned float4 access is a record of kind misaligned", "[emu][faults][instrument]") {
  float* in = device_array<float>(68, 1.0f);
  float* out = device_array<float>(68, 0.0f);
  const Fault f = record_of([&] { return emu_test::copy_float4_at(in, out, 1, 16); });
  CHECK(f.kind == FaultKind::misaligned);
  CHECK(f.kernel == "float4_offset_kernel");
  check_triple(f.block, 0, 0, 0);
  REQUIRE(f.has_thread);
  check_triple(f.thread, 0, 0, 0);
  CHECK(f.line == marked("diagnostics.cu", "float4 load"));
  CHECK_THAT(f.explanation, StartsWith("misaligned read of 16 bytes"));
  cudaFree(in);
  cudaFree(out);
}

TEST_CASE("an access the system refuses is a record of kind illegal_address, in a plain build too", "[emu][faults]") {
  const Fault f = record_of([] { return emu_test::null_write(); }, cudaErrorIllegalAddress);
  CHECK(f.kind == FaultKind::illegal_address);
  CHECK(f.kernel == "null_write_kernel");
  check_triple(f.grid, 4, 1, 1);
  check_triple(f.block_dim, 32, 1, 1);
  check_triple(f.block, 2, 0, 0);
  REQUIRE(f.has_thread);
  check_triple(f.thread, 5, 0, 0);
  CHECK(f.file == std::string(EMU_TEST_DIR) + "/barriers.cu");
  CHECK(f.line == marked("barriers.cu", "null write"));
  CHECK_THAT(f.explanation, StartsWith("illegal address: "));
}

TEST_CASE("barriers that part of a block waits at are a record of kind barrier with no one thread", "[emu][faults]") {
  const Fault f = record_of([] { return emu_test::divergent_barrier(); });
  CHECK(f.kind == FaultKind::barrier);
  CHECK(f.kernel == "divergent_barrier_kernel");
  CHECK((f.block[0] == 0 || f.block[0] == 1));  // both blocks fault; either may be reported
  CHECK(!f.has_thread);
  CHECK_THAT(f.file, EndsWith("/barriers.cu"));
  CHECK(f.line == line_of("barriers.cu", "// barrier A"));  // thread 0's barrier
  CHECK_THAT(f.explanation, StartsWith("threads of the block wait at different __syncthreads() barriers"));
}

TEST_CASE("a warp operation whose mask names exited lanes is a record of kind warp", "[emu][faults]") {
  Fault f = record_of([] { return emu_test::bad_shuffle_mask(); });
  CHECK(f.kind == FaultKind::warp);
  CHECK(f.kernel == "bad_mask_kernel");
  check_triple(f.block, 0, 0, 0);
  CHECK(!f.has_thread);  // lanes 0-19 wait: no one of them is at fault
  CHECK_THAT(f.file, EndsWith("/warp_ops.cu"));
  CHECK(f.line == line_of("warp_ops.cu", "// bad mask"));
  // lanes that wait at a shuffle for a lane at a barrier
  f = record_of([] { return emu_test::barrier_never_reached(); });
  CHECK(f.kind == FaultKind::warp);
  CHECK(f.line == line_of("barriers.cu", "// shuffle C"));
}

TEST_CASE("grid.sync() in a <<<>>> launch is a record of kind cooperative; __trap() one of kind other",
          "[emu][faults]") {
  Fault f = record_of([] { return compat_plain::grid_sync_in_plain_launch(); });
  CHECK(f.kind == FaultKind::cooperative);
  REQUIRE(f.has_thread);
  CHECK_THAT(f.file, EndsWith("/coop_groups.cu"));
  CHECK(f.line == line_of("coop_groups.cu", "// grid sync plain"));
  CHECK_THAT(f.explanation, StartsWith("grid_group::sync() at "));
  f = record_of([] { return compat_plain::trap_in_kernel(); });
  CHECK(f.kind == FaultKind::other);
  CHECK(f.kernel == "trap_kernel");
  REQUIRE(f.has_thread);
  check_triple(f.thread, 3, 0, 0);
  CHECK_THAT(f.file, EndsWith("/vector_intrinsics.cu"));
  CHECK(f.line == line_of("vector_intrinsics.cu", "// trap here"));
}

TEST_CASE("the headline a grader shows comes from the record: the explanation's first line", "[emu][faults]") {
  const Fault f = record_of([] { return emu_test::divergent_barrier(); });
  CHECK(f.explanation.find('\n') != std::string::npos);
  const std::string first = f.explanation.substr(0, f.explanation.find('\n'));
  // the text's second line is the explanation's first, indented
  const std::string text = wb_emu::describe(f);
  CHECK(text.substr(text.find('\n') + 1, first.size() + 2) == "  " + first);
}

TEST_CASE("WB_EMU_FAULTS=<file> appends every fault as a line of JSON", "[emu][faults][instrument]") {
  const std::string path = temp_path();
  REQUIRE(setenv("WB_EMU_FAULTS", path.c_str(), 1) == 0);
  float* in = device_array<float>(512, 1.0f);
  float* out = device_array<float>(2, 0.0f);
  float* tile_out = device_array<float>(1, 0.0f);
  const Fault race = record_of([&] { return emu_test::reduce(in, out, 512, 256, 1); });
  CHECK(emu_test::reduce(in, out, 512, 256, 0) == cudaSuccess);  // a launch without a fault adds nothing
  const Fault barrier = record_of([] { return emu_test::divergent_barrier(); });
  const Fault bounds = record_of([&] { return emu_test::tile_access(tile_out, 32, 0, true); });
  REQUIRE(unsetenv("WB_EMU_FAULTS") == 0);
  const Fault after = record_of([] { return emu_test::divergent_barrier(); });  // not appended
  CHECK(after.kind == FaultKind::barrier);

  const std::vector<nlohmann::json> lines = read_lines(path);
  std::remove(path.c_str());
  REQUIRE(lines.size() == 3);
  const nlohmann::json& r = lines[0];
  CHECK(r.at("kind") == "race");
  CHECK(r.at("kernel") == "reduce_kernel");
  CHECK(r.at("launch").at("file") == race.launch_file);
  CHECK(r.at("launch").at("line") == race.launch_line);
  CHECK(r.at("grid") == nlohmann::json::array({2, 1, 1}));
  CHECK(r.at("block_dim") == nlohmann::json::array({256, 1, 1}));
  CHECK(r.at("block") == nlohmann::json::array({0, 0, 0}));
  CHECK(r.at("block_seed") == 0);  // record_of() starts blocks in index order
  CHECK(r.at("thread") == nlohmann::json::array({1, 0, 0}));
  CHECK(r.at("at").at("file") == std::string(EMU_TEST_DIR) + "/instrumented.cu");
  CHECK(r.at("at").at("line") == marked("instrumented.cu", "reduce add"));
  CHECK(r.at("explanation") == race.explanation);
  CHECK(r.at("text") == wb_emu::describe(race));
  CHECK(r == nlohmann::json::parse(wb_emu::fault_json(race)));

  const nlohmann::json& b = lines[1];
  CHECK(b.at("kind") == "barrier");
  CHECK(b.at("kernel") == "divergent_barrier_kernel");
  CHECK(b.at("thread").is_null());
  CHECK(b.at("at").at("line") == line_of("barriers.cu", "// barrier A"));
  CHECK(b.at("text") == wb_emu::describe(barrier));
  CHECK_THAT(b.at("text").get<std::string>(), ContainsSubstring("\n    "));  // a newline, escaped and read back

  const nlohmann::json& o = lines[2];
  CHECK(o.at("kind") == "out_of_bounds");
  CHECK(o.at("block_dim") == nlohmann::json::array({32, 4, 1}));
  CHECK(o.at("thread") == nlohmann::json::array({5, 3, 0}));
  CHECK(o.at("at").at("line") == marked("bounds.cu", "tile write"));
  CHECK(o.at("explanation") == bounds.explanation);
  cudaFree(in);
  cudaFree(out);
  cudaFree(tile_out);
}

TEST_CASE("a fault's JSON is valid for any kernel name or path", "[emu][faults]") {
  Fault f;
  f.kind = FaultKind::warp;
  f.kernel = "k<\"quoted\", \\back\\>\t\x01\x1f\x7f";
  f.launch_file = "dir with \"quotes\"/\xc3\xa9t\xc3\xa9/\xe2\x82\xac/\xf0\x9f\x98\x80.cu";  // é, €, an emoji
  f.launch_line = 12;
  f.file = "bad\xff utf-8 \xc3 \xe2\x82 \xed\xa0\x80 \xc0\xaf end";  // stray, cut short, surrogate, overlong
  f.line = 0;
  f.explanation = "line one\nline two\r\n";
  const nlohmann::json j = nlohmann::json::parse(wb_emu::fault_json(f));
  CHECK(wb_emu::fault_json(f).find('\n') == std::string::npos);  // one line
  CHECK(j.at("kind") == "warp");
  CHECK(j.at("kernel") == f.kernel);
  CHECK(j.at("launch").at("file") == f.launch_file);
  CHECK(j.at("launch").at("line") == 12);
  CHECK(j.at("thread").is_null());
  CHECK(j.at("at").at("line") == 0);  // the file is known, the line is not
  const std::string u = "\xef\xbf\xbd";  // U+FFFD
  CHECK(j.at("at").at("file") == "bad" + u + " utf-8 " + u + " " + u + u + " " + u + u + u + " " + u + u + " end");
  CHECK(j.at("explanation") == f.explanation);
  CHECK(j.at("text") == wb_emu::describe(f));
  f.file.clear();
  CHECK(nlohmann::json::parse(wb_emu::fault_json(f)).at("at").is_null());
}

#if defined(__linux__)
TEST_CASE("a stack overflow is a record too: the dying process appends it to WB_EMU_FAULTS", "[emu][faults]") {
  // The overflow ends the process: the hidden case runs in a child (as the stack-overflow tests of
  // tests/emu/CMakeLists.txt do), and this one reads what it left.
  const std::string path = temp_path();
  // This very executable, through the emulator that runs it where there is one (qemu-user for the
  // arm64 build, whose /proc/self/exe names the guest program).
  char self[4096] = {};
  REQUIRE(readlink("/proc/self/exe", self, sizeof self - 1) > 0);
  const std::string emulator = WB_TEST_EMULATOR;
  const std::string cmd = "WB_EMU_FAULTS='" + path + "' WB_EMU_THREADS=3 " + (emulator.empty() ? "" : emulator + " ") +
                          "'" + self + "' '[.stack-overflow-array]' >/dev/null 2>&1";
  CHECK(std::system(cmd.c_str()) != 0);  // it died
  const std::vector<nlohmann::json> lines = read_lines(path);
  std::remove(path.c_str());
  REQUIRE(lines.size() == 1);
  const nlohmann::json& j = lines[0];
  CHECK(j.at("kind") == "stack_overflow");
  CHECK(j.at("kernel") == "big_array_kernel");
  CHECK(j.at("grid") == nlohmann::json::array({4, 1, 1}));
  CHECK(j.at("block_dim") == nlohmann::json::array({32, 1, 1}));
  CHECK(j.at("block") == nlohmann::json::array({2, 0, 0}));
  CHECK(j.at("thread") == nlohmann::json::array({5, 0, 0}));
  CHECK(j.at("at").is_null());
  CHECK_THAT(j.at("launch").at("file").get<std::string>(), EndsWith("barriers.cu"));
  CHECK_THAT(j.at("explanation").get<std::string>(), StartsWith("thread (5,0,0) overflowed its stack: it needed more"));
  const std::string explanation = j.at("explanation").get<std::string>();
  CHECK((EndsWith("the process ends with SIGSEGV.").match(explanation) ||
         EndsWith("the process ends with SIGBUS.").match(explanation)));
  // the text is the record's, as printed (a Fault made of the fields describes it the same)
  Fault f;
  f.kind = FaultKind::stack_overflow;
  f.kernel = j.at("kernel").get<std::string>();
  f.launch_file = j.at("launch").at("file").get<std::string>();
  f.launch_line = j.at("launch").at("line").get<int>();
  for (std::size_t i = 0; i < 3; ++i) {
    f.grid[i] = j.at("grid").at(i).get<unsigned>();
    f.block_dim[i] = j.at("block_dim").at(i).get<unsigned>();
    f.block[i] = j.at("block").at(i).get<unsigned>();
  }
  f.explanation = explanation;
  CHECK(j.at("text") == wb_emu::describe(f));
  CHECK_THAT(j.at("text").get<std::string>(), ContainsSubstring(": error: kernel fault in big_array_kernel, launched "
                                                                "here with grid (4,1,1) and block (32,1,1); in block "
                                                                "(2,0,0):\n  thread (5,0,0) overflowed its stack"));
}
#endif
