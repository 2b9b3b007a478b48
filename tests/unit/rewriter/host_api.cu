// Fixture: a __device__ function calls cudaMemcpy, a host-only runtime call. The rewriter must stop at line 4.
#include <cuda_runtime.h>
__device__ void copy_one(float* dst, const float* src) {
  cudaMemcpy(dst, src, sizeof(float), cudaMemcpyDeviceToDevice);
}
__global__ void k(float* dst, const float* src) { copy_one(dst, src); }
