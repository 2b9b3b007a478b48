// Exercise 15: launch-bound work. This is your file: fill in the TODOs, then grade it with
//   bash cmake/workbook.sh grade x15
// The task is exercises/15-launch-bound/README.md.
// Keep the `//! [name]` lines: they mark what the page shows of this file (the docs need them).
#include "chain.cuh"

namespace student {

namespace {
constexpr int kThreads = 256;

int blocks_for(int n) { return (n + kThreads - 1) / kThreads; }
}  // namespace

//! [eager]
// Given: the chain as one tiny kernel per step, each launch waiting for the one before.
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
  // TODO: when cache holds no graph, or one captured for another x, n or steps: release it, then
  //       capture chain_eager(x, n, steps, stream) between cudaStreamBeginCapture(stream, ...)
  //       and cudaStreamEndCapture(stream, &cache.graph), instantiate it into cache.exec and note
  //       x, n and steps in cache. Then (every call) cudaGraphLaunch(cache.exec, stream).
}

void chain_graph_release(ChainGraph& cache) {
  // TODO: destroy cache.exec and cache.graph where they are set, then cache = ChainGraph{}.
}
//! [graph]

//! [fused]
__global__ void chain_fused_kernel(float* __restrict__ x, int n, const ChainStep* __restrict__ steps) {
  // TODO: each thread takes its element(s) of x through the kChainSteps steps, in order:
  //       load once, kChainSteps fmaf in a register, store once.
}

void chain_fused(float* x, int n, const ChainStep* steps, cudaStream_t stream) {
  if (n == 0) return;
  chain_fused_kernel<<<blocks_for(n), kThreads, 0, stream>>>(x, n, steps);
}
//! [fused]

}  // namespace student
