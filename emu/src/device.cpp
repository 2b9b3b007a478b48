// CPU backend: the device as CUDA's calls describe it (cudaGetDeviceCount, cudaGetDeviceProperties,
// cudaDeviceGetAttribute...), synchronisation (launches finish before they return, so the calls
// only report errors), streams (handles that order nothing) and events (host clock readings).
#include "errors.hpp"

#include <wb_emu/api.hpp>
#include <wb_emu/launch.hpp>

#include <chrono>
#include <cstdio>
#include <cstring>

#include <unistd.h>

using namespace wb_emu;
using namespace wb_emu::internal;

// ---- device ----
cudaError_t cudaGetDeviceCount(int* count) {
  if (!count) return record(cudaErrorInvalidValue);
  *count = 1;
  return cudaSuccess;
}
cudaError_t cudaGetDevice(int* device) {
  if (!device) return record(cudaErrorInvalidValue);
  *device = 0;
  return cudaSuccess;
}
cudaError_t cudaSetDevice(int device) { return device == 0 ? cudaSuccess : record(cudaErrorInvalidDevice); }

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  if (!prop) return record(cudaErrorInvalidValue);
  if (device != 0) return record(cudaErrorInvalidDevice);
  std::memset(prop, 0, sizeof *prop);
  std::snprintf(prop->name, sizeof prop->name, "CPU backend (%d worker threads)", worker_count());
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  prop->totalGlobalMem = pages > 0 && page > 0 ? std::size_t(pages) * std::size_t(page) : 0;
  prop->sharedMemPerBlock = 48 * 1024;
  prop->sharedMemPerMultiprocessor = 100 * 1024;
  prop->regsPerBlock = 65536;
  prop->warpSize = 32;
  prop->maxThreadsPerBlock = 1024;
  prop->maxThreadsDim[0] = 1024;
  prop->maxThreadsDim[1] = 1024;
  prop->maxThreadsDim[2] = 64;
  prop->maxGridSize[0] = 2147483647;
  prop->maxGridSize[1] = 65535;
  prop->maxGridSize[2] = 65535;
  prop->multiProcessorCount = worker_count();
  prop->maxThreadsPerMultiProcessor = 2048;
  return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
  if (!value) return record(cudaErrorInvalidValue);
  if (device != 0) return record(cudaErrorInvalidDevice);
  cudaDeviceProp p;
  cudaGetDeviceProperties(&p, 0);
  switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: *value = p.maxThreadsPerBlock; break;
    case cudaDevAttrMaxBlockDimX: *value = p.maxThreadsDim[0]; break;
    case cudaDevAttrMaxGridDimX: *value = p.maxGridSize[0]; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *value = static_cast<int>(p.sharedMemPerBlock); break;
    case cudaDevAttrWarpSize: *value = 32; break;
    case cudaDevAttrMultiProcessorCount: *value = p.multiProcessorCount; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *value = p.maxThreadsPerMultiProcessor; break;
    case cudaDevAttrComputeCapabilityMajor: *value = 0; break;
    case cudaDevAttrComputeCapabilityMinor: *value = 0; break;
    // No memory system is modelled: no clock, no bus, no cache.
    case cudaDevAttrMemoryClockRate:
    case cudaDevAttrGlobalMemoryBusWidth:
    case cudaDevAttrL2CacheSize: *value = 0; break;
    default: return record(cudaErrorInvalidValue);
  }
  return cudaSuccess;
}

// ---- synchronisation: launches finish before they return, so these only report errors ----
cudaError_t cudaDeviceSynchronize() { return sticky() ? record(sticky()) : cudaSuccess; }
cudaError_t cudaDeviceReset() {
  reset_errors();
  return cudaSuccess;
}
cudaError_t cudaStreamCreate(cudaStream_t* stream) {
  if (!stream) return record(cudaErrorInvalidValue);
  *stream = reinterpret_cast<cudaStream_t>(new char);
  return cudaSuccess;
}
cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  delete reinterpret_cast<char*>(stream);
  return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaDeviceSynchronize(); }
cudaError_t cudaStreamQuery(cudaStream_t) { return cudaDeviceSynchronize(); }

// ---- events: host clock readings (CPU-backend times say nothing about a GPU) ----
struct CUevent_st {
  std::chrono::steady_clock::time_point t{};
  bool recorded = false;
};
cudaError_t cudaEventCreate(cudaEvent_t* event) {
  if (!event) return record(cudaErrorInvalidValue);
  *event = new CUevent_st;
  return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t event) {
  delete event;
  return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t) {
  if (!event) return record(cudaErrorInvalidResourceHandle);
  event->t = std::chrono::steady_clock::now();
  event->recorded = true;
  return cudaSuccess;
}
cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  return event ? cudaSuccess : record(cudaErrorInvalidResourceHandle);
}
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  if (!ms || !start || !end) return record(cudaErrorInvalidValue);
  if (!start->recorded || !end->recorded) return record(cudaErrorInvalidResourceHandle);
  *ms = std::chrono::duration<float, std::milli>(end->t - start->t).count();
  return cudaSuccess;
}

