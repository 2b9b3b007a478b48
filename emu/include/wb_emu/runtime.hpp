/// \file
/// \brief The CPU backend's CUDA runtime, everything a rewritten .cu file sees: the subset of the CUDA runtime API, the built-in
/// variables, the device functions and the launch machinery the chapters use, executed on the host.
///
/// Kernels are ordinary C++ functions here. The launch rewriter turns
/// `kernel<<<grid, block, shmem, stream>>>(args)` into `wb_emu::make_launch(...)(args)`,
/// which runs every thread of every block: blocks are spread over worker threads, and the
/// threads of one block run on that worker, with `threadIdx` & co. set for each.
///
/// How a block runs: its threads start one after another as plain calls, all on one fiber
/// stack (mmap'd, with a PROT_NONE guard page, pooled per worker and reused across blocks).
/// A thread that reaches `__syncthreads()` or a warp operation is suspended on its fiber and
/// the next thread starts on a fresh one, so a kernel without barriers costs one fiber switch
/// per block. `__syncthreads()` releases when every thread of the block has either arrived at
/// that barrier or exited (as on hardware and compute-sanitizer's synccheck, so
/// `if (i >= n) return; ... __syncthreads();` works); warp operations (`__shfl*_sync`,
/// `__ballot_sync`, `__any_sync`, `__all_sync`, `__syncwarp`) rendezvous the lanes their mask
/// names, warp size 32. Threads waiting at different barriers, a barrier some live thread
/// never reaches, or a mask naming a lane that has exited (or does not exist) is a kernel
/// fault: the diagnostic (kernel, launch site, block, each barrier's source line and which
/// threads are where) goes to stderr, the launch stops, and cudaErrorLaunchFailure is sticky,
/// as a GPU fault would be. Nothing hangs.
///
/// Shared memory: the rewriter turns `__shared__ T name[dims];` into a reference into a
/// per-block arena and `extern __shared__ T name[];` into the launch's dynamic region; both
/// are fresh for each block and filled with wb_emu::shared_poison_byte (0xFF: a float NaN, an
/// int -1), so a read before a write shows in the result.
/// Atomics (`atomicAdd` & co.) are real host atomics, correct across worker threads.
///
/// Launches complete before they return; errors follow CUDA's rules (configuration errors
/// from cudaGetLastError, faults sticky until cudaDeviceReset). last_fault_message() gives the
/// most recent fault's diagnostic (wb::CudaError appends it to cudaErrorLaunchFailure).
///
/// Instrumented builds (a kernel file built with INSTRUMENT: `wb-emu-rewrite --instrument`,
/// WB_EMU_INSTRUMENT=1; see wb_emu/instrument.hpp for how and what is not covered): every access
/// through the kernel's pointer parameters and its `__shared__` arrays is recorded with its
/// source line. Global accesses are counted as a GPU counts them (last_launch_memory_stats():
/// requests, 32-byte sectors and the ideal sector count, in total and per line); shared accesses
/// are checked for races: two threads touching the same 4-byte word between two consecutive
/// __syncthreads(), one writing, neither through an atomic, is a kernel fault naming both threads
/// and both lines (accesses ordered by a __syncwarp() of their warp do not race). Threads run one
/// after another between barriers here, so races are found from the records, not from timing.
/// Accesses out of bounds are kernel faults naming the access, its line and the block and thread:
/// an index of a `__shared__` array past its extent, an `extern __shared__` index past the bytes
/// the launch gave, a shared pointer in no array, a global access outside every allocation.
/// Files not built instrumented run exactly as before, at the same speed.
///
/// The pieces, one header each: wb_emu/builtins.hpp (qualifiers, vector types, built-in
/// variables), wb_emu/api.hpp (the runtime API), wb_emu/launch.hpp (launches and what they
/// leave to read), wb_emu/block.hpp (shared memory, barriers, warp operations),
/// wb_emu/atomics.hpp and wb_emu/intrinsics.hpp.
#pragma once

#include <wb_emu/builtins.hpp>
#include <wb_emu/api.hpp>
#include <wb_emu/launch.hpp>
#include <wb_emu/block.hpp>
#include <wb_emu/atomics.hpp>
#include <wb_emu/intrinsics.hpp>
