// CUDA graphs by stream capture, as real programs write them (see graphs.hpp).
#include "graphs.hpp"

namespace graphs_test {

__global__ void step_kernel(float* x, int n, float k) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * 2.0f + k;
}

ChainResult chain(int n, int steps, int replays) {
  ChainResult r{};
  float *x = nullptr, *y = nullptr;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  cudaMemset(x, 0, n * sizeof(float));
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaGraph_t g = nullptr;
  cudaGraphExec_t e = nullptr;
  r.begin = cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  for (int k = 0; k < steps; ++k) step_kernel<<<(n + 127) / 128, 128, 0, s>>>(x, n, float(k));
  cudaMemcpyAsync(y, x, n * sizeof(float), cudaMemcpyDeviceToDevice, s);
  cudaStreamIsCapturing(s, &r.during);
  r.end = cudaStreamEndCapture(s, &g);
  cudaStreamIsCapturing(s, &r.after);
  r.x_after_capture.resize(n);
  cudaMemcpy(r.x_after_capture.data(), x, n * sizeof(float), cudaMemcpyDeviceToHost);  // nothing ran yet
  cudaGraphGetNodes(g, nullptr, &r.nodes);
  r.instantiate = cudaGraphInstantiate(&e, g, 0);
  for (int i = 0; i < replays; ++i)
    if (cudaError_t l = cudaGraphLaunch(e, s)) r.launch = l;
  r.sync = cudaStreamSynchronize(s);
  r.x.resize(n);
  r.y.resize(n);
  cudaMemcpy(r.x.data(), x, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(r.y.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost);
  r.destroy = cudaGraphExecDestroy(e);
  if (!r.destroy) r.destroy = cudaGraphDestroy(g);
  cudaStreamDestroy(s);
  cudaFree(x);
  cudaFree(y);
  return r;
}

__global__ void scale_by_pointer(float* out, const float* factor) { out[0] = 3.0f * *factor; }
__global__ void scale_by_value(float* out, float factor) { out[1] = 3.0f * factor; }

ParamResult params() {
  float *out = nullptr, *factor = nullptr;
  cudaMalloc(&out, 2 * sizeof(float));
  cudaMalloc(&factor, sizeof(float));
  float f = 1.0f;
  cudaMemcpy(factor, &f, sizeof f, cudaMemcpyHostToDevice);
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaGraph_t g;
  cudaGraphExec_t e;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
  scale_by_pointer<<<1, 1, 0, s>>>(out, factor);
  scale_by_value<<<1, 1, 0, s>>>(out, f);
  cudaStreamEndCapture(s, &g);
  cudaGraphInstantiate(&e, g);
  cudaGraphLaunch(e, s);
  float host[2];
  cudaMemcpyAsync(host, out, sizeof host, cudaMemcpyDeviceToHost, s);
  cudaStreamSynchronize(s);
  ParamResult r{};
  r.by_pointer_first = host[0];
  f = 5.0f;  // the graph's by-value argument is still 1
  cudaMemcpy(factor, &f, sizeof f, cudaMemcpyHostToDevice);
  cudaGraphLaunch(e, s);
  cudaMemcpyAsync(host, out, sizeof host, cudaMemcpyDeviceToHost, s);
  cudaStreamSynchronize(s);
  r.by_pointer_second = host[0];
  r.by_value_second = host[1];
  cudaGraphExecDestroy(e);
  cudaGraphDestroy(g);
  cudaStreamDestroy(s);
  cudaFree(out);
  cudaFree(factor);
  return r;
}

RefusedResult refused() {
  RefusedResult r{};
  cudaGraph_t g = nullptr;
  float* x = nullptr;
  cudaMalloc(&x, 64 * sizeof(float));
  r.begin_legacy = cudaStreamBeginCapture(nullptr, cudaStreamCaptureModeGlobal);
  cudaGetLastError();
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  r.end_not_capturing = cudaStreamEndCapture(s, &g);
  cudaGetLastError();

  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  step_kernel<<<1, 64, 0, s>>>(x, 64, 1.0f);
  r.sync_during = cudaStreamSynchronize(s);
  r.end_after_sync = cudaStreamEndCapture(s, &g);
  r.graph_null_after_sync = g == nullptr;
  cudaGetLastError();

  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  step_kernel<<<1, 64>>>(x, 64, 1.0f);  // the legacy stream
  r.legacy_launch_during = cudaGetLastError();
  r.end_after_legacy = cudaStreamEndCapture(s, &g);
  cudaGetLastError();

  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  float* more = nullptr;
  r.malloc_during = cudaMalloc(&more, 16);
  cudaStreamEndCapture(s, &g);
  cudaGetLastError();
  cudaStreamDestroy(s);
  cudaFree(x);
  return r;
}

__global__ void fill(int* a, int n, int v) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = v + i;
}
__global__ void add_into(int* b, const int* a, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] += a[i];
}

ForkResult fork_join(int n) {
  ForkResult r{};
  int *a = nullptr, *b = nullptr;
  cudaMalloc(&a, n * sizeof(int));
  cudaMalloc(&b, n * sizeof(int));
  cudaStream_t main_s, side;
  cudaStreamCreate(&main_s);
  cudaStreamCreate(&side);
  cudaEvent_t forked, joined;
  cudaEventCreateWithFlags(&forked, cudaEventDisableTiming);
  cudaEventCreateWithFlags(&joined, cudaEventDisableTiming);
  cudaGraph_t g;
  cudaGraphExec_t e;
  cudaStreamBeginCapture(main_s, cudaStreamCaptureModeGlobal);
  fill<<<(n + 63) / 64, 64, 0, main_s>>>(a, n, 10);
  cudaEventRecord(forked, main_s);
  cudaStreamWaitEvent(side, forked, 0);  // side joins the capture
  fill<<<(n + 63) / 64, 64, 0, side>>>(b, n, 100);
  cudaEventRecord(joined, side);
  cudaStreamWaitEvent(main_s, joined, 0);
  add_into<<<(n + 63) / 64, 64, 0, main_s>>>(b, a, n);
  r.end = cudaStreamEndCapture(main_s, &g);
  cudaGraphGetNodes(g, nullptr, &r.nodes);
  cudaGraphInstantiate(&e, g);
  r.launch = cudaGraphLaunch(e, main_s);
  cudaStreamSynchronize(main_s);
  r.a.resize(n);
  r.b.resize(n);
  cudaMemcpy(r.a.data(), a, n * sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(r.b.data(), b, n * sizeof(int), cudaMemcpyDeviceToHost);
  cudaGraphExecDestroy(e);
  cudaGraphDestroy(g);
  cudaEventDestroy(forked);
  cudaEventDestroy(joined);
  cudaStreamDestroy(main_s);
  cudaStreamDestroy(side);
  cudaFree(a);
  cudaFree(b);
  return r;
}

}  // namespace graphs_test
