// Kernels of the CPU backend's tests of __constant__ and __device__ variables (test_constant.cpp):
// built twice, plain and instrumented, in the namespace CONSTANT_NS names.
#include <cuda_runtime.h>

namespace CONSTANT_NS {

__constant__ float coeffs[8];                     // an array, filled by cudaMemcpyToSymbol
__constant__ int scale;                           // a scalar
__constant__ float preset[4] = {1.0f, 2.0f, 3.0f, 4.0f};  // an initialized one
__device__ unsigned int hits;                     // a __device__ variable the kernel counts into
static __constant__ float two_a[2], two_b[2];     // two in one declaration

// out[i] = in[i] * coeffs[i % 8] * scale + preset[i % 4], read directly and, for coeffs, through
// a local pointer (a recorded one in the instrumented build).
__global__ void weighted_kernel(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float* c = coeffs;
  out[i] = in[i] * c[i % 8] * float(scale) + preset[i % 4];
  atomicAdd(&hits, 1u);
}

// out[i] = table[i % count]: `table` is a device pointer the host got from cudaGetSymbolAddress.
__global__ void lookup_kernel(const float* table, int count, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = table[i % count];
}

cudaError_t weighted(const float* in, float* out, int n) {
  weighted_kernel<<<(n + 63) / 64, 64>>>(in, out, n);
  return cudaDeviceSynchronize();
}

cudaError_t lookup(const float* table, int count, float* out, int n) {
  lookup_kernel<<<(n + 63) / 64, 64>>>(table, count, out, n);
  return cudaDeviceSynchronize();
}

// The symbols, for the host side of the test (a .cu file's variables, as a learner's would be).
const float (&coeffs_symbol())[8] { return coeffs; }
const int& scale_symbol() { return scale; }
const float (&preset_symbol())[4] { return preset; }
const unsigned int& hits_symbol() { return hits; }
const float (&two_b_symbol())[2] { return two_b; }

}  // namespace CONSTANT_NS
