// CPU backend: the device as CUDA's calls describe it (cudaGetDeviceCount, cudaGetDeviceProperties,
// cudaDeviceGetAttribute...), synchronisation (launches finish before they return, so the calls
// only report errors), streams (handles that order nothing) and events (host clock readings).
#include "errors.hpp"
#include "graph.hpp"
#include "streams.hpp"

#include <wb_emu/api.hpp>
#include <wb_emu/launch.hpp>

#include <chrono>
#include <climits>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <set>

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
  // What programs read to size their work or to check a feature. A GPU's memory system and clocks
  // are not modelled; the rest says what this backend does: device memory is host memory (an
  // integrated device, unified addressing, managed memory, host pointers usable in kernels),
  // launches and copies are synchronous (no overlap, no concurrent kernels), clock64() counts
  // nanoseconds (a 1 GHz clock: clockRate is in kHz), and a cooperative grid has one block per worker.
  prop->totalConstMem = 64 * 1024;
  prop->memPitch = INT_MAX;
  prop->textureAlignment = 512;
  prop->sharedMemPerBlockOptin = 48 * 1024;
  prop->clockRate = 1000000;
  prop->computeMode = cudaComputeModeDefault;
  prop->integrated = 1;
  prop->canMapHostMemory = 1;
  prop->unifiedAddressing = 1;
  prop->regsPerMultiprocessor = 65536;
  prop->managedMemory = 1;
  prop->hostNativeAtomicSupported = 1;
  prop->pageableMemoryAccess = 1;
  prop->concurrentManagedAccess = 1;
  prop->canUseHostPointerForRegisteredMem = 1;
  prop->cooperativeLaunch = 1;
  prop->maxBlocksPerMultiProcessor = 32;
  prop->memoryPoolsSupported = 1;
  prop->hostRegisterSupported = 1;
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
    case cudaDevAttrMaxBlockDimY: *value = p.maxThreadsDim[1]; break;
    case cudaDevAttrMaxBlockDimZ: *value = p.maxThreadsDim[2]; break;
    case cudaDevAttrMaxGridDimX: *value = p.maxGridSize[0]; break;
    case cudaDevAttrMaxGridDimY: *value = p.maxGridSize[1]; break;
    case cudaDevAttrMaxGridDimZ: *value = p.maxGridSize[2]; break;
    case cudaDevAttrTotalConstantMemory: *value = static_cast<int>(p.totalConstMem); break;
    case cudaDevAttrMaxPitch: *value = static_cast<int>(p.memPitch); break;
    case cudaDevAttrMaxRegistersPerBlock: *value = p.regsPerBlock; break;
    case cudaDevAttrClockRate: *value = p.clockRate; break;
    case cudaDevAttrTextureAlignment: *value = static_cast<int>(p.textureAlignment); break;
    case cudaDevAttrGpuOverlap: *value = p.deviceOverlap; break;
    case cudaDevAttrKernelExecTimeout: *value = p.kernelExecTimeoutEnabled; break;
    case cudaDevAttrIntegrated: *value = p.integrated; break;
    case cudaDevAttrCanMapHostMemory: *value = p.canMapHostMemory; break;
    case cudaDevAttrComputeMode: *value = p.computeMode; break;
    case cudaDevAttrConcurrentKernels: *value = p.concurrentKernels; break;
    case cudaDevAttrEccEnabled: *value = p.ECCEnabled; break;
    case cudaDevAttrPciBusId: *value = p.pciBusID; break;
    case cudaDevAttrPciDeviceId: *value = p.pciDeviceID; break;
    case cudaDevAttrPciDomainId: *value = p.pciDomainID; break;
    case cudaDevAttrTccDriver: *value = p.tccDriver; break;
    case cudaDevAttrAsyncEngineCount: *value = p.asyncEngineCount; break;
    case cudaDevAttrUnifiedAddressing: *value = p.unifiedAddressing; break;
    case cudaDevAttrStreamPrioritiesSupported: *value = p.streamPrioritiesSupported; break;
    case cudaDevAttrGlobalL1CacheSupported: *value = p.globalL1CacheSupported; break;
    case cudaDevAttrLocalL1CacheSupported: *value = p.localL1CacheSupported; break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *value = static_cast<int>(p.sharedMemPerMultiprocessor); break;
    case cudaDevAttrMaxRegistersPerMultiprocessor: *value = p.regsPerMultiprocessor; break;
    case cudaDevAttrManagedMemory: *value = p.managedMemory; break;
    case cudaDevAttrIsMultiGpuBoard: *value = p.isMultiGpuBoard; break;
    case cudaDevAttrHostNativeAtomicSupported: *value = p.hostNativeAtomicSupported; break;
    case cudaDevAttrPageableMemoryAccess: *value = p.pageableMemoryAccess; break;
    case cudaDevAttrConcurrentManagedAccess: *value = p.concurrentManagedAccess; break;
    case cudaDevAttrComputePreemptionSupported: *value = p.computePreemptionSupported; break;
    case cudaDevAttrCanUseHostPointerForRegisteredMem: *value = p.canUseHostPointerForRegisteredMem; break;
    case cudaDevAttrCooperativeLaunch: *value = p.cooperativeLaunch; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = static_cast<int>(p.sharedMemPerBlockOptin); break;
    case cudaDevAttrHostRegisterSupported: *value = p.hostRegisterSupported; break;
    case cudaDevAttrMaxBlocksPerMultiprocessor: *value = p.maxBlocksPerMultiProcessor; break;
    case cudaDevAttrMemoryPoolsSupported: *value = p.memoryPoolsSupported; break;
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
cudaError_t cudaDeviceSynchronize() {
  if (capture_check(nullptr, true) == CaptureCheck::unsupported) return record(cudaErrorStreamCaptureUnsupported);
  return sticky() ? record(sticky()) : cudaSuccess;
}
cudaError_t cudaDeviceReset() {
  reset_errors();
  return cudaSuccess;
}
// A stream: its flags and priority, kept for the Get calls; the live ones are in a registry, so a
// destroyed or made-up handle is cudaErrorInvalidResourceHandle, as CUDA says.
struct CUstream_st {
  unsigned flags = 0;
  int priority = 0;
};
namespace {
std::mutex handle_mutex;
std::set<cudaStream_t> live_streams;
std::set<cudaEvent_t> live_events;
}  // namespace
bool wb_emu::internal::valid_stream(cudaStream_t stream) {
  if (stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread) return true;
  std::lock_guard<std::mutex> lock(handle_mutex);
  return live_streams.count(stream) != 0;
}
cudaError_t cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned int flags, int priority) {
  if (!stream || (flags & ~unsigned(cudaStreamNonBlocking))) return record(cudaErrorInvalidValue);
  auto* s = new CUstream_st;
  s->flags = flags;
  s->priority = 0;  // the only priority (cudaDeviceGetStreamPriorityRange): others are clamped to it, as CUDA clamps
  (void)priority;
  std::lock_guard<std::mutex> lock(handle_mutex);
  live_streams.insert(s);
  *stream = s;
  return cudaSuccess;
}
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags) {
  return cudaStreamCreateWithPriority(stream, flags, 0);
}
cudaError_t cudaStreamCreate(cudaStream_t* stream) { return cudaStreamCreateWithPriority(stream, cudaStreamDefault, 0); }
cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  {
    std::lock_guard<std::mutex> lock(handle_mutex);
    if (!live_streams.erase(stream)) return record(cudaErrorInvalidResourceHandle);
  }
  delete stream;
  return cudaSuccess;
}
cudaError_t cudaStreamGetFlags(cudaStream_t stream, unsigned int* flags) {
  if (!flags) return record(cudaErrorInvalidValue);
  if (!valid_stream(stream)) return record(cudaErrorInvalidResourceHandle);
  std::lock_guard<std::mutex> lock(handle_mutex);
  *flags = live_streams.count(stream) ? stream->flags : 0u;
  return cudaSuccess;
}
cudaError_t cudaStreamGetPriority(cudaStream_t stream, int* priority) {
  if (!priority) return record(cudaErrorInvalidValue);
  if (!valid_stream(stream)) return record(cudaErrorInvalidResourceHandle);
  *priority = 0;
  return cudaSuccess;
}
cudaError_t cudaDeviceGetStreamPriorityRange(int* least, int* greatest) {
  // One priority: the streams of a synchronous backend have nothing to schedule ahead of another.
  if (least) *least = 0;
  if (greatest) *greatest = 0;
  return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  if (!valid_stream(stream)) return record(cudaErrorInvalidResourceHandle);
  if (capture_check(stream, true) == CaptureCheck::unsupported) return record(cudaErrorStreamCaptureUnsupported);
  return cudaDeviceSynchronize();
}
cudaError_t cudaStreamQuery(cudaStream_t stream) {
  if (!valid_stream(stream)) return record(cudaErrorInvalidResourceHandle);
  if (capture_check(stream, true) == CaptureCheck::unsupported) return record(cudaErrorStreamCaptureUnsupported);
  return cudaDeviceSynchronize();
}

// ---- events: host clock readings (CPU-backend times say nothing about a GPU) ----
struct CUevent_st {
  std::chrono::steady_clock::time_point t{};
  bool recorded = false;
  unsigned flags = 0;
};
namespace {
bool valid_event(cudaEvent_t e) {
  std::lock_guard<std::mutex> lock(handle_mutex);
  return e != nullptr && live_events.count(e) != 0;
}
}  // namespace
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
  const unsigned known = cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess;
  if (!event || (flags & ~known)) return record(cudaErrorInvalidValue);
  // CUDA: an interprocess event must also disable timing.
  if ((flags & cudaEventInterprocess) && !(flags & cudaEventDisableTiming)) return record(cudaErrorInvalidValue);
  auto* e = new CUevent_st;
  e->flags = flags;
  std::lock_guard<std::mutex> lock(handle_mutex);
  live_events.insert(e);
  *event = e;
  return cudaSuccess;
}
cudaError_t cudaEventCreate(cudaEvent_t* event) { return cudaEventCreateWithFlags(event, cudaEventDefault); }
cudaError_t cudaEventDestroy(cudaEvent_t event) {
  {
    std::lock_guard<std::mutex> lock(handle_mutex);
    if (!live_events.erase(event)) return record(cudaErrorInvalidResourceHandle);
  }
  delete event;
  return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  if (!valid_event(event) || !valid_stream(stream)) return record(cudaErrorInvalidResourceHandle);
  if (capture_event(event, stream)) return cudaSuccess;  // a point of the capture, not a time
  event->t = std::chrono::steady_clock::now();
  event->recorded = true;
  return cudaSuccess;
}
cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  return valid_event(event) ? cudaSuccess : record(cudaErrorInvalidResourceHandle);
}
// Every recorded event is complete (launches finish before they return), and one never recorded
// stands for no work at all: cudaSuccess either way, as CUDA documents; never cudaErrorNotReady.
cudaError_t cudaEventQuery(cudaEvent_t event) {
  if (!valid_event(event)) return record(cudaErrorInvalidResourceHandle);
  return sticky() ? record(sticky()) : cudaSuccess;
}
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
  if (!valid_stream(stream) || !valid_event(event)) return record(cudaErrorInvalidResourceHandle);
  if (flags & ~1u) return record(cudaErrorInvalidValue);  // cudaEventWaitDefault or cudaEventWaitExternal
  capture_wait(stream, event);  // an event of a capture: the stream joins it
  return cudaSuccess;  // the event's work is done already
}
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  if (!ms) return record(cudaErrorInvalidValue);
  if (!valid_event(start) || !valid_event(end)) return record(cudaErrorInvalidResourceHandle);
  // CUDA's rules: an event without timing, or one never recorded, has no time to give.
  if ((start->flags | end->flags) & cudaEventDisableTiming) return record(cudaErrorInvalidResourceHandle);
  if (!start->recorded || !end->recorded) return record(cudaErrorInvalidResourceHandle);
  *ms = std::chrono::duration<float, std::milli>(end->t - start->t).count();
  return cudaSuccess;
}

// ---- the device's settings: checked as CUDA checks them, kept for the Get calls ----
namespace {
std::mutex settings_mutex;
unsigned device_flags = 0;
cudaFuncCache cache_config = cudaFuncCachePreferNone;
// CUDA's defaults, but the stack: a kernel thread here has 256 KiB (its fiber's stack), whatever is set.
std::size_t limits[7] = {256 * 1024, 1 << 20, 8 << 20, 2, 2048, 32, 0};
}  // namespace
cudaError_t wb_emu::detail::record_error(cudaError_t e) { return record(e); }

cudaError_t cudaSetDeviceFlags(unsigned int flags) {
  const unsigned schedule = flags & cudaDeviceScheduleMask;
  if ((flags & ~0x1fu) || (schedule != 0 && schedule != 1 && schedule != 2 && schedule != 4))
    return record(cudaErrorInvalidValue);
  std::lock_guard<std::mutex> lock(settings_mutex);
  device_flags = flags;
  return cudaSuccess;
}
cudaError_t cudaGetDeviceFlags(unsigned int* flags) {
  if (!flags) return record(cudaErrorInvalidValue);
  std::lock_guard<std::mutex> lock(settings_mutex);
  *flags = device_flags;
  return cudaSuccess;
}
cudaError_t cudaDeviceSetLimit(cudaLimit limit, std::size_t value) {
  if (limit < cudaLimitStackSize || limit > cudaLimitPersistingL2CacheSize) return record(cudaErrorUnsupportedLimit);
  // Kernels launch no kernels here (no dynamic parallelism): its limits do not exist.
  if (limit == cudaLimitDevRuntimeSyncDepth || limit == cudaLimitDevRuntimePendingLaunchCount)
    return record(cudaErrorUnsupportedLimit);
  std::lock_guard<std::mutex> lock(settings_mutex);
  if (limit != cudaLimitStackSize) limits[limit] = value;
  return cudaSuccess;
}
cudaError_t cudaDeviceGetLimit(std::size_t* value, cudaLimit limit) {
  if (!value) return record(cudaErrorInvalidValue);
  if (limit < cudaLimitStackSize || limit > cudaLimitPersistingL2CacheSize) return record(cudaErrorUnsupportedLimit);
  if (limit == cudaLimitDevRuntimeSyncDepth || limit == cudaLimitDevRuntimePendingLaunchCount)
    return record(cudaErrorUnsupportedLimit);
  std::lock_guard<std::mutex> lock(settings_mutex);
  *value = limits[limit];
  return cudaSuccess;
}
cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache config) {
  if (config < cudaFuncCachePreferNone || config > cudaFuncCachePreferEqual) return record(cudaErrorInvalidValue);
  std::lock_guard<std::mutex> lock(settings_mutex);
  cache_config = config;
  return cudaSuccess;
}
cudaError_t cudaDeviceGetCacheConfig(cudaFuncCache* config) {
  if (!config) return record(cudaErrorInvalidValue);
  std::lock_guard<std::mutex> lock(settings_mutex);
  *config = cache_config;
  return cudaSuccess;
}
cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig config) {
  return config >= cudaSharedMemBankSizeDefault && config <= cudaSharedMemBankSizeEightByte
             ? cudaSuccess
             : record(cudaErrorInvalidValue);
}
cudaError_t cudaDriverGetVersion(int* version) {
  if (!version) return record(cudaErrorInvalidValue);
  *version = CUDART_VERSION;
  return cudaSuccess;
}
cudaError_t cudaRuntimeGetVersion(int* version) {
  if (!version) return record(cudaErrorInvalidValue);
  *version = CUDART_VERSION;
  return cudaSuccess;
}
// One device: no peer to reach (CUDA answers 0 for a device and itself).
cudaError_t cudaDeviceCanAccessPeer(int* can, int device, int peer_device) {
  if (!can) return record(cudaErrorInvalidValue);
  if (device != 0 || peer_device != 0) return record(cudaErrorInvalidDevice);
  *can = 0;
  return cudaSuccess;
}
cudaError_t cudaDeviceEnablePeerAccess(int peer_device, unsigned int flags) {
  if (flags != 0) return record(cudaErrorInvalidValue);
  (void)peer_device;  // device 0 cannot be its own peer, and there is no other
  return record(cudaErrorInvalidDevice);
}
cudaError_t cudaChooseDevice(int* device, const cudaDeviceProp* prop) {
  if (!device || !prop) return record(cudaErrorInvalidValue);
  *device = 0;
  return cudaSuccess;
}
// There is no profiler to start: a timeline of the CPU backend would say nothing about a GPU.
cudaError_t cudaProfilerStart() { return cudaSuccess; }
cudaError_t cudaProfilerStop() { return cudaSuccess; }
