// Kernels written as CUDA programs write them, which the CPU backend must compile and run unchanged,
// plain and instrumented (tests/emu/test_idioms.cpp): casts of pointers (a compare-and-swap loop on a
// float's bits, 64-bit atomics), a shared array handed to a helper by reference, a histogram indexed
// by a loaded byte, a functor with a templated operator(), several __shared__ declarators in one
// line, a size with parentheses, the storage class after the type, extern __shared__ at namespace
// scope, and device code with a __shared__ array in an included header.
#include <cuda_runtime.h>

namespace IDIOMS_NS {
#include "idioms.cuh"  // in the namespace: this file is compiled twice into one test, plain and instrumented

constexpr int kBins = 256;
extern __shared__ unsigned char ns_dynamic[];  // namespace scope: one per block all the same

// A float maximum by compare-and-swap on its bits, through casts of the pointer.
__device__ float atomic_max_float(float* address, float value) {
  int* bits = reinterpret_cast<int*>(address);
  int old = *bits;
  while (__int_as_float(old) < value) {
    const int seen = atomicCAS(bits, old, __float_as_int(value));
    if (seen == old) break;
    old = seen;
  }
  return __int_as_float(old);
}

struct Square {
  template <class T>
  __device__ T operator()(const T& x) const { return x * x; }
};

// in: n bytes; hist: kBins counters; total: sum of squares (64-bit); maximum; sums: per block.
__global__ void idioms_kernel(const unsigned char* in, int n, unsigned* hist, unsigned long long* total,
                              float* maximum, float* sums) {
  __shared__ unsigned bins[kBins], other[(kBins + 2 * 0) / 2 * 2];
  float __shared__ tile[32][33];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) bins[b] = other[b] = 0;
  unsigned* counts = reinterpret_cast<unsigned*>(ns_dynamic);
  if (threadIdx.x == 0) counts[0] = 0;
  __syncthreads();
  if (i < n) {
    atomicAdd(&bins[in[i]], 1u);  // indexing by a loaded value
    atomicAdd(&counts[0], 1u);
    atomicAdd(total, static_cast<unsigned long long>(Square{}(static_cast<int>(in[i]))));
    atomic_max_float(maximum, static_cast<float>(in[i]));
  }
  fill_tile(tile, threadIdx.x % 32, threadIdx.x / 32, 1.0f);
  __syncthreads();
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) atomicAdd(&hist[b], bins[b] + other[b]);
  const float s = block_sum<256>(i < n ? tile[threadIdx.x % 32][threadIdx.x / 32] : 0.0f);
  if (threadIdx.x == 0) sums[blockIdx.x] = s + static_cast<float>(counts[0]) - static_cast<float>(counts[0]);
}

cudaError_t idioms(const unsigned char* in, int n, unsigned* hist, unsigned long long* total, float* maximum,
                   float* sums) {
  const int blocks = (n + 255) / 256;
  idioms_kernel<<<blocks, 256, 16>>>(in, n, hist, total, maximum, sums);
  return cudaDeviceSynchronize();
}

}  // namespace IDIOMS_NS
