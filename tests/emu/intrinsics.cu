// CUDA's fast-math intrinsics (__expf, __logf...) in a kernel: on the CPU backend they must link
// (glibc declares them without exporting them; emu/src/intrinsics.cpp defines them) and give the
// host's accurate results.
#include "kernels.hpp"

namespace emu_test {

__global__ void fast_math_kernel(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float x = in[i];
  out[9 * i + 0] = __expf(x);
  out[9 * i + 1] = __exp10f(x);
  out[9 * i + 2] = __logf(x);
  out[9 * i + 3] = __log2f(x);
  out[9 * i + 4] = __log10f(x);
  out[9 * i + 5] = __sinf(x);
  out[9 * i + 6] = __cosf(x);
  out[9 * i + 7] = __tanf(x);
  out[9 * i + 8] = __powf(x, 1.5f);
}

cudaError_t fast_math(const float* in, float* out, int n) {
  fast_math_kernel<<<(n + 63) / 64, 64>>>(in, out, n);
  return cudaDeviceSynchronize();
}

}  // namespace emu_test
