// Unit tests of the launch rewriter (wb-emu-rewrite): the tool is run on the fixtures in
// tests/unit/rewriter/ and its output read; rewriter/fill.cu is also compiled for the CPU backend
// by the build (as a chapter's kernel is) and run here.
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include <cuda_runtime.h>

using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::StartsWith;

namespace fixture {
int fill(float* out, int n, int threads);  // rewriter/fill.cu
}
// rewriter/launches.cu, built plain and instrumented
namespace launches_plain {
int run(float* d, int* counts, const float* in, int n);
void fault(float* d);
}  // namespace launches_plain
namespace launches_instr {
int run(float* d, int* counts, const float* in, int n);
void fault(float* d);
}  // namespace launches_instr

namespace {

const std::string fixtures = WB_REWRITER_FIXTURES;
const std::string out_dir = WB_REWRITER_OUT;

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Line number of the line of rewriter/<file> that contains `marker` (0 when none does).
int line_of(const std::string& file, const std::string& marker) {
  const std::vector<std::string> lines = lines_of(read(fixtures + "/" + file));
  for (std::size_t k = 0; k < lines.size(); ++k)
    if (lines[k].find(marker) != std::string::npos) return int(k) + 1;
  return 0;
}

std::string without_spaces(const std::string& s) {
  std::string out;
  for (char c : s)
    if (c != ' ') out += c;
  return out;
}

struct Run {
  int exit_code;
  std::string output;  // the rewritten file ("" when none was written)
  std::string errors;  // the tool's stderr
};

// Runs the tool on fixture `name` (a file in rewriter/), or with `args` as given.
// Runs a shell command with its stderr kept; `output_path` is the file it writes.
Run run_command(const std::string& command, const std::string& output_path, const std::string& tag) {
  const std::string err_path = out_dir + "/" + tag + "." + std::to_string(getpid()) + ".stderr";
  std::remove(output_path.c_str());
  const std::string cmd = "mkdir -p '" + out_dir + "' && " + command + " 2> '" + err_path + "'";
  const int status = std::system(cmd.c_str());
  REQUIRE(WIFEXITED(status));
  return Run{WEXITSTATUS(status), read(output_path), read(err_path)};
}

Run rewrite_args(const std::string& args, const std::string& output_path, const std::string& tag) {
  return run_command("'" WB_REWRITE_TOOL "' " + args, output_path, tag);
}

Run rewrite(const std::string& name) {
  // Named per process: ctest -j runs the test cases side by side.
  const std::string out = out_dir + "/" + name + "." + std::to_string(getpid()) + ".cpp";
  return rewrite_args("'" + fixtures + "/" + name + "' '" + out + "'", out, name);
}

}  // namespace

TEST_CASE("the output starts with the prelude and a #line 1 naming the input", "[rewriter]") {
  const Run r = rewrite("fill.cu");
  REQUIRE(r.exit_code == 0);
  CHECK(r.errors.empty());
  REQUIRE_THAT(r.output, StartsWith("#include <wb_emu/kernel_prelude.hpp>\n#line 1 \"" + fixtures + "/fill.cu\"\n"));
}

TEST_CASE("a plain, a templated and a namespace-qualified launch become make_launch calls", "[rewriter]") {
  const Run r = rewrite("fill.cu");
  REQUIRE(r.exit_code == 0);
  const std::string& out = r.output;
  CHECK_THAT(out, ContainsSubstring("::wb_emu::make_launch([&](auto&... wb_a) WB_EMU_NOT_INSTRUMENTED { scale_kernel<float, 2>(wb_a...); }, "
                                    "\"scale_kernel<float, 2>\", __FILE__, __LINE__, blocks, threads)(out, n);"));
  CHECK_THAT(out, ContainsSubstring("::wb_emu::make_launch([&](auto&... wb_a) WB_EMU_NOT_INSTRUMENTED { inner::fill_kernel(wb_a...); }, "
                                    "\"inner::fill_kernel\", __FILE__, __LINE__, blocks,\n"));
  CHECK_THAT(out, ContainsSubstring("  ::wb_emu::make_launch([&](auto&... wb_a) WB_EMU_NOT_INSTRUMENTED { ::fixture::scale_kernel<float, 3>(wb_a...); "
                                    "}, \"::fixture::scale_kernel<float, 3>\", __FILE__, __LINE__, blocks, threads, 0, "
                                    "stream)(out, n);"));
  CHECK_THAT(out, ContainsSubstring("::wb_emu::make_launch([&](auto&... wb_a) WB_EMU_NOT_INSTRUMENTED { through_shared_kernel(wb_a...); }, "
                                    "\"through_shared_kernel\", __FILE__, __LINE__, blocks, threads, threads * sizeof(float))(out, n);"));
  // The comment before the `::`-qualified launch is left whole.
  CHECK_THAT(out, ContainsSubstring("(out, n);  // doubles: the next launch follows a comment\n"));
}

TEST_CASE("every line stays where it was, and only launches and extern __shared__ change", "[rewriter]") {
  const Run r = rewrite("fill.cu");
  REQUIRE(r.exit_code == 0);
  const std::vector<std::string> in = lines_of(read(fixtures + "/fill.cu"));
  const std::vector<std::string> out = lines_of(r.output);
  REQUIRE(out.size() == in.size() + 2);  // the include and the #line
  std::set<int> changed;
  for (std::size_t k = 0; k < in.size(); ++k)
    if (out[k + 2] != in[k]) changed.insert(int(k) + 1);
  // 22: extern __shared__; 37-38: the split launch (its args' last line 39 is unchanged);
  // 41, 42, 43: one-line launches. Lines 33-35 hold launches in comments and a string.
  CHECK(changed == std::set<int>{22, 37, 38, 41, 42, 43});
  CHECK(out[33 + 1] == in[33 - 1]);
  CHECK(out[35 + 1] == in[35 - 1]);
}

TEST_CASE("`<<<` inside a comment or a string is left alone", "[rewriter]") {
  const Run r = rewrite("fill.cu");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, ContainsSubstring("  // inner::fill_kernel<<<1, 1>>>(out, 0, 9.0f); a launch in a comment"));
  CHECK_THAT(r.output, ContainsSubstring("/* scale_kernel<float, 5><<<blocks, threads>>>(out, n); nor one"));
  CHECK_THAT(r.output, ContainsSubstring("\"scale_kernel<float, 7><<<blocks, threads>>>(out, n)\""));
  int launches = 0;
  for (std::size_t at = r.output.find("make_launch("); at != std::string::npos;
       at = r.output.find("make_launch(", at + 1))
    ++launches;
  CHECK(launches == 4);
}

TEST_CASE("extern __shared__ float s[]; becomes the dynamic_shared_named call", "[rewriter]") {
  const Run r = rewrite("fill.cu");
  REQUIRE(r.exit_code == 0);
  const std::vector<std::string> out = lines_of(r.output);
  REQUIRE(out.size() > 24);
  CHECK(without_spaces(out[22 + 1]) == "auto*conststage=::wb_emu::dynamic_shared_named<float>(\"stage\");");
}

TEST_CASE("a malformed launch fails with an error naming file:line, and writes nothing", "[rewriter][errors]") {
  struct Bad {
    const char* file;
    int line;
    const char* error;
  };
  const Bad bad = GENERATE(Bad{"no_arguments.cu", 5, "a kernel launch needs its argument list"},
                           Bad{"unclosed.cu", 5, "'<<<' without a matching '>>>'"},
                           Bad{"no_kernel.cu", 4, "'<<<' must follow a kernel name"},
                           Bad{"sized_shared.cu", 3, "extern __shared__ must declare an unsized array"},
                           // what nvcc rejects, found without nvcc
                           Bad{"host_call.cu", 7,
                               "calling a __host__ function(\"host_square\") from a __global__ function(\"square_all\") "
                               "is not allowed: declare it __device__"},
                           Bad{"host_api.cu", 4,
                               "calling a __host__ function(\"cudaMemcpy\") from a __device__ function(\"copy_one\") "
                               "is not allowed"},
                           Bad{"shared_in_host.cu", 4,
                               "a __shared__ variable declaration is not allowed inside a host function body (in "
                               "\"launch\")"});
  CAPTURE(bad.file);
  const Run r = rewrite(bad.file);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.errors, StartsWith(fixtures + "/" + bad.file + ":" + std::to_string(bad.line) + ": error: " + bad.error));
  CHECK(r.output.empty());
}

TEST_CASE("the tool explains its usage and a missing input", "[rewriter][errors]") {
  const Run usage = rewrite_args("", out_dir + "/none.cpp", "usage");
  CHECK(usage.exit_code == 2);
  CHECK_THAT(usage.errors, ContainsSubstring("usage: wb-emu-rewrite [--instrument] [--headers <dir> [--depfile <file>]] "
                                             "<input.cu> <output.cpp>"));
  const Run missing = rewrite_args("'" + fixtures + "/no_such_file.cu' '" + out_dir + "/none.cpp'",
                                   out_dir + "/none.cpp", "missing");
  CHECK(missing.exit_code == 1);
  CHECK_THAT(missing.errors, ContainsSubstring("cannot read " + fixtures + "/no_such_file.cu"));
}

TEST_CASE("the rewritten fixture compiles and fills an array, end to end", "[rewriter][e2e]") {
  const int n = GENERATE(1, 127, 1000, 4099);
  const int threads = GENERATE(32, 100, 256);
  CAPTURE(n, threads);
  float* dev = nullptr;
  REQUIRE(cudaMalloc(&dev, n * sizeof(float)) == cudaSuccess);
  REQUIRE(cudaMemset(dev, 0xFF, n * sizeof(float)) == cudaSuccess);
  const int line = fixture::fill(dev, n, threads);
  REQUIRE(cudaGetLastError() == cudaSuccess);
  CHECK(line == 40);  // __LINE__ after the launch split over three lines: lines kept, #line honoured
  std::vector<float> host(n);
  REQUIRE(cudaMemcpy(host.data(), dev, n * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess);
  int wrong = 0;
  for (int i = 0; i < n; ++i) {
    float want = 0.5f + float(i);  // as the kernels compute it, step by step in float
    want *= 2.0f;
    want *= 3.0f;
    want = want + 1.0f;
    if (host[i] != want && wrong++ == 0) {
      CAPTURE(i, host[i], want);
      FAIL_CHECK("the first wrong element");
    }
  }
  CHECK(wrong == 0);
  CHECK(cudaFree(dev) == cudaSuccess);
}

TEST_CASE("the instrument mode changes no code: only the launches and the prelude say so", "[rewriter][instrument]") {
  // The compiler reports an instrumented file's accesses (wb_emu/instrument.hpp): pointers, casts and
  // shared arrays stay as written, the same as in the plain rewrite.
  const std::string out = out_dir + "/instrument." + std::to_string(getpid()) + ".cpp";
  const Run r = rewrite_args("--instrument '" + fixtures + "/instrument.cu' '" + out + "'", out, "instrument");
  REQUIRE(r.exit_code == 0);
  CHECK(r.errors.empty());
  const std::string& o = r.output;
  REQUIRE_THAT(o, StartsWith("#include <wb_emu/kernel_prelude.hpp>\n#include <wb_emu/instrument.hpp>\n#line 1 \"" +
                             fixtures + "/instrument.cu\"\n"));
  CHECK_THAT(o, ContainsSubstring("__device__ float helper(const float* p, int i)"));
  CHECK_THAT(o, ContainsSubstring("k(const float* __restrict__ in,\n"));
  CHECK_THAT(o, ContainsSubstring("const float4* in4 = reinterpret_cast<const float4*>(in);"));
  CHECK_THAT(o, ContainsSubstring("auto& sdata = ::wb_emu::static_shared<float [B]>([]{}, \"sdata\");"));
  CHECK_THAT(o, ContainsSubstring("auto& flag = ::wb_emu::static_shared<int >([]{}, \"flag\");"));
  CHECK_THAT(o, ContainsSubstring("::wb_emu::make_instrumented_launch([&](auto&... wb_a) WB_EMU_NOT_INSTRUMENTED { "
                                  "k<256>(wb_a...); }, \"k<256>\""));
  CHECK_THAT(o, ContainsSubstring("const float* after_comment = in + n;"));
  // the line count is kept, so __LINE__ and messages point at the learner's file
  CHECK(lines_of(o).size() == lines_of(read(fixtures + "/instrument.cu")).size() + 3);  // the prelude's two #includes and #line
}

TEST_CASE("every form of __shared__ declaration becomes its block's storage, in the file and its headers",
          "[rewriter][shared]") {
  const std::string out = out_dir + "/shared_forms." + std::to_string(getpid()) + ".cpp";
  const std::string headers = out_dir + "/shared_forms." + std::to_string(getpid()) + ".h";
  REQUIRE(std::system(("mkdir -p '" + headers + "'").c_str()) == 0);
  const Run r = rewrite_args("--headers '" + headers + "' --depfile '" + out + ".d' '" + fixtures +
                                 "/shared_forms.cu' '" + out + "'", out, "shared_forms");
  REQUIRE(r.exit_code == 0);
  CHECK(r.errors.empty());
  const std::string& o = r.output;
  // several declarators, the storage class after the type, a size with parentheses and sizeof
  CHECK_THAT(o, ContainsSubstring("auto& wm = ::wb_emu::static_shared<float [8]>([]{}, \"wm\"); "
                                  "auto& ws = ::wb_emu::static_shared<float [8]>([]{}, \"ws\");"));
  CHECK_THAT(o, ContainsSubstring("auto& sums = ::wb_emu::static_shared<float [(kTile + 2 * kHalo) * 2]>([]{}, \"sums\");"));
  CHECK_THAT(o, ContainsSubstring("auto& bytes = ::wb_emu::static_shared<unsigned char [sizeof(float) * 4]>([]{}, \"bytes\");"));
  CHECK_THAT(o, ContainsSubstring("auto& a = ::wb_emu::static_shared<unsigned >([]{}, \"a\"); "
                                  "auto& b = ::wb_emu::static_shared<unsigned >([]{}, \"b\");"));
  CHECK_THAT(o, ContainsSubstring("auto* const dd = ::wb_emu::dynamic_shared_named<double>(\"dd\");"));
  CHECK_THAT(o, ContainsSubstring("auto& col = ::wb_emu::static_shared<volatile int [32]>([]{}, \"col\");"));
  // at namespace scope: a macro of the name, then the line numbers put back
  CHECK_THAT(o, ContainsSubstring("\n#define ns_dyn (::wb_emu::dynamic_shared_named<float>(\"ns_dyn\"))\n#line "));
  CHECK_THAT(o, ContainsSubstring("struct wb_emu_shared_tag_ns_count {}; \n#define ns_count "
                                  "(::wb_emu::static_shared<int >(wb_emu_shared_tag_ns_count{}, \"ns_count\"))\n#line "));
  // the header beside it is rewritten into the header folder, and the directive names the copy
  CHECK_THAT(o, ContainsSubstring("#include \"" + headers + "/h"));
  const std::string copy = read(headers + "/h" + [&] {
    std::string n;
    for (char c : fixtures + "/shared_forms.cuh") n += std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-' ? c : '_';
    return n;
  }());
  CHECK_THAT(copy, StartsWith("#line 1 \"" + fixtures + "/shared_forms.cuh\"\n"));
  CHECK_THAT(copy, ContainsSubstring("auto& partial = ::wb_emu::static_shared<T [32]>([]{}, \"partial\");"));
  CHECK_THAT(read(out + ".d"), ContainsSubstring(fixtures + "/shared_forms.cuh"));
  // the prelude's 2 lines, and 3 for each macro (the line it leaves, the #define, the #line)
  CHECK(lines_of(o).size() == lines_of(read(fixtures + "/shared_forms.cu")).size() + 2 + 2 * 3);
}

TEST_CASE("a __shared__ declaration the rewriter cannot place stops it at its line", "[rewriter][shared][errors]") {
  const std::string out = out_dir + "/shared_init." + std::to_string(getpid()) + ".cpp";
  const Run r = rewrite_args("'" + fixtures + "/shared_init.cu' '" + out + "'", out, "shared_init");
  CHECK(r.exit_code != 0);
  CHECK_THAT(r.errors, ContainsSubstring(fixtures + "/shared_init.cu:4: error: a __shared__ variable cannot have an "
                                         "initializer"));
}

TEST_CASE("launches of templates, namespaces, pointers, tables, members and macros become calls as written",
          "[rewriter][launches]") {
  const Run r = rewrite("launches.cu");
  REQUIRE(r.exit_code == 0);
  CHECK(r.errors.empty());
  const std::string& o = r.output;
  // deduced and explicit template arguments; the name for messages keeps its arguments whole
  CHECK_THAT(o, ContainsSubstring("::wb_emu::make_launch([&](auto&... wb_a) WB_EMU_NOT_INSTRUMENTED { twice(wb_a...); }, \"twice\", __FILE__, "
                                  "__LINE__, blocks, 64)(counts, n);"));
  CHECK_THAT(o, ContainsSubstring("{ inner::add<float, 3>(wb_a...); }, \"inner::add<float, 3>\","));
  // pointers to kernels, a table of them, members
  CHECK_THAT(o, ContainsSubstring("{ fp(wb_a...); }, \"fp\","));
  CHECK_THAT(o, ContainsSubstring("{ (*fp)(wb_a...); }, \"(*fp)\","));
  CHECK_THAT(o, ContainsSubstring("{ table[1](wb_a...); }, \"table[1]\","));
  CHECK_THAT(o, ContainsSubstring("{ t.kernel(wb_a...); }, \"t.kernel\","));
  CHECK_THAT(o, ContainsSubstring("{ pt->kernel(wb_a...); }, \"pt->kernel\","));
  // in a macro: the kernel parameter's argument is the name, and the line splice is kept
  CHECK_THAT(o, ContainsSubstring("  ::wb_emu::make_launch([&](auto&... wb_a) WB_EMU_NOT_INSTRUMENTED { kernel(wb_a...); }, #kernel, __FILE__, "
                                  "__LINE__, ((count) + 31) / 32,                \\\n           32)(data, count)\n"));
  CHECK_THAT(o, ContainsSubstring("{ space::add_##suffix(wb_a...); }, \"space::add_##suffix\","));
  CHECK(lines_of(o).size() == lines_of(read(fixtures + "/launches.cu")).size() + 2);
}

TEST_CASE("each form of launch runs its kernel, plain and instrumented", "[rewriter][launches][e2e]") {
  const bool instrumented = GENERATE(false, true);
  CAPTURE(instrumented);
  const int n = GENERATE(1, 100, 1000);
  CAPTURE(n);
  float* d = nullptr;
  int* counts = nullptr;
  float* in = nullptr;
  REQUIRE(cudaMalloc(&d, n * sizeof(float)) == cudaSuccess);
  REQUIRE(cudaMalloc(&counts, n * sizeof(int)) == cudaSuccess);
  REQUIRE(cudaMalloc(&in, n * sizeof(float)) == cudaSuccess);
  for (int i = 0; i < n; ++i) {  // emulated device memory is host memory
    d[i] = float(i % 7);
    counts[i] = i;
    in[i] = 0.5f * float(i);
  }
  const int line = instrumented ? launches_instr::run(d, counts, in, n) : launches_plain::run(d, counts, in, n);
  REQUIRE(cudaGetLastError() == cudaSuccess);
  CHECK(line == line_of("launches.cu", "const int line = __LINE__;"));
  int wrong = 0;
  for (int i = 0; i < n; ++i) {
    float v = float(i % 7);
    v += 1.0f;  // add_one
    v *= 2.0f;  // twice
    v += 3.0f;  // add<float, 3>
    v += 1.0f;  // fp
    v += 1.0f;  // (*fp)
    v *= 2.0f;  // table[1]
    v += 1.0f;  // t.kernel
    v += 1.0f;  // pt->kernel
    v *= 2.0f;  // the macro, twice
    v += 1.0f;  // the macro, inner::add_one
    v += 1.0f;  // the macro pasting inner::add_##one
    v += 0.5f * float(i);  // rows
    if (d[i] != v && wrong++ == 0) {
      CAPTURE(i, d[i], v);
      FAIL_CHECK("the first wrong element");
    }
    if (counts[i] != 2 * i && wrong++ == 0) {
      CAPTURE(i, counts[i]);
      FAIL_CHECK("twice<int> did not run");
    }
  }
  CHECK(wrong == 0);
  // instrumented: the accesses through the local pointers of `rows` were recorded, at their lines
  const wb_emu::MemoryStats stats = wb_emu::last_launch_memory_stats();
  CHECK(stats.instrumented == instrumented);
  if (instrumented) {
    std::set<int> lines;
    for (const wb_emu::LineStats& l : stats.lines) lines.insert(l.line);
    CHECK(lines.count(line_of("launches.cu", "dst[0] += sum")) == 1);
  }
  cudaFree(d);
  cudaFree(counts);
  cudaFree(in);
}

TEST_CASE("a fault in a kernel template launched with explicit arguments names it whole", "[rewriter][launches]") {
  const bool instrumented = GENERATE(false, true);
  CAPTURE(instrumented);
  float* d = nullptr;
  REQUIRE(cudaMalloc(&d, 32 * sizeof(float)) == cudaSuccess);
  if (instrumented)
    launches_instr::fault(d);
  else
    launches_plain::fault(d);
  CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
  CHECK_THAT(wb_emu::last_fault_message(),
             ContainsSubstring("launches.cu:" + std::to_string(line_of("launches.cu", "divergent<float, 4><<<")) +
                               ": error: kernel fault in divergent<float, 4>, launched here"));
  REQUIRE(cudaDeviceReset() == cudaSuccess);
}

TEST_CASE("calls nvcc accepts pass the rewriter's checks of device code", "[rewriter][device-code]") {
  const Run r = rewrite("device_calls.cu");
  CHECK(r.exit_code == 0);
  CHECK(r.errors.empty());
}

TEST_CASE("with nvcc installed, a kernel file nvcc rejects does not compile, at its line", "[rewriter][nvcc]") {
  if (std::string(WB_NVCC).empty()) SKIP("nvcc is not installed, or does not compile a kernel here");
  auto check = [](const std::string& name) {
    const std::string object = out_dir + "/" + name + "." + std::to_string(getpid()) + ".o";
    return run_command("'" WB_CMAKE "' '-DNVCC=" WB_NVCC "' '-DSOURCE=" + fixtures + "/" + name + "' '-DINCLUDE=" +
                           fixtures + "' -DARCH=" WB_NVCC_ARCH " '-DOUTPUT=" + object + "' -P '" WB_NVCC_SCRIPT "'",
                       object, name + ".nvcc");
  };
  const Run bad = check("host_call.cu");
  CHECK(bad.exit_code != 0);
  CHECK_THAT(bad.errors, ContainsSubstring(fixtures + "/host_call.cu:7: error: calling a __host__ function(\"host_square(float)\") "
                                           "from a __global__ function(\"square_all\") is not allowed"));
  CHECK_THAT(bad.errors, ContainsSubstring("nvcc does not compile"));  // CMake wraps the rest of the line
  const Run good = check("device_calls.cu");
  CHECK(good.exit_code == 0);
  CHECK_FALSE(good.output.empty());  // the object nvcc wrote
}
