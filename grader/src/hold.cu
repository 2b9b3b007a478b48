// The CUDA backend's half of timing.cpp: a kernel that keeps the GPU busy for a set time.
#include <cuda_runtime.h>

#include "wb/cuda_check.hpp"

namespace wb::detail {
namespace {

__device__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void hold_kernel(unsigned long long ns) {
  const unsigned long long start = global_ns();
  while (global_ns() - start < ns) __nanosleep(1000);
}

// Fills a whole block's worth of shared memory with 0xFF bytes, as the CPU backend fills every
// block's shared memory (a NaN as a float, 0xFFFFFFFF as an unsigned int).
__global__ void dirty_shared_kernel(unsigned int words) {
  extern __shared__ unsigned int dirty[];
  for (unsigned int i = threadIdx.x; i < words; i += blockDim.x) dirty[i] = 0xFFFFFFFFu;
}

}  // namespace

void set_internal_launch(bool on);  // launch_wrap.cpp: launches made meanwhile are not the learner's

void dirty_shared_memory() {
  static int bytes = -1, blocks = 0;
  if (bytes < 0) {
    int device = 0, optin = 0, sms = 0;
    bytes = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
        cudaFuncSetAttribute(dirty_shared_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, optin) != cudaSuccess) {
      (void)cudaGetLastError();
      return;
    }
    bytes = optin;
    blocks = 2 * sms;
  }
  if (bytes == 0) return;
  set_internal_launch(true);
  dirty_shared_kernel<<<blocks, 256, bytes>>>(static_cast<unsigned int>(bytes / 4));
  set_internal_launch(false);
  (void)cudaGetLastError();  // a failure here is no finding about the learner's kernel
}

void hold_gpu(double microseconds) {
  hold_kernel<<<1, 1>>>(static_cast<unsigned long long>(microseconds * 1e3));
  WB_CUDA_CHECK(cudaGetLastError());
}

}  // namespace wb::detail
