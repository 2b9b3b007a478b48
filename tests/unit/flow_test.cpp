// The grading flow (wb/flow.hpp, wb/speed.hpp and the summary), in a grader executable: each
// tag is one run, checked by tests/unit/CMakeLists.txt for its exit code and verdict.
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>

#include <string>
#include <vector>

#include "../../grader/src/report_internal.hpp"  // note_certain_cause
#include "wb/grader.hpp"

namespace flow_fixture {
void fault(float* out);
void fault_in_template(float* out);
void fill(float* out, int n, float value);
}  // namespace flow_fixture

namespace {

wb::Comparison filled(int n) {
  wb::DeviceBuffer<float> out(n);
  out.poison();
  wb::run_launch("fill (n = " + std::to_string(n) + ")", [&] { flow_fixture::fill(out.data(), n, 2.5f); });
  wb::CompareOptions opt;
  opt.array = "out";
  wb::Comparison c = wb::compare(std::vector<double>(n, 2.5), out, opt);
  c.context = "n = " + std::to_string(n);
  return c;
}

}  // namespace

// Run alone ("[fault-then-clean]"): one failure, then clean cases that pass.
TEST_CASE("a kernel fault fails its own case", "[fault-then-clean]") {
  wb::DeviceBuffer<float> out(32);
  wb::run_launch("divergent barriers", [&] { flow_fixture::fault(out.data()); });
}

TEST_CASE("a fault in a kernel template names it whole", "[template-fault]") {
  wb::DeviceBuffer<float> out(32);
  wb::run_launch("divergent barriers in a template", [&] { flow_fixture::fault_in_template(out.data()); });
}

TEST_CASE("the cases after a fault run clean", "[fault-then-clean]") {
  const int n = GENERATE(1, 100, 1000);
  CAPTURE(n);
  WB_REQUIRE_MATCH(filled(n));
}

TEST_CASE("an unnamed CUDA error of a launch is explained in one sentence", "[config-error]") {
  wb::run_launch("fill (0 blocks)", [] {
    float* p = nullptr;
    flow_fixture::fill(p, 0, 1.0f);               // n = 0: no launch, no error
    cudaMemset(nullptr, 0, 4);                     // an invalid argument, as a bad launch gives
  });
}

TEST_CASE("format_ratio prints two decimals, or two significant digits below 0.1", "[helpers]") {
  CHECK(wb::format_ratio(1.0) == "1.00");
  CHECK(wb::format_ratio(0.97654) == "0.98");
  CHECK(wb::format_ratio(12.345) == "12.35");
  CHECK(wb::format_ratio(0.000526097675) == "0.00053");
  CHECK(wb::format_ratio(0.0123) == "0.012");
}

TEST_CASE("shorten cuts a long detail at a word, under the limit", "[helpers]") {
  const std::string word = "sentence ";
  std::string long_text;
  for (int k = 0; k < 40; ++k) long_text += word;
  const std::string s = wb::shorten(long_text);
  CHECK(s.size() <= wb::summary_detail_max);
  CHECK(s.substr(s.size() - 3) == "...");
  CHECK(s.find("sentence sentence") == 0);
  CHECK(wb::shorten("short\nand plain") == "short and plain");
}

TEST_CASE("inputs_unchanged names an input the result was written into", "[helpers]") {
  const std::vector<float> a{1, 2, 3}, b{4, 5, 6};
  wb::DeviceBuffer<float> da(a), db(b);
  CHECK(wb::inputs_unchanged<float>({{"a", a, da}, {"b", b, db}}, "c").ok());
  const std::vector<float> sum{5, 7, 9};
  da.upload(sum);
  const wb::Comparison c =
      wb::inputs_unchanged<float>({{"a", a, da}, {"b", b, db}}, "c", std::vector<double>{5, 7, 9});
  CHECK(c.diagnosis == "the kernel wrote its result into its input a (a now holds what c should): only c may be written");
  db.upload({4, 0, 6});
  da.upload(a);
  const wb::Comparison d = wb::inputs_unchanged<float>({{"a", a, da}, {"b", b, db}}, "c", std::vector<double>{5, 7, 9});
  CHECK(d.diagnosis == "the kernel changed its input b: only c may be written");
  CHECK(d.wrong == 1);
}

TEST_CASE("a speed below the bar fails as too slow, with a short ratio", "[too-slow]") {
  std::vector<wb::Timing> t(3);
  t[0].name = "yours";
  t[0].median_ms = 1000.0;
  t[0].gbps = 1;
  t[1].name = "solution";
  t[1].median_ms = 0.526097675;
  t[2].name = "library";
  t[2].median_ms = 0.5;
  wb::SpeedBar bar;
  bar.yours = "yours";
  bar.solution = "solution";
  bar.anchor = "library";
  bar.size = "2^28 floats";
  bar.minimum = 0.5;
  bar.result = "the sum";
  bar.advice = "More blocks.";
  wb::speed_verdict(t, bar);
}

TEST_CASE("a compute-bound speed below the bar fails as too slow, in TFLOP/s", "[too-slow-compute]") {
  const double ms[] = {5.3272, 2.6636, 2.6636, 2.13088};
  const wb::SpeedCase sc = wb::SpeedCase("C = A B", wb::fp32_bound(2.0 * 4096.0 * 4096.0 * 4096.0, 0))
                               .yours("yours", [] {})
                               .solution("solution", [] {})
                               .anchor({"cuBLAS sgemm", [] {}})
                               .compiled({"torch.compile sgemm", [] {}})
                               .bar("4096 x 4096 x 4096", "C", 0.8, "Tile it.");
  std::vector<wb::Timing> t;
  for (const char* name : {"yours", "solution", "cuBLAS sgemm", "torch.compile sgemm"}) {
    t.emplace_back();
    t.back().name = name;
    t.back().median_ms = ms[t.size() - 1];
  }
  wb::Peaks peaks;
  peaks.fp32_tflops = wb::peak_tflops(132, 1.98e6, 256);  // an H200's
  wb::speed_verdict(t, sc.speed_bar, sc.work, peaks);
}

// Run alone ("[written-once]"): one case finds nothing written, another is right. The kernel writes,
// so the verdict is wrong (and names the case), not *not started*.
TEST_CASE("a case that writes its output", "[written-once]") { WB_REQUIRE_MATCH(filled(64)); }
TEST_CASE("a case that finds nothing written", "[written-once]") {
  wb::DeviceBuffer<float> out(8);
  out.poison();
  wb::CompareOptions opt;
  opt.array = "out";
  wb::Comparison c = wb::compare(std::vector<double>(8, 1.0), out, opt);
  c.context = "n = 8, nothing launched";
  WB_REQUIRE_MATCH(c);
}

// Run alone ("[announce]"): a timing case after clean checks announces the timing, once.
TEST_CASE("a clean check before the timing cases", "[announce]") {
  const wb::Comparison c = filled(64);
  WB_REQUIRE_MATCH(c);
}

TEST_CASE("two timing cases after clean checks", "[announce]") {
  WB_REQUIRE_CORRECT_SO_FAR();
  WB_REQUIRE_CORRECT_SO_FAR();
}

// Run alone ("[announce-after-failure]"): after a failed check the timing case skips, silently.
TEST_CASE("a check that fails", "[announce-after-failure]") { FAIL_CHECK("the sum is 3, expected 4"); }

TEST_CASE("a timing case after a failed check", "[announce-after-failure]") { WB_REQUIRE_CORRECT_SO_FAR(); }

// Run alone ("[certain-cause]"): a guess from wrong values, then a tool's own finding, which leads.
TEST_CASE("a wrong sum, diagnosed from its values", "[certain-cause]") {
  wb::note_error("blocks overwrite one another's work on *sum");
  FAIL_CHECK("the sum is 3, expected 4");
}
TEST_CASE("then compute-sanitizer reports a race on the small cases", "[certain-cause]") {
  wb::note_certain_cause("no shared-memory race: compute-sanitizer racecheck reported Error: Race reported");
  FAIL_CHECK("racecheck");
}
