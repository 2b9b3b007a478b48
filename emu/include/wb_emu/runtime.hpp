/// \file
/// \brief The CPU backend's CUDA runtime: the subset of the CUDA runtime API, the built-in
/// variables and the launch machinery the chapters use, executed on the host.
///
/// Kernels are ordinary C++ functions here. The launch rewriter turns
/// `kernel<<<grid, block, shmem, stream>>>(args)` into `wb_emu::make_launch(...)(args)`,
/// which runs every thread of every block: blocks are spread over worker threads, and the
/// threads of one block run one after another on that worker (plain calls), with
/// `threadIdx` & co. set for each. Launches complete before they return; errors follow CUDA's
/// rules (configuration errors from cudaGetLastError, faults sticky until the process ends).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <tuple>
#include <type_traits>
#include <utility>

// ---- CUDA's qualifiers, on the host ----
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __constant__
#define __managed__
#define __shared__
#define __launch_bounds__(...)
#ifndef __restrict__
#define __restrict__ __restrict
#endif

/// Marks a build for the CPU backend (never defined when nvcc compiles for a GPU).
#define WB_EMU 1

// ---- built-in vector types ----
struct uint3 {
  unsigned int x, y, z;
};
struct dim3 {
  unsigned int x = 1, y = 1, z = 1;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return uint3{x, y, z}; }
};
struct alignas(8) float2 { float x, y; };
struct alignas(16) float4 { float x, y, z, w; };
struct alignas(16) double2 { double x, y; };
struct alignas(8) int2 { int x, y; };
struct alignas(16) int4 { int x, y, z, w; };
inline float2 make_float2(float x, float y) { return {x, y}; }
inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
inline dim3 make_dim3(unsigned x, unsigned y, unsigned z) { return {x, y, z}; }

// ---- built-in variables: set by the executor for the thread that runs ----
inline thread_local uint3 threadIdx{0, 0, 0};
inline thread_local uint3 blockIdx{0, 0, 0};
inline thread_local dim3 blockDim{1, 1, 1};
inline thread_local dim3 gridDim{1, 1, 1};
inline constexpr int warpSize = 32;

// ---- runtime types, numbered as CUDA numbers them ----
enum cudaError_t : int {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInitializationError = 3,
  cudaErrorInvalidConfiguration = 9,
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
using cudaError = cudaError_t;

enum cudaMemcpyKind : int {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};

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

struct cudaDeviceProp {
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
};

struct CUstream_st;
struct CUevent_st;
using cudaStream_t = CUstream_st*;
using cudaEvent_t = CUevent_st*;

// ---- runtime API (emu/src/runtime.cpp) ----
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

template <class T>
cudaError_t cudaMalloc(T** ptr, std::size_t bytes) {
  return cudaMalloc(reinterpret_cast<void**>(ptr), bytes);
}
template <class T>
cudaError_t cudaMallocHost(T** ptr, std::size_t bytes) {
  return cudaMallocHost(reinterpret_cast<void**>(ptr), bytes);
}
/// Every emulated multiprocessor can hold as many blocks as 2048 threads allow (CUDA's
/// register and shared-memory limits are not modelled).
template <class K>
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, K*, int block_size, std::size_t = 0) {
  if (blocks == nullptr || block_size <= 0 || block_size > 1024) return cudaErrorInvalidValue;
  *blocks = 2048 / block_size;
  return cudaSuccess;
}

// ---- launch machinery ----
namespace wb_emu {

/// Where a launch comes from, for messages.
struct LaunchSite {
  const char* kernel;
  const char* file;
  int line;
};

/// Runs `body` once for every thread of the grid (blocks across worker threads), after
/// checking the configuration as CUDA does. Errors are recorded for cudaGetLastError and
/// cudaDeviceSynchronize; nothing is thrown.
void launch(dim3 grid, dim3 block, std::size_t shared_bytes, cudaStream_t stream, const LaunchSite& site,
            void (*body)(void*), void* ctx);

/// Storage of the `extern __shared__` array of the running block (`shmem` bytes of the launch).
void* dynamic_shared_base();
template <class T>
T* dynamic_shared() {
  return static_cast<T*>(dynamic_shared_base());
}

template <class Kernel>
class Launch {
 public:
  Launch(Kernel* kernel, LaunchSite site, dim3 grid, dim3 block, std::size_t shared_bytes, cudaStream_t stream)
      : kernel_(kernel), site_(site), grid_(grid), block_(block), shared_(shared_bytes), stream_(stream) {}

  /// Arguments are copied once, as CUDA copies them into the kernel's parameter space, then
  /// converted to the kernel's parameter types at each call.
  template <class... Args>
  void operator()(Args&&... args) const {
    using Params = std::tuple<std::decay_t<Args>...>;
    Params params(std::forward<Args>(args)...);
    struct Ctx {
      Kernel* kernel;
      Params* params;
    } ctx{kernel_, &params};
    launch(grid_, block_, shared_, stream_, site_,
           [](void* p) {
             auto* c = static_cast<Ctx*>(p);
             std::apply(*c->kernel, *c->params);
           },
           &ctx);
  }

 private:
  Kernel* kernel_;
  LaunchSite site_;
  dim3 grid_, block_;
  std::size_t shared_;
  cudaStream_t stream_;
};

template <class Kernel>
Launch<Kernel> make_launch(Kernel* kernel, const char* name, const char* file, int line, dim3 grid, dim3 block,
                           std::size_t shared_bytes = 0, cudaStream_t stream = nullptr) {
  return Launch<Kernel>(kernel, LaunchSite{name, file, line}, grid, block, shared_bytes, stream);
}

/// Number of worker threads blocks are spread over (WB_EMU_THREADS, else the core count).
int worker_count();

}  // namespace wb_emu
