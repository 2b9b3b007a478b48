// Fixture of the rewriter (shared_forms.cu includes it): device code with a __shared__ array in a
// header, which is rewritten with the file that includes it.
#pragma once
template <class T>
__device__ T block_partial(T v) {
  __shared__ T partial[32];
  partial[threadIdx.x % 32] = v;
  __syncthreads();
  return partial[0];
}
