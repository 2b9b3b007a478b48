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

}  // namespace

void hold_gpu(double microseconds) {
  hold_kernel<<<1, 1>>>(static_cast<unsigned long long>(microseconds * 1e3));
  WB_CUDA_CHECK(cudaGetLastError());
}

}  // namespace wb::detail
