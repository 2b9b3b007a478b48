// Fixture of the rewriter's --instrument mode (read by rewriter_test.cpp, not compiled by the build).
#include <cuda_runtime.h>
namespace edge {
__device__ float helper(const float* p, int i) { return p[i] * 2.0f; }
__device__ void warp_reduce(volatile float* s, int t) { s[t] += s[t + 32]; }
template <int B>
__global__ void __launch_bounds__(256) k(const float* __restrict__ in,
                                         float* __restrict__ out, int n, float* total) {
  __shared__ float sdata[B];
  __shared__ float2 pairs[4];
  __shared__ int flag;
  const float4* in4 = reinterpret_cast<const float4*>(in);
  float4 v = in4[threadIdx.x];
  sdata[threadIdx.x] = v.x + helper(in, threadIdx.x) + __ldg(&in[threadIdx.x]) + *in;
  pairs[0].x = 1.0f;
  flag = 1;
  __syncthreads();
  if (threadIdx.x < 32) warp_reduce(sdata, threadIdx.x);
  auto row = out + blockIdx.x * n;
  row[threadIdx.x] = sdata[threadIdx.x];
  ++out[0]; out[1]++; out[2] *= 2.0f;
  if (in != nullptr && out) atomicAdd(total, 1.0f);
  atomicAdd(&out[3], 1.0f);
  const float* raw = static_cast<const float*>(in);
  *total += raw[0] + static_cast<float>(flag);
  out[n - 1] = max(in[0], 1.0f) + fminf(in[1], 2.0f) + sqrtf(in[2]);
  if (n < 2) return;  // a comment after the statement before a declaration
  const float* after_comment = in + n;
  /* a block comment */ float* after_block = out + n;
  after_block[0] = after_comment[0];
}
void launch(const float* in, float* out, int n, float* total) { k<256><<<1, 256>>>(in, out, n, total); }
}
