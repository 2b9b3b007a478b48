/// \file
/// \brief The CPU backend's CUDA runtime: the subset of the CUDA runtime API, the built-in
/// variables, the device functions and the launch machinery the chapters use, executed on the host.
///
/// Kernels are ordinary C++ functions here. The launch rewriter turns
/// `kernel<<<grid, block, shmem, stream>>>(args)` into `wb_emu::make_launch(...)(args)`,
/// which runs every thread of every block: blocks are spread over worker threads, and the
/// threads of one block run on that worker, with `threadIdx` & co. set for each.
///
/// How a block runs: its threads start one after another as plain calls, all on one fiber
/// stack (mmap'd, with a PROT_NONE guard page, pooled per worker and reused across blocks).
/// A thread that reaches `__syncthreads()` or a warp operation is suspended on its fiber and
/// the next thread starts on a fresh one, so a kernel without barriers costs one fiber switch
/// per block. `__syncthreads()` releases when every thread of the block has either arrived at
/// that barrier or exited (as on hardware and compute-sanitizer's synccheck, so
/// `if (i >= n) return; ... __syncthreads();` works); warp operations (`__shfl*_sync`,
/// `__ballot_sync`, `__any_sync`, `__all_sync`, `__syncwarp`) rendezvous the lanes their mask
/// names, warp size 32. Threads waiting at different barriers, a barrier some live thread
/// never reaches, or a mask naming a lane that has exited (or does not exist) is a kernel
/// fault: the diagnostic (kernel, launch site, block, each barrier's source line and which
/// threads are where) goes to stderr, the launch stops, and cudaErrorLaunchFailure is sticky,
/// as a GPU fault would be. Nothing hangs.
///
/// Shared memory: the rewriter turns `__shared__ T name[dims];` into a reference into a
/// per-block arena and `extern __shared__ T name[];` into the launch's dynamic region; both
/// are fresh for each block and filled with wb_emu::shared_poison_byte (0xFF: a float NaN, an
/// int -1), so a read before a write shows in the result.
/// Atomics (`atomicAdd` & co.) are real host atomics, correct across worker threads.
///
/// Launches complete before they return; errors follow CUDA's rules (configuration errors
/// from cudaGetLastError, faults sticky until cudaDeviceReset). last_fault_message() gives the
/// most recent fault's diagnostic (wb::CudaError appends it to cudaErrorLaunchFailure).
///
/// Instrumented builds (a kernel file built with INSTRUMENT: `wb-emu-rewrite --instrument`,
/// WB_EMU_INSTRUMENT=1; see wb_emu/instrument.hpp for how and what is not covered): every access
/// through the kernel's pointer parameters and its `__shared__` arrays is recorded with its
/// source line. Global accesses are counted as a GPU counts them (last_launch_memory_stats():
/// requests, 32-byte sectors and the ideal sector count, in total and per line); shared accesses
/// are checked for races: two threads touching the same 4-byte word between two consecutive
/// __syncthreads(), one writing, neither through an atomic, is a kernel fault naming both threads
/// and both lines (accesses ordered by a __syncwarp() of their warp do not race). Threads run one
/// after another between barriers here, so races are found from the records, not from timing.
/// Accesses out of bounds are kernel faults naming the access, its line and the block and thread:
/// an index of a `__shared__` array past its extent, an `extern __shared__` index past the bytes
/// the launch gave, a shared pointer in no array, a global access outside every allocation.
/// Files not built instrumented run exactly as before, at the same speed.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

// ---- CUDA's qualifiers, on the host ----
/// \name CUDA's qualifiers
///@{

/// Empty on the host, like the other qualifiers: a kernel is an ordinary function and a
/// `__shared__` variable an ordinary one (the launch rewriter gives each block its own storage).
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
///@}

/// Marks a build for the CPU backend (never defined when nvcc compiles for a GPU).
#define WB_EMU 1

// ---- built-in vector types ----
/// CUDA's uint3: the type of `threadIdx` and `blockIdx`.
struct uint3 {
  ///@{
  /// A component.
  unsigned int x, y, z;
  ///@}
};
/// CUDA's dim3: a grid or block shape; components not given are 1.
struct dim3 {
  ///@{
  /// The extent along one axis.
  unsigned int x = 1, y = 1, z = 1;
  ///@}
  /// A shape of vx × vy × vz.
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
  /// The shape uint3's components give.
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  /// The components as a uint3.
  constexpr operator uint3() const { return uint3{x, y, z}; }
};
/// CUDA's float2, aligned to 8 bytes as on the GPU.
struct alignas(8) float2 {
  ///@{
  /// A component.
  float x, y;
  ///@}
};
/// CUDA's float4, aligned to 16 bytes as on the GPU (one 16-byte load or store there).
struct alignas(16) float4 {
  ///@{
  /// A component.
  float x, y, z, w;
  ///@}
};
/// CUDA's double2, aligned to 16 bytes.
struct alignas(16) double2 {
  ///@{
  /// A component.
  double x, y;
  ///@}
};
/// CUDA's int2, aligned to 8 bytes.
struct alignas(8) int2 {
  ///@{
  /// A component.
  int x, y;
  ///@}
};
/// CUDA's int4, aligned to 16 bytes.
struct alignas(16) int4 {
  ///@{
  /// A component.
  int x, y, z, w;
  ///@}
};
/// \name Vector constructors
///@{

/// A vector from its components, as CUDA's make_ functions build it.
inline float2 make_float2(float x, float y) { return {x, y}; }
inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
inline dim3 make_dim3(unsigned x, unsigned y, unsigned z) { return {x, y, z}; }
///@}

// ---- built-in variables: set by the executor for the thread that runs ----
/// \name Built-in variables
///@{

/// A built-in variable, thread-local: the executor sets it for each thread of a block before
/// running or resuming it.
inline thread_local uint3 threadIdx{0, 0, 0};
inline thread_local uint3 blockIdx{0, 0, 0};
inline thread_local dim3 blockDim{1, 1, 1};
inline thread_local dim3 gridDim{1, 1, 1};
inline constexpr int warpSize = 32;
///@}

// ---- runtime types, numbered as CUDA numbers them ----
/// CUDA's error codes (the ones the CPU backend can return), with CUDA's numbers.
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

// ---- runtime API (emu/src/runtime.cpp) ----
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

// ---- launch machinery ----
namespace wb_emu {

/// Where a launch comes from, for messages.
struct LaunchSite {
  const char* kernel;          ///< the kernel's name as written at the launch
  const char* file;            ///< the source file of the launch (the learner's .cu file)
  int line;                    ///< the line of the launch
  bool instrumented = false;   ///< the kernel's file was built with WB_EMU_INSTRUMENT
};

/// Runs `body` once for every thread of the grid (blocks across worker threads), after
/// checking the configuration as CUDA does. Errors are recorded for cudaGetLastError and
/// cudaDeviceSynchronize; nothing is thrown.
void launch(dim3 grid, dim3 block, std::size_t shared_bytes, cudaStream_t stream, const LaunchSite& site,
            void (*body)(void*), void* ctx);

/// Storage of the `extern __shared__` array of the running block (`shmem` bytes of the launch).
void* dynamic_shared_base();
/// The running block's `extern __shared__` array as T* (what the rewriter puts in its place).
template <class T>
T* dynamic_shared() {
  return static_cast<T*>(dynamic_shared_base());
}

/// One rewritten launch, `kernel<<<grid, block, shmem, stream>>>`, waiting for its arguments:
/// calling it runs the kernel over the whole grid with them (see launch()).
template <class Kernel>
class Launch {
 public:
  /// Records the kernel, where it is launched from and the launch configuration.
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

/// What the launch rewriter turns `kernel<<<grid, block, shmem, stream>>>` into; calling the
/// result with the kernel's arguments runs it.
template <class Kernel>
Launch<Kernel> make_launch(Kernel* kernel, const char* name, const char* file, int line, dim3 grid, dim3 block,
                           std::size_t shared_bytes = 0, cudaStream_t stream = nullptr) {
  return Launch<Kernel>(kernel, LaunchSite{name, file, line}, grid, block, shared_bytes, stream);
}

/// As make_launch, for a file built instrumented (the rewriter's --instrument mode emits it).
template <class Kernel>
Launch<Kernel> make_instrumented_launch(Kernel* kernel, const char* name, const char* file, int line, dim3 grid,
                                        dim3 block, std::size_t shared_bytes = 0, cudaStream_t stream = nullptr) {
  return Launch<Kernel>(kernel, LaunchSite{name, file, line, true}, grid, block, shared_bytes, stream);
}

/// Number of worker threads blocks are spread over (WB_EMU_THREADS, else the core count).
int worker_count();

// ---- what instrumented builds measure (see emu/include/wb_emu/instrument.hpp) ----

/// Global-memory traffic, counted as a GPU's load/store units count it: a request is one warp's
/// access at one instruction (the lanes that make their k-th access of that direction at that
/// source line), its sectors the distinct 32-byte segments those lanes touch, and its ideal the
/// fewest sectors their bytes could fill: ceil(lanes x bytes / 32).
struct AccessStats {
  std::uint64_t requests = 0;       ///< warp requests
  std::uint64_t sectors = 0;        ///< 32-byte sectors they touched
  std::uint64_t ideal_sectors = 0;  ///< the fewest sectors their bytes could have filled
};
/// One source line's loads or stores.
struct LineStats {
  std::string file;     ///< the kernel's source file
  int line = 0;         ///< its line; 0 for an access through `*p`, whose line is not known
  bool store = false;   ///< stores (true) or loads (false)
  int bytes = 0;        ///< bytes per lane of the line's first access
  AccessStats stats;    ///< the line's requests and sectors
};
/// What an instrumented launch did to global memory.
struct MemoryStats {
  bool instrumented = false;     ///< false when the kernel's file was not built instrumented
  AccessStats loads;             ///< global-memory loads, summed over the launch
  AccessStats stores;            ///< global-memory stores, summed over the launch
  std::vector<LineStats> lines;  ///< per source line and direction, most sectors first
};
/// The memory statistics of the most recent launch (not instrumented: `instrumented` is false).
MemoryStats last_launch_memory_stats();
/// The text of the most recent kernel fault, as printed to stderr ("" if none): different
/// barriers, a bad warp-operation mask, a shared-memory race (instrumented builds)...
std::string last_fault_message();

}  // namespace wb_emu

// ---- shared memory, barriers, warp operations (emu/src/runtime.cpp) ----
namespace wb_emu {
/// The byte shared memory holds at the start of every block: 0xFFFFFFFF is a float NaN and an
/// int -1, so a value read before any thread wrote it spreads into the result.
inline constexpr unsigned char shared_poison_byte = 0xFF;
namespace detail {
/// Counts blocks started on this worker: static shared storage is re-carved when it changes.
inline thread_local std::uint64_t block_generation = 0;
/// `bytes` of the running block's shared arena, aligned to `align`, filled with shared_poison_byte.
void* shared_alloc(std::size_t bytes, std::size_t align, const char* what, const char* name = nullptr);

enum class WarpKind : int { syncwarp, shfl, shfl_up, shfl_down, shfl_xor, ballot, any, all, reduce_add, reduce_min, reduce_max };
/// One lane's part in a warp operation: waits until every lane `mask` names has arrived,
/// then returns this lane's result (the raw bits of the shuffled value, or the vote).
std::uint64_t warp_op(WarpKind kind, unsigned mask, std::uint64_t value, int arg, int width, const char* file, int line);
unsigned active_mask();
/// Waits at the block barrier at file:line; returns how many arriving threads passed a nonzero `pred`.
int barrier(const char* file, int line, int pred);

template <class T>
std::uint64_t to_bits(T v) {
  static_assert(std::is_trivially_copyable<T>::value && sizeof(T) <= 8, "warp shuffles move values of at most 8 bytes");
  std::uint64_t b = 0;
  std::memcpy(&b, &v, sizeof v);
  return b;
}
template <class T>
T from_bits(std::uint64_t b) {
  T v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}
}  // namespace detail

/// The storage of one `__shared__` declaration (the rewriter passes a lambda: its type is
/// the declaration's key) for the running block: fresh and poisoned in every block.
template <class A, class Key>
A& static_shared(Key) {
  thread_local std::uint64_t generation = 0;
  thread_local void* storage = nullptr;
  if (generation != detail::block_generation || storage == nullptr) {
    storage = detail::shared_alloc(sizeof(A), alignof(A) < 16 ? 16 : alignof(A), "__shared__");
    generation = detail::block_generation;
  }
  return *static_cast<A*>(storage);
}
/// As above, naming the variable for the race check's messages (instrumented builds).
template <class A, class Key>
A& static_shared(Key, const char* name) {
  thread_local std::uint64_t generation = 0;
  thread_local void* storage = nullptr;
  if (generation != detail::block_generation || storage == nullptr) {
    storage = detail::shared_alloc(sizeof(A), alignof(A) < 16 ? 16 : alignof(A), "__shared__", name);
    generation = detail::block_generation;
  }
  return *static_cast<A*>(storage);
}
}  // namespace wb_emu

/// Waits until every thread of the block has reached this barrier or exited.
inline void __syncthreads(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  ::wb_emu::detail::barrier(file, line, 0);
}
/// __syncthreads() that also returns how many threads of the block passed a nonzero `pred`.
inline int __syncthreads_count(int pred, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  return ::wb_emu::detail::barrier(file, line, pred);
}
/// Waits until every lane `mask` names has reached a __syncwarp; a named lane that has exited
/// is a kernel fault.
inline void __syncwarp(unsigned mask = 0xffffffffu, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  ::wb_emu::detail::warp_op(::wb_emu::detail::WarpKind::syncwarp, mask, 0, 0, 32, file, line);
}
/// The lanes of the calling thread's warp that have not exited.
inline unsigned __activemask() { return ::wb_emu::detail::active_mask(); }

/// Defines one of `__shfl_sync`, `__shfl_up_sync`, `__shfl_down_sync` and `__shfl_xor_sync`,
/// with CUDA's signatures (a value of at most 8 bytes, a lane or offset, a width): the lanes
/// `mask` names rendezvous, then each takes the value of its source lane.
#define WB_EMU_SHFL(name, kind, argtype)                                                                      \
  template <class T>                                                                                          \
  T name(unsigned mask, T var, argtype arg, int width = 32, const char* file = __builtin_FILE(),               \
         int line = __builtin_LINE()) {                                                                       \
    return ::wb_emu::detail::from_bits<T>(::wb_emu::detail::warp_op(::wb_emu::detail::WarpKind::kind, mask,   \
                                                                     ::wb_emu::detail::to_bits(var),          \
                                                                     static_cast<int>(arg), width, file, line)); \
  }
WB_EMU_SHFL(__shfl_sync, shfl, int)
WB_EMU_SHFL(__shfl_up_sync, shfl_up, unsigned)
WB_EMU_SHFL(__shfl_down_sync, shfl_down, unsigned)
WB_EMU_SHFL(__shfl_xor_sync, shfl_xor, int)
#undef WB_EMU_SHFL

/// \name Warp votes and reductions
///@{

/// As in CUDA: the lanes `mask` names rendezvous, then each gets the vote (ballot, any, all)
/// or the reduction (add, min, max) over them. A named lane that has exited is a kernel fault.
inline unsigned __ballot_sync(unsigned mask, int pred, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  return static_cast<unsigned>(
      ::wb_emu::detail::warp_op(::wb_emu::detail::WarpKind::ballot, mask, pred != 0, 0, 32, file, line));
}
inline int __any_sync(unsigned mask, int pred, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  return static_cast<int>(::wb_emu::detail::warp_op(::wb_emu::detail::WarpKind::any, mask, pred != 0, 0, 32, file, line));
}
inline int __all_sync(unsigned mask, int pred, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  return static_cast<int>(::wb_emu::detail::warp_op(::wb_emu::detail::WarpKind::all, mask, pred != 0, 0, 32, file, line));
}
inline unsigned __reduce_add_sync(unsigned mask, unsigned v, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  return static_cast<unsigned>(::wb_emu::detail::warp_op(::wb_emu::detail::WarpKind::reduce_add, mask, v, 0, 32, file, line));
}
inline unsigned __reduce_min_sync(unsigned mask, unsigned v, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  return static_cast<unsigned>(::wb_emu::detail::warp_op(::wb_emu::detail::WarpKind::reduce_min, mask, v, 0, 32, file, line));
}
inline unsigned __reduce_max_sync(unsigned mask, unsigned v, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  return static_cast<unsigned>(::wb_emu::detail::warp_op(::wb_emu::detail::WarpKind::reduce_max, mask, v, 0, 32, file, line));
}
///@}

// ---- atomics: host atomics on the raw memory, correct across worker threads ----
namespace wb_emu {
namespace detail {
template <class T, class F>
T atomic_update(T* address, F f) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "atomics on 4- and 8-byte values");
  using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
  Bits* raw = reinterpret_cast<Bits*>(address);
  Bits old_bits = __atomic_load_n(raw, __ATOMIC_RELAXED);
  for (;;) {
    T old_value;
    std::memcpy(&old_value, &old_bits, sizeof old_value);
    T new_value = f(old_value);
    Bits new_bits;
    std::memcpy(&new_bits, &new_value, sizeof new_bits);
    if (__atomic_compare_exchange_n(raw, &old_bits, new_bits, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
      return old_value;
  }
}
}  // namespace detail
}  // namespace wb_emu

/// Defines CUDA's integer atomics for T (atomicAdd, atomicSub, atomicAnd, atomicOr, atomicXor,
/// atomicExch, atomicMax, atomicMin, atomicCAS) as sequentially consistent host atomics; it is
/// used for int, unsigned int, long long and unsigned long long.
#define WB_EMU_INT_ATOMICS(T)                                                                                  \
  inline T atomicAdd(T* a, T v) { return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST); }                        \
  inline T atomicSub(T* a, T v) { return __atomic_fetch_sub(a, v, __ATOMIC_SEQ_CST); }                        \
  inline T atomicAnd(T* a, T v) { return __atomic_fetch_and(a, v, __ATOMIC_SEQ_CST); }                        \
  inline T atomicOr(T* a, T v) { return __atomic_fetch_or(a, v, __ATOMIC_SEQ_CST); }                          \
  inline T atomicXor(T* a, T v) { return __atomic_fetch_xor(a, v, __ATOMIC_SEQ_CST); }                        \
  inline T atomicExch(T* a, T v) { return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST); }                      \
  inline T atomicMax(T* a, T v) {                                                                             \
    return ::wb_emu::detail::atomic_update(a, [v](T o) { return o < v ? v : o; });                            \
  }                                                                                                           \
  inline T atomicMin(T* a, T v) {                                                                             \
    return ::wb_emu::detail::atomic_update(a, [v](T o) { return v < o ? v : o; });                            \
  }                                                                                                           \
  inline T atomicCAS(T* a, T compare, T v) {                                                                  \
    __atomic_compare_exchange_n(a, &compare, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);                    \
    return compare;                                                                                           \
  }
WB_EMU_INT_ATOMICS(int)
WB_EMU_INT_ATOMICS(unsigned int)
WB_EMU_INT_ATOMICS(unsigned long long)
WB_EMU_INT_ATOMICS(long long)
#undef WB_EMU_INT_ATOMICS
/// \name Floating-point atomics
///@{

/// As in CUDA: a compare-and-swap loop on the value's bits, correct across worker threads;
/// returns the old value.
inline float atomicAdd(float* a, float v) { return ::wb_emu::detail::atomic_update(a, [v](float o) { return o + v; }); }
inline double atomicAdd(double* a, double v) { return ::wb_emu::detail::atomic_update(a, [v](double o) { return o + v; }); }
inline float atomicSub(float* a, float v) { return ::wb_emu::detail::atomic_update(a, [v](float o) { return o - v; }); }
inline float atomicExch(float* a, float v) { return ::wb_emu::detail::atomic_update(a, [v](float) { return v; }); }
inline float atomicMax(float* a, float v) { return ::wb_emu::detail::atomic_update(a, [v](float o) { return o < v ? v : o; }); }
inline float atomicMin(float* a, float v) { return ::wb_emu::detail::atomic_update(a, [v](float o) { return v < o ? v : o; }); }
///@}
/// \name Wrapping increment and decrement
///@{

/// As CUDA defines them: atomicInc counts up and wraps to 0 once the old value reaches `limit`;
/// atomicDec counts down and wraps to `limit` from 0 (or from above `limit`).
inline unsigned atomicInc(unsigned* a, unsigned limit) {
  return ::wb_emu::detail::atomic_update(a, [limit](unsigned o) { return o >= limit ? 0u : o + 1; });
}
inline unsigned atomicDec(unsigned* a, unsigned limit) {
  return ::wb_emu::detail::atomic_update(a, [limit](unsigned o) { return (o == 0 || o > limit) ? limit : o - 1; });
}
///@}
/// \name Memory fences
///@{

/// A sequentially consistent fence: stronger than CUDA requires (see the memory model's limits).
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
///@}

// ---- common device intrinsics (glibc's <cmath> already has __expf, __logf, __sinf, __cosf, __powf) ----
/// \name Device intrinsics
///@{

/// CUDA's intrinsic of the same name, computed with the host's arithmetic (__ldg and the
/// cache-hinted loads and stores are plain accesses; fast-math variants are exact).
template <class T>
inline T __ldg(const T* p) { return *p; }
template <class T>
inline T __ldcs(const T* p) { return *p; }
template <class T>
inline T __ldcg(const T* p) { return *p; }
template <class T>
inline T __ldlu(const T* p) { return *p; }
template <class T>
inline void __stcs(T* p, T v) { *p = v; }
template <class T>
inline void __stcg(T* p, T v) { *p = v; }
template <class T>
inline void __stwt(T* p, T v) { *p = v; }
inline float __fdividef(float a, float b) { return a / b; }
inline float rsqrtf(float x) { return 1.0f / __builtin_sqrtf(x); }
inline double rsqrt(double x) { return 1.0 / __builtin_sqrt(x); }
inline float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }
inline float __fmaf_rn(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
inline int __float2int_rn(float x) { return static_cast<int>(__builtin_nearbyintf(x)); }
inline int __float2int_rz(float x) { return static_cast<int>(x); }
inline float __int2float_rn(int x) { return static_cast<float>(x); }
inline int __float_as_int(float x) { int i; std::memcpy(&i, &x, 4); return i; }
inline float __int_as_float(int i) { float x; std::memcpy(&x, &i, 4); return x; }
inline unsigned __float_as_uint(float x) { unsigned i; std::memcpy(&i, &x, 4); return i; }
inline float __uint_as_float(unsigned i) { float x; std::memcpy(&x, &i, 4); return x; }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(static_cast<unsigned>(x)); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline unsigned __brev(unsigned x) {
  unsigned r = 0;
  for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
  return r;
}
///@}
/// \name min and max
///@{

/// CUDA's device min and max overloads.
inline int min(int a, int b) { return a < b ? a : b; }
inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
inline long long min(long long a, long long b) { return a < b ? a : b; }
inline unsigned long long min(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
inline float min(float a, float b) { return __builtin_fminf(a, b); }
inline double min(double a, double b) { return __builtin_fmin(a, b); }
inline int max(int a, int b) { return a > b ? a : b; }
inline unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
inline long long max(long long a, long long b) { return a > b ? a : b; }
inline unsigned long long max(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
inline float max(float a, float b) { return __builtin_fmaxf(a, b); }
inline double max(double a, double b) { return __builtin_fmax(a, b); }
///@}
