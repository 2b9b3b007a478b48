// CUDA graphs by stream capture on the CPU backend (graphs.cu, test_graphs.cpp).
#pragma once

#include <cuda_runtime.h>

#include <vector>

namespace graphs_test {

/// Captures `steps` launches (x = x * 2 + k for step k) and a copy of x into y on a stream,
/// then launches the graph `replays` times; what came of it.
struct ChainResult {
  cudaError_t begin, end, instantiate, launch, sync, destroy;
  cudaStreamCaptureStatus during, after;
  std::size_t nodes;          // what cudaGraphGetNodes counts
  std::vector<float> x_after_capture, x, y;
};
ChainResult chain(int n, int steps, int replays);

/// A parameter read through device memory at run time: the same graph, launched after the
/// memory changed, uses the new value; a value passed as an argument keeps the captured one.
struct ParamResult {
  float by_pointer_first, by_pointer_second, by_value_second;
};
ParamResult params();

/// What CUDA refuses during a capture, and how it ends the capture.
struct RefusedResult {
  cudaError_t begin_legacy;         // cudaStreamBeginCapture on the legacy stream
  cudaError_t end_not_capturing;    // cudaStreamEndCapture of a stream that is not capturing
  cudaError_t sync_during;          // cudaStreamSynchronize of the capturing stream
  cudaError_t end_after_sync;       // the capture it invalidated
  bool graph_null_after_sync;
  cudaError_t legacy_launch_during; // a launch on the legacy stream while another captures
  cudaError_t end_after_legacy;
  cudaError_t malloc_during;        // cudaMalloc during a global capture
};
RefusedResult refused();

/// A fork and join across two streams with events, captured from the first: one graph.
struct ForkResult {
  cudaError_t end, launch;
  std::size_t nodes;
  std::vector<int> a, b;
};
ForkResult fork_join(int n);

}  // namespace graphs_test
