// CPU backend: what the scheduler and the launch tell the instrumentation (instrument.cpp) of a
// block's progress, and the per-launch memory statistics it gathers.
#pragma once

#include "worker.hpp"

#include <wb_emu/diagnostics.hpp>
#include <wb_emu/launch.hpp>

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <tuple>

namespace wb_emu::internal {
/// Thread t of the running block has exited: its warp's pending accesses may form requests.
void instr_thread_done(Worker& w, unsigned t);
/// A __syncthreads() let the block go on: a new interval for the race check, and no request
/// spans a barrier.
void instr_barrier_released(Worker& w);
/// The block has ended: every pending access becomes part of a request.
void instr_flush_all(Worker& w);
/// Thread t passed a __syncwarp(): its accesses before it are ordered with its warp's after it.
void instr_syncwarp_passed(Worker& w, unsigned t);

/// One access the compiler reported (access.cpp): `size` bytes at `a`, a store or a load, made by the
/// instruction at `pc`; `sized` for a 1-, 2-, 4-, 8- or 16-byte access (which must be aligned to its
/// size), false for a range (an aggregate's copy, memcpy). Recorded when a kernel thread of an
/// instrumented launch makes it and it lands in shared or device memory; a fault (which does not
/// return) when it is out of bounds or misaligned.
void on_access(std::uintptr_t a, std::size_t size, bool store, const void* pc, bool sized);

/// Forgets the previous launch's statistics (a launch that is not instrumented has none).
void clear_launch_stats();

/// The per-line statistics of one launch, merged from its workers.
class LaunchRecords {
 public:
  /// Adds what worker `w` recorded during this launch, and clears it there.
  void merge(Worker& w);
  /// Makes them last_launch_memory_stats() when the launch was instrumented (or recorded any).
  void publish(bool instrumented);

 private:
  std::mutex m_;
  std::map<std::tuple<std::string, int, bool>, LineStats> lines_;
  std::map<std::tuple<std::string, int, bool>, SharedLineStats> shared_lines_;
  std::uint64_t global_atomics_ = 0, shared_load_bytes_ = 0;
  std::uintptr_t atomic_address_ = 0;
};
}  // namespace wb_emu::internal
