/// \file
/// \brief CUDA's atomics and memory fences on the CPU backend: host atomics on the same bytes,
/// sequentially consistent, correct between blocks on different worker threads.
#pragma once

#include <wb_emu/builtins.hpp>

#include <cstdint>
#include <cstring>
#include <type_traits>

// ---- atomics: host atomics on the raw memory, correct across worker threads ----
namespace wb_emu {
namespace detail {
/// An atomic of the running kernel thread on `bytes` at `addr`: never part of a race; the shared
/// bytes it touches count as written (instrumented launches; nothing otherwise).
void note_atomic(const volatile void* addr, unsigned bytes);

template <class T, class F>
WB_EMU_NOT_INSTRUMENTED T atomic_update(T* address, F f) {
  note_atomic(address, sizeof(T));
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "atomics on 4- and 8-byte values");
  using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
  Bits* raw = reinterpret_cast<Bits*>(address);
  Bits old_bits = __atomic_load_n(raw, __ATOMIC_RELAXED);
  for (;;) {
    T old_value;
    std::memcpy(&old_value, &old_bits, sizeof old_value);
    T new_value = f(old_value);
    Bits new_bits;
    std::memcpy(&new_bits, &new_value, sizeof new_bits);
    if (__atomic_compare_exchange_n(raw, &old_bits, new_bits, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
      return old_value;
  }
}
}  // namespace detail
}  // namespace wb_emu

/// Defines CUDA's integer atomics for T (atomicAdd, atomicSub, atomicAnd, atomicOr, atomicXor,
/// atomicExch, atomicMax, atomicMin, atomicCAS) as sequentially consistent host atomics; it is
/// used for int, unsigned int, long long and unsigned long long.
#define WB_EMU_ATOMIC_RMW(T, name, op)                                                                        \
  WB_EMU_NOT_INSTRUMENTED inline T name(T* a, T v) {                                                          \
    ::wb_emu::detail::note_atomic(a, sizeof(T));                                                              \
    return op(a, v, __ATOMIC_SEQ_CST);                                                                        \
  }
/// Every integer atomic read-modify-write of CUDA for the type `T` (WB_EMU_ATOMIC_RMW each).
#define WB_EMU_INT_ATOMICS(T)                                                                                  \
  WB_EMU_ATOMIC_RMW(T, atomicAdd, __atomic_fetch_add)                                                         \
  WB_EMU_ATOMIC_RMW(T, atomicSub, __atomic_fetch_sub)                                                         \
  WB_EMU_ATOMIC_RMW(T, atomicAnd, __atomic_fetch_and)                                                         \
  WB_EMU_ATOMIC_RMW(T, atomicOr, __atomic_fetch_or)                                                           \
  WB_EMU_ATOMIC_RMW(T, atomicXor, __atomic_fetch_xor)                                                         \
  WB_EMU_ATOMIC_RMW(T, atomicExch, __atomic_exchange_n)                                                       \
  inline T atomicMax(T* a, T v) {                                                                             \
    return ::wb_emu::detail::atomic_update(a, [v](T o) { return o < v ? v : o; });                            \
  }                                                                                                           \
  inline T atomicMin(T* a, T v) {                                                                             \
    return ::wb_emu::detail::atomic_update(a, [v](T o) { return v < o ? v : o; });                            \
  }                                                                                                           \
  WB_EMU_NOT_INSTRUMENTED inline T atomicCAS(T* a, T compare, T v) {                                          \
    ::wb_emu::detail::note_atomic(a, sizeof(T));                                                              \
    __atomic_compare_exchange_n(a, &compare, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);                    \
    return compare;                                                                                           \
  }
WB_EMU_INT_ATOMICS(int)
WB_EMU_INT_ATOMICS(unsigned int)
WB_EMU_INT_ATOMICS(unsigned long long)
WB_EMU_INT_ATOMICS(long long)
#undef WB_EMU_INT_ATOMICS
#undef WB_EMU_ATOMIC_RMW
/// \name Floating-point atomics
///@{

/// As in CUDA: a compare-and-swap loop on the value's bits, correct across worker threads;
/// returns the old value.
inline float atomicAdd(float* a, float v) { return ::wb_emu::detail::atomic_update(a, [v](float o) { return o + v; }); }
inline double atomicAdd(double* a, double v) { return ::wb_emu::detail::atomic_update(a, [v](double o) { return o + v; }); }
inline float atomicSub(float* a, float v) { return ::wb_emu::detail::atomic_update(a, [v](float o) { return o - v; }); }
inline float atomicExch(float* a, float v) { return ::wb_emu::detail::atomic_update(a, [v](float) { return v; }); }
inline float atomicMax(float* a, float v) { return ::wb_emu::detail::atomic_update(a, [v](float o) { return o < v ? v : o; }); }
inline float atomicMin(float* a, float v) { return ::wb_emu::detail::atomic_update(a, [v](float o) { return v < o ? v : o; }); }
///@}
/// \name Wrapping increment and decrement
///@{

/// As CUDA defines them: atomicInc counts up and wraps to 0 once the old value reaches `limit`;
/// atomicDec counts down and wraps to `limit` from 0 (or from above `limit`).
inline unsigned atomicInc(unsigned* a, unsigned limit) {
  return ::wb_emu::detail::atomic_update(a, [limit](unsigned o) { return o >= limit ? 0u : o + 1; });
}
inline unsigned atomicDec(unsigned* a, unsigned limit) {
  return ::wb_emu::detail::atomic_update(a, [limit](unsigned o) { return (o == 0 || o > limit) ? limit : o - 1; });
}
///@}
/// \name Memory fences
///@{

/// A sequentially consistent fence: stronger than CUDA requires (see the memory model's limits).
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
///@}
