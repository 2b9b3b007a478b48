// CPU backend: what the other files of the runtime ask of stream capture (emu/src/graph.cpp).
#pragma once

#include <wb_emu/api.hpp>

#include <cstddef>
#include <functional>
#include <string>

namespace wb_emu::internal {

/// What an operation issued to `stream` must do while captures run.
enum class CaptureCheck {
  none,         ///< run it: no capture concerns it
  record,       ///< `stream` is capturing: record it (capture_operation) instead of running it
  implicit,     ///< work on the legacy stream during a capture: cudaErrorStreamCaptureImplicit
  unsupported,  ///< a synchronisation during a capture: cudaErrorStreamCaptureUnsupported
};
/// For an operation on `stream` (nullptr with `synchronizes` for the device, as cudaDeviceSynchronize
/// and cudaMalloc are); invalidates the captures it breaks, as CUDA does.
CaptureCheck capture_check(cudaStream_t stream, bool synchronizes);
/// Records an operation in the graph `stream` captures; `run(s)` does it on stream `s`.
void capture_operation(cudaStream_t stream, std::string what, std::function<cudaError_t(cudaStream_t)> run);
/// cudaEventRecord on a capturing stream: the event now stands for a point of the capture
/// (true), or, on a stream that is not capturing, no longer does (false).
bool capture_event(cudaEvent_t event, cudaStream_t stream);
/// cudaStreamWaitEvent on an event of a capture: `stream` joins the capture (true).
bool capture_wait(cudaStream_t stream, cudaEvent_t event);
/// True while cudaGraphLaunch runs a graph's operations on this thread (its launches are not logged:
/// CUDA's runtime sees none of them).
bool replaying_graph();
/// Adds a launch to the launch log (wb_emu::log_launches), where one is being kept: its index
/// there, or ~0 when no log is kept.
std::size_t log_launch(dim3 grid, dim3 block, std::size_t shared_bytes, cudaStream_t stream);
/// Adds a cudaGraphLaunch on `stream` to the log (wb_emu::graph_launch_log).
void log_graph_launch(cudaStream_t stream);
/// The error a launch with this configuration gets (cudaSuccess when it may run).
cudaError_t launch_config_error(dim3 grid, dim3 block, std::size_t shared_bytes);

}  // namespace wb_emu::internal
