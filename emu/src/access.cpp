// CPU backend: the calls an instrumented kernel file makes before each memory access. The file is
// compiled with AddressSanitizer's instrumentation in call mode (cmake/WorkbookChapter.cmake), so
// the compiler emits `__asan_load4(addr)`, `__asan_store16(addr)`, `__asan_loadN(addr, size)`...;
// AddressSanitizer's runtime is not linked, these definitions are the backend's, and each hands the
// access, with the address of the instruction after the call, to instrument.cpp. Accesses made
// outside a kernel thread, or by a kernel whose launch is not instrumented, are ignored at once.
#include "instrument.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace {
using wb_emu::internal::on_access;

// The instruction that made the access: the call's return address, one byte back, so that the line
// tables give the access's own line (the next instruction can begin the next line).
#define WB_EMU_ACCESS_PC (static_cast<const char*>(__builtin_return_address(0)) - 1)
}  // namespace

// The names and signatures the compilers emit (GCC and Clang; -fsanitize=address with the call
// threshold at 0): sized loads and stores, loadN/storeN for other sizes (and ranges such as an
// aggregate copy, which a GPU does element by element: no alignment is required of those), the
// _noabort forms of -fsanitize-recover=address, and the module set-up calls, which do nothing here.
extern "C" {
#define WB_EMU_SIZED(n)                                                                                      \
  void __asan_load##n(std::uintptr_t a) { on_access(a, n, false, WB_EMU_ACCESS_PC, true); }                \
  void __asan_store##n(std::uintptr_t a) { on_access(a, n, true, WB_EMU_ACCESS_PC, true); }                \
  void __asan_load##n##_noabort(std::uintptr_t a) { on_access(a, n, false, WB_EMU_ACCESS_PC, true); }      \
  void __asan_store##n##_noabort(std::uintptr_t a) { on_access(a, n, true, WB_EMU_ACCESS_PC, true); }
WB_EMU_SIZED(1)
WB_EMU_SIZED(2)
WB_EMU_SIZED(4)
WB_EMU_SIZED(8)
WB_EMU_SIZED(16)
#undef WB_EMU_SIZED
void __asan_loadN(std::uintptr_t a, std::size_t n) { on_access(a, n, false, WB_EMU_ACCESS_PC, false); }
void __asan_storeN(std::uintptr_t a, std::size_t n) { on_access(a, n, true, WB_EMU_ACCESS_PC, false); }
void __asan_loadN_noabort(std::uintptr_t a, std::size_t n) { on_access(a, n, false, WB_EMU_ACCESS_PC, false); }
void __asan_storeN_noabort(std::uintptr_t a, std::size_t n) { on_access(a, n, true, WB_EMU_ACCESS_PC, false); }
// Clang calls these instead of memcpy, memmove and memset in an instrumented file.
void* __asan_memcpy(void* d, const void* s, std::size_t n) {
  on_access(reinterpret_cast<std::uintptr_t>(s), n, false, WB_EMU_ACCESS_PC, false);
  on_access(reinterpret_cast<std::uintptr_t>(d), n, true, WB_EMU_ACCESS_PC, false);
  return std::memcpy(d, s, n);
}
void* __asan_memmove(void* d, const void* s, std::size_t n) {
  on_access(reinterpret_cast<std::uintptr_t>(s), n, false, WB_EMU_ACCESS_PC, false);
  on_access(reinterpret_cast<std::uintptr_t>(d), n, true, WB_EMU_ACCESS_PC, false);
  return std::memmove(d, s, n);
}
void* __asan_memset(void* d, int c, std::size_t n) {
  on_access(reinterpret_cast<std::uintptr_t>(d), n, true, WB_EMU_ACCESS_PC, false);
  return std::memset(d, c, n);
}
void __asan_init() {}
void __asan_version_mismatch_check_v8() {}
void __asan_handle_no_return() {}
void __asan_before_dynamic_init(const char*) {}
void __asan_after_dynamic_init() {}
}
