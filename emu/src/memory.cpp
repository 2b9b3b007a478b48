// CPU backend: emulated device memory. The allocation registry (memory.hpp) and the memory calls:
// cudaMalloc, cudaFree, cudaMallocHost, cudaFreeHost, cudaMemcpy, cudaMemset, cudaMemGetInfo.
#include "memory.hpp"

#include "errors.hpp"

#include <wb_emu/api.hpp>

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <new>

#include <unistd.h>

namespace wb_emu::internal {
namespace {
std::mutex alloc_mutex;
std::map<std::uintptr_t, std::size_t> allocations;       // base -> bytes (cudaMalloc)
std::map<std::uintptr_t, std::size_t> host_allocations;  // base -> bytes (cudaMallocHost: kernels may use it)
}  // namespace

bool in_allocation(const void* p, std::size_t bytes) {
  auto a = reinterpret_cast<std::uintptr_t>(p);
  std::lock_guard<std::mutex> lock(alloc_mutex);
  auto it = allocations.upper_bound(a);
  if (it == allocations.begin()) return false;
  --it;
  return a >= it->first && a + bytes <= it->first + it->second;
}

bool allocation_holding(std::uintptr_t a, std::uintptr_t e, Allocation* found) {
  std::lock_guard<std::mutex> lock(alloc_mutex);
  for (const auto* m : {&allocations, &host_allocations}) {
    auto it = m->upper_bound(a);
    if (it == m->begin()) continue;
    --it;
    if (e <= it->first + it->second) {
      *found = Allocation{it->first, it->second, m == &allocations ? "cudaMalloc" : "cudaMallocHost"};
      return true;
    }
  }
  return false;
}

bool nearest_allocation(std::uintptr_t a, Allocation* found) {
  bool any = false;
  std::lock_guard<std::mutex> lock(alloc_mutex);
  auto distance = [a](std::uintptr_t lo, std::size_t n) { return a < lo ? lo - a : a - (lo + n); };
  auto consider = [&](const std::map<std::uintptr_t, std::size_t>& m, const char* k) {
    auto it = m.upper_bound(a);
    if (it != m.end() && (!any || distance(it->first, it->second) < distance(found->base, found->bytes))) {
      *found = Allocation{it->first, it->second, k};
      any = true;
    }
    if (it != m.begin()) {
      --it;
      if (!any || distance(it->first, it->second) < distance(found->base, found->bytes)) {
        *found = Allocation{it->first, it->second, k};
        any = true;
      }
    }
  };
  consider(allocations, "cudaMalloc");
  consider(host_allocations, "cudaMallocHost");
  return any;
}
}  // namespace wb_emu::internal

using namespace wb_emu::internal;

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
  if (bytes && !*ptr) return record(cudaErrorMemoryAllocation);
  if (*ptr) {
    std::lock_guard<std::mutex> lock(alloc_mutex);
    host_allocations[reinterpret_cast<std::uintptr_t>(*ptr)] = bytes;
  }
  return cudaSuccess;
}
cudaError_t cudaFreeHost(void* ptr) {
  if (ptr) {
    std::lock_guard<std::mutex> lock(alloc_mutex);
    host_allocations.erase(reinterpret_cast<std::uintptr_t>(ptr));
  }
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

