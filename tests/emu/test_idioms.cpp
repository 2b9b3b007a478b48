// The CUDA people write, compiled unchanged by the CPU backend, plain and instrumented
// (tests/emu/idioms.cu): every result is checked against the host's.
#include "support.hpp"

#include <catch2/generators/catch_generators.hpp>

#include <algorithm>
#include <vector>

namespace idioms_plain {
cudaError_t idioms(const unsigned char* in, int n, unsigned* hist, unsigned long long* total, float* maximum,
                   float* sums);
}
namespace idioms_instr {
cudaError_t idioms(const unsigned char* in, int n, unsigned* hist, unsigned long long* total, float* maximum,
                   float* sums);
}

TEST_CASE("casts, shared arrays by reference, loaded indices, functors and shared memory in headers run as CUDA",
          "[emu][idioms]") {
  const bool instrumented = GENERATE(false, true);
  const int n = GENERATE(1, 255, 257, 1000);
  CAPTURE(instrumented, n);
  const int blocks = (n + 255) / 256;
  unsigned char* in = device_array<unsigned char>(n);
  for (int i = 0; i < n; ++i) in[i] = static_cast<unsigned char>((i * 37 + 11) % 251);
  unsigned* hist = device_array<unsigned>(256, 0u);
  unsigned long long* total = device_array<unsigned long long>(1, 0ull);
  float* maximum = device_array<float>(1, -1.0f);
  float* sums = device_array<float>(blocks, -1.0f);
  const cudaError_t e = instrumented ? idioms_instr::idioms(in, n, hist, total, maximum, sums)
                                     : idioms_plain::idioms(in, n, hist, total, maximum, sums);
  REQUIRE(e == cudaSuccess);
  std::vector<unsigned> want(256, 0);
  unsigned long long squares = 0;
  int most = 0;
  for (int i = 0; i < n; ++i) {
    ++want[in[i]];
    squares += static_cast<unsigned long long>(in[i]) * in[i];
    most = std::max(most, static_cast<int>(in[i]));
  }
  for (int b = 0; b < 256; ++b) {
    CAPTURE(b);
    CHECK(hist[b] == want[b]);
  }
  CHECK(*total == squares);
  CHECK(*maximum == static_cast<float>(most));
  for (int b = 0; b < blocks; ++b) {
    CAPTURE(b);
    CHECK(sums[b] == static_cast<float>(std::min(256, n - 256 * b)));  // one 1.0f per thread with i < n
  }
  cudaFree(in);
  cudaFree(hist);
  cudaFree(total);
  cudaFree(maximum);
  cudaFree(sums);
}
