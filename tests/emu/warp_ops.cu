// Warp shuffle and vote tests for the CPU backend.
#include "kernels.hpp"

namespace emu_test {

constexpr unsigned kFull = 0xffffffffu;

__global__ void shuffle_kernel(int* out) {
  const int t = threadIdx.x, n = blockDim.x, lane = t % 32;
  const int v = t * 10 + 1;
  out[0 * n + t] = __shfl_sync(kFull, v, 5);
  out[1 * n + t] = __shfl_sync(kFull, v, lane * 7 + 3);  // source lanes past 31 wrap
  out[2 * n + t] = __shfl_sync(kFull, v, 3, 8);
  out[3 * n + t] = __shfl_up_sync(kFull, v, 1);
  out[4 * n + t] = __shfl_up_sync(kFull, v, 3, 16);
  out[5 * n + t] = __shfl_down_sync(kFull, v, 1);
  out[6 * n + t] = __shfl_down_sync(kFull, v, 5, 8);
  out[7 * n + t] = __shfl_xor_sync(kFull, v, 1);
  out[8 * n + t] = __shfl_xor_sync(kFull, v, 16);
  out[9 * n + t] = __shfl_xor_sync(kFull, v, 4, 8);
  out[10 * n + t] = __shfl_xor_sync(kFull, v, 12, 8);  // later segments are out of reach
  out[11 * n + t] = static_cast<int>(__shfl_sync(kFull, static_cast<double>(v) + 0.5, 31) * 2.0);
  if (lane < 16) {
    out[12 * n + t] = __shfl_down_sync(0x0000ffffu, v, 2, 16);  // half a warp
  } else {
    out[12 * n + t] = -1;
  }
}

cudaError_t shuffles(int* out, int threads, int /*variants*/) {
  shuffle_kernel<<<1, threads>>>(out);
  return cudaDeviceSynchronize();
}

__global__ void vote_kernel(unsigned* ballot, int* any, int* all) {
  const int t = threadIdx.x, lane = t % 32, warp = t / 32;
  ballot[t] = __ballot_sync(kFull, lane % 3 == 0);
  any[t] = __any_sync(kFull, lane == 31 && warp == 1);
  all[t] = __all_sync(kFull, t >= 0) * 2 + __all_sync(kFull, lane < 31);
}

cudaError_t votes(unsigned* ballot, int* any, int* all, int threads) {
  vote_kernel<<<1, threads>>>(ballot, any, all);
  return cudaDeviceSynchronize();
}

__global__ void warp_reduce_kernel(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(kFull, v, offset);
  if (threadIdx.x % 32 == 0) atomicAdd(out, v);
}

cudaError_t warp_reduce(const float* in, float* out, int n) {
  warp_reduce_kernel<<<(n + 127) / 128, 128>>>(in, out, n);
  return cudaDeviceSynchronize();
}

__global__ void bad_mask_kernel(int* out) {
  if (threadIdx.x >= 20) return;
  int v = threadIdx.x;
  v += __shfl_down_sync(0xffffffffu, v, 1);  // bad mask
  out[threadIdx.x] = v;
}

cudaError_t bad_shuffle_mask() {
  int* out = nullptr;
  cudaMalloc(&out, 32 * sizeof(int));
  bad_mask_kernel<<<1, 32>>>(out);
  cudaError_t e = cudaDeviceSynchronize();
  cudaFree(out);
  return e;
}

}  // namespace emu_test
