// The runtime calls real programs make, on the CPU backend: streams and events with flags, pitched
// memory and 2D copies, managed, asynchronous and registered memory, kernel attributes.
#include <cuda.h>
#include <cuda_profiler_api.h>
#include <cuda_runtime_api.h>
#include <device_launch_parameters.h>
#include <driver_types.h>
#include <math_constants.h>
#include <vector_types.h>

#include "compat_runtime.hpp"

// The guards helper headers test to know that the runtime's types are declared.
#if !defined(__CUDA_RUNTIME_H__) || !defined(__CUDA_RUNTIME_API_H__) || !defined(__DRIVER_TYPES_H__) || \
    !defined(__VECTOR_TYPES_H__) || !defined(CUDART_VERSION)
#error "a guard macro of CUDA's runtime headers is missing"
#endif
#if defined(__CUDACC__) || defined(__CUDA_ARCH__)
#error "the CPU backend must not claim to be nvcc"
#endif

namespace compat_plain {

__global__ void fill_kernel(int* a, int n, int base) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = base + i;
}
__global__ void copy_plus_kernel(const int* a, int* b, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = a[i] + 1;
}

StreamEventResult streams_and_events(int* a, int* b, int n) {
  StreamEventResult r{};
  cudaStream_t producer = nullptr, consumer = nullptr;
  cudaEvent_t ready = nullptr, start = nullptr, stop = nullptr;
  r.create = cudaStreamCreateWithFlags(&producer, cudaStreamNonBlocking);
  if (r.create == cudaSuccess) r.create = cudaStreamCreateWithPriority(&consumer, cudaStreamDefault, -1);
  if (r.create == cudaSuccess) r.create = cudaEventCreateWithFlags(&ready, cudaEventDisableTiming);
  if (r.create == cudaSuccess) r.create = cudaEventCreateWithFlags(&start, cudaEventBlockingSync);
  if (r.create == cudaSuccess) r.create = cudaEventCreate(&stop);
  if (r.create != cudaSuccess) return r;
  r.query_before_record = cudaEventQuery(ready);
  cudaEventRecord(start, producer);
  fill_kernel<<<(n + 127) / 128, 128, 0, producer>>>(a, n, 40);
  r.record = cudaEventRecord(ready, producer);
  r.wait = cudaStreamWaitEvent(consumer, ready, 0);
  copy_plus_kernel<<<(n + 127) / 128, 128, 0, consumer>>>(a, b, n);
  r.launch = cudaGetLastError();
  r.query_after_record = cudaEventQuery(ready);
  cudaEventRecord(stop, consumer);
  r.sync = cudaStreamSynchronize(consumer);
  cudaEventSynchronize(stop);
  float ms = -1.0f;
  r.elapsed = cudaEventElapsedTime(&ms, start, stop);
  r.elapsed_ms = ms;
  r.elapsed_no_timing = cudaEventElapsedTime(&ms, start, ready);
  unsigned flags = 99;
  cudaStreamGetFlags(producer, &flags);
  r.producer_flags = flags;
  cudaStreamDestroy(producer);
  cudaStreamDestroy(consumer);
  cudaEventDestroy(ready);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  r.use_destroyed_stream = cudaStreamSynchronize(producer);
  r.use_destroyed_event = cudaEventQuery(ready);
  r.destroy_twice = cudaStreamDestroy(consumer);
  r.last_error = cudaGetLastError();
  return r;
}

// a pitched image: row r holds width values from r * pitch bytes
__global__ void add_row_kernel(int* image, std::size_t pitch, int width, int height) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= width || y >= height) return;
  int* row = reinterpret_cast<int*>(reinterpret_cast<char*>(image) + y * pitch);
  row[x] += 1000 * y;
}

cudaError_t pitched_roundtrip(const int* host_in, int* host_out, int width, int height, std::size_t out_pitch,
                              std::size_t* pitch_out) {
  int* image = nullptr;
  std::size_t pitch = 0;
  cudaError_t e = cudaMallocPitch(&image, &pitch, width * sizeof(int), height);
  if (e != cudaSuccess) return e;
  *pitch_out = pitch;
  e = cudaMemset2D(image, pitch, 0xff, pitch, height);  // the padding too: it must stay out of the copies
  if (e == cudaSuccess)
    e = cudaMemcpy2D(image, pitch, host_in, width * sizeof(int), width * sizeof(int), height, cudaMemcpyHostToDevice);
  if (e == cudaSuccess) {
    add_row_kernel<<<dim3((width + 31) / 32, height), 32>>>(image, pitch, width, height);
    e = cudaDeviceSynchronize();
  }
  if (e == cudaSuccess)
    e = cudaMemcpy2DAsync(host_out, out_pitch, image, pitch, width * sizeof(int), height, cudaMemcpyDeviceToHost,
                          nullptr);
  cudaFree(image);
  return e;
}

__global__ void square_kernel(float* v, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = v[i] * v[i];
}

cudaError_t square_in_place(float* v, int n) {
  square_kernel<<<(n + 63) / 64, 64>>>(v, n);
  return cudaDeviceSynchronize();
}

__global__ void dynamic_shared_kernel(float* out) {
  extern __shared__ float dynamic_buffer[];
  dynamic_buffer[threadIdx.x] = static_cast<float>(threadIdx.x);
  __syncthreads();
  out[threadIdx.x] = dynamic_buffer[blockDim.x - 1 - threadIdx.x];
}

KernelAttributeResult kernel_attributes(float* out) {
  KernelAttributeResult r{};
  r.set_max = cudaFuncSetAttribute(dynamic_shared_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 48 * 1024);
  r.set_past_optin = cudaFuncSetAttribute(dynamic_shared_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 1024);
  r.after_past_optin = cudaGetLastError();
  r.cache = cudaFuncSetCacheConfig(dynamic_shared_kernel, cudaFuncCachePreferShared);
  cudaFuncAttributes attr{};
  r.get = cudaFuncGetAttributes(&attr, dynamic_shared_kernel);
  r.max_threads = attr.maxThreadsPerBlock;
  dynamic_shared_kernel<<<1, 256, 256 * sizeof(float)>>>(out);
  r.launch = cudaDeviceSynchronize();
  return r;
}

}  // namespace compat_plain
