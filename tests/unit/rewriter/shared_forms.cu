// Fixture of the rewriter's __shared__ declarations (read by rewriter_test.cpp, not compiled).
#include <cuda_runtime.h>
#include "shared_forms.cuh"
constexpr int kTile = 16, kHalo = 2;
extern __shared__ float ns_dyn[];
__shared__ int ns_count;
__global__ void forms(float* out) {
  __shared__ float wm[8], ws[8];
  float __shared__ sums[(kTile + 2 * kHalo) * 2];
  static __shared__ __align__(16) unsigned char bytes[sizeof(float) * 4];
  __shared__ unsigned a, b;
  extern double __shared__ dd[];
  volatile __shared__ int col[32];
  out[0] = wm[0] + ws[0] + sums[0] + bytes[0] + a + b + dd[0] + col[0] + ns_dyn[0] + ns_count +
           block_partial(1.0f);
}
