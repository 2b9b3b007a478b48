// CPU backend: the runtime calls and the block executor behind emu/include/wb_emu/runtime.hpp.
#include <wb_emu/runtime.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <mutex>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

namespace wb_emu {
namespace {

// ---- errors: configuration errors are returned once, faults stay (as on a GPU) ----
std::mutex error_mutex;
cudaError_t last_error = cudaSuccess;
cudaError_t sticky_error = cudaSuccess;

cudaError_t record(cudaError_t e) {
  if (e != cudaSuccess) {
    std::lock_guard<std::mutex> lock(error_mutex);
    last_error = e;
  }
  return e;
}

cudaError_t sticky() {
  std::lock_guard<std::mutex> lock(error_mutex);
  return sticky_error;
}

// ---- emulated device memory: host allocations, tracked so that misuse is reported ----
std::mutex alloc_mutex;
std::map<std::uintptr_t, std::size_t> allocations;  // base -> bytes

bool in_allocation(const void* p, std::size_t bytes) {
  auto a = reinterpret_cast<std::uintptr_t>(p);
  std::lock_guard<std::mutex> lock(alloc_mutex);
  auto it = allocations.upper_bound(a);
  if (it == allocations.begin()) return false;
  --it;
  return a >= it->first && a + bytes <= it->first + it->second;
}

// ---- the executor ----
thread_local unsigned char* tls_dynamic_shared = nullptr;

class Pool {
 public:
  explicit Pool(int n) {
    for (int i = 0; i < n; ++i) workers_.emplace_back([this] { loop(); });
  }
  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(m_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : workers_) t.join();
  }
  int size() const { return static_cast<int>(workers_.size()); }

  /// Runs job(worker) on every worker and waits for all of them.
  void run_on_all(const std::function<void()>& job) {
    std::unique_lock<std::mutex> lock(m_);
    job_ = &job;
    pending_ = size();
    ++generation_;
    cv_.notify_all();
    done_cv_.wait(lock, [this] { return pending_ == 0; });
    job_ = nullptr;
  }

 private:
  void loop() {
    std::uint64_t seen = 0;
    for (;;) {
      const std::function<void()>* job;
      {
        std::unique_lock<std::mutex> lock(m_);
        cv_.wait(lock, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
        job = job_;
      }
      (*job)();
      {
        std::lock_guard<std::mutex> lock(m_);
        if (--pending_ == 0) done_cv_.notify_all();
      }
    }
  }
  std::vector<std::thread> workers_;
  std::mutex m_;
  std::condition_variable cv_, done_cv_;
  const std::function<void()>* job_ = nullptr;
  int pending_ = 0;
  std::uint64_t generation_ = 0;
  bool stop_ = false;
};

Pool& pool() {
  static Pool p(worker_count());
  return p;
}

// Runs all threads of blocks [first, last) of the launch on the calling thread.
struct Grid {
  dim3 grid, block;
  std::size_t shared_bytes;
  void (*body)(void*);
  void* ctx;
};

void run_block(const Grid& g, std::uint64_t linear, std::vector<unsigned char>& shared) {
  const std::uint64_t gx = g.grid.x, gy = g.grid.y;
  blockIdx = uint3{static_cast<unsigned>(linear % gx), static_cast<unsigned>((linear / gx) % gy),
                   static_cast<unsigned>(linear / (gx * gy))};
  if (g.shared_bytes) {
    // Fresh for every block, and not zero: a read before any write shows up as garbage.
    std::fill(shared.begin(), shared.end(), static_cast<unsigned char>(0xA5));
    tls_dynamic_shared = shared.data();
  }
  for (unsigned z = 0; z < g.block.z; ++z)
    for (unsigned y = 0; y < g.block.y; ++y)
      for (unsigned x = 0; x < g.block.x; ++x) {
        threadIdx = uint3{x, y, z};
        g.body(g.ctx);
      }
}

const char* config_problem(dim3 grid, dim3 block, std::size_t shared_bytes) {
  if (block.x == 0 || block.y == 0 || block.z == 0) return "a block dimension is 0";
  if (grid.x == 0 || grid.y == 0 || grid.z == 0) return "a grid dimension is 0 (no blocks to run)";
  if (block.x > 1024 || block.y > 1024 || block.z > 64) return "a block dimension is over its limit (1024, 1024, 64)";
  if (std::uint64_t(block.x) * block.y * block.z > 1024) return "more than 1024 threads per block";
  if (grid.x > 2147483647u || grid.y > 65535u || grid.z > 65535u)
    return "a grid dimension is over its limit (2^31-1, 65535, 65535)";
  if (shared_bytes > 48 * 1024) return "more than 48 KiB of dynamic shared memory per block";
  return nullptr;
}

}  // namespace

int worker_count() {
  static const int n = [] {
    if (const char* env = std::getenv("WB_EMU_THREADS")) {
      int v = std::atoi(env);
      if (v > 0) return v;
    }
    unsigned hc = std::thread::hardware_concurrency();
    return hc ? static_cast<int>(hc) : 1;
  }();
  return n;
}

void* dynamic_shared_base() { return tls_dynamic_shared; }

void launch(dim3 grid, dim3 block, std::size_t shared_bytes, cudaStream_t, const LaunchSite& site,
            void (*body)(void*), void* ctx) {
  if (sticky() != cudaSuccess) {
    record(sticky());
    return;
  }
  if (const char* why = config_problem(grid, block, shared_bytes)) {
    if (std::getenv("WB_EMU_VERBOSE"))
      std::fprintf(stderr, "%s:%d: launch of %s rejected: %s (grid %u,%u,%u block %u,%u,%u)\n", site.file, site.line,
                   site.kernel, why, grid.x, grid.y, grid.z, block.x, block.y, block.z);
    record(cudaErrorInvalidConfiguration);
    return;
  }
  const Grid g{grid, block, shared_bytes, body, ctx};
  const std::uint64_t blocks = std::uint64_t(grid.x) * grid.y * grid.z;
  auto work = [&g, blocks](std::atomic<std::uint64_t>* next) {
    std::vector<unsigned char> shared(g.shared_bytes);
    gridDim = g.grid;
    blockDim = g.block;
    for (std::uint64_t b; (b = next->fetch_add(1, std::memory_order_relaxed)) < blocks;) run_block(g, b, shared);
    tls_dynamic_shared = nullptr;
  };
  std::atomic<std::uint64_t> next{0};
  if (blocks == 1 || worker_count() == 1) {
    work(&next);
  } else {
    static std::mutex launch_mutex;  // one grid at a time, as on a single stream
    std::lock_guard<std::mutex> lock(launch_mutex);
    pool().run_on_all([&] { work(&next); });
  }
}

}  // namespace wb_emu

using namespace wb_emu;

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

// ---- memory ----
cudaError_t cudaMalloc(void** ptr, std::size_t bytes) {
  if (!ptr) return record(cudaErrorInvalidValue);
  *ptr = nullptr;
  if (bytes == 0) return cudaSuccess;
  void* p = ::operator new(bytes, std::align_val_t(256), std::nothrow);
  if (!p) return record(cudaErrorMemoryAllocation);
  {
    std::lock_guard<std::mutex> lock(alloc_mutex);
    allocations[reinterpret_cast<std::uintptr_t>(p)] = bytes;
  }
  *ptr = p;
  return cudaSuccess;
}

cudaError_t cudaFree(void* ptr) {
  if (!ptr) return cudaSuccess;
  {
    std::lock_guard<std::mutex> lock(alloc_mutex);
    auto it = allocations.find(reinterpret_cast<std::uintptr_t>(ptr));
    if (it == allocations.end()) return record(cudaErrorInvalidValue);
    allocations.erase(it);
  }
  ::operator delete(ptr, std::align_val_t(256));
  return cudaSuccess;
}

cudaError_t cudaMallocHost(void** ptr, std::size_t bytes) {
  if (!ptr) return record(cudaErrorInvalidValue);
  *ptr = bytes ? std::malloc(bytes) : nullptr;
  return (bytes && !*ptr) ? record(cudaErrorMemoryAllocation) : cudaSuccess;
}
cudaError_t cudaFreeHost(void* ptr) {
  std::free(ptr);
  return cudaSuccess;
}

cudaError_t cudaMemcpy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind) {
  if (cudaError_t e = sticky()) return record(e);
  if (bytes == 0) return cudaSuccess;
  if (!dst || !src) return record(cudaErrorInvalidValue);
  bool dst_dev = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  bool src_dev = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault) return record(cudaErrorInvalidMemcpyDirection);
  if ((dst_dev && !in_allocation(dst, bytes)) || (src_dev && !in_allocation(src, bytes)))
    return record(cudaErrorInvalidValue);
  std::memmove(dst, src, bytes);
  return cudaSuccess;
}
cudaError_t cudaMemcpyAsync(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind, cudaStream_t) {
  return cudaMemcpy(dst, src, bytes, kind);
}
cudaError_t cudaMemset(void* dst, int value, std::size_t bytes) {
  if (cudaError_t e = sticky()) return record(e);
  if (bytes == 0) return cudaSuccess;
  if (!in_allocation(dst, bytes)) return record(cudaErrorInvalidValue);
  std::memset(dst, value, bytes);
  return cudaSuccess;
}
cudaError_t cudaMemsetAsync(void* dst, int value, std::size_t bytes, cudaStream_t) {
  return cudaMemset(dst, value, bytes);
}
cudaError_t cudaMemGetInfo(std::size_t* free_bytes, std::size_t* total_bytes) {
  if (!free_bytes || !total_bytes) return record(cudaErrorInvalidValue);
  long pages = sysconf(_SC_AVPHYS_PAGES), all = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  *free_bytes = std::size_t(pages) * std::size_t(page);
  *total_bytes = std::size_t(all) * std::size_t(page);
  return cudaSuccess;
}

// ---- synchronisation: launches finish before they return, so these only report errors ----
cudaError_t cudaDeviceSynchronize() { return sticky() ? record(sticky()) : cudaSuccess; }
cudaError_t cudaDeviceReset() {
  std::lock_guard<std::mutex> lock(error_mutex);
  last_error = sticky_error = cudaSuccess;
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

// ---- error reporting ----
cudaError_t cudaGetLastError() {
  std::lock_guard<std::mutex> lock(error_mutex);
  cudaError_t e = last_error;
  last_error = sticky_error;
  return e;
}
cudaError_t cudaPeekAtLastError() {
  std::lock_guard<std::mutex> lock(error_mutex);
  return last_error;
}

const char* cudaGetErrorName(cudaError_t e) {
  switch (e) {
#define WB_NAME(x) case x: return #x;
    WB_NAME(cudaSuccess) WB_NAME(cudaErrorInvalidValue) WB_NAME(cudaErrorMemoryAllocation)
    WB_NAME(cudaErrorInitializationError) WB_NAME(cudaErrorInvalidConfiguration)
    WB_NAME(cudaErrorInvalidDevicePointer) WB_NAME(cudaErrorInvalidMemcpyDirection)
    WB_NAME(cudaErrorInsufficientDriver) WB_NAME(cudaErrorNoDevice) WB_NAME(cudaErrorInvalidDevice)
    WB_NAME(cudaErrorInvalidResourceHandle) WB_NAME(cudaErrorNotReady) WB_NAME(cudaErrorIllegalAddress)
    WB_NAME(cudaErrorLaunchOutOfResources) WB_NAME(cudaErrorLaunchTimeout) WB_NAME(cudaErrorAssert) WB_NAME(cudaErrorHardwareStackError) WB_NAME(cudaErrorIllegalInstruction) WB_NAME(cudaErrorMisalignedAddress)
    WB_NAME(cudaErrorLaunchFailure) WB_NAME(cudaErrorNotSupported) WB_NAME(cudaErrorUnknown)
#undef WB_NAME
  }
  return "cudaErrorUnknown";
}

const char* cudaGetErrorString(cudaError_t e) {
  switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInitializationError: return "initialization error";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidDevicePointer: return "invalid device pointer";
    case cudaErrorInvalidMemcpyDirection: return "invalid copy direction for memcpy";
    case cudaErrorInsufficientDriver: return "CUDA driver version is insufficient for CUDA runtime version";
    case cudaErrorNoDevice: return "no CUDA-capable device is detected";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorNotReady: return "device not ready";
    case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
    case cudaErrorLaunchOutOfResources: return "too many resources requested for launch";
    case cudaErrorLaunchTimeout: return "the launch timed out and was terminated";
    case cudaErrorAssert: return "device-side assert triggered";
    case cudaErrorHardwareStackError: return "hardware stack error";
    case cudaErrorIllegalInstruction: return "an illegal instruction was encountered";
    case cudaErrorMisalignedAddress: return "misaligned address";
    case cudaErrorLaunchFailure: return "unspecified launch failure";
    case cudaErrorNotSupported: return "operation not supported";
    case cudaErrorUnknown: return "unknown error";
  }
  return "unknown error";
}
