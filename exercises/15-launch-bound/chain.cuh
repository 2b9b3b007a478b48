/// \file
/// \brief Exercise 15's interface: a chain of many small dependent steps on a small array, the
/// work a GPU does faster than the CPU can launch it. The eager version launches one tiny kernel
/// per step; yours captures those launches once into a CUDA graph and replays it, and fuses the
/// chain into one kernel. Your version (namespace student) and the solution (namespace solution)
/// both provide it; the grader calls both.
#pragma once

#include <cuda_runtime.h>

/// One step of the chain: x = fmaf(x, scale, shift), element by element.
struct ChainStep {
  float scale;  ///< what x is multiplied by
  float shift;  ///< what is added then
};

/// Steps in a chain.
constexpr int kChainSteps = 32;

/// What chain_graph keeps between calls: the graph it captured, and for which x, n, steps and
/// stream. The caller makes one (all empty) and hands it to every call; chain_graph_release frees it.
struct ChainGraph {
  cudaGraph_t graph = nullptr;      ///< the captured graph (nullptr: none yet)
  cudaGraphExec_t exec = nullptr;   ///< its executable form, what cudaGraphLaunch runs
  float* x = nullptr;               ///< the x it was captured for
  int n = -1;                       ///< the n it was captured for
  const ChainStep* steps = nullptr; ///< the steps it was captured for
};

//! [contract]
namespace student {
/// The chain, eagerly: for k from 0 to kChainSteps - 1, one launch of a tiny kernel on `stream`
/// that does step k to every x[i], i < n. x (n floats) and steps (kChainSteps of them) are device
/// memory; the steps are read when the kernels run (their values may change between calls).
void chain_eager(float* x, int n, const ChainStep* steps, cudaStream_t stream);
/// The same chain, as one CUDA graph launched on `stream`: the first call for an x, n, steps
/// captures chain_eager's launches into a graph kept in `cache`; a later call with the same x, n
/// and steps only launches it; a call with others captures them afresh. n >= 0.
void chain_graph(ChainGraph& cache, float* x, int n, const ChainStep* steps, cudaStream_t stream);
/// Frees what `cache` holds and empties it.
void chain_graph_release(ChainGraph& cache);
/// The same chain as one launch of one kernel on `stream`: each thread takes its elements
/// through all the steps, in order.
void chain_fused(float* x, int n, const ChainStep* steps, cudaStream_t stream);
}  // namespace student
//! [contract]

namespace solution {
/// The reference version of student::chain_eager.
void chain_eager(float* x, int n, const ChainStep* steps, cudaStream_t stream);
/// The reference version of student::chain_graph.
void chain_graph(ChainGraph& cache, float* x, int n, const ChainStep* steps, cudaStream_t stream);
/// The reference version of student::chain_graph_release.
void chain_graph_release(ChainGraph& cache);
/// The reference version of student::chain_fused.
void chain_fused(float* x, int n, const ChainStep* steps, cudaStream_t stream);
}  // namespace solution
