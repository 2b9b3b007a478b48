/// \file
/// \brief A CPU-backend kernel fault as a record: what kind of fault, which kernel and launch,
/// which block and thread, which source line, and its explanation. The text the backend prints
/// (and wb_emu::last_fault_message() returns) is describe() of the record, so a program that needs
/// to know what went wrong reads the record's fields instead of parsing sentences. Defined in
/// emu/src/fault.cpp and emu/src/errors.cpp.
#pragma once

#include <cstdint>
#include <string>

namespace wb_emu {

/// What a kernel fault is about. A tool that groups faults groups them by this, never by the
/// explanation's wording (docs/cpu-backend.md, "Fault records").
enum class FaultKind {
  race,             ///< a shared-memory race (instrumented builds)
  unwritten_read,   ///< a read of shared memory no thread of the block wrote (instrumented builds)
  out_of_bounds,    ///< an access outside its array or allocation (instrumented builds)
  misaligned,       ///< an access whose address is not a multiple of its size (instrumented builds)
  illegal_address,  ///< an access the system refused (cudaErrorIllegalAddress), in every build
  barrier,          ///< threads of a block that wait at different __syncthreads()
  warp,             ///< a warp operation's mask or width, or lanes that never meet
  stack_overflow,   ///< a kernel thread overflowed its stack (the process then dies of the signal)
  resources,        ///< a block needs more shared memory than a block may have
  cooperative,      ///< a grid_group::sync() that cannot complete
  other,            ///< anything else: __trap(), a failed device-side assert()
};

/// "race", "unwritten_read", "out_of_bounds", "misaligned", "illegal_address", "barrier", "warp",
/// "stack_overflow", "resources", "cooperative" or "other": the enumerator's own name.
const char* fault_kind_name(FaultKind kind);

/// One kernel fault: the first faulting block of a launch in its start order (<wb_emu/block_order.hpp>).
struct Fault {
  FaultKind kind = FaultKind::other;
  std::string kernel;       ///< the kernel's name as written at the launch, e.g. "reduce<float, 4>"
  std::string launch_file;  ///< the source file of the launch
  int launch_line = 0;      ///< the line of the launch
  unsigned grid[3] = {1, 1, 1};       ///< the launch's grid (gridDim)
  unsigned block_dim[3] = {1, 1, 1};  ///< the launch's block (blockDim)
  unsigned block[3] = {0, 0, 0};      ///< the faulting block (blockIdx), when has_block
  /// Whether one block is the faulting one: not for a write past an allocation's end that no
  /// access faulted at, found when the launch ended (the text then names no block).
  bool has_block = true;
  bool has_thread = false;            ///< whether one thread is the faulting one (not, e.g., a barrier's)
  unsigned thread[3] = {0, 0, 0};     ///< that thread (threadIdx), when has_thread
  std::string file;  ///< the source file of the faulting access or operation ("" when unknown)
  int line = 0;      ///< its line, 0 when unknown
  /// What went wrong and what to change, as printed after the first line: one sentence on its
  /// first line (the summary a grader shows), then indented lines of detail.
  std::string explanation;
  /// The process's block-order seed when the launch started its blocks in a scrambled order
  /// (WB_EMU_BLOCK_SEED=<it> repeats the order, <wb_emu/block_order.hpp>); 0 when in index order
  /// (WB_EMU_BLOCK_SEED=0, or a launch of one block). Not part of the text.
  std::uint64_t block_seed = 0;
};

/// The fault's text, as the backend prints it to stderr and last_fault_message() returns it:
/// "<launch file>:<line>: error: kernel fault in <kernel>, launched here with grid (x,y,z) and block
/// (x,y,z); in block (x,y,z):\n  <explanation>" (without "; in block (x,y,z)" when no one block is
/// known). The one place a record becomes text.
std::string describe(const Fault& fault);

/// The most recent kernel fault (kept after cudaDeviceReset, until the next fault, as
/// last_fault_message()'s text is), or the stack overflow the process is dying of: copied to
/// `*out` (when not nullptr) and true; false when no launch has faulted.
bool last_fault(Fault* out);

/// The fault of a launch that has not ended yet, as a record (see running_launch_fault() in
/// <wb_emu/diagnostics.hpp>): true and copied to `*out` (when not nullptr), false when none.
bool running_launch_fault(Fault* out);

/// The fault as one line of JSON (no newline at its end), as WB_EMU_FAULTS=<file> appends it
/// (docs/cpu-backend.md, "Fault records"): {"kind", "kernel", "launch": {"file", "line"}, "grid",
/// "block_dim", "block" (or null), "block_seed", "thread" (or null), "at": {"file", "line"} (or null),
/// "explanation", "text"}. Valid JSON for any name or path: quotes, backslashes and control characters are
/// escaped, and bytes that are not UTF-8 become U+FFFD.
std::string fault_json(const Fault& fault);

}  // namespace wb_emu
