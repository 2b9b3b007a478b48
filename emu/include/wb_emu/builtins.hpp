/// \file
/// \brief The CPU backend's CUDA language on the host: the qualifiers (`__global__` & co., empty
/// here), the built-in vector types (`dim3`, `float4`...) and the built-in variables (`threadIdx`,
/// `blockIdx`, `blockDim`, `gridDim`, thread-local, set by the scheduler for the thread that runs).
#pragma once

// ---- CUDA's qualifiers, on the host ----
/// \name CUDA's qualifiers
///@{

/// Empty on the host, like the other qualifiers: a kernel is an ordinary function and a
/// `__shared__` variable an ordinary one (the launch rewriter gives each block its own storage).
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __constant__
#define __managed__
// `__shared__` has no definition of its own: the launch rewriter replaces each declaration with
// its block's storage, so one it did not see (in a file it did not rewrite) is a compiler error at
// its line, never a variable of each thread (see WB_EMU_SHARED_NOT_REWRITTEN below).
#define __launch_bounds__(...)
#ifndef __restrict__
#define __restrict__ __restrict
#endif
///@}

/// Marks a build for the CPU backend (never defined when nvcc compiles for a GPU).
#define WB_EMU 1

/// A `__shared__` left in code the launch rewriter did not rewrite: the compiler stops at the
/// declaration's line with this message, instead of compiling a variable of each thread, which
/// would compute garbage silently.
#define __shared__                                                                                     \
  static_assert(false, "the CPU backend did not rewrite this __shared__ declaration, so it would be a "  \
                       "variable of each thread: declare it in the kernel's .cu file or in a header "    \
                       "beside it that the file includes with #include \"...\" (not in a macro's body)");

/// On a function of the CPU backend's headers that an instrumented kernel file compiles: its
/// accesses are not reported to the instrumentation (emu/include/wb_emu/instrument.hpp), because
/// they are not the kernel's own (an atomic's read-modify-write, the block's shared storage table).
#if defined(__GNUC__) || defined(__clang__)
#define WB_EMU_NOT_INSTRUMENTED __attribute__((no_sanitize("thread")))
#else
#define WB_EMU_NOT_INSTRUMENTED
#endif

// ---- built-in vector types ----
// Every CUDA vector type (char1 ... double4, uint3 among them) with CUDA's sizes and alignments.
#include <wb_emu/vector_types.hpp>

/// CUDA's dim3: a grid or block shape; components not given are 1.
struct dim3 {
  ///@{
  /// The extent along one axis.
  unsigned int x = 1, y = 1, z = 1;
  ///@}
  /// A shape of vx × vy × vz.
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
  /// The shape uint3's components give.
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  /// The components as a uint3.
  constexpr operator uint3() const { return uint3{x, y, z}; }
};
/// A dim3 from its components.
inline dim3 make_dim3(unsigned x, unsigned y, unsigned z) { return {x, y, z}; }

// ---- built-in variables: set by the executor for the thread that runs ----
/// \name Built-in variables
///@{

/// A built-in variable, thread-local: the executor sets it for each thread of a block before
/// running or resuming it.
inline thread_local uint3 threadIdx{0, 0, 0};
inline thread_local uint3 blockIdx{0, 0, 0};
inline thread_local dim3 blockDim{1, 1, 1};
inline thread_local dim3 gridDim{1, 1, 1};
inline constexpr int warpSize = 32;
///@}
