// CPU backend: the registry of emulated device memory. cudaMalloc and cudaMallocHost return host
// memory and record each allocation here, so that copies, memsets and (in instrumented builds)
// kernel accesses outside every allocation are reported.
#pragma once

#include <cstddef>
#include <cstdint>

namespace wb_emu::internal {
/// Whether [p, p + bytes) lies inside one cudaMalloc allocation.
bool in_allocation(const void* p, std::size_t bytes);

/// An allocation: its first byte and its size, and which call made it.
struct Allocation {
  std::uintptr_t base = 0;
  std::size_t bytes = 0;
  const char* kind = "cudaMalloc";  ///< "cudaMalloc" or "cudaMallocHost"
};
/// The cudaMalloc or cudaMallocHost allocation that holds [a, e), if one does.
bool allocation_holding(std::uintptr_t a, std::uintptr_t e, Allocation* found);
/// The allocation nearest to address `a` (of both kinds); false when there is none.
bool nearest_allocation(std::uintptr_t a, Allocation* found);
}  // namespace wb_emu::internal
