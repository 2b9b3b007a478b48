// CPU backend: the bounds checks of instrumented builds (bounds.cpp; `pc` is the instruction that
// made the access, named by its source line): whether an access is inside
// a `__shared__` array, the launch's dynamic shared memory or an allocation, and the kernel fault
// that says where it is when it is not; and the fault for a misaligned access.
#pragma once

#include "worker.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

namespace wb_emu::internal {
/// Whether [offset, offset + bytes) of the shared arena is inside the dynamic region or one
/// static array.
bool shared_in_bounds(const Worker& w, std::ptrdiff_t offset, unsigned bytes);
/// The fault for a shared access at `offset` from the arena's start that is in no array.
[[noreturn]] void shared_out_of_bounds(Worker& w, std::ptrdiff_t offset, unsigned bytes, bool store,
                                       const void* pc);
/// Whether a global access lies in an allocation (cudaMalloc, cudaMallocHost), inside its logical
/// extent when it has one, or in the program's static data; the ranges found are cached per
/// worker for the launch.
bool global_in_bounds(Worker& w, std::uintptr_t a, unsigned bytes);
/// The fault for a global access outside every allocation, placed from the nearest one, or in
/// the guard zone of an array with a logical extent, placed from that array.
[[noreturn]] void global_out_of_bounds(Worker& w, std::uintptr_t a, unsigned bytes, bool store, const void* pc);
/// The fault for a kernel thread's access that the system refused (SIGSEGV, SIGBUS: memory that is not
/// mapped, such as the space after each device allocation, or a freed one), reported from the signal
/// handler (stack_guard.cpp) as a GPU reports it: an illegal address, which the launch returns
/// (cudaErrorIllegalAddress). `write` says whether it was a store when the system says (-1: unknown).
[[noreturn]] void illegal_address(Worker& w, std::uintptr_t a, int write, const void* pc);
/// The fault for an access whose address is not a multiple of `align` (its type's alignment), as
/// a GPU's "misaligned address": which access, by how many bytes it misses, and where it landed.
[[noreturn]] void misaligned_access(Worker& w, std::uintptr_t a, unsigned bytes, unsigned align, const char* type,
                                    bool store, const void* pc);
}  // namespace wb_emu::internal
