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
  cudaErrorInvalidSymbol = 13,
  cudaErrorInvalidDevicePointer = 17,
  cudaErrorInvalidMemcpyDirection = 21,
  cudaErrorInsufficientDriver = 35,
  cudaErrorNoDevice = 100,
  cudaErrorInvalidDevice = 101,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorNotReady = 600,
  cudaErrorIllegalAddress = 700,
  cudaErrorLaunchOutOfResources = 701,
  cudaErrorLaunchTimeout = 702,
  cudaErrorAssert = 710,
  cudaErrorHardwareStackError = 714,
  cudaErrorIllegalInstruction = 715,
  cudaErrorMisalignedAddress = 716,
  cudaErrorLaunchFailure = 719,
  cudaErrorNotSupported = 801,
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
  cudaDevAttrMaxGridDimX = 5,
  cudaDevAttrMaxSharedMemoryPerBlock = 8,
  cudaDevAttrWarpSize = 10,
  cudaDevAttrMultiProcessorCount = 16,
  cudaDevAttrMemoryClockRate = 36,
  cudaDevAttrGlobalMemoryBusWidth = 37,
  cudaDevAttrL2CacheSize = 38,
  cudaDevAttrMaxThreadsPerMultiProcessor = 39,
  cudaDevAttrComputeCapabilityMajor = 75,
  cudaDevAttrComputeCapabilityMinor = 76,
};

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
cudaError_t cudaPeekAtLastError();
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
///@}
/// Every emulated multiprocessor can hold as many blocks as 2048 threads allow (CUDA's
/// register and shared-memory limits are not modelled).
template <class K>
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, K*, int block_size, std::size_t = 0) {
  if (blocks == nullptr || block_size <= 0 || block_size > 1024) return cudaErrorInvalidValue;
  *blocks = 2048 / block_size;
  return cudaSuccess;
}
