// The speed case's arithmetic and text (wb/speed.hpp, grader/src/speed_format.cpp) on fake
// timings: the timing itself runs on a GPU only, but what it prints is checked here, for a
// bandwidth-bound kernel and for compute-bound ones (FP32 and tensor cores).
#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "wb/device.hpp"
#include "wb/speed.hpp"

using Catch::Approx;
using Catch::Matchers::ContainsSubstring;

namespace {

wb::Timing timing(const std::string& name, double ms, double gbps = 0, double pct = 0) {
  wb::Timing t;
  t.name = name;
  t.median_ms = ms;
  t.q1_ms = 0.99 * ms;
  t.q3_ms = 1.01 * ms;
  t.samples = 20;
  t.gbps = gbps;
  t.pct_peak = pct;
  return t;
}

// An H200's figures: 4814 GB/s, and at 132 SMs and 1.98 GHz the FP32 and tensor-core peaks.
const wb::Peaks h200{4814, wb::peak_tflops(132, 1.98e6, 2 * 128), wb::peak_tflops(132, 1.98e6, 4096)};
const double gemm_flops = 2.0 * 4096.0 * 4096.0 * 4096.0;  // 4096^3, a multiply-add is 2 FLOPs
const double gemm_bytes = 3.0 * 4 * 4096.0 * 4096.0;

}  // namespace

TEST_CASE("FP32 lanes and tensor FLOPs per multiprocessor follow the architecture", "[peaks]") {
  CHECK(wb::fp32_lanes_per_sm(9, 0) == 128);  // H100/H200
  CHECK(wb::fp32_lanes_per_sm(8, 0) == 64);   // A100
  CHECK(wb::fp32_lanes_per_sm(8, 6) == 128);
  CHECK(wb::fp32_lanes_per_sm(7, 0) == 64);
  CHECK(wb::fp32_lanes_per_sm(10, 0) == 128);
  CHECK(wb::fp32_lanes_per_sm(3, 5) == 0);  // not in the table: no share shown
  CHECK(wb::tensor_flops_per_clock_per_sm(9, 0) == 4096);
  CHECK(wb::tensor_flops_per_clock_per_sm(8, 0) == 2048);
  CHECK(wb::tensor_flops_per_clock_per_sm(6, 1) == 0);  // no tensor cores
  // H200: 132 SMs x 1.98 GHz x 256 FLOPs per clock = 66.9 TFLOP/s (DESIGN.md: about 67).
  CHECK(h200.fp32_tflops == Approx(66.9).epsilon(0.001));
  CHECK(h200.tensor_tflops == Approx(1070.5).epsilon(0.001));
  // A100: 108 SMs x 1.41 GHz x 2048 = 312 TFLOP/s, NVIDIA's figure.
  CHECK(wb::peak_tflops(108, 1.41e6, 2048) == Approx(311.9).epsilon(0.001));
}

TEST_CASE("no compute peak on the CPU backend", "[peaks]") {
  CHECK(wb::peak_fp32_tflops() == 0);
  CHECK(wb::peak_tensor_tflops() == 0);
  CHECK(wb::device_peaks().fp32_tflops == 0);
}

TEST_CASE("rates: GB/s for memory-bound work, TFLOP/s or GFLOP/s for compute-bound", "[rate]") {
  const wb::Work mem = wb::memory_bound(8.0 * (1 << 28));
  CHECK(wb::rate_per_s(0.5, mem) == Approx(4.295e12).epsilon(0.001));
  CHECK(wb::format_rate(4.172e12, mem) == "4172 GB/s");
  CHECK(wb::share_of_peak(4.172e12, mem, h200) == Approx(86.66).epsilon(0.001));
  const wb::Work fp32 = wb::fp32_bound(gemm_flops, gemm_bytes);
  CHECK(wb::rate_per_s(2.6636, fp32) == Approx(51.6e12).epsilon(0.001));
  CHECK(wb::format_rate(51.6e12, fp32) == "51.6 TFLOP/s");
  CHECK(wb::format_rate(8.5e11, fp32) == "850 GFLOP/s");
  CHECK(wb::share_of_peak(51.6e12, fp32, h200) == Approx(77.1).epsilon(0.002));
  const wb::Work tensor = wb::tensor_bound(gemm_flops, gemm_bytes);
  CHECK(wb::share_of_peak(783e12, tensor, h200) == Approx(73.1).epsilon(0.002));
  CHECK(wb::share_of_peak(51.6e12, fp32, wb::Peaks{}) == 0);  // unknown peak: no share
  CHECK(wb::rate_per_s(0, fp32) == 0);
}

TEST_CASE("the verdict's detail in the kernel's terms", "[detail]") {
  const wb::Timing mem = timing("yours", 0.2573, 4172, 86.66);
  CHECK(wb::speed_detail(mem, "2^28 floats") == "2^28 floats: 4172 GB/s, 87% of peak");
  CHECK(wb::speed_detail(timing("yours", 1, 1, 0), "2^28 floats") == "2^28 floats: 1 GB/s");
  const wb::Timing gemm = timing("yours", 2.6636);
  CHECK(wb::speed_detail(gemm, "4096 x 4096 x 4096", wb::fp32_bound(gemm_flops, gemm_bytes), h200) ==
        "4096 x 4096 x 4096: 51.6 TFLOP/s, 77% of the FP32 peak");
  CHECK(wb::speed_detail(timing("yours", 0.1755), "4096 x 4096 x 4096", wb::tensor_bound(gemm_flops, gemm_bytes),
                         h200) == "4096 x 4096 x 4096: 783.1 TFLOP/s, 73% of the tensor-core peak");
  CHECK(wb::speed_detail(gemm, "4096 x 4096 x 4096", wb::fp32_bound(gemm_flops, gemm_bytes), wb::Peaks{}) ==
        "4096 x 4096 x 4096: 51.6 TFLOP/s");
}

TEST_CASE("a bandwidth-bound table: GB/s, % of peak bandwidth and the ratio to the solution", "[table]") {
  const std::vector<wb::Timing> t = {timing("your reduce_sum", 0.5, 2147.5, 44.6),
                                     timing("solution (float4, shuffles)", 0.25, 4295, 89.2),
                                     timing("cub::DeviceReduce::Sum", 0.2468, 4350, 90.4)};
  const std::string s = wb::format_speed_table("sum of 2^28 floats", t, "solution (float4, shuffles)",
                                               wb::memory_bound(4.0 * (1 << 28)), h200, "NVIDIA H200");
  CHECK(s ==
        "sum of 2^28 floats (NVIDIA H200, theoretical peak 4814 GB/s)\n"
        "  variant                        median       q1..q3 (ms)     GB/s  % peak     speed\n"
        "  your reduce_sum              0.5000 ms   0.4950..0.5050       2148   44.6%     0.50x\n"
        "  solution (float4, shuffles)   0.2500 ms   0.2475..0.2525       4295   89.2%     1.00x\n"
        "  cub::DeviceReduce::Sum       0.2468 ms   0.2443..0.2493       4350   90.4%     1.01x\n"
        "  (speed: time of solution (float4, shuffles) / time of the variant; samples interleaved, L2 flushed)\n");
}

TEST_CASE("a compute-bound table: TFLOP/s and % of the FP32 or the tensor-core peak", "[table]") {
  const std::vector<wb::Timing> t = {timing("your sgemm", 5.3272, 37.8, 0.8), timing("solution", 2.6636, 75.6, 1.6),
                                     timing("cuBLAS sgemm", 2.6636)};
  const std::string s = wb::format_speed_table("C = A B, 4096 x 4096 x 4096 floats", t, "solution",
                                               wb::fp32_bound(gemm_flops, gemm_bytes), h200, "NVIDIA H200");
  CHECK_THAT(s, ContainsSubstring("C = A B, 4096 x 4096 x 4096 floats (NVIDIA H200, theoretical FP32 peak 66.9 TFLOP/s)\n"));
  CHECK_THAT(s, ContainsSubstring("  variant                        median       q1..q3 (ms)  TFLOP/s  % peak     speed\n"));
  CHECK_THAT(s, ContainsSubstring("  your sgemm                   5.3272 ms   5.2739..5.3805       25.8   38.6%     0.50x\n"));
  CHECK_THAT(s, ContainsSubstring("  cuBLAS sgemm                 2.6636 ms   2.6370..2.6902       51.6   77.1%     1.00x\n"));
  const std::string tc = wb::format_speed_table("C = A B (half in, float out)", {timing("yours", 0.1755)}, "",
                                                wb::tensor_bound(gemm_flops, gemm_bytes), h200, "NVIDIA H200");
  CHECK_THAT(tc, ContainsSubstring("theoretical tensor-core peak (half in, float accumulate) 1070.5 TFLOP/s)"));
  CHECK_THAT(tc, ContainsSubstring("783.1   73.2%"));
  // Below 1 TFLOP/s the column is GFLOP/s, without decimals.
  const std::string slow = wb::format_speed_table("small", {timing("yours", 1000)}, "",
                                                  wb::fp32_bound(gemm_flops, gemm_bytes), h200, "NVIDIA H200");
  CHECK_THAT(slow, ContainsSubstring("GFLOP/s"));
  CHECK_THAT(slow, ContainsSubstring("      137    0.2%"));
}

TEST_CASE("WB_TIMINGS_CSV: each row of a timing table appended to the file, for the charts", "[table][csv]") {
  const std::string path = "speed_test_timings.csv";
  std::remove(path.c_str());
  ::setenv("WB_TIMINGS_CSV", path.c_str(), 1);
  const std::vector<wb::Timing> t = {timing("your \"sgemm\"", 5.3272), timing("solution", 2.6636)};
  wb::format_speed_table("C = A B", t, "solution", wb::fp32_bound(gemm_flops, gemm_bytes), h200, "NVIDIA H200");
  wb::format_speed_table("sum", {timing("solution", 0.0628, 4172, 86.7)}, "", wb::memory_bound(0), h200, "NVIDIA H200");
  ::unsetenv("WB_TIMINGS_CSV");
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  std::remove(path.c_str());
  REQUIRE(lines.size() == 4);  // one header, then the three rows
  CHECK(lines[0] == "table,device,variant,median_ms,q1_ms,q3_ms,rate,unit,pct_peak,speed_vs_reference");
  CHECK(lines[1] == "\"C = A B\",\"NVIDIA H200\",\"your \"\"sgemm\"\"\",5.327200,5.273928,5.380472,25.8,\"TFLOP/s\",38.56,0.5000");
  CHECK_THAT(lines[2], ContainsSubstring("\"solution\",2.663600,"));
  CHECK_THAT(lines[2], ContainsSubstring(",1.0000"));
  CHECK(lines[3] == "\"sum\",\"NVIDIA H200\",\"solution\",0.062800,0.062172,0.063428,4172,\"GB/s\",86.70,0.0000");
}

TEST_CASE("the exercises' table row: the solution's figures and the library's", "[table-row]") {
  const wb::Timing sol = timing("solution", 2.11), lib = timing("cuBLAS sgemm", 1.5);
  CHECK(wb::format_table_row("x03-sgemm", "4096 x 4096 x 4096", sol, &lib, "cuBLAS sgemm",
                             wb::fp32_bound(gemm_flops, gemm_bytes)) ==
        "table row: x03-sgemm | 4096 x 4096 x 4096 | 2.1100 ms | 65.1 TFLOP/s | cuBLAS sgemm | 1.5000 ms | "
        "91.6 TFLOP/s | 0.71");
  CHECK(wb::format_table_row("x02-scan", "2^28 floats", timing("solution", 0.5), nullptr,
                             "PyTorch cumsum (not available)", wb::memory_bound(8.0 * (1 << 28))) ==
        "table row: x02-scan | 2^28 floats | 0.5000 ms | 4295 GB/s | PyTorch cumsum (not available) | - | - | -");
}

TEST_CASE("a speed case's setters name the rows and the bar", "[case]") {
  int runs = 0;
  wb::SpeedCase s("title", wb::fp32_bound(gemm_flops, gemm_bytes));
  s.yours("your sgemm", [&] { ++runs; })
      .solution("solution", [&] { runs += 10; })
      .row("other", [] {}, 8.0)
      .anchor({"PyTorch x", nullptr, "no libtorch"})
      .compiled({"torch.compile x", [] {}, ""})
      .bar("4096^3", "C", 0.5, "Tile it.")
      .table_row("x03-sgemm");
  REQUIRE(s.contenders.size() == 4);  // the missing anchor is no row
  CHECK(s.contenders[3].name == "torch.compile x");
  CHECK(s.contenders[0].name == "your sgemm");
  CHECK(s.contenders[1].name == "solution");
  CHECK(s.contenders[2].bytes == 8.0);
  s.contenders[0].run();
  s.contenders[1].run();
  CHECK(runs == 11);
  CHECK(s.speed_bar.yours == "your sgemm");
  CHECK(s.speed_bar.solution == "solution");
  CHECK(s.speed_bar.anchor.empty());  // missing: no ratio to it
  CHECK(s.speed_bar.compiled == "torch.compile x");
  CHECK(s.speed_bar.minimum == 0.5);
  CHECK(s.speed_bar.advice == "Tile it.");
  CHECK(s.row_id == "x03-sgemm");
}
