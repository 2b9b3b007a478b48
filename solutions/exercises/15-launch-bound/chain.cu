// Exercise 15, the solution: the chain eagerly (a launch per step), as one CUDA graph captured
// once and replayed, and fused into one kernel.
#include "chain.cuh"

namespace solution {

namespace {
constexpr int kThreads = 256;

int blocks_for(int n) { return (n + kThreads - 1) / kThreads; }
}  // namespace

//! [eager]
__global__ void chain_step_kernel(float* __restrict__ x, int n, const ChainStep* __restrict__ steps, int k) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = fmaf(x[i], steps[k].scale, steps[k].shift);
}

void chain_eager(float* x, int n, const ChainStep* steps, cudaStream_t stream) {
  if (n == 0) return;
  for (int k = 0; k < kChainSteps; ++k) chain_step_kernel<<<blocks_for(n), kThreads, 0, stream>>>(x, n, steps, k);
}
//! [eager]

//! [graph]
void chain_graph(ChainGraph& cache, float* x, int n, const ChainStep* steps, cudaStream_t stream) {
  if (n == 0) return;
  // A graph replays its kernels with the arguments they were captured with: another x, n or
  // steps pointer needs another capture. The steps' values are read from memory when it runs.
  if (!cache.exec || cache.x != x || cache.n != n || cache.steps != steps) {
    chain_graph_release(cache);
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
    chain_eager(x, n, steps, stream);
    if (cudaStreamEndCapture(stream, &cache.graph) != cudaSuccess) return;
    if (cudaGraphInstantiate(&cache.exec, cache.graph, 0) != cudaSuccess) return;
    cache.x = x;
    cache.n = n;
    cache.steps = steps;
  }
  cudaGraphLaunch(cache.exec, stream);
}

void chain_graph_release(ChainGraph& cache) {
  if (cache.exec) cudaGraphExecDestroy(cache.exec);
  if (cache.graph) cudaGraphDestroy(cache.graph);
  cache = ChainGraph{};
}
//! [graph]

//! [fused]
__global__ void chain_fused_kernel(float* __restrict__ x, int n, const ChainStep* __restrict__ steps) {
  __shared__ ChainStep s[kChainSteps];
  for (int k = threadIdx.x; k < kChainSteps; k += blockDim.x) s[k] = steps[k];
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    float v = x[i];
#pragma unroll
    for (int k = 0; k < kChainSteps; ++k) v = fmaf(v, s[k].scale, s[k].shift);
    x[i] = v;
  }
}

void chain_fused(float* x, int n, const ChainStep* steps, cudaStream_t stream) {
  if (n == 0) return;
  const int blocks = blocks_for(n) < 1024 ? blocks_for(n) : 1024;
  chain_fused_kernel<<<blocks, kThreads, 0, stream>>>(x, n, steps);
}
//! [fused]

}  // namespace solution
