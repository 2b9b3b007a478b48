// CPU backend: emulated device memory. The allocation registry (memory.hpp; symbols.cpp keeps the
// `__constant__` and `__device__` variables, which count as device memory too), with the logical
// extent of an array inside an allocation (wb_emu::set_logical_extent, cleared when it is freed),
// and the memory calls: cudaMalloc, cudaFree, cudaMallocHost, cudaFreeHost, cudaMemcpy, cudaMemset,
// cudaMemGetInfo.
#include "memory.hpp"

#include "errors.hpp"

#include <wb_emu/api.hpp>
#include <wb_emu/launch.hpp>

#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>
#include <new>

#include <unistd.h>

namespace wb_emu::internal {
namespace {
std::mutex alloc_mutex;
std::map<std::uintptr_t, Allocation> allocations;       // base -> allocation (cudaMalloc)
std::map<std::uintptr_t, Allocation> host_allocations;  // base -> allocation (cudaMallocHost: kernels may use it)

// The allocation of `m` whose first byte is at or below `a`, or nullptr.
const Allocation* at_or_below(const std::map<std::uintptr_t, Allocation>& m, std::uintptr_t a) {
  auto it = m.upper_bound(a);
  if (it == m.begin()) return nullptr;
  return &std::prev(it)->second;
}
}  // namespace

bool in_allocation(const void* p, std::size_t bytes) {
  auto a = reinterpret_cast<std::uintptr_t>(p);
  {
    std::lock_guard<std::mutex> lock(alloc_mutex);
    const Allocation* h = at_or_below(allocations, a);
    if (h && a + bytes <= h->base + h->bytes) return true;
  }
  Allocation symbol;
  return symbol_holding(a, a + bytes, &symbol);
}

bool allocation_holding(std::uintptr_t a, std::uintptr_t e, Allocation* found) {
  {
    std::lock_guard<std::mutex> lock(alloc_mutex);
    for (const auto* m : {&allocations, &host_allocations}) {
      const Allocation* h = at_or_below(*m, a);
      if (h && e <= h->base + h->bytes) {
        *found = *h;
        return true;
      }
    }
  }
  return symbol_holding(a, e, found);
}

bool nearest_allocation(std::uintptr_t a, Allocation* found) {
  bool any = nearest_symbol(a, found);
  std::lock_guard<std::mutex> lock(alloc_mutex);
  auto distance = [a](const Allocation& x) { return a < x.base ? x.base - a : a - (x.base + x.bytes); };
  auto consider = [&](const std::map<std::uintptr_t, Allocation>& m) {
    auto it = m.upper_bound(a);
    if (it != m.end() && (!any || distance(it->second) < distance(*found))) {
      *found = it->second;
      any = true;
    }
    if (it != m.begin()) {
      --it;
      if (!any || distance(it->second) < distance(*found)) {
        *found = it->second;
        any = true;
      }
    }
  };
  consider(allocations);
  consider(host_allocations);
  return any;
}
}  // namespace wb_emu::internal

void wb_emu::set_logical_extent(const void* first, std::size_t bytes, std::size_t element_bytes, const char* file,
                                int line) {
  const auto a = reinterpret_cast<std::uintptr_t>(first);
  std::lock_guard<std::mutex> lock(internal::alloc_mutex);
  for (auto* m : {&internal::allocations, &internal::host_allocations}) {
    auto it = m->upper_bound(a);
    if (it == m->begin()) continue;
    internal::Allocation& h = std::prev(it)->second;
    if (a + bytes > h.base + h.bytes) continue;
    h.lo = a;
    h.hi = a + bytes;
    h.element_bytes = element_bytes ? element_bytes : 1;
    h.file = file;
    h.line = line;
    return;
  }
}

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
    Allocation& a = allocations[reinterpret_cast<std::uintptr_t>(p)];
    a = Allocation{};
    a.base = reinterpret_cast<std::uintptr_t>(p);
    a.bytes = bytes;
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
    Allocation& a = host_allocations[reinterpret_cast<std::uintptr_t>(*ptr)];
    a = Allocation{};
    a.base = reinterpret_cast<std::uintptr_t>(*ptr);
    a.bytes = bytes;
    a.kind = "cudaMallocHost";
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
  long all = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
#ifdef _SC_AVPHYS_PAGES
  long pages = sysconf(_SC_AVPHYS_PAGES);
#else
  long pages = all;  // macOS has no count of free pages through sysconf
#endif
  *free_bytes = std::size_t(pages) * std::size_t(page);
  *total_bytes = std::size_t(all) * std::size_t(page);
  return cudaSuccess;
}

