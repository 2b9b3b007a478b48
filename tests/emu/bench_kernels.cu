// Kernels of emu-bench: compiled twice, plain (namespace bench_plain) and instrumented
// (namespace bench_instr), see tests/emu/CMakeLists.txt.
#include <cuda_runtime.h>

namespace BENCH_NS {

__global__ void plain_kernel(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
}

// `barriers` __syncthreads() per thread, each thread on its own shared word until the last.
__global__ void barrier_kernel(const float* in, float* out, int n, int barriers) {
  __shared__ float s[1024];
  const int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  s[t] = i < n ? in[i] : 0.0f;
  for (int b = 0; b < barriers; ++b) {
    __syncthreads();
    s[t] += 1.0f;
  }
  __syncthreads();
  if (i < n) out[i] = s[(t + 1) % blockDim.x];
}

// Runs the kernel with 0 (no barrier, no shared memory), 1 or 8 barriers per thread.
cudaError_t run(const float* in, float* out, int n, int threads, int barriers) {
  const int blocks = (n + threads - 1) / threads;
  if (barriers == 0)
    plain_kernel<<<blocks, threads>>>(in, out, n);
  else
    barrier_kernel<<<blocks, threads>>>(in, out, n, barriers);
  return cudaDeviceSynchronize();
}

}  // namespace BENCH_NS
