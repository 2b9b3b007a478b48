// CPU backend: emulated device memory. The allocation registry (memory.hpp; symbols.cpp keeps the
// `__constant__` and `__device__` variables, which count as device memory too), with the logical
// extent of an array inside an allocation (wb_emu::set_logical_extent, cleared when it is freed),
// and the memory calls: cudaMalloc, cudaFree, cudaMallocHost, cudaFreeHost, cudaMemcpy, cudaMemset,
// cudaMemGetInfo.
#include "memory.hpp"

#include "errors.hpp"
#include "graph.hpp"
#include "streams.hpp"

#include <wb_emu/api.hpp>
#include <wb_emu/launch.hpp>

#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>
#include <new>

#include <sys/mman.h>
#include <unistd.h>

namespace wb_emu::internal {
std::uintptr_t arena_lo = 0, arena_hi = 0;

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

// ---- the device arena ----
// One range of address space, reserved without memory behind it (PROT_NONE), that holds every
// allocation and nothing else: an instrumented kernel's access in it is a device access, wherever
// it lands (an allocation, a freed one, the gap after one), and host memory is never in it. Each
// allocation starts on a page of its own and is followed by at least kArenaGap bytes that stay
// PROT_NONE, so that even a plain build's write a little past an allocation faults there instead of
// overwriting the next one or the host's heap. A freed allocation's pages go back to PROT_NONE
// (their memory is returned); its address range is used again only once the arena's end is reached.
constexpr std::uintptr_t kArenaGap = 64 * 1024;
constexpr unsigned char kTailPattern = 0xa5;  // the bytes after an allocation's end, to its page's end
std::uintptr_t arena_next = 0;                     // where the next allocation goes, while the end is not reached
std::map<std::uintptr_t, std::uintptr_t> free_spans;  // freed [start, end), for when it is
std::size_t page_size() {
  static const std::size_t p = static_cast<std::size_t>(sysconf(_SC_PAGE_SIZE));
  return p;
}
std::uintptr_t round_up(std::uintptr_t v, std::uintptr_t to) { return (v + to - 1) / to * to; }

// Reserves the arena: twice the machine's memory (at least 16 GiB, at most 1 TiB), or the largest
// half of that, down to 4 GiB, that the system gives. Not more: reserving costs nothing natively, but
// an emulator (qemu-user, arm64 in CI) keeps a record per page of the range, about 20 s for 1 TiB.
//
// The arena is placed far from everything else where the system allows it (kArenaHint): the system
// maps the host's memory (thread stacks, malloc's arenas, libraries) from the top of the address
// space down and the program's heap just above the program, so a range reserved at 16 TiB has
// terabytes of unmapped space on both sides. A wild index into a device array (a negative int, 32
// bits that wrapped: up to 2^31 elements of 16 bytes either way) then lands in the arena's own
// PROT_NONE pages or in nothing, and faults (the launch's illegal address, stack_guard.cpp), instead
// of landing in the host's memory that was mapped just below the arena after it and corrupting it.
// Where the hint is not free (a smaller address space), the system's choice is kept.
#if UINTPTR_MAX > 0xffffffffu
constexpr std::uintptr_t kArenaHint = std::uintptr_t(16) << 40;
#else
constexpr std::uintptr_t kArenaHint = 0;
#endif
bool reserve_arena() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const std::size_t memory = pages > 0 ? std::size_t(pages) * page_size() : 0;
  std::size_t bytes = std::size_t(16) << 30;
  while (bytes < 2 * memory && bytes < (std::size_t(1) << 40)) bytes *= 2;
  for (; bytes >= (std::size_t(4) << 30); bytes /= 2) {
    void* m = mmap(reinterpret_cast<void*>(kArenaHint), bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (m == MAP_FAILED) continue;
    arena_lo = reinterpret_cast<std::uintptr_t>(m);
    arena_next = arena_lo + kArenaGap;  // an index before the first allocation lands in the arena too
    arena_hi = arena_lo + bytes;
    return true;
  }
  return false;
}

// `bytes` of fresh, zeroed, page-aligned arena memory, or nullptr. Called with alloc_mutex held.
void* arena_alloc(std::size_t bytes) {
  if (arena_hi == 0 && !reserve_arena()) return nullptr;
  const std::uintptr_t span = round_up(bytes, page_size()) + kArenaGap;
  std::uintptr_t at = 0;
  if (arena_next + span <= arena_hi) {
    at = arena_next;
    arena_next += span;
  } else {
    for (auto it = free_spans.begin(); it != free_spans.end(); ++it) {
      if (it->second - it->first < span) continue;
      at = it->first;
      const std::uintptr_t rest = at + span, end = it->second;
      free_spans.erase(it);
      if (rest < end) free_spans.emplace(rest, end);
      break;
    }
    if (at == 0) return nullptr;
  }
  void* p = reinterpret_cast<void*>(at);
  if (mprotect(p, round_up(bytes, page_size()), PROT_READ | PROT_WRITE) != 0) {
    free_spans.emplace(at, at + span);
    return nullptr;
  }
  // The rest of the last page: a write there faults nowhere, so it holds a known pattern that a
  // launch checks when it ends (overrun_allocation()).
  std::memset(static_cast<char*>(p) + bytes, kTailPattern, round_up(bytes, page_size()) - bytes);
  return p;
}

// The first byte in [p, e) that is not kTailPattern, or e.
const unsigned char* first_changed(const unsigned char* p, const unsigned char* e) {
  constexpr std::uint64_t word = 0x0101010101010101ull * kTailPattern;
  for (; p < e && reinterpret_cast<std::uintptr_t>(p) % 8; ++p)
    if (*p != kTailPattern) return p;
  for (; p + 8 <= e; p += 8) {
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    if (v != word) break;
  }
  for (; p < e; ++p)
    if (*p != kTailPattern) return p;
  return e;
}

// Gives back the pages of the allocation at `p` (`bytes` long); its range may be used again later.
void arena_free(void* p, std::size_t bytes) {
  const std::uintptr_t at = reinterpret_cast<std::uintptr_t>(p), pages = round_up(bytes, page_size());
  // The same range mapped anew: no memory behind it, PROT_NONE again.
  mmap(p, pages, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
  auto next = free_spans.emplace(at, at + pages + kArenaGap).first;
  if (next != free_spans.begin()) {  // merged with the span before it, when they touch
    auto prev = std::prev(next);
    if (prev->second == next->first) {
      prev->second = next->second;
      free_spans.erase(next);
    }
  }
}
}  // namespace

void* device_alloc(std::size_t bytes, const char* kind, bool host) {
  std::lock_guard<std::mutex> lock(alloc_mutex);
  void* p = arena_alloc(bytes);
  if (!p) return nullptr;
  auto& m = host ? host_allocations : allocations;
  Allocation& a = m[reinterpret_cast<std::uintptr_t>(p)];
  a = Allocation{};
  a.base = reinterpret_cast<std::uintptr_t>(p);
  a.bytes = bytes;
  a.kind = kind;
  return p;
}

bool device_free(void* p, bool host) {
  std::lock_guard<std::mutex> lock(alloc_mutex);
  auto& m = host ? host_allocations : allocations;
  auto it = m.find(reinterpret_cast<std::uintptr_t>(p));
  if (it == m.end() || !in_arena(it->first)) return false;  // not device_alloc's (registered host memory)
  const std::size_t bytes = it->second.bytes;
  m.erase(it);
  arena_free(p, bytes);
  return true;
}

bool overrun_allocation(Overrun* found) {
  std::lock_guard<std::mutex> lock(alloc_mutex);
  bool any = false;
  for (const auto* m : {&allocations, &host_allocations})
    for (const auto& [base, a] : *m) {
      if (!in_arena(base)) continue;  // registered host memory: no tail of the backend's
      auto* const end = reinterpret_cast<unsigned char*>(base + a.bytes);
      auto* const page_end = reinterpret_cast<unsigned char*>(round_up(base + a.bytes, page_size()));
      const unsigned char* first = first_changed(end, page_end);
      if (first == page_end) continue;
      const unsigned char* last = page_end - 1;
      while (*last == kTailPattern) --last;
      if (!any || base < found->allocation.base) {
        found->allocation = a;
        found->first = static_cast<std::size_t>(first - end);
        found->last = static_cast<std::size_t>(last - end);
        found->room = static_cast<std::size_t>(page_end - end);
        any = true;
      }
      std::memset(end, kTailPattern, static_cast<std::size_t>(page_end - end));  // reported once
    }
  return any;
}

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
namespace {
// Device memory kernels may use: every call that makes some (cudaMalloc, cudaMallocManaged,
// cudaMallocAsync, cudaMallocPitch) comes here, so each one's memory is kept and checked alike.
// `kind` names the call in the messages of instrumented builds.
cudaError_t allocate_device(void** ptr, std::size_t bytes, const char* kind) {
  if (!ptr) return record(cudaErrorInvalidValue);
  *ptr = nullptr;
  if (bytes == 0) return cudaSuccess;
  void* p = device_alloc(bytes, kind, false);
  if (!p) return record(cudaErrorMemoryAllocation);
  *ptr = p;
  return cudaSuccess;
}
}  // namespace

cudaError_t cudaMalloc(void** ptr, std::size_t bytes) {
  // As in CUDA: not during a capture (one not in relaxed mode), which it invalidates.
  if (capture_check(nullptr, true) == CaptureCheck::unsupported) return record(cudaErrorStreamCaptureUnsupported);
  return allocate_device(ptr, bytes, "cudaMalloc");
}

cudaError_t cudaFree(void* ptr) {
  if (!ptr) return cudaSuccess;
  return device_free(ptr, false) ? cudaSuccess : record(cudaErrorInvalidValue);
}

cudaError_t cudaMallocHost(void** ptr, std::size_t bytes) {
  if (!ptr) return record(cudaErrorInvalidValue);
  *ptr = bytes ? device_alloc(bytes, "cudaMallocHost", true) : nullptr;
  if (bytes && !*ptr) return record(cudaErrorMemoryAllocation);
  return cudaSuccess;
}
cudaError_t cudaFreeHost(void* ptr) {
  if (ptr && !device_free(ptr, true)) return record(cudaErrorInvalidValue);
  return cudaSuccess;
}

namespace {
cudaError_t copy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind);
cudaError_t set(void* dst, int value, std::size_t bytes);
// An operation on `stream`: run, recorded in the graph the stream captures, or refused.
template <class Op>
cudaError_t on_stream(cudaStream_t stream, const char* what, Op op) {
  switch (capture_check(stream, false)) {
    case CaptureCheck::record:
      capture_operation(stream, what, [op](cudaStream_t) { return op(); });
      return cudaSuccess;
    case CaptureCheck::implicit: return record(cudaErrorStreamCaptureImplicit);
    default: return op();
  }
}
}  // namespace
cudaError_t cudaMemcpy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind) {
  return on_stream(nullptr, "copy", [=] { return copy(dst, src, bytes, kind); });
}
namespace {
cudaError_t copy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind) {
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
}  // namespace
cudaError_t cudaMemcpyAsync(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind, cudaStream_t stream) {
  return on_stream(stream, "copy", [=] { return copy(dst, src, bytes, kind); });
}
cudaError_t cudaMemset(void* dst, int value, std::size_t bytes) {
  return on_stream(nullptr, "memset", [=] { return set(dst, value, bytes); });
}
namespace {
cudaError_t set(void* dst, int value, std::size_t bytes) {
  if (cudaError_t e = sticky()) return record(e);
  if (bytes == 0) return cudaSuccess;
  if (!in_allocation(dst, bytes)) return record(cudaErrorInvalidValue);
  std::memset(dst, value, bytes);
  return cudaSuccess;
}
}  // namespace
cudaError_t cudaMemsetAsync(void* dst, int value, std::size_t bytes, cudaStream_t stream) {
  return on_stream(stream, "memset", [=] { return set(dst, value, bytes); });
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


// ---- managed, pitched, asynchronous and host memory: the same host memory, other calls ----
// Managed memory is device memory the host may touch; on this backend all device memory is, so it
// is cudaMalloc's (cudaFree frees it, cudaPointerGetAttributes says cudaMemoryTypeManaged).
cudaError_t cudaMallocManaged(void** ptr, std::size_t bytes, unsigned int flags) {
  if (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost) return record(cudaErrorInvalidValue);
  return allocate_device(ptr, bytes, "cudaMallocManaged");
}
// Stream order is program order here: the memory is there when the call returns.
cudaError_t cudaMallocAsync(void** ptr, std::size_t bytes, cudaStream_t stream) {
  if (!valid_stream(stream)) return record(cudaErrorInvalidResourceHandle);
  return allocate_device(ptr, bytes, "cudaMallocAsync");
}
cudaError_t cudaFreeAsync(void* ptr, cudaStream_t stream) {
  if (!valid_stream(stream)) return record(cudaErrorInvalidResourceHandle);
  return cudaFree(ptr);
}
// Rows of `width` bytes, each starting at a multiple of 512 bytes (the textureAlignment the device
// reports), as a GPU pads them for its memory transactions.
cudaError_t cudaMallocPitch(void** ptr, std::size_t* pitch, std::size_t width, std::size_t height) {
  if (!ptr || !pitch) return record(cudaErrorInvalidValue);
  const std::size_t row = (width + 511) / 512 * 512;
  *pitch = row;
  return allocate_device(ptr, row * height, "cudaMallocPitch");
}

cudaError_t cudaHostAlloc(void** ptr, std::size_t bytes, unsigned int flags) {
  if (flags & ~unsigned(cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined))
    return record(cudaErrorInvalidValue);
  return cudaMallocHost(ptr, bytes);
}
// Registered host memory becomes memory the kernels may use (as cudaMallocHost's), until unregistered.
cudaError_t cudaHostRegister(void* ptr, std::size_t bytes, unsigned int flags) {
  if (!ptr || bytes == 0) return record(cudaErrorInvalidValue);
  if (flags & ~unsigned(cudaHostRegisterPortable | cudaHostRegisterMapped | cudaHostRegisterIoMemory |
                        cudaHostRegisterReadOnly))
    return record(cudaErrorInvalidValue);
  const auto a = reinterpret_cast<std::uintptr_t>(ptr);
  std::lock_guard<std::mutex> lock(alloc_mutex);
  // Overlapping an allocation already known (registered, or cudaMallocHost's) is CUDA's error too.
  const Allocation* below = at_or_below(host_allocations, a + bytes - 1);
  if (below && below->base + below->bytes > a) return record(cudaErrorHostMemoryAlreadyRegistered);
  Allocation& r = host_allocations[a];
  r = Allocation{};
  r.base = a;
  r.bytes = bytes;
  r.kind = "cudaHostRegister";
  return cudaSuccess;
}
cudaError_t cudaHostUnregister(void* ptr) {
  std::lock_guard<std::mutex> lock(alloc_mutex);
  auto it = host_allocations.find(reinterpret_cast<std::uintptr_t>(ptr));
  if (!ptr || it == host_allocations.end() || std::strcmp(it->second.kind, "cudaHostRegister") != 0)
    return record(cudaErrorHostMemoryNotRegistered);
  host_allocations.erase(it);
  return cudaSuccess;
}
// One address space: the device's pointer to pinned or registered memory is the host's.
cudaError_t cudaHostGetDevicePointer(void** device_ptr, void* host_ptr, unsigned int flags) {
  if (!device_ptr || flags != 0) return record(cudaErrorInvalidValue);
  const auto a = reinterpret_cast<std::uintptr_t>(host_ptr);
  {
    std::lock_guard<std::mutex> lock(alloc_mutex);
    const Allocation* h = at_or_below(host_allocations, a);
    if (!host_ptr || !h || a >= h->base + h->bytes) return record(cudaErrorInvalidValue);
  }
  *device_ptr = host_ptr;
  return cudaSuccess;
}

cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attributes, const void* ptr) {
  if (!attributes) return record(cudaErrorInvalidValue);
  *attributes = cudaPointerAttributes{cudaMemoryTypeUnregistered, 0, nullptr, nullptr};
  void* p = const_cast<void*>(ptr);
  const auto a = reinterpret_cast<std::uintptr_t>(ptr);
  Allocation found;
  if (!ptr || !allocation_holding(a, a + 1, &found)) return cudaSuccess;  // CUDA 11 and later: not an error
  const bool host = std::strcmp(found.kind, "cudaMallocHost") == 0 || std::strcmp(found.kind, "cudaHostRegister") == 0;
  const bool managed = std::strcmp(found.kind, "cudaMallocManaged") == 0;
  attributes->type = host ? cudaMemoryTypeHost : managed ? cudaMemoryTypeManaged : cudaMemoryTypeDevice;
  attributes->devicePointer = p;  // one address space
  attributes->hostPointer = host || managed ? p : nullptr;
  return cudaSuccess;
}

// ---- 2D copies and sets: `height` rows of `width` bytes, each `pitch` bytes after the last ----
namespace {
// The bytes a pitched region spans, from its first byte to the end of its last row.
std::size_t pitched_span(std::size_t pitch, std::size_t width, std::size_t height) {
  return pitch * (height - 1) + width;
}
}  // namespace
cudaError_t cudaMemcpy2D(void* dst, std::size_t dpitch, const void* src, std::size_t spitch, std::size_t width,
                         std::size_t height, cudaMemcpyKind kind) {
  if (cudaError_t e = sticky()) return record(e);
  if (width == 0 || height == 0) return cudaSuccess;
  if (width > dpitch || width > spitch) return record(cudaErrorInvalidPitchValue);
  if (!dst || !src) return record(cudaErrorInvalidValue);
  if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault) return record(cudaErrorInvalidMemcpyDirection);
  const bool dst_dev = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  const bool src_dev = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  if ((dst_dev && !in_allocation(dst, pitched_span(dpitch, width, height))) ||
      (src_dev && !in_allocation(src, pitched_span(spitch, width, height))))
    return record(cudaErrorInvalidValue);
  for (std::size_t r = 0; r < height; ++r)
    std::memmove(static_cast<char*>(dst) + r * dpitch, static_cast<const char*>(src) + r * spitch, width);
  return cudaSuccess;
}
cudaError_t cudaMemcpy2DAsync(void* dst, std::size_t dpitch, const void* src, std::size_t spitch, std::size_t width,
                              std::size_t height, cudaMemcpyKind kind, cudaStream_t stream) {
  if (!valid_stream(stream)) return record(cudaErrorInvalidResourceHandle);
  return cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind);
}
cudaError_t cudaMemset2D(void* dst, std::size_t pitch, int value, std::size_t width, std::size_t height) {
  if (cudaError_t e = sticky()) return record(e);
  if (width == 0 || height == 0) return cudaSuccess;
  if (width > pitch || !in_allocation(dst, pitched_span(pitch, width, height))) return record(cudaErrorInvalidValue);
  for (std::size_t r = 0; r < height; ++r) std::memset(static_cast<char*>(dst) + r * pitch, value, width);
  return cudaSuccess;
}
cudaError_t cudaMemset2DAsync(void* dst, std::size_t pitch, int value, std::size_t width, std::size_t height,
                              cudaStream_t stream) {
  if (!valid_stream(stream)) return record(cudaErrorInvalidResourceHandle);
  return cudaMemset2D(dst, pitch, value, width, height);
}
// One device: a copy between "peers" is a copy on device 0.
cudaError_t cudaMemcpyPeer(void* dst, int dst_device, const void* src, int src_device, std::size_t bytes) {
  if (dst_device != 0 || src_device != 0) return record(cudaErrorInvalidDevice);
  return cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice);
}
// Nothing to move: device memory is where the host is.
cudaError_t cudaMemPrefetchAsync(const void* ptr, std::size_t bytes, int device, cudaStream_t stream) {
  if (!valid_stream(stream)) return record(cudaErrorInvalidResourceHandle);
  if (device != 0 && device != cudaCpuDeviceId) return record(cudaErrorInvalidDevice);
  if (bytes && !in_allocation(ptr, bytes)) return record(cudaErrorInvalidValue);
  return cudaSuccess;
}
