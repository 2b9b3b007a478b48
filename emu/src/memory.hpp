// CPU backend: the registry of emulated device memory. cudaMalloc and cudaMallocHost return host
// memory and record each allocation here, so that copies, memsets and (in instrumented builds)
// kernel accesses outside every allocation are reported.
#pragma once

#include <cstddef>
#include <cstdint>

namespace wb_emu::internal {
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
}  // namespace wb_emu::internal
