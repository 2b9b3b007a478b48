// CPU backend: the bounds checks of instrumented builds. An access in no `__shared__` array, past
// the dynamic shared memory the launch gave, outside every allocation, or outside the logical
// extent of an array inside one (a grader's guard zones, wb_emu::set_logical_extent) is a kernel
// fault that says which access, where it landed (which array, how far past its end, which index),
// the source line, and the block and thread; so is an access whose address is not a multiple of
// its size (a misaligned float4).
#include "bounds.hpp"

#include "memory.hpp"
#include "symbolize.hpp"
#include "worker.hpp"


#include <cstdio>
#include <cstdlib>
#include <string>


namespace wb_emu::internal {
namespace {
// "at file:line, block (x,y,z), thread (x,y,z)": where the running kernel thread is.
std::string at_thread(const void* pc) {
  return "at " + where_pc(pc) + ", block " + triple(blockIdx.x, blockIdx.y, blockIdx.z) + ", thread " +
         triple(threadIdx.x, threadIdx.y, threadIdx.z);
}

// The running kernel thread, at the source line of the instruction at `pc`: a fault's place.
FaultAt at_pc(const Worker& w, const void* pc) {
  const SourceLine l = source_line(pc);
  return FaultAt{w.current, l.file, l.line};
}

std::string hex_address(std::uintptr_t a) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(a));
  return b;
}

// "1 byte", "12 bytes".
std::string byte_count(std::uintmax_t n) { return std::to_string(n) + (n == 1 ? " byte" : " bytes"); }

// "N bytes past the end of", or "just past the end of" when N is 0.
std::string past_end(std::uintptr_t n) { return n == 0 ? "just past the end of" : byte_count(n) + " past the end of"; }

const char* kDynamicHint =
    "\n  The third launch argument is the size in bytes of the extern __shared__ array: give it enough for every "
    "element the kernel uses (kernel<<<grid, block, count * sizeof(T)>>>), or keep the index below that count.";

const char* kIndexHint =
    "\n  An index must be from 0 to its extent - 1: check the bounds of the index that is out of range "
    "(a GPU does not check them: it reads or overwrites other data, or stops with an illegal address).";

}  // namespace

void shared_out_of_bounds(Worker& w, std::ptrdiff_t offset, unsigned bytes, bool store, const void* pc) {
  const std::string access = store ? "write" : "read";
  const auto dyn = static_cast<std::ptrdiff_t>(w.dynamic_base);
  const std::size_t given = w.g->shared_bytes;
  const std::string dname = w.dynamic_name ? w.dynamic_name : "extern __shared__ memory";
  const unsigned size = bytes ? bytes : 1;
  // the nearest static array below the access, if any
  const SharedName* below = nullptr;
  for (const SharedName& n : w.shared_names)
    if (static_cast<std::ptrdiff_t>(n.offset) <= offset && (!below || n.offset > below->offset)) below = &n;
  const std::ptrdiff_t past_static = below ? offset - static_cast<std::ptrdiff_t>(below->offset + below->bytes) : -1;
  std::string why;
  const char* hint = kIndexHint;
  if (offset >= dyn || (given > 0 && w.dynamic_name && (past_static < 0 || dyn - offset <= past_static)))
    hint = kDynamicHint;
  if (offset >= dyn && given == 0) {
    why = access + " of " + dname + "[" + std::to_string((offset - dyn) / size) +
          "]: the launch gave no dynamic shared memory (its third argument, kernel<<<grid, block, bytes>>>, is 0 or "
          "missing) " + at_thread(pc);
  } else if (offset >= dyn) {
    const std::ptrdiff_t in = offset - dyn;
    why = access + " of " + dname + "[" + std::to_string(in / size) + "]: byte " + std::to_string(in) +
          " is past the " + std::to_string(given) + " bytes the launch gave (its third argument) " +
          at_thread(pc);
  } else if (given > 0 && w.dynamic_name && (past_static < 0 || dyn - offset <= past_static)) {
    const std::ptrdiff_t in = dyn - offset;
    why = access + " of " + dname + "[-" + std::to_string((in + size - 1) / size) + "]: " + std::to_string(in) +
          " bytes before the start of the " + std::to_string(given) + " bytes the launch gave " + at_thread(pc);
  } else if (below) {
    why = access + " of " + byte_count(bytes) + " " + past_end(static_cast<std::uintptr_t>(past_static)) + " `" +
          below->name + "` (its " + std::to_string(below->bytes) + " bytes), in no __shared__ array, " +
          at_thread(pc);
  } else {
    why = access + " of " + byte_count(bytes) + " " + byte_count(static_cast<std::uintmax_t>(-offset)) +
          " before the first __shared__ array, in no __shared__ array, " + at_thread(pc);
  }
  fault_here(w, FaultKind::out_of_bounds, why + hint, at_pc(w, pc));
}

bool shared_in_bounds(const Worker& w, std::ptrdiff_t offset, unsigned bytes) {
  if (offset < 0) return false;
  const auto o = static_cast<std::size_t>(offset);
  if (o >= w.dynamic_base) return o + bytes <= w.dynamic_base + w.g->shared_bytes;
  for (const SharedName& n : w.shared_names)
    if (o >= n.offset && o + bytes <= n.offset + n.bytes) return true;
  return false;
}

namespace {
// The part of an out-of-bounds message that places an access in the guard zone of an array whose
// logical extent the program gave (wb_emu::set_logical_extent).
std::string in_guard_zone(const Allocation& h, std::uintptr_t a, std::uintptr_t e) {
  const std::size_t eb = h.element_bytes;
  const std::size_t count = (h.hi - h.lo) / eb;
  std::string array = "the " + std::to_string(count) + "-element array";
  if (h.file) array += " allocated at " + where(h.file, h.line);
  const std::string indices =
      count ? "its indices are 0 to " + std::to_string(count - 1) : std::string("it has no elements");
  std::string why;
  if (a >= h.hi) {
    why = "it is " + past_end(a - h.hi) + " " + array + " (index " + std::to_string((a - h.lo) / eb) + "; " + indices +
          "), in the grader's guard zone after it";
  } else if (a >= h.lo) {
    why = "its last " + byte_count(e - h.hi) + (e - h.hi == 1 ? " is" : " are") + " past the end of " + array + " (index " +
          std::to_string((a - h.lo) / eb) + "; " + indices + "), in the grader's guard zone after it";
  } else {
    why = "it is " + byte_count(h.lo - a) + " before the start of " + array + " (index -" +
          std::to_string((h.lo - a + eb - 1) / eb) + "; " + indices + "), in the grader's guard zone before it";
  }
  return why;
}
}  // namespace

void global_out_of_bounds(Worker& w, std::uintptr_t a, unsigned bytes, bool store, const void* pc) {
  const std::string access = std::string(store ? "write" : "read") + " of " + byte_count(bytes) + " ";
  const std::uintptr_t e = a + (bytes ? bytes : 1);
  Allocation holding;
  if (allocation_holding(a, e, &holding) && holding.has_extent())
    fault_here(w, FaultKind::out_of_bounds,
               access + "outside its array " + at_thread(pc) + ": " + in_guard_zone(holding, a, e) +
                   "\n  A GPU lets such an access read or overwrite whatever lies next to the array (here the "
                   "grader's guard zone: nothing else would show it) or stops with an illegal address; check the "
                   "index against the array's size before the access.",
               at_pc(w, pc));
  Allocation near;
  const bool found = nearest_allocation(a, &near);
  const std::uintptr_t base = near.base;
  const std::size_t size = near.bytes;
  const char* kind = near.kind;
  const unsigned n = bytes ? bytes : 1;
  std::string why = access + "outside every cudaMalloc allocation " + at_thread(pc) + ": ";
  if (a < 65536) {
    why += "the address is " + hex_address(a) + ", a null pointer (plus an index)";
  } else if (found && a >= base + size && a - (base + size) <= (std::uintptr_t(1) << 30)) {
    why += "it is " + past_end(a - (base + size)) + " the " + std::to_string(size) +
           "-byte " + kind + " allocation at " + hex_address(base) + " (index " + std::to_string((a - base) / n) +
           " of " + std::to_string(n) + "-byte elements from its start, which has " + std::to_string(size / n) + ")";
  } else if (found && a < base && base - a <= (std::uintptr_t(1) << 30)) {
    why += "it is " + byte_count(base - a) + " before the start of the " + std::to_string(size) + "-byte " +
           kind + " allocation at " + hex_address(base) + " (index -" + std::to_string((base - a + n - 1) / n) + " of " +
           std::to_string(n) + "-byte elements)";
  } else {
    why += "the address " + hex_address(a) + " is far from every allocation (a host pointer, a freed allocation or "
           "a wild index)";
  }
  why += "\n  A GPU stops such a kernel with an illegal address (cudaErrorIllegalAddress) or lets it read or "
         "overwrite another array; check the index against the array's size.";
  fault_here(w, FaultKind::out_of_bounds, why, at_pc(w, pc));
}

bool global_in_bounds(Worker& w, std::uintptr_t a, unsigned bytes) {
  const std::uintptr_t e = a + (bytes ? bytes : 1);
  for (const Worker::Range& r : w.alloc_cache)
    if (a >= r.lo && e <= r.hi) return true;
  Allocation h;
  if (!allocation_holding(a, e, &h)) return false;
  // inside the allocation; with a logical extent, inside the array too (its guard zones are not)
  const Worker::Range r = h.has_extent() ? Worker::Range{h.lo, h.hi} : Worker::Range{h.base, h.base + h.bytes};
  if (a < r.lo || e > r.hi) return false;
  w.alloc_cache[w.alloc_cache_next++ % 4] = r;
  return true;
}

void illegal_address(Worker& w, std::uintptr_t a, int write, const void* pc) {
  const char* access = write < 0 ? "an access" : write ? "a write" : "a read";
  std::string why = std::string("illegal address: ") + access + " at " + hex_address(a) + " " + at_thread(pc) + ": ";
  Allocation near;
  const auto sh = reinterpret_cast<std::uintptr_t>(w.shared);
  if (a < 65536) {
    why += "a null pointer (plus an index)";
  } else if (sh && a >= sh + kSharedArena && a - (sh + kSharedArena) <= (std::uintptr_t(1) << 30)) {
    why += "it is " + byte_count(a - (sh + kSharedArena)) + " past the end of the block's shared memory, far "
           "past every __shared__ array (a global index used for a block's shared array?)";
  } else if (sh && a < sh && sh - a <= (std::uintptr_t(1) << 30)) {
    why += "it is " + byte_count(sh - a) + " before the start of the block's shared memory, far before every "
           "__shared__ array (a negative index?)";
  } else if (nearest_allocation(a, &near) && a >= near.base + near.bytes &&
             a - (near.base + near.bytes) <= (std::uintptr_t(1) << 30)) {
    why += "it is " + past_end(a - (near.base + near.bytes)) + " the " + std::to_string(near.bytes) + "-byte " +
           near.kind + " allocation at " + hex_address(near.base);
  } else if (nearest_allocation(a, &near) && a < near.base && near.base - a <= (std::uintptr_t(1) << 30)) {
    why += "it is " + byte_count(near.base - a) + " before the start of the " + std::to_string(near.bytes) +
           "-byte " + near.kind + " allocation at " + hex_address(near.base);
  } else {
    why += "it is far from every allocation (a host pointer, a freed allocation or a wild index)";
  }
  why += "\n  A GPU stops such a kernel with an illegal address (cudaErrorIllegalAddress), as the CPU backend "
         "does here; check the index against the array's size.";
  w.fault_code = cudaErrorIllegalAddress;
  fault_here(w, FaultKind::illegal_address, why, at_pc(w, pc));
}

void misaligned_access(Worker& w, std::uintptr_t a, unsigned bytes, unsigned align, const char* type, bool store,
                       const void* pc) {
  // The compiler reports a vector type's access by its size alone.
  const std::string what = type ? std::string(type[0] == 'i' ? "an " : "a ") + type + " (" + byte_count(bytes) + ")"
                           : bytes == 16 ? "16 bytes (one access, such as a float4's)"
                                         : byte_count(bytes);
  std::string why = std::string("misaligned ") + (store ? "write" : "read") + " of " + what + " " +
                    at_thread(pc) + ": its address " + hex_address(a) + " is " + byte_count(a % align) +
                    " past a multiple of " + std::to_string(align);
  // where it landed: a __shared__ array, the dynamic region, an array or allocation
  const auto sh = reinterpret_cast<std::uintptr_t>(w.shared);
  Allocation h;
  if (a >= sh && a < sh + kSharedArena) {
    const std::size_t offset = a - sh;
    if (offset >= w.dynamic_base) {
      why += ", byte " + std::to_string(offset - w.dynamic_base) + " of " +
             (w.dynamic_name ? std::string("`") + w.dynamic_name + "` (extern __shared__)"
                             : std::string("the extern __shared__ memory"));
    } else {
      for (const SharedName& n : w.shared_names)
        if (offset >= n.offset && offset < n.offset + n.bytes)
          why += ", byte " + std::to_string(offset - n.offset) + " of `" + n.name + "` (its " +
                 std::to_string(n.bytes) + " bytes)";
    }
  } else if (allocation_holding(a, a + 1, &h)) {
    if (h.has_extent() && a >= h.lo && a < h.hi) {
      why += ", byte " + std::to_string(a - h.lo) + " of the " + std::to_string((h.hi - h.lo) / h.element_bytes) +
             "-element array" + (h.file ? " allocated at " + where(h.file, h.line) : std::string()) + " (inside its element " +
             std::to_string((a - h.lo) / h.element_bytes) + " of " + byte_count(h.element_bytes) + ")";
    } else {
      why += ", byte " + std::to_string(a - h.base) + " of the " + std::to_string(h.bytes) + "-byte " + h.kind +
             " allocation at " + hex_address(h.base);
    }
  }
  why += "\n  A GPU stops such a kernel with a misaligned address (cudaErrorMisalignedAddress): an access of " +
         std::to_string(align) + " bytes must start at a multiple of " + std::to_string(align) +
         ". A vector pointer made from a scalar one is aligned only when the scalar one is: "
         "reinterpret_cast<const float4*>(p + k) of a float* p needs k to be a multiple of 4; handle the elements "
         "before the first aligned one (or after the last) one at a time.";
  fault_here(w, FaultKind::misaligned, why, at_pc(w, pc));
}

}  // namespace wb_emu::internal
