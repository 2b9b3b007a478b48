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

// ---- an inclusive scan of n floats, as a learner's first multi-block scan is written ----
// Each block of 1024 threads scans its 1024 elements in shared memory (Hillis-Steele: 10 steps of
// two barriers), and writes its total; the totals are scanned the same way, then added back.
__global__ void block_scan_kernel(const float* in, float* out, float* totals, int n) {
  __shared__ float s[1024];
  const int t = threadIdx.x, i = blockIdx.x * 1024 + t;
  s[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int d = 1; d < 1024; d *= 2) {
    const float v = t >= d ? s[t - d] : 0.0f;
    __syncthreads();
    s[t] += v;
    __syncthreads();
  }
  if (i < n) out[i] = s[t];
  if (t == 1023) totals[blockIdx.x] = s[t];
}

__global__ void add_carry_kernel(float* out, const float* scanned_totals, int n) {
  const int i = blockIdx.x * 1024 + threadIdx.x;
  if (i < n && blockIdx.x > 0) out[i] += scanned_totals[blockIdx.x - 1];
}

// out = inclusive scan of in; scratch holds 2 * ceil(n / 1024) + 2 floats per level.
cudaError_t scan(const float* in, float* out, int n, float* scratch) {
  const int blocks = (n + 1023) / 1024;
  float* totals = scratch;
  block_scan_kernel<<<blocks, 1024>>>(in, out, totals, n);
  if (blocks > 1) {
    float* scanned = scratch + blocks;
    if (const cudaError_t e = scan(totals, scanned, blocks, scratch + 2 * blocks)) return e;
    add_carry_kernel<<<blocks, 1024>>>(out, scanned, n);
  }
  return cudaDeviceSynchronize();
}

}  // namespace BENCH_NS
