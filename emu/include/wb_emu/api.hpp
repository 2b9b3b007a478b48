/// \file
/// \brief The CPU backend's CUDA runtime API: the error codes, enums and device properties with
/// CUDA's names and numbers, and the declarations of the calls the chapters and the grader use
/// (defined by area in emu/src/: errors.cpp, memory.cpp, device.cpp).
#pragma once

#include <cstddef>

// ---- runtime types, numbered as CUDA numbers them ----
/// CUDA's error codes (the ones the CPU backend can return), with CUDA's numbers.
enum cudaError_t : int {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInitializationError = 3,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidPitchValue = 12,
  cudaErrorInvalidSymbol = 13,
  cudaErrorInvalidHostPointer = 16,
  cudaErrorInvalidDevicePointer = 17,
  cudaErrorInvalidMemcpyDirection = 21,
  cudaErrorInsufficientDriver = 35,
  cudaErrorInvalidDeviceFunction = 98,
  cudaErrorNoDevice = 100,
  cudaErrorInvalidDevice = 101,
  cudaErrorUnsupportedLimit = 215,
  cudaErrorPeerAccessUnsupported = 217,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorIllegalState = 401,
  cudaErrorNotReady = 600,
  cudaErrorIllegalAddress = 700,
  cudaErrorLaunchOutOfResources = 701,
  cudaErrorLaunchTimeout = 702,
  cudaErrorSetOnActiveProcess = 708,
  cudaErrorAssert = 710,
  cudaErrorHostMemoryAlreadyRegistered = 712,
  cudaErrorHostMemoryNotRegistered = 713,
  cudaErrorHardwareStackError = 714,
  cudaErrorIllegalInstruction = 715,
  cudaErrorMisalignedAddress = 716,
  cudaErrorLaunchFailure = 719,
  cudaErrorCooperativeLaunchTooLarge = 720,
  cudaErrorNotPermitted = 800,
  cudaErrorNotSupported = 801,
  cudaErrorStreamCaptureUnsupported = 900,
  cudaErrorStreamCaptureInvalidated = 901,
  cudaErrorStreamCaptureUnmatched = 903,
  cudaErrorStreamCaptureImplicit = 906,
  cudaErrorUnknown = 999,
};
/// CUDA's other name for cudaError_t.
using cudaError = cudaError_t;

/// Directions of a copy, as CUDA names them (all memory is host memory here).
enum cudaMemcpyKind : int {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};

/// The device attributes cudaDeviceGetAttribute answers, with CUDA's numbers.
enum cudaDeviceAttr : int {
  cudaDevAttrMaxThreadsPerBlock = 1,
  cudaDevAttrMaxBlockDimX = 2,
  cudaDevAttrMaxBlockDimY = 3,
  cudaDevAttrMaxBlockDimZ = 4,
  cudaDevAttrMaxGridDimX = 5,
  cudaDevAttrMaxGridDimY = 6,
  cudaDevAttrMaxGridDimZ = 7,
  cudaDevAttrMaxSharedMemoryPerBlock = 8,
  cudaDevAttrTotalConstantMemory = 9,
  cudaDevAttrWarpSize = 10,
  cudaDevAttrMaxPitch = 11,
  cudaDevAttrMaxRegistersPerBlock = 12,
  cudaDevAttrClockRate = 13,
  cudaDevAttrTextureAlignment = 14,
  cudaDevAttrGpuOverlap = 15,
  cudaDevAttrMultiProcessorCount = 16,
  cudaDevAttrKernelExecTimeout = 17,
  cudaDevAttrIntegrated = 18,
  cudaDevAttrCanMapHostMemory = 19,
  cudaDevAttrComputeMode = 20,
  cudaDevAttrConcurrentKernels = 31,
  cudaDevAttrEccEnabled = 32,
  cudaDevAttrPciBusId = 33,
  cudaDevAttrPciDeviceId = 34,
  cudaDevAttrTccDriver = 35,
  cudaDevAttrMemoryClockRate = 36,
  cudaDevAttrGlobalMemoryBusWidth = 37,
  cudaDevAttrL2CacheSize = 38,
  cudaDevAttrMaxThreadsPerMultiProcessor = 39,
  cudaDevAttrAsyncEngineCount = 40,
  cudaDevAttrUnifiedAddressing = 41,
  cudaDevAttrPciDomainId = 50,
  cudaDevAttrComputeCapabilityMajor = 75,
  cudaDevAttrComputeCapabilityMinor = 76,
  cudaDevAttrStreamPrioritiesSupported = 78,
  cudaDevAttrGlobalL1CacheSupported = 79,
  cudaDevAttrLocalL1CacheSupported = 80,
  cudaDevAttrMaxSharedMemoryPerMultiprocessor = 81,
  cudaDevAttrMaxRegistersPerMultiprocessor = 82,
  cudaDevAttrManagedMemory = 83,
  cudaDevAttrIsMultiGpuBoard = 84,
  cudaDevAttrHostNativeAtomicSupported = 86,
  cudaDevAttrPageableMemoryAccess = 88,
  cudaDevAttrConcurrentManagedAccess = 89,
  cudaDevAttrComputePreemptionSupported = 90,
  cudaDevAttrCanUseHostPointerForRegisteredMem = 91,
  cudaDevAttrCooperativeLaunch = 95,
  cudaDevAttrMaxSharedMemoryPerBlockOptin = 97,
  cudaDevAttrHostRegisterSupported = 99,
  cudaDevAttrMaxBlocksPerMultiprocessor = 106,
  cudaDevAttrMemoryPoolsSupported = 115,
};

/// The compute modes (cudaDeviceProp::computeMode, cudaDevAttrComputeMode), with CUDA's numbers.
enum cudaComputeMode : int {
  cudaComputeModeDefault = 0,
  cudaComputeModeExclusive = 1,
  cudaComputeModeProhibited = 2,
  cudaComputeModeExclusiveProcess = 3,
};
/// The limits cudaDeviceSetLimit and cudaDeviceGetLimit take, with CUDA's numbers.
enum cudaLimit : int {
  cudaLimitStackSize = 0x00,
  cudaLimitPrintfFifoSize = 0x01,
  cudaLimitMallocHeapSize = 0x02,
  cudaLimitDevRuntimeSyncDepth = 0x03,
  cudaLimitDevRuntimePendingLaunchCount = 0x04,
  cudaLimitMaxL2FetchGranularity = 0x05,
  cudaLimitPersistingL2CacheSize = 0x06,
};
/// Cache preferences (cudaFuncSetCacheConfig, cudaDeviceSetCacheConfig): accepted, and mean nothing here.
enum cudaFuncCache : int {
  cudaFuncCachePreferNone = 0,
  cudaFuncCachePreferShared = 1,
  cudaFuncCachePreferL1 = 2,
  cudaFuncCachePreferEqual = 3,
};
/// Shared-memory bank sizes (cudaDeviceSetSharedMemConfig): accepted, and mean nothing here.
enum cudaSharedMemConfig : int {
  cudaSharedMemBankSizeDefault = 0,
  cudaSharedMemBankSizeFourByte = 1,
  cudaSharedMemBankSizeEightByte = 2,
};
/// The kernel attributes cudaFuncSetAttribute sets, with CUDA's numbers.
enum cudaFuncAttribute : int {
  cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
  cudaFuncAttributePreferredSharedMemoryCarveout = 9,
};
/// The kinds of memory cudaPointerGetAttributes tells apart, with CUDA's numbers.
enum cudaMemoryType : int {
  cudaMemoryTypeUnregistered = 0,
  cudaMemoryTypeHost = 1,
  cudaMemoryTypeDevice = 2,
  cudaMemoryTypeManaged = 3,
};
/// What cudaPointerGetAttributes says of a pointer (all memory is the host's here, so both
/// pointers are the pointer itself).
struct cudaPointerAttributes {
  ///@{
  /// A field of CUDA's cudaPointerAttributes, same name and meaning.
  cudaMemoryType type;
  int device;
  void* devicePointer;
  void* hostPointer;
  ///@}
};
/// What cudaFuncGetAttributes says of a kernel: the limits of a launch (no registers or local
/// memory are modelled: those fields are 0).
struct cudaFuncAttributes {
  ///@{
  /// A field of CUDA's cudaFuncAttributes, same name and meaning.
  std::size_t sharedSizeBytes;
  std::size_t constSizeBytes;
  std::size_t localSizeBytes;
  int maxThreadsPerBlock;
  int numRegs;
  int ptxVersion;
  int binaryVersion;
  int cacheModeCA;
  int maxDynamicSharedSizeBytes;
  int preferredShmemCarveout;
  ///@}
};

/// \name Flags, with CUDA's values
///@{
/// The flags of CUDA's stream, event, host-memory, managed-memory and device calls. They are
/// checked as CUDA checks them and change nothing else here: launches and copies are synchronous.
#define cudaStreamDefault 0x00
#define cudaStreamNonBlocking 0x01
#define cudaStreamLegacy ((cudaStream_t)0x1)
#define cudaStreamPerThread ((cudaStream_t)0x2)
#define cudaEventDefault 0x00
#define cudaEventBlockingSync 0x01
#define cudaEventDisableTiming 0x02
#define cudaEventInterprocess 0x04
#define cudaHostAllocDefault 0x00
#define cudaHostAllocPortable 0x01
#define cudaHostAllocMapped 0x02
#define cudaHostAllocWriteCombined 0x04
#define cudaHostRegisterDefault 0x00
#define cudaHostRegisterPortable 0x01
#define cudaHostRegisterMapped 0x02
#define cudaHostRegisterIoMemory 0x04
#define cudaHostRegisterReadOnly 0x08
#define cudaMemAttachGlobal 0x01
#define cudaMemAttachHost 0x02
#define cudaMemAttachSingle 0x04
#define cudaDeviceScheduleAuto 0x00
#define cudaDeviceScheduleSpin 0x01
#define cudaDeviceScheduleYield 0x02
#define cudaDeviceScheduleBlockingSync 0x04
#define cudaDeviceBlockingSync 0x04
#define cudaDeviceScheduleMask 0x07
#define cudaDeviceMapHost 0x08
#define cudaDeviceLmemResizeToMax 0x10
#define cudaCpuDeviceId ((int)-1)
#define cudaInvalidDeviceId ((int)-2)
///@}

/// The fields of CUDA's cudaDeviceProp that the workbook reads, filled by cudaGetDeviceProperties
/// with the emulated device's values.
struct cudaDeviceProp {
  ///@{

  /// A field of CUDA's cudaDeviceProp, same name and meaning.
  char name[256];
  std::size_t totalGlobalMem;
  std::size_t sharedMemPerBlock;
  int regsPerBlock;
  int warpSize;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  int major;
  int minor;
  int multiProcessorCount;
  int l2CacheSize;
  int memoryBusWidth;
  int maxThreadsPerMultiProcessor;
  std::size_t sharedMemPerMultiprocessor;
  std::size_t totalConstMem;
  std::size_t memPitch;
  std::size_t textureAlignment;
  std::size_t sharedMemPerBlockOptin;
  std::size_t reservedSharedMemPerBlock;
  int clockRate;
  int memoryClockRate;
  int deviceOverlap;
  int asyncEngineCount;
  int kernelExecTimeoutEnabled;
  int integrated;
  int canMapHostMemory;
  int computeMode;
  int concurrentKernels;
  int ECCEnabled;
  int pciBusID;
  int pciDeviceID;
  int pciDomainID;
  int tccDriver;
  int unifiedAddressing;
  int persistingL2CacheMaxSize;
  int streamPrioritiesSupported;
  int globalL1CacheSupported;
  int localL1CacheSupported;
  int regsPerMultiprocessor;
  int managedMemory;
  int isMultiGpuBoard;
  int multiGpuBoardGroupID;
  int hostNativeAtomicSupported;
  int pageableMemoryAccess;
  int concurrentManagedAccess;
  int computePreemptionSupported;
  int canUseHostPointerForRegisteredMem;
  int cooperativeLaunch;
  int maxBlocksPerMultiProcessor;
  int memoryPoolsSupported;
  int hostRegisterSupported;
  ///@}
};

struct CUstream_st;
struct CUevent_st;
/// \name Streams and events
///@{

/// An opaque handle, as in CUDA. Launches complete before they return, so streams order
/// nothing and events record host time.
using cudaStream_t = CUstream_st*;
using cudaEvent_t = CUevent_st*;
///@}

struct CUgraph_st;
struct CUgraphExec_st;
struct CUgraphNode_st;
/// \name Graphs, by stream capture
///@{

/// Opaque handles, as in CUDA: a graph is the list of the operations captured on a stream, in
/// the order they were issued (a valid order of CUDA's graph: the backend runs one operation at a
/// time); an executable graph is a copy of that list that cudaGraphLaunch runs again.
using cudaGraph_t = CUgraph_st*;
using cudaGraphExec_t = CUgraphExec_st*;
using cudaGraphNode_t = CUgraphNode_st*;
/// As in CUDA: which calls of other threads a capture forbids (the backend treats all as global).
enum cudaStreamCaptureMode : int {
  cudaStreamCaptureModeGlobal = 0,
  cudaStreamCaptureModeThreadLocal = 1,
  cudaStreamCaptureModeRelaxed = 2,
};
/// As in CUDA: whether a stream is capturing.
enum cudaStreamCaptureStatus : int {
  cudaStreamCaptureStatusNone = 0,
  cudaStreamCaptureStatusActive = 1,
  cudaStreamCaptureStatusInvalidated = 2,
};
///@}

// ---- runtime API ----
/// \name The CUDA runtime API
/// The calls the chapters and the grader use, with CUDA's signatures and error rules: a bad
/// argument returns an error code (also kept for cudaGetLastError), a kernel fault is sticky
/// until cudaDeviceReset. Device memory is host memory; copies are plain copies.
///@{

/// As in CUDA's runtime API: see the CUDA Runtime API reference for each call.
cudaError_t cudaGetDeviceCount(int* count);
cudaError_t cudaGetDevice(int* device);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device);
cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device);
cudaError_t cudaMalloc(void** ptr, std::size_t bytes);
cudaError_t cudaFree(void* ptr);
cudaError_t cudaMallocHost(void** ptr, std::size_t bytes);
cudaError_t cudaFreeHost(void* ptr);
cudaError_t cudaMemcpy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t stream = nullptr);
cudaError_t cudaMemset(void* dst, int value, std::size_t bytes);
cudaError_t cudaMemsetAsync(void* dst, int value, std::size_t bytes, cudaStream_t stream = nullptr);
cudaError_t cudaMemGetInfo(std::size_t* free_bytes, std::size_t* total_bytes);
cudaError_t cudaDeviceSynchronize();
cudaError_t cudaDeviceReset();
cudaError_t cudaStreamCreate(cudaStream_t* stream);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaStreamQuery(cudaStream_t stream);
cudaError_t cudaEventCreate(cudaEvent_t* event);
cudaError_t cudaEventDestroy(cudaEvent_t event);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = nullptr);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end);
cudaError_t cudaGetLastError();
// streams and events with flags; launches are synchronous, so a stream orders nothing and a
// recorded event is complete at once (cudaEventQuery gives cudaSuccess, before any record too, as
// CUDA documents). A handle that was never made, or was destroyed, is cudaErrorInvalidResourceHandle.
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags);
cudaError_t cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned int flags, int priority);
cudaError_t cudaStreamGetFlags(cudaStream_t stream, unsigned int* flags);
cudaError_t cudaStreamGetPriority(cudaStream_t stream, int* priority);
cudaError_t cudaDeviceGetStreamPriorityRange(int* least, int* greatest);
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags = 0);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags);
cudaError_t cudaEventQuery(cudaEvent_t event);
// the device's settings: accepted when CUDA would accept them, kept for the Get calls
cudaError_t cudaSetDeviceFlags(unsigned int flags);
cudaError_t cudaGetDeviceFlags(unsigned int* flags);
cudaError_t cudaDeviceSetLimit(cudaLimit limit, std::size_t value);
cudaError_t cudaDeviceGetLimit(std::size_t* value, cudaLimit limit);
cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache config);
cudaError_t cudaDeviceGetCacheConfig(cudaFuncCache* config);
cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig config);
cudaError_t cudaDriverGetVersion(int* version);
cudaError_t cudaRuntimeGetVersion(int* version);
cudaError_t cudaDeviceCanAccessPeer(int* can, int device, int peer_device);
cudaError_t cudaDeviceEnablePeerAccess(int peer_device, unsigned int flags);
cudaError_t cudaChooseDevice(int* device, const cudaDeviceProp* prop);
cudaError_t cudaProfilerStart();
cudaError_t cudaProfilerStop();
// memory: managed, host-allocated and registered memory is host memory the kernels may use, as
// cudaMalloc's is; pitched allocations and 2D copies work on rows of `width` bytes `pitch` apart
cudaError_t cudaMallocManaged(void** ptr, std::size_t bytes, unsigned int flags = cudaMemAttachGlobal);
cudaError_t cudaMallocAsync(void** ptr, std::size_t bytes, cudaStream_t stream);
cudaError_t cudaFreeAsync(void* ptr, cudaStream_t stream);
cudaError_t cudaHostAlloc(void** ptr, std::size_t bytes, unsigned int flags);
cudaError_t cudaHostRegister(void* ptr, std::size_t bytes, unsigned int flags);
cudaError_t cudaHostUnregister(void* ptr);
cudaError_t cudaHostGetDevicePointer(void** device_ptr, void* host_ptr, unsigned int flags);
cudaError_t cudaMallocPitch(void** ptr, std::size_t* pitch, std::size_t width, std::size_t height);
cudaError_t cudaMemcpy2D(void* dst, std::size_t dpitch, const void* src, std::size_t spitch, std::size_t width,
                         std::size_t height, cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DAsync(void* dst, std::size_t dpitch, const void* src, std::size_t spitch, std::size_t width,
                              std::size_t height, cudaMemcpyKind kind, cudaStream_t stream = nullptr);
cudaError_t cudaMemset2D(void* dst, std::size_t pitch, int value, std::size_t width, std::size_t height);
cudaError_t cudaMemset2DAsync(void* dst, std::size_t pitch, int value, std::size_t width, std::size_t height,
                              cudaStream_t stream = nullptr);
cudaError_t cudaMemcpyPeer(void* dst, int dst_device, const void* src, int src_device, std::size_t bytes);
cudaError_t cudaMemPrefetchAsync(const void* ptr, std::size_t bytes, int device, cudaStream_t stream = nullptr);
cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attributes, const void* ptr);
cudaError_t cudaPeekAtLastError();
// graphs by stream capture (emu/src/graph.cpp): between cudaStreamBeginCapture and
// cudaStreamEndCapture, launches, async copies and memsets on the stream (and on streams that
// wait on an event recorded in it) are recorded, not run; a kernel's arguments are copied when it
// is captured. During a capture, work on the legacy default stream is
// cudaErrorStreamCaptureImplicit and a synchronisation cudaErrorStreamCaptureUnsupported: both
// invalidate the capture, as in CUDA.
cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode);
cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* graph);
cudaError_t cudaStreamIsCapturing(cudaStream_t stream, cudaStreamCaptureStatus* status);
cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long flags = 0);
cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long flags = 0);
cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream);
cudaError_t cudaGraphUpload(cudaGraphExec_t exec, cudaStream_t stream);
cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t* nodes, std::size_t* count);
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec);
cudaError_t cudaGraphDestroy(cudaGraph_t graph);
const char* cudaGetErrorString(cudaError_t error);
const char* cudaGetErrorName(cudaError_t error);

/// The symbol calls, on `__constant__` and `__device__` variables: `symbol` is the variable's
/// address (what CUDA's C API takes); the templates below take the variable itself, as CUDA's
/// C++ API does. A symbol is a variable the launch rewriter registered (wb_emu::register_symbol):
/// anything else is cudaErrorInvalidSymbol. `count` bytes from `offset` must lie inside the
/// variable (else cudaErrorInvalidValue); the kind must copy into the device (ToSymbol) or out of
/// it (FromSymbol), else cudaErrorInvalidMemcpyDirection.
///
cudaError_t cudaMemcpyToSymbol(const void* symbol, const void* src, std::size_t count, std::size_t offset = 0,
                               cudaMemcpyKind kind = cudaMemcpyHostToDevice);
cudaError_t cudaMemcpyFromSymbol(void* dst, const void* symbol, std::size_t count, std::size_t offset = 0,
                                 cudaMemcpyKind kind = cudaMemcpyDeviceToHost);
cudaError_t cudaMemcpyToSymbolAsync(const void* symbol, const void* src, std::size_t count, std::size_t offset,
                                    cudaMemcpyKind kind, cudaStream_t stream = nullptr);
cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const void* symbol, std::size_t count, std::size_t offset,
                                      cudaMemcpyKind kind, cudaStream_t stream = nullptr);
cudaError_t cudaGetSymbolAddress(void** dev_ptr, const void* symbol);
cudaError_t cudaGetSymbolSize(std::size_t* size, const void* symbol);

template <class T>
cudaError_t cudaMemcpyToSymbol(const T& symbol, const void* src, std::size_t count, std::size_t offset = 0,
                               cudaMemcpyKind kind = cudaMemcpyHostToDevice) {
  return cudaMemcpyToSymbol(static_cast<const void*>(__builtin_addressof(symbol)), src, count, offset, kind);
}
template <class T>
cudaError_t cudaMemcpyFromSymbol(void* dst, const T& symbol, std::size_t count, std::size_t offset = 0,
                                 cudaMemcpyKind kind = cudaMemcpyDeviceToHost) {
  return cudaMemcpyFromSymbol(dst, static_cast<const void*>(__builtin_addressof(symbol)), count, offset, kind);
}
template <class T>
cudaError_t cudaMemcpyToSymbolAsync(const T& symbol, const void* src, std::size_t count, std::size_t offset = 0,
                                    cudaMemcpyKind kind = cudaMemcpyHostToDevice, cudaStream_t stream = nullptr) {
  return cudaMemcpyToSymbolAsync(static_cast<const void*>(__builtin_addressof(symbol)), src, count, offset, kind,
                                 stream);
}
template <class T>
cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const T& symbol, std::size_t count, std::size_t offset = 0,
                                      cudaMemcpyKind kind = cudaMemcpyDeviceToHost, cudaStream_t stream = nullptr) {
  return cudaMemcpyFromSymbolAsync(dst, static_cast<const void*>(__builtin_addressof(symbol)), count, offset, kind,
                                   stream);
}
template <class T>
cudaError_t cudaGetSymbolAddress(void** dev_ptr, const T& symbol) {
  return cudaGetSymbolAddress(dev_ptr, static_cast<const void*>(__builtin_addressof(symbol)));
}
template <class T>
cudaError_t cudaGetSymbolSize(std::size_t* size, const T& symbol) {
  return cudaGetSymbolSize(size, static_cast<const void*>(__builtin_addressof(symbol)));
}


namespace wb_emu {
/// Makes the variable at `address` (`bytes` long, declared `space` — "__constant__" or
/// "__device__" — as `name` at file:line) a symbol the calls above accept, and its bytes device
/// memory for cudaMemcpy and the checks of instrumented builds. The launch rewriter emits a call
/// after each such declaration of a .cu file; it runs as the program starts. Returns true.
bool register_symbol(const void* address, std::size_t bytes, const char* name, const char* space, const char* file,
                     int line);
}  // namespace wb_emu

template <class T>
cudaError_t cudaMalloc(T** ptr, std::size_t bytes) {
  return cudaMalloc(reinterpret_cast<void**>(ptr), bytes);
}
template <class T>
cudaError_t cudaMallocHost(T** ptr, std::size_t bytes) {
  return cudaMallocHost(reinterpret_cast<void**>(ptr), bytes);
}
template <class T>
cudaError_t cudaMallocManaged(T** ptr, std::size_t bytes, unsigned int flags = cudaMemAttachGlobal) {
  return cudaMallocManaged(reinterpret_cast<void**>(ptr), bytes, flags);
}
template <class T>
cudaError_t cudaMallocAsync(T** ptr, std::size_t bytes, cudaStream_t stream) {
  return cudaMallocAsync(reinterpret_cast<void**>(ptr), bytes, stream);
}
template <class T>
cudaError_t cudaHostAlloc(T** ptr, std::size_t bytes, unsigned int flags) {
  return cudaHostAlloc(reinterpret_cast<void**>(ptr), bytes, flags);
}
template <class T>
cudaError_t cudaMallocPitch(T** ptr, std::size_t* pitch, std::size_t width, std::size_t height) {
  return cudaMallocPitch(reinterpret_cast<void**>(ptr), pitch, width, height);
}
template <class T>
cudaError_t cudaHostGetDevicePointer(T** device_ptr, void* host_ptr, unsigned int flags) {
  return cudaHostGetDevicePointer(reinterpret_cast<void**>(device_ptr), host_ptr, flags);
}

namespace wb_emu {
namespace detail {
/// Keeps `e` for cudaGetLastError, as a failed runtime call does, and returns it (errors.cpp).
cudaError_t record_error(cudaError_t e);
}  // namespace detail
}  // namespace wb_emu

/// \name Kernel attributes
/// `func` is the kernel (or a pointer to it). The dynamic shared memory of a launch is limited to
/// 48 KiB here, which is also cudaDevAttrMaxSharedMemoryPerBlockOptin: a larger
/// cudaFuncAttributeMaxDynamicSharedMemorySize is refused, as a GPU refuses one past its opt-in limit.
///@{
template <class T>
cudaError_t cudaFuncSetAttribute(T* func, cudaFuncAttribute attr, int value) {
  if (func == nullptr) return ::wb_emu::detail::record_error(cudaErrorInvalidDeviceFunction);
  bool valid = false;
  if (attr == cudaFuncAttributeMaxDynamicSharedMemorySize) valid = value >= 0 && value <= 48 * 1024;
  if (attr == cudaFuncAttributePreferredSharedMemoryCarveout) valid = value >= -1 && value <= 100;  // a percentage
  return valid ? cudaSuccess : ::wb_emu::detail::record_error(cudaErrorInvalidValue);
}
template <class T>
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, T* func) {
  if (attr == nullptr) return ::wb_emu::detail::record_error(cudaErrorInvalidValue);
  if (func == nullptr) return ::wb_emu::detail::record_error(cudaErrorInvalidDeviceFunction);
  *attr = cudaFuncAttributes{};
  attr->maxThreadsPerBlock = 1024;
  attr->maxDynamicSharedSizeBytes = 48 * 1024;
  attr->preferredShmemCarveout = -1;
  return cudaSuccess;
}
template <class T>
cudaError_t cudaFuncSetCacheConfig(T* func, cudaFuncCache config) {
  if (func == nullptr) return ::wb_emu::detail::record_error(cudaErrorInvalidDeviceFunction);
  const bool valid = config >= cudaFuncCachePreferNone && config <= cudaFuncCachePreferEqual;
  return valid ? cudaSuccess : ::wb_emu::detail::record_error(cudaErrorInvalidValue);
}
template <class T>
cudaError_t cudaFuncSetSharedMemConfig(T* func, cudaSharedMemConfig) {
  return func == nullptr ? ::wb_emu::detail::record_error(cudaErrorInvalidDeviceFunction) : cudaSuccess;
}
///@}
///@}
/// Every emulated multiprocessor can hold as many blocks as 2048 threads allow (CUDA's
/// register and shared-memory limits are not modelled).
template <class K>
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, K*, int block_size, std::size_t = 0) {
  if (blocks == nullptr || block_size <= 0 || block_size > 1024) return cudaErrorInvalidValue;
  *blocks = 2048 / block_size;
  return cudaSuccess;
}

/// The version of CUDA's runtime API this backend answers to (cudaRuntimeGetVersion says the same):
/// code that tests CUDART_VERSION takes the paths of CUDA 12.0.
#ifndef CUDART_VERSION
#define CUDART_VERSION 12000
#endif

// The include guards of CUDA's own runtime headers: helper headers test them to know that the
// runtime's types are declared (the CUDA samples' helper_cuda.h defines its error-name function
// under __DRIVER_TYPES_H__). __CUDACC__ stays undefined: it promises nvcc, whose device-only paths
// (inline PTX, __CUDA_ARCH__) do not exist here, and libraries choose their GPU code on it; a
// program that must know tests WB_EMU.
#define __CUDA_RUNTIME_H__
#define __CUDA_RUNTIME_API_H__
#define __DRIVER_TYPES_H__

#include <wb_emu/launch_kernel.hpp>
