// CPU backend: the calls an instrumented kernel file makes for each memory access. The file is
// compiled with ThreadSanitizer's instrumentation (cmake: WB_EMU_INSTRUMENT_FLAGS), so the compiler
// emits `__tsan_read4(addr)`, `__tsan_write16(addr)`, `__tsan_read_range(addr, size)`... before
// every load and store, a read and a write each for `+=` and `++`, and calls for atomics in place of
// the atomic instructions. ThreadSanitizer's runtime is not linked: these definitions are the
// backend's. Each access goes, with the address of the instruction after the call, to
// instrument.cpp, which ignores at once those made outside a kernel thread or by a kernel whose
// launch is not instrumented; an atomic is made here, and instrument.cpp is told of it.
#include "instrument.hpp"

#include <wb_emu/atomics.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "memory.hpp"
#include "worker.hpp"

namespace {
// Most reports are of memory that is no device's (the thread's stack, the built-in variables, the
// host's data), or come from no instrumented kernel thread: this first test, inlined into every
// call, keeps those cheap. The rest goes on to instrument.cpp.
inline void on_access(std::uintptr_t a, std::size_t size, bool store, const void* pc, bool sized) {
  using namespace wb_emu::internal;
  const Worker* w = tls_worker;
  if (!w || !w->instr_launch || w->current < 0) return;
  const auto sh = reinterpret_cast<std::uintptr_t>(w->shared);
  if (in_arena(a) || a - (sh - kSharedSlack) < kSharedArena + 2 * kSharedSlack || in_symbol_range(a) || a < 65536)
    wb_emu::internal::on_access(a, size, store, pc, sized);
}

// The instruction that made the access: the call's return address, one byte back, so that the line
// tables give the access's own line (the next instruction can begin the next line).
#define WB_EMU_ACCESS_PC (static_cast<const char*>(__builtin_return_address(0)) - 1)
}  // namespace

// The names and signatures the compilers emit (GCC and Clang, -fsanitize=thread): sized reads and
// writes (which must be aligned to their size, as on a GPU), unaligned ones (the compiler knows the
// type is less aligned than its size: no rule) and ranges (an aggregate's copy, which a GPU makes
// element by element), atomics, and calls that do nothing here.
extern "C" {
#define WB_EMU_SIZED(n)                                                                                      \
  void __tsan_read##n(const void* a) {                                                                       \
    on_access(reinterpret_cast<std::uintptr_t>(a), n, false, WB_EMU_ACCESS_PC, true);                        \
  }                                                                                                          \
  void __tsan_write##n(void* a) { on_access(reinterpret_cast<std::uintptr_t>(a), n, true, WB_EMU_ACCESS_PC, true); } \
  void __tsan_unaligned_read##n(const void* a) {                                                             \
    on_access(reinterpret_cast<std::uintptr_t>(a), n, false, WB_EMU_ACCESS_PC, false);                       \
  }                                                                                                          \
  void __tsan_unaligned_write##n(void* a) {                                                                  \
    on_access(reinterpret_cast<std::uintptr_t>(a), n, true, WB_EMU_ACCESS_PC, false);                        \
  }
WB_EMU_SIZED(1)
WB_EMU_SIZED(2)
WB_EMU_SIZED(4)
WB_EMU_SIZED(8)
WB_EMU_SIZED(16)
#undef WB_EMU_SIZED
void __tsan_read_range(const void* a, std::size_t n) {
  on_access(reinterpret_cast<std::uintptr_t>(a), n, false, WB_EMU_ACCESS_PC, false);
}
void __tsan_write_range(void* a, std::size_t n) {
  on_access(reinterpret_cast<std::uintptr_t>(a), n, true, WB_EMU_ACCESS_PC, false);
}
// Clang calls these instead of memcpy, memmove and memset in an instrumented file.
void* __tsan_memcpy(void* d, const void* s, std::size_t n) {
  on_access(reinterpret_cast<std::uintptr_t>(s), n, false, WB_EMU_ACCESS_PC, false);
  on_access(reinterpret_cast<std::uintptr_t>(d), n, true, WB_EMU_ACCESS_PC, false);
  return std::memcpy(d, s, n);
}
void* __tsan_memmove(void* d, const void* s, std::size_t n) {
  on_access(reinterpret_cast<std::uintptr_t>(s), n, false, WB_EMU_ACCESS_PC, false);
  on_access(reinterpret_cast<std::uintptr_t>(d), n, true, WB_EMU_ACCESS_PC, false);
  return std::memmove(d, s, n);
}
void* __tsan_memset(void* d, int c, std::size_t n) {
  on_access(reinterpret_cast<std::uintptr_t>(d), n, true, WB_EMU_ACCESS_PC, false);
  return std::memset(d, c, n);
}
void __tsan_init() {}
void __tsan_func_entry(void*) {}
void __tsan_func_exit() {}
void __tsan_vptr_update(void**, void*) {}
void __tsan_vptr_read(void**) {}
void __tsan_read1_pc(const void*, void*) {}

// Atomics: made here, sequentially consistent whatever order was asked (stronger than CUDA needs,
// as the backend's own atomics are); never part of a race, and their shared bytes count as written.
#define WB_EMU_TSAN_ATOMICS(bits, T)                                                                         \
  T __tsan_atomic##bits##_load(const volatile T* a, int) {                                                   \
    wb_emu::detail::note_atomic(a, sizeof(T));                                                               \
    return __atomic_load_n(a, __ATOMIC_SEQ_CST);                                                             \
  }                                                                                                          \
  void __tsan_atomic##bits##_store(volatile T* a, T v, int) {                                                \
    wb_emu::detail::note_atomic(a, sizeof(T));                                                               \
    __atomic_store_n(a, v, __ATOMIC_SEQ_CST);                                                                \
  }                                                                                                          \
  T __tsan_atomic##bits##_exchange(volatile T* a, T v, int) {                                                \
    wb_emu::detail::note_atomic(a, sizeof(T));                                                               \
    return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST);                                                      \
  }                                                                                                          \
  T __tsan_atomic##bits##_fetch_add(volatile T* a, T v, int) {                                               \
    wb_emu::detail::note_atomic(a, sizeof(T));                                                               \
    return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST);                                                       \
  }                                                                                                          \
  T __tsan_atomic##bits##_fetch_sub(volatile T* a, T v, int) {                                               \
    wb_emu::detail::note_atomic(a, sizeof(T));                                                               \
    return __atomic_fetch_sub(a, v, __ATOMIC_SEQ_CST);                                                       \
  }                                                                                                          \
  T __tsan_atomic##bits##_fetch_and(volatile T* a, T v, int) {                                               \
    wb_emu::detail::note_atomic(a, sizeof(T));                                                               \
    return __atomic_fetch_and(a, v, __ATOMIC_SEQ_CST);                                                       \
  }                                                                                                          \
  T __tsan_atomic##bits##_fetch_or(volatile T* a, T v, int) {                                                \
    wb_emu::detail::note_atomic(a, sizeof(T));                                                               \
    return __atomic_fetch_or(a, v, __ATOMIC_SEQ_CST);                                                        \
  }                                                                                                          \
  T __tsan_atomic##bits##_fetch_xor(volatile T* a, T v, int) {                                               \
    wb_emu::detail::note_atomic(a, sizeof(T));                                                               \
    return __atomic_fetch_xor(a, v, __ATOMIC_SEQ_CST);                                                       \
  }                                                                                                          \
  T __tsan_atomic##bits##_fetch_nand(volatile T* a, T v, int) {                                              \
    wb_emu::detail::note_atomic(a, sizeof(T));                                                               \
    return __atomic_fetch_nand(a, v, __ATOMIC_SEQ_CST);                                                      \
  }                                                                                                          \
  int __tsan_atomic##bits##_compare_exchange_strong(volatile T* a, T* c, T v, int, int) {                    \
    wb_emu::detail::note_atomic(a, sizeof(T));                                                               \
    return __atomic_compare_exchange_n(a, c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);                  \
  }                                                                                                          \
  int __tsan_atomic##bits##_compare_exchange_weak(volatile T* a, T* c, T v, int, int) {                      \
    wb_emu::detail::note_atomic(a, sizeof(T));                                                               \
    return __atomic_compare_exchange_n(a, c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);                  \
  }                                                                                                          \
  T __tsan_atomic##bits##_compare_exchange_val(volatile T* a, T c, T v, int, int) {                          \
    wb_emu::detail::note_atomic(a, sizeof(T));                                                               \
    __atomic_compare_exchange_n(a, &c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);                        \
    return c;                                                                                                \
  }
WB_EMU_TSAN_ATOMICS(8, std::uint8_t)
WB_EMU_TSAN_ATOMICS(16, std::uint16_t)
WB_EMU_TSAN_ATOMICS(32, std::uint32_t)
WB_EMU_TSAN_ATOMICS(64, std::uint64_t)
#undef WB_EMU_TSAN_ATOMICS
void __tsan_atomic_thread_fence(int) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
void __tsan_atomic_signal_fence(int) { __atomic_signal_fence(__ATOMIC_SEQ_CST); }
}
