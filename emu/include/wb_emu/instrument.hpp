/// \file
/// \brief The CPU backend's instrumented mode: the compiler reports every memory access.
///
/// A kernel file built instrumented (`workbook_add_chapter(... INSTRUMENT)`) is compiled by the host
/// compiler with ThreadSanitizer's instrumentation (WB_EMU_INSTRUMENT_FLAGS, emu/CMakeLists.txt):
/// every load and store of the translation unit becomes a call, `__tsan_read4(addr)`,
/// `__tsan_write16(addr)`, `__tsan_read_range(addr, size)`, made just before the access (a read and
/// a write for `+=`), and every atomic a call too. The CPU backend defines those calls itself
/// (emu/src/access.cpp; ThreadSanitizer's own runtime is not linked):
/// each one hands the access, with the address of the instruction that made it, to the runtime,
/// which knows the running CUDA thread, the block's shared memory and the device's allocations.
/// Nothing in the kernel's source is changed for it: pointers stay pointers and a `__shared__`
/// array stays a real array, so casts, references to arrays, template deduction, `printf`'s `...`
/// and indexing by a loaded value are plain C++. The instruction's address becomes `file:line`
/// (from the object's line tables) only when a message or a statistic needs it.
///
/// What the runtime does with an access, by where it lands:
///   - the block's shared memory: the race check, the check of reads of bytes no thread of the
///     block wrote, the bank-conflict count, and the bounds (an address in no `__shared__` array
///     and past the dynamic region the launch gave is a fault);
///   - the device arena (every cudaMalloc and cudaMallocHost allocation, emu/src/memory.cpp): the
///     bounds (outside every live allocation, or in a grader's guard zone, is a fault), the
///     alignment (a 2-, 4-, 8- or 16-byte access at an address that is not a multiple of its size
///     is a fault, as a GPU's misaligned address), and the count of 32-byte sectors per warp
///     request; so does a registered `__constant__` or `__device__` variable;
///   - an address below 64 KiB: a null pointer, a fault;
///   - anything else (the thread's own stack, the kernel's parameters, the built-in variables, the
///     host's memory): nothing.
/// The file is compiled at -O1 without scalar replacement of aggregates (which splits a float4 copy
/// into four 4-byte ones), and without -O2's merging and vectorising of accesses, so that what is
/// counted is what the source does.
///
/// The rewriter includes this header first in an instrumented file; the runtime behind it is
/// emu/src/access.cpp (the calls), instrument.cpp (races, unwritten shared memory, sectors and
/// bank conflicts) and bounds.cpp (accesses out of bounds or misaligned).
#pragma once

#include <wb_emu/runtime.hpp>
