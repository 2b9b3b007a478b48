// Kernels built instrumented with the bugs tests/emu/test_diagnostics.cpp expects the CPU backend
// to report: misaligned vector accesses, reads of shared memory no thread wrote, threads that
// exit before a barrier; and shared-memory access patterns whose bank conflicts are counted. Lines marked `// line: <name>` are looked up by the tests.
#include "diagnostics.hpp"

namespace emu_test {

// Copies n4 float4s from in + offset to out + offset: an offset that is not a multiple of 4 makes
// every access misaligned (a GPU stops with "misaligned address").
__global__ void float4_offset_kernel(const float* in, float* out, int offset, int n4) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float4* src = reinterpret_cast<const float4*>(in + offset);
  float4* dst = reinterpret_cast<float4*>(out + offset);
  if (i < n4) {
    const float4 v = src[i];  // line: float4 load
    dst[i] = v;               // line: float4 store
  }
}

cudaError_t copy_float4_at(const float* in, float* out, int offset, int n4) {
  float4_offset_kernel<<<(n4 + 31) / 32, 32>>>(in, out, offset, n4);
  return cudaDeviceSynchronize();
}

__global__ void shared_float4_kernel(float* out, int offset) {
  __shared__ float tile[64];
  tile[threadIdx.x] = static_cast<float>(threadIdx.x);
  tile[threadIdx.x + 32] = static_cast<float>(threadIdx.x + 32);
  __syncthreads();
  if (threadIdx.x == 0) {
    const float4 v = reinterpret_cast<const float4*>(&tile[offset])[0];  // line: shared float4
    out[0] = v.x;
    out[1] = v.y;
    out[2] = v.z;
    out[3] = v.w;
  }
}

cudaError_t shared_float4_at(float* out, int offset) {
  shared_float4_kernel<<<1, 32>>>(out, offset);
  return cudaDeviceSynchronize();
}

__global__ void partial_tile_kernel(float* out, int full_blocks, int filled) {
  __shared__ float tile[64];
  if (blockIdx.x < full_blocks || threadIdx.x < filled) tile[threadIdx.x] = static_cast<float>(threadIdx.x);
  __syncthreads();
  out[blockIdx.x * 64 + threadIdx.x] = tile[threadIdx.x];  // line: tile read
}

cudaError_t partial_tile(float* out, int blocks, int full_blocks, int filled) {
  partial_tile_kernel<<<blocks, 64>>>(out, full_blocks, filled);
  return cudaDeviceSynchronize();
}

__global__ void accumulate_kernel(const int* in, int* out) {
  extern __shared__ int acc[];
  acc[threadIdx.x] += in[threadIdx.x];  // line: accumulate
  __syncthreads();
  out[threadIdx.x] = acc[threadIdx.x];
}

cudaError_t accumulate_uncleared(const int* in, int* out) {
  accumulate_kernel<<<1, 32, 32 * sizeof(int)>>>(in, out);
  return cudaDeviceSynchronize();
}

__global__ void atomic_counter_kernel(int* out) {
  __shared__ int count[1];
  if (threadIdx.x == 0) atomicExch(&count[0], 0);
  __syncthreads();
  atomicAdd(&count[0], 1);
  __syncthreads();
  out[threadIdx.x] = count[0];
}

cudaError_t atomic_counter(int* out) {
  atomic_counter_kernel<<<1, 32>>>(out);
  return cudaDeviceSynchronize();
}

__global__ void neighbour_no_barrier_kernel(int* out) {
  __shared__ int s[33];
  s[threadIdx.x] = static_cast<int>(threadIdx.x);  // line: neighbour write
  out[threadIdx.x] = s[threadIdx.x + 1];           // line: neighbour read
}

cudaError_t neighbour_no_barrier(int* out) {
  neighbour_no_barrier_kernel<<<1, 32>>>(out);
  return cudaDeviceSynchronize();
}

__global__ void early_exit_kernel(const int* in, int* out, int n) {
  __shared__ int s[64];
  const int i = static_cast<int>(threadIdx.x);
  if (i >= n) return;
  s[i] = in[i];
  __syncthreads();  // line: early exit barrier
  out[i] = s[(i + 1) % n];
}

cudaError_t early_exit(const int* in, int* out, int n, int threads) {
  early_exit_kernel<<<1, threads>>>(in, out, n);  // line: early exit launch
  return cudaDeviceSynchronize();
}

__global__ void bank_kernel(float* out, int stride) {
  __shared__ float s[32 * 33];
  for (int i = threadIdx.x; i < 32 * 33; i += 32) s[i] = static_cast<float>(i);  // line: bank fill
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x * stride];  // line: bank read
}

cudaError_t bank_read(float* out, int stride) {
  bank_kernel<<<1, 32>>>(out, stride);
  return cudaDeviceSynchronize();
}

__global__ void bank_float4_kernel(float* out, int stride) {
  __shared__ float s[32 * 33];
  for (int i = threadIdx.x; i < 32 * 33; i += 32) s[i] = static_cast<float>(i);
  __syncthreads();
  const float4 v = reinterpret_cast<const float4*>(&s[0])[threadIdx.x * stride];  // line: bank float4
  out[threadIdx.x] = v.x + v.y + v.z + v.w;
}

cudaError_t bank_read_float4(float* out, int stride) {
  bank_float4_kernel<<<1, 32>>>(out, stride);
  return cudaDeviceSynchronize();
}

}  // namespace emu_test
