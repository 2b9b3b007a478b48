// CPU backend: CUDA graphs made by stream capture. Between cudaStreamBeginCapture and
// cudaStreamEndCapture, what is issued to a capturing stream is recorded in its graph instead of
// run: kernel launches (wb_emu::Launch copies their arguments), async copies and memsets, and
// nothing for an event record or wait (the order of issue is kept, and the backend runs one
// operation at a time, so the list of operations in that order is a valid order of CUDA's graph).
// A stream that waits on an event recorded in a capturing stream joins its capture, as in CUDA.
// cudaGraphInstantiate copies the list; cudaGraphLaunch runs the copy.
#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <wb_emu/api.hpp>
#include <wb_emu/launch.hpp>

#include "errors.hpp"
#include "graph.hpp"
#include "streams.hpp"

using wb_emu::internal::record;
using wb_emu::internal::valid_stream;

namespace {

struct Node {
  std::string what;                         // "kernel launch_step", "copy", "memset"
  std::function<cudaError_t(cudaStream_t)> run;
};

struct Capture {
  cudaStream_t origin;
  cudaStreamCaptureMode mode;
  std::shared_ptr<std::vector<Node>> nodes = std::make_shared<std::vector<Node>>();
  bool invalidated = false;
};

std::mutex graph_mutex;
std::map<cudaStream_t, std::shared_ptr<Capture>> capturing_streams;  // every stream of a capture
std::map<cudaEvent_t, std::shared_ptr<Capture>> captured_events;    // events recorded in a capture
std::set<cudaGraph_t> live_graphs;
std::set<cudaGraphExec_t> live_execs;
thread_local bool replaying = false;

// Runs a graph's operations, marked as a replay.
cudaError_t run_nodes(const std::vector<Node>& nodes, cudaStream_t stream) {
  const bool outer = !replaying;
  replaying = true;
  cudaError_t e = cudaSuccess;
  for (const Node& n : nodes)
    if ((e = n.run(stream))) break;  // recorded by the operation itself
  if (outer) replaying = false;
  return e;
}

std::shared_ptr<Capture> capture_of(cudaStream_t s) {
  auto it = capturing_streams.find(s);
  return it == capturing_streams.end() ? nullptr : it->second;
}

bool legacy(cudaStream_t s) { return s == nullptr || s == cudaStreamLegacy; }

}  // namespace

struct CUgraph_st {
  std::shared_ptr<std::vector<Node>> nodes;
};
struct CUgraphExec_st {
  std::vector<Node> nodes;
};

namespace wb_emu {
namespace detail {

bool capturing(cudaStream_t stream) {
  std::lock_guard<std::mutex> lock(graph_mutex);
  return capturing_streams.count(stream) != 0;
}

void capture_launch(cudaStream_t stream, const LaunchSite& site, dim3 grid, dim3 block, std::size_t shared_bytes,
                    std::function<void(cudaStream_t)> run) {
  internal::log_launch(grid, block, shared_bytes, stream);
  // A configuration CUDA refuses is refused at capture, as there (the capture goes on).
  if (cudaError_t e = internal::launch_config_error(grid, block, shared_bytes)) {
    record(e);
    return;
  }
  std::lock_guard<std::mutex> lock(graph_mutex);
  auto c = capture_of(stream);
  if (!c) return;
  // A fault of the kernel when the graph runs is sticky, and shows at the next synchronisation.
  c->nodes->push_back({std::string("kernel ") + site.kernel, [run](cudaStream_t s) {
                         run(s);
                         return cudaSuccess;
                       }});
}

}  // namespace detail

namespace internal {

CaptureCheck capture_check(cudaStream_t stream, bool synchronizes) {
  std::lock_guard<std::mutex> lock(graph_mutex);
  if (capturing_streams.empty()) return CaptureCheck::none;
  if (auto c = capture_of(stream)) {
    if (!synchronizes) return CaptureCheck::record;
    c->invalidated = true;
    return CaptureCheck::unsupported;
  }
  // Another stream is capturing: the legacy stream would have to wait for it, and a
  // synchronisation of the device would wait for work that has not been issued.
  if (synchronizes && stream == nullptr) {
    bool any = false;
    for (auto& [s, c] : capturing_streams)
      if (c->mode != cudaStreamCaptureModeRelaxed) any = c->invalidated = true;
    return any ? CaptureCheck::unsupported : CaptureCheck::none;
  }
  if (legacy(stream)) {
    for (auto& [s, c] : capturing_streams)
      if (c->mode != cudaStreamCaptureModeRelaxed) c->invalidated = true;
    return CaptureCheck::implicit;
  }
  return CaptureCheck::none;
}

void capture_operation(cudaStream_t stream, std::string what, std::function<cudaError_t(cudaStream_t)> run) {
  std::lock_guard<std::mutex> lock(graph_mutex);
  if (auto c = capture_of(stream)) c->nodes->push_back({std::move(what), std::move(run)});
}

bool capture_event(cudaEvent_t event, cudaStream_t stream) {
  std::lock_guard<std::mutex> lock(graph_mutex);
  auto c = capture_of(stream);
  if (!c) {
    captured_events.erase(event);
    return false;
  }
  captured_events[event] = c;
  return true;
}

bool capture_wait(cudaStream_t stream, cudaEvent_t event) {
  std::lock_guard<std::mutex> lock(graph_mutex);
  auto e = captured_events.find(event);
  if (e == captured_events.end()) return false;
  if (!capture_of(stream) && !legacy(stream)) capturing_streams[stream] = e->second;  // the stream joins
  return true;
}

bool replaying_graph() { return replaying; }

}  // namespace internal
}  // namespace wb_emu

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode) {
  if (!valid_stream(stream)) return record(cudaErrorInvalidResourceHandle);
  if (mode < cudaStreamCaptureModeGlobal || mode > cudaStreamCaptureModeRelaxed) return record(cudaErrorInvalidValue);
  // CUDA: the legacy default stream cannot be captured.
  if (legacy(stream)) return record(cudaErrorStreamCaptureUnsupported);
  std::lock_guard<std::mutex> lock(graph_mutex);
  if (capturing_streams.count(stream)) return record(cudaErrorIllegalState);
  auto c = std::make_shared<Capture>();
  c->origin = stream;
  c->mode = mode;
  capturing_streams[stream] = c;
  return cudaSuccess;
}

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* graph) {
  if (!graph) return record(cudaErrorInvalidValue);
  if (!valid_stream(stream)) return record(cudaErrorInvalidResourceHandle);
  std::lock_guard<std::mutex> lock(graph_mutex);
  auto c = capture_of(stream);
  if (!c) return record(cudaErrorIllegalState);
  if (c->origin != stream) return record(cudaErrorStreamCaptureUnmatched);
  for (auto it = capturing_streams.begin(); it != capturing_streams.end();)
    it = it->second == c ? capturing_streams.erase(it) : std::next(it);
  for (auto it = captured_events.begin(); it != captured_events.end();)
    it = it->second == c ? captured_events.erase(it) : std::next(it);
  if (c->invalidated) {
    *graph = nullptr;
    return record(cudaErrorStreamCaptureInvalidated);
  }
  *graph = new CUgraph_st{c->nodes};
  live_graphs.insert(*graph);
  return cudaSuccess;
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream, cudaStreamCaptureStatus* status) {
  if (!status) return record(cudaErrorInvalidValue);
  if (!valid_stream(stream)) return record(cudaErrorInvalidResourceHandle);
  std::lock_guard<std::mutex> lock(graph_mutex);
  auto c = capture_of(stream);
  *status = !c ? cudaStreamCaptureStatusNone
               : c->invalidated ? cudaStreamCaptureStatusInvalidated : cudaStreamCaptureStatusActive;
  return cudaSuccess;
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long flags) {
  if (!exec) return record(cudaErrorInvalidValue);
  std::lock_guard<std::mutex> lock(graph_mutex);
  if (!live_graphs.count(graph)) return record(cudaErrorInvalidResourceHandle);
  (void)flags;  // auto-free, upload, device launch, priority: nothing to do on this backend
  *exec = new CUgraphExec_st{*graph->nodes};
  live_execs.insert(*exec);
  return cudaSuccess;
}

cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long flags) {
  return cudaGraphInstantiate(exec, graph, flags);
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream) {
  if (!valid_stream(stream)) return record(cudaErrorInvalidResourceHandle);
  std::vector<Node> nodes;
  {
    std::lock_guard<std::mutex> lock(graph_mutex);
    if (!live_execs.count(exec)) return record(cudaErrorInvalidResourceHandle);
    nodes = exec->nodes;
  }
  wb_emu::internal::log_graph_launch(stream);
  switch (wb_emu::internal::capture_check(stream, false)) {
    case wb_emu::internal::CaptureCheck::record:  // a graph launched into a capture: a node that runs it
      wb_emu::internal::capture_operation(stream, "graph", [nodes](cudaStream_t s) { return run_nodes(nodes, s); });
      return cudaSuccess;
    case wb_emu::internal::CaptureCheck::implicit: return record(cudaErrorStreamCaptureImplicit);
    default: break;
  }
  return run_nodes(nodes, stream);
}

cudaError_t cudaGraphUpload(cudaGraphExec_t exec, cudaStream_t stream) {
  if (!valid_stream(stream)) return record(cudaErrorInvalidResourceHandle);
  std::lock_guard<std::mutex> lock(graph_mutex);
  return live_execs.count(exec) ? cudaSuccess : record(cudaErrorInvalidResourceHandle);
}

cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t* nodes, std::size_t* count) {
  if (!count) return record(cudaErrorInvalidValue);
  std::lock_guard<std::mutex> lock(graph_mutex);
  if (!live_graphs.count(graph)) return record(cudaErrorInvalidResourceHandle);
  const std::size_t n = graph->nodes->size();
  if (nodes) {
    // Node handles stand for positions in the list (1-based, so that none is null).
    for (std::size_t i = 0; i < std::min(n, *count); ++i) nodes[i] = reinterpret_cast<cudaGraphNode_t>(i + 1);
    for (std::size_t i = n; i < *count; ++i) nodes[i] = nullptr;
  }
  *count = n;
  return cudaSuccess;
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) {
  std::lock_guard<std::mutex> lock(graph_mutex);
  if (!live_execs.erase(exec)) return record(cudaErrorInvalidResourceHandle);
  delete exec;
  return cudaSuccess;
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  std::lock_guard<std::mutex> lock(graph_mutex);
  if (!live_graphs.erase(graph)) return record(cudaErrorInvalidResourceHandle);
  delete graph;
  return cudaSuccess;
}
