/// \file
/// \brief What the CPU backend's instrumented launches report beside their global-memory
/// statistics (launch.hpp): the bank conflicts of their shared-memory requests, and the warning
/// for threads that exit before a `__syncthreads()` the rest of their block reaches; and, for a
/// grader's watchdog, the fault of a launch that has not ended. Defined in
/// emu/src/instrument.cpp and emu/src/launch.cpp.
#pragma once

#include <wb_emu/fault.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace wb_emu {

/// Shared-memory traffic, counted as a GPU's shared-memory unit serves it. Shared memory is 32
/// banks of 4-byte words (the word at byte address a is in bank (a / 4) mod 32). A request is one
/// warp's access at one instruction, grouped as for global memory (the lanes that make their k-th
/// access of that direction at that source line, never across a __syncthreads()). Its lanes are
/// served in phases: all 32 lanes at once for accesses of up to 4 bytes, half-warps (16 lanes) for
/// 8 bytes, quarter-warps (8 lanes) for 16 bytes. A phase takes as many wavefronts as the busiest
/// bank has distinct words among that phase's lanes: lanes that touch the same word share it (a
/// broadcast), so the ideal is one wavefront per phase, and an n-way bank conflict takes n.
struct BankStats {
  std::uint64_t requests = 0;          ///< warp requests
  std::uint64_t wavefronts = 0;        ///< wavefronts they took
  std::uint64_t ideal_wavefronts = 0;  ///< one per phase: what they would take without bank conflicts
  unsigned max_ways = 0;               ///< the most wavefronts any one phase took (32: a 32-way conflict)
};
/// One source line's shared-memory loads or stores.
struct SharedLineStats {
  std::string file;    ///< the kernel's source file
  int line = 0;        ///< its line; 0 for an access through `*p`
  bool store = false;  ///< stores (true) or loads (false)
  int bytes = 0;       ///< bytes per lane of the line's first access
  BankStats stats;     ///< the line's requests and wavefronts
};
/// What an instrumented launch did to shared memory, through recorded accesses (not atomics,
/// shared scalars or arrays of structs).
struct SharedMemoryStats {
  bool instrumented = false;  ///< false when the kernel's file was not built instrumented
  BankStats loads;            ///< shared-memory loads, summed over the launch
  BankStats stores;           ///< shared-memory stores, summed over the launch
  std::vector<SharedLineStats> lines;  ///< per source line and direction, most wavefronts first
};
/// The shared-memory statistics of the most recent launch (not instrumented: `instrumented` is false).
SharedMemoryStats last_launch_shared_stats();

/// The warning of the most recent launch ("" if none): in an instrumented build, threads that
/// exited before a `__syncthreads()` that the rest of their block reached (correct, never an
/// error). It is printed to stderr the first time a launch site and barrier give it, not at every
/// launch.
std::string last_launch_warning();

/// The record behind that warning: a `__syncthreads()` that released while some threads of the
/// block had exited (instrumented builds). Correct on a GPU as here, so never a fault; but the
/// CUDA Programming Guide allows a barrier in conditional code only where the condition is the
/// same for the whole block, so a grader says so beside its verdict.
struct ExitBeforeBarrier {
  std::string kernel;            ///< the kernel, as launched
  std::string launch_file;       ///< where it was launched
  int launch_line = 0;
  std::string barrier_file;      ///< the barrier
  int barrier_line = 0;
  uint3 block{0, 0, 0};          ///< the first such block in start order
  unsigned block_threads = 0;    ///< threads per block
  std::vector<unsigned> exited;  ///< the threads of that block (linear numbers) that had exited
};
/// One record for each (launch site, barrier) this process has warned of, in the order first met.
std::vector<ExitBeforeBarrier> exits_before_barriers();

/// The fault of a launch that has not ended yet ("" if none), as the launch prints it when it ends
/// (wb_emu::last_fault_message()): its first faulting block in start order so far. A faulting block stops the
/// launch from starting more blocks, but the launch ends only when the blocks already running
/// end; when one of them never does, a watchdog (wb::Watchdog) that gives up on the launch names
/// this fault as well. Any thread may call it while the launch runs; every build keeps it. (Its
/// record: running_launch_fault(Fault*), <wb_emu/fault.hpp>.)
std::string running_launch_fault();

/// The blocks of a launch that has not ended yet ("" if none), for a watchdog that gives up on it:
/// how many of its blocks had started (in its scrambled start order, <wb_emu/block_order.hpp>),
/// which were still running and the lowest not started; for a running block whose predecessor
/// (or some lower block) had not started, that it may be waiting for a block that cannot start,
/// and how to write the wait the GPU way (a ticket taken with atomicAdd); last, the start order's
/// seed and how to repeat it. Indented lines, without a final newline. `headline`, when not
/// nullptr, gets one sentence naming the first such possible wait, as a question, since the
/// backend cannot see what a block spins on ("" when no running block had a lower one unstarted). Any thread may call it while the launch runs.
std::string running_launch_blocks(std::string* headline = nullptr);

}  // namespace wb_emu
