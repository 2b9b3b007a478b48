// CPU backend: the registry of emulated device memory. cudaMalloc and cudaMallocHost return host
// memory from the device arena (one reserved range of address space that holds nothing else) and
// record each allocation here, so that copies, memsets and (in instrumented builds) kernel accesses
// outside every allocation are reported: an address in the arena is device memory, whatever it is.
#pragma once

#include <cstddef>
#include <cstdint>

namespace wb_emu::internal {
/// The device arena, [arena_lo, arena_hi): cudaMalloc's and cudaMallocHost's memory, and nothing
/// else. Reserved at the first allocation, never moved; both 0 before it.
extern std::uintptr_t arena_lo, arena_hi;
/// Whether address `a` is in the device arena (an allocation, a freed one, or the gaps between).
inline bool in_arena(std::uintptr_t a) { return a - arena_lo < arena_hi - arena_lo; }

/// The range every registered symbol (`__constant__` and `__device__` variable) lies in; both 0
/// while there is none. A quick first test before symbol_holding().
extern std::uintptr_t symbols_lo, symbols_hi;
inline bool in_symbol_range(std::uintptr_t a) { return a - symbols_lo < symbols_hi - symbols_lo; }

/// `bytes` of zeroed device memory from the arena, recorded as an allocation of `kind` (the call's
/// name, for messages): one cudaFree frees, or with `host` one cudaFreeHost frees; nullptr when
/// none is left.
void* device_alloc(std::size_t bytes, const char* kind, bool host);
/// Frees an allocation device_alloc made (with the same `host`); false when `p` is no such
/// allocation's start.
bool device_free(void* p, bool host);

/// Whether [p, p + bytes) lies inside one cudaMalloc allocation or one symbol (a `__constant__` or
/// `__device__` variable).
bool in_allocation(const void* p, std::size_t bytes);

/// An allocation: its first byte and its size, and which call made it; and, when the program
/// said so (wb_emu::set_logical_extent), the array inside it that kernels may touch.
struct Allocation {
  std::uintptr_t base = 0;
  std::size_t bytes = 0;
  const char* kind = "cudaMalloc";  ///< "cudaMalloc", "cudaMallocHost", or a symbol's "__constant__" or "__device__"
  // the logical extent: [lo, hi) of `element_bytes`-byte elements, made at file:line
  std::uintptr_t lo = 0, hi = 0;
  std::size_t element_bytes = 0;  ///< 0: no logical extent, the whole allocation is the array
  const char* file = nullptr;
  int line = 0;
  bool has_extent() const { return element_bytes != 0; }
};
/// The cudaMalloc or cudaMallocHost allocation, or the symbol, that holds [a, e), if one does.
bool allocation_holding(std::uintptr_t a, std::uintptr_t e, Allocation* found);
/// The allocation or symbol nearest to address `a`; false when there is none.
bool nearest_allocation(std::uintptr_t a, Allocation* found);
/// The symbol that holds [a, e), as an Allocation of kind "__constant__" or "__device__" (symbols.cpp).
bool symbol_holding(std::uintptr_t a, std::uintptr_t e, Allocation* found);
/// The symbol nearest to address `a`; false when there is none (symbols.cpp).
bool nearest_symbol(std::uintptr_t a, Allocation* found);

/// An allocation whose tail was written: the bytes after its end, up to the end of its last page,
/// where a write past the end faults nowhere (the PROT_NONE gap starts at the next page). They hold
/// a pattern from cudaMalloc on; a launch checks it when it ends.
struct Overrun {
  Allocation allocation;
  std::size_t first = 0, last = 0;  ///< the first and last changed byte, counted from the allocation's end
  std::size_t room = 0;             ///< the bytes from its end to its page's end
};
/// The lowest allocation whose tail has changed since it was made or last reported (its pattern is
/// written again): true and `*found`; false when none has.
bool overrun_allocation(Overrun* found);
}  // namespace wb_emu::internal
