// __constant__ and __device__ variables on the CPU backend: cudaMemcpyToSymbol,
// cudaMemcpyFromSymbol, cudaGetSymbolAddress, cudaGetSymbolSize and their errors, through
// tests/emu/constant.cu built plain and instrumented.
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <cstdlib>
#include <string>
#include <vector>

#include "support.hpp"

using Catch::Matchers::ContainsSubstring;

// tests/emu/constant.cu, once per build
#define WB_CONSTANT_DECLS                                                   \
  cudaError_t weighted(const float* in, float* out, int n);               \
  cudaError_t lookup(const float* table, int count, float* out, int n);   \
  const float (&coeffs_symbol())[8];                                        \
  const int& scale_symbol();                                                \
  const float (&preset_symbol())[4];                                        \
  const unsigned int& hits_symbol();                                        \
  const float (&two_b_symbol())[2];
namespace constant_plain { WB_CONSTANT_DECLS }
namespace constant_instr { WB_CONSTANT_DECLS }

namespace {

struct Build {
  const char* name;
  cudaError_t (*weighted)(const float*, float*, int);
  cudaError_t (*lookup)(const float*, int, float*, int);
  const float (&(*coeffs)())[8];
  const int& (*scale)();
  const float (&(*preset)())[4];
  const unsigned int& (*hits)();
};

Build plain_build() {
  using namespace constant_plain;
  return {"plain", weighted, lookup, coeffs_symbol, scale_symbol, preset_symbol, hits_symbol};
}
Build instrumented_build() {
  using namespace constant_instr;
  return {"instrumented", weighted, lookup, coeffs_symbol, scale_symbol, preset_symbol, hits_symbol};
}

int host_variable = 0;  // a plain host variable: no symbol

}  // namespace

TEST_CASE("__constant__ arrays and scalars set with cudaMemcpyToSymbol are what kernels read", "[emu][constant]") {
  const Build b = GENERATE(plain_build(), instrumented_build());
  CAPTURE(b.name);
  const float c[8] = {1, -2, 3, -4, 5, -6, 7, -8};
  const int s = 3;
  const unsigned zero = 0;
  REQUIRE(cudaMemcpyToSymbol(b.coeffs(), c, sizeof c) == cudaSuccess);
  REQUIRE(cudaMemcpyToSymbol(b.scale(), &s, sizeof s, 0, cudaMemcpyHostToDevice) == cudaSuccess);
  REQUIRE(cudaMemcpyToSymbol(b.hits(), &zero, sizeof zero) == cudaSuccess);
  const int n = 1000;
  float* in = device_array<float>(n);
  float* out = device_array<float>(n, -1.0f);
  for (int i = 0; i < n; ++i) in[i] = float(i % 13) - 6.0f;
  std::string err = capture_stderr([&] { CHECK(b.weighted(in, out, n) == cudaSuccess); });
  CHECK(err.empty());
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += out[i] != in[i] * c[i % 8] * float(s) + float(i % 4 + 1);
  CHECK(wrong == 0);
  // the __device__ counter, read back
  unsigned hits = 0;
  REQUIRE(cudaMemcpyFromSymbol(&hits, b.hits(), sizeof hits) == cudaSuccess);
  CHECK(hits == unsigned(n));
  cudaFree(in);
  cudaFree(out);
}

TEST_CASE("cudaMemcpyToSymbol and cudaMemcpyFromSymbol honour their offset", "[emu][constant]") {
  const float four[4] = {10, 20, 30, 40};
  REQUIRE(cudaMemcpyToSymbol(constant_plain::coeffs_symbol(), four, sizeof four, 4 * sizeof(float)) == cudaSuccess);
  CHECK(constant_plain::coeffs_symbol()[4] == 10.0f);
  CHECK(constant_plain::coeffs_symbol()[7] == 40.0f);
  float two[2] = {0, 0};
  REQUIRE(cudaMemcpyFromSymbol(two, constant_plain::coeffs_symbol(), sizeof two, 5 * sizeof(float),
                               cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(two[0] == 20.0f);
  CHECK(two[1] == 30.0f);
  // the initializer of a __constant__ is there before any copy
  float preset[4] = {};
  REQUIRE(cudaMemcpyFromSymbol(preset, constant_plain::preset_symbol(), sizeof preset) == cudaSuccess);
  CHECK(preset[3] == 4.0f);
  // a variable of a declaration of two is a symbol of its own size
  std::size_t size = 0;
  REQUIRE(cudaGetSymbolSize(&size, constant_plain::two_b_symbol()) == cudaSuccess);
  CHECK(size == 2 * sizeof(float));
}

TEST_CASE("a copy past the end of a symbol is cudaErrorInvalidValue and copies nothing", "[emu][constant][errors]") {
  float before[8];
  REQUIRE(cudaMemcpyFromSymbol(before, constant_plain::coeffs_symbol(), sizeof before) == cudaSuccess);
  const float nine[9] = {9, 9, 9, 9, 9, 9, 9, 9, 9};
  // 9 floats into float[8]; 2 floats at offset 7 floats; an offset past the end; one byte back out too many
  CHECK(cudaMemcpyToSymbol(constant_plain::coeffs_symbol(), nine, sizeof nine) == cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaSuccess);  // not sticky
  CHECK(cudaMemcpyToSymbol(constant_plain::coeffs_symbol(), nine, 2 * sizeof(float), 7 * sizeof(float)) ==
        cudaErrorInvalidValue);
  CHECK(cudaMemcpyToSymbol(constant_plain::coeffs_symbol(), nine, 0, 33) == cudaErrorInvalidValue);
  CHECK(cudaMemcpyToSymbol(constant_plain::coeffs_symbol(), nine, 4, std::size_t(-2)) == cudaErrorInvalidValue);
  float back[9];
  CHECK(cudaMemcpyFromSymbol(back, constant_plain::coeffs_symbol(), sizeof(float) * 8 + 1) == cudaErrorInvalidValue);
  (void)cudaGetLastError();
  for (int k = 0; k < 8; ++k) CHECK(constant_plain::coeffs_symbol()[k] == before[k]);
  // WB_EMU_VERBOSE says why, naming the variable and its declaration
  setenv("WB_EMU_VERBOSE", "1", 1);
  const std::string why = capture_stderr(
      [&] { CHECK(cudaMemcpyToSymbol(constant_plain::coeffs_symbol(), nine, sizeof nine) == cudaErrorInvalidValue); });
  unsetenv("WB_EMU_VERBOSE");
  (void)cudaGetLastError();
  CHECK_THAT(why, ContainsSubstring("cudaMemcpyToSymbol: 36 bytes at offset 0 do not fit in `coeffs` (__constant__, "
                                    "32 bytes, declared at "));
  CHECK_THAT(why, ContainsSubstring("constant.cu:7)"));
}

TEST_CASE("a copy in the wrong direction is cudaErrorInvalidMemcpyDirection", "[emu][constant][errors]") {
  const float one[1] = {1};
  float got[1];
  CHECK(cudaMemcpyToSymbol(constant_plain::coeffs_symbol(), one, sizeof one, 0, cudaMemcpyDeviceToHost) ==
        cudaErrorInvalidMemcpyDirection);
  CHECK(cudaMemcpyFromSymbol(got, constant_plain::coeffs_symbol(), sizeof got, 0, cudaMemcpyHostToDevice) ==
        cudaErrorInvalidMemcpyDirection);
  // DeviceToDevice needs device memory on the other side
  CHECK(cudaMemcpyToSymbol(constant_plain::coeffs_symbol(), one, sizeof one, 0, cudaMemcpyDeviceToDevice) ==
        cudaErrorInvalidValue);
  float* dev = device_array<float>(8, 5.0f);
  CHECK(cudaMemcpyToSymbol(constant_plain::coeffs_symbol(), dev, 8 * sizeof(float), 0, cudaMemcpyDeviceToDevice) ==
        cudaSuccess);
  CHECK(constant_plain::coeffs_symbol()[7] == 5.0f);
  CHECK(cudaMemcpyFromSymbol(dev, constant_plain::preset_symbol(), 4 * sizeof(float), 0, cudaMemcpyDefault) ==
        cudaSuccess);
  CHECK(dev[2] == 3.0f);
  (void)cudaGetLastError();
  cudaFree(dev);
}

TEST_CASE("a variable that is no __constant__ or __device__ one is cudaErrorInvalidSymbol", "[emu][constant][errors]") {
  const int one = 1;
  CHECK(cudaMemcpyToSymbol(host_variable, &one, sizeof one) == cudaErrorInvalidSymbol);
  CHECK(cudaGetLastError() == cudaErrorInvalidSymbol);
  CHECK(std::string(cudaGetErrorName(cudaErrorInvalidSymbol)) == "cudaErrorInvalidSymbol");
  CHECK(std::string(cudaGetErrorString(cudaErrorInvalidSymbol)) == "invalid device symbol");
  // the address of the variable, passed to the C++ form, is a pointer to a temporary, as in CUDA
  const float* address = constant_plain::coeffs_symbol();
  CHECK(cudaMemcpyToSymbol(address, &one, sizeof one) == cudaErrorInvalidSymbol);
  // the C form takes the address
  CHECK(cudaMemcpyToSymbol(static_cast<const void*>(address), &one, sizeof one) == cudaSuccess);
  void* p = nullptr;
  std::size_t size = 0;
  CHECK(cudaGetSymbolAddress(&p, host_variable) == cudaErrorInvalidSymbol);
  CHECK(cudaGetSymbolSize(&size, host_variable) == cudaErrorInvalidSymbol);
  (void)cudaGetLastError();
}

TEST_CASE("cudaGetSymbolAddress gives a device pointer that copies and kernels accept, to the symbol's end",
          "[emu][constant]") {
  const Build b = GENERATE(plain_build(), instrumented_build());
  CAPTURE(b.name);
  void* p = nullptr;
  std::size_t size = 0;
  REQUIRE(cudaGetSymbolAddress(&p, b.coeffs()) == cudaSuccess);
  REQUIRE(cudaGetSymbolSize(&size, b.coeffs()) == cudaSuccess);
  CHECK(p == static_cast<const void*>(b.coeffs()));
  CHECK(size == 8 * sizeof(float));
  const float c[8] = {0.5f, 1.5f, 2.5f, 3.5f, 4.5f, 5.5f, 6.5f, 7.5f};
  REQUIRE(cudaMemcpy(p, c, sizeof c, cudaMemcpyHostToDevice) == cudaSuccess);
  REQUIRE(cudaMemset(static_cast<char*>(p) + 28, 0, 4) == cudaSuccess);
  // one byte past the symbol is outside device memory
  CHECK(cudaMemcpy(p, c, sizeof c + 1, cudaMemcpyHostToDevice) == cudaErrorInvalidValue);
  (void)cudaGetLastError();
  const int n = 100;
  float* out = device_array<float>(n, -1.0f);
  std::string err = capture_stderr([&] { CHECK(b.lookup(static_cast<const float*>(p), 8, out, n) == cudaSuccess); });
  CHECK(err.empty());
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += out[i] != (i % 8 == 7 ? 0.0f : c[i % 8]);
  CHECK(wrong == 0);
  cudaFree(out);
}
