/// \file
/// \brief What a block's threads share on the CPU backend: `__shared__` storage (fresh and
/// poisoned in every block), `__syncthreads()`, and the warp operations (`__shfl*_sync`, votes,
/// reductions, `__syncwarp`). The scheduler behind them is emu/src/scheduler.cpp.
#pragma once

#include <wb_emu/builtins.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

// ---- shared memory, barriers, warp operations ----
namespace wb_emu {
/// The byte shared memory holds at the start of every block: 0xFFFFFFFF is a float NaN and an
/// int -1, so a value read before any thread wrote it spreads into the result.
inline constexpr unsigned char shared_poison_byte = 0xFF;
namespace detail {
/// Counts blocks started on this worker: static shared storage is re-carved when it changes.
inline thread_local std::uint64_t block_generation = 0;
/// `bytes` of the running block's shared arena, aligned to `align`, filled with shared_poison_byte.
void* shared_alloc(std::size_t bytes, std::size_t align, const char* what, const char* name = nullptr);

enum class WarpKind : int { syncwarp, shfl, shfl_up, shfl_down, shfl_xor, ballot, any, all, reduce_add, reduce_min, reduce_max };
/// One lane's part in a warp operation: waits until every lane `mask` names has arrived,
/// then returns this lane's result (the raw bits of the shuffled value, or the vote).
std::uint64_t warp_op(WarpKind kind, unsigned mask, std::uint64_t value, int arg, int width, const char* file, int line);
unsigned active_mask();
/// Waits at the block barrier at file:line; returns how many arriving threads passed a nonzero `pred`.
int barrier(const char* file, int line, int pred);

template <class T>
std::uint64_t to_bits(T v) {
  static_assert(std::is_trivially_copyable<T>::value && sizeof(T) <= 8, "warp shuffles move values of at most 8 bytes");
  std::uint64_t b = 0;
  std::memcpy(&b, &v, sizeof v);
  return b;
}
template <class T>
T from_bits(std::uint64_t b) {
  T v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}
}  // namespace detail

/// The storage of one `__shared__` declaration (the rewriter passes a lambda: its type is
/// the declaration's key) for the running block: fresh and poisoned in every block.
/// `name` is the variable's, for messages.
template <class A, class Key>
WB_EMU_NOT_INSTRUMENTED A& static_shared(Key, const char* name) {
  thread_local std::uint64_t generation = 0;
  thread_local void* storage = nullptr;
  if (generation != detail::block_generation || storage == nullptr) {
    storage = detail::shared_alloc(sizeof(A), alignof(A) < 16 ? 16 : alignof(A), "__shared__", name);
    generation = detail::block_generation;
  }
  return *static_cast<A*>(storage);
}
}  // namespace wb_emu

/// Waits until every thread of the block has reached this barrier or exited.
inline void __syncthreads(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  ::wb_emu::detail::barrier(file, line, 0);
}
/// __syncthreads() that also returns how many threads of the block passed a nonzero `pred`.
inline int __syncthreads_count(int pred, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  return ::wb_emu::detail::barrier(file, line, pred);
}
/// Waits until every lane `mask` names has reached a __syncwarp; a named lane that has exited
/// is a kernel fault.
inline void __syncwarp(unsigned mask = 0xffffffffu, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  ::wb_emu::detail::warp_op(::wb_emu::detail::WarpKind::syncwarp, mask, 0, 0, 32, file, line);
}
/// The lanes of the calling thread's warp that have not exited.
inline unsigned __activemask() { return ::wb_emu::detail::active_mask(); }

/// Defines one of `__shfl_sync`, `__shfl_up_sync`, `__shfl_down_sync` and `__shfl_xor_sync`,
/// with CUDA's signatures (a value of at most 8 bytes, a lane or offset, a width): the lanes
/// `mask` names rendezvous, then each takes the value of its source lane.
#define WB_EMU_SHFL(name, kind, argtype)                                                                      \
  template <class T>                                                                                          \
  T name(unsigned mask, T var, argtype arg, int width = 32, const char* file = __builtin_FILE(),               \
         int line = __builtin_LINE()) {                                                                       \
    return ::wb_emu::detail::from_bits<T>(::wb_emu::detail::warp_op(::wb_emu::detail::WarpKind::kind, mask,   \
                                                                     ::wb_emu::detail::to_bits(var),          \
                                                                     static_cast<int>(arg), width, file, line)); \
  }
WB_EMU_SHFL(__shfl_sync, shfl, int)
WB_EMU_SHFL(__shfl_up_sync, shfl_up, unsigned)
WB_EMU_SHFL(__shfl_down_sync, shfl_down, unsigned)
WB_EMU_SHFL(__shfl_xor_sync, shfl_xor, int)
#undef WB_EMU_SHFL

/// \name Warp votes and reductions
///@{

/// As in CUDA: the lanes `mask` names rendezvous, then each gets the vote (ballot, any, all)
/// or the reduction (add, min, max) over them. A named lane that has exited is a kernel fault.
inline unsigned __ballot_sync(unsigned mask, int pred, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  return static_cast<unsigned>(
      ::wb_emu::detail::warp_op(::wb_emu::detail::WarpKind::ballot, mask, pred != 0, 0, 32, file, line));
}
inline int __any_sync(unsigned mask, int pred, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  return static_cast<int>(::wb_emu::detail::warp_op(::wb_emu::detail::WarpKind::any, mask, pred != 0, 0, 32, file, line));
}
inline int __all_sync(unsigned mask, int pred, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  return static_cast<int>(::wb_emu::detail::warp_op(::wb_emu::detail::WarpKind::all, mask, pred != 0, 0, 32, file, line));
}
inline unsigned __reduce_add_sync(unsigned mask, unsigned v, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  return static_cast<unsigned>(::wb_emu::detail::warp_op(::wb_emu::detail::WarpKind::reduce_add, mask, v, 0, 32, file, line));
}
inline unsigned __reduce_min_sync(unsigned mask, unsigned v, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  return static_cast<unsigned>(::wb_emu::detail::warp_op(::wb_emu::detail::WarpKind::reduce_min, mask, v, 0, 32, file, line));
}
inline unsigned __reduce_max_sync(unsigned mask, unsigned v, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  return static_cast<unsigned>(::wb_emu::detail::warp_op(::wb_emu::detail::WarpKind::reduce_max, mask, v, 0, 32, file, line));
}
///@}
