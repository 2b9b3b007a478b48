// Exercise 06: 1-D convolution with the filter in constant memory. This is your file: fill in the
// TODOs, then grade it with
//   bash cmake/workbook.sh grade x06
// The task is exercises/06-conv1d/README.md.
// Keep the `//! [name]` lines: they mark what the page shows of this file (the docs need them).
#include "conv1d.cuh"

namespace student {

constexpr int kThreads = 256;  // threads per block; here a block computes kThreads outputs (choose your own)

//! [kernel]
__constant__ float c_filter[2 * kConvMaxRadius + 1];  // the filter, copied here before the launch

__global__ void conv1d_kernel(const float* __restrict__ in, float* __restrict__ out, int n, int radius) {
  // TODO: 1. declare the block's tile of in in shared memory: its kThreads elements and a halo
  //          of kConvMaxRadius on each side: __shared__ float tile[kThreads + 2 * kConvMaxRadius];
  //       2. copy in[start - radius] .. in[start + kThreads - 1 + radius] into it (0 for an index
  //          outside 0 .. n - 1), all threads sharing the work; wait for the whole block;
  //       3. each thread's output: the sum over k from 0 to 2 radius of c_filter[k] * tile[...],
  //          written to out[i] if i < n.
}
//! [kernel]

//! [launch]
void conv1d(const float* in, float* out, int n, const float* filter, int radius) {
  // TODO: copy the filter (2 radius + 1 floats, device memory) into c_filter with
  //       cudaMemcpyToSymbol(c_filter, filter, bytes, 0, cudaMemcpyDeviceToDevice);
  //       then a block for every kThreads outputs (none when n is 0).
  const int blocks = 1;
  conv1d_kernel<<<blocks, kThreads>>>(in, out, n, radius);
}
//! [launch]

}  // namespace student
