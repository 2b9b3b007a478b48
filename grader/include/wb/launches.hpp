/// \file
/// \brief The kernel launches a call into the learner's code made, with their configurations:
/// so a grader can check that a launcher honours the configuration it is given (the blocks and
/// threads that ran) and the stream it must use. On a GPU the launches are seen at the CUDA
/// runtime's launch entry points (the grader is linked with `--wrap` on them); on the CPU
/// backend they come from the emulated runtime's launch log.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "wb/compare.hpp"

namespace wb {

/// One kernel launch: its grid, block, dynamic shared memory and stream.
struct LaunchRecord {
  dim3 grid;                  ///< blocks per dimension
  dim3 block;                 ///< threads per block, per dimension
  std::size_t shared_bytes;   ///< the launch's third argument
  cudaStream_t stream;        ///< the launch's fourth argument (nullptr: the legacy default stream)

  /// Blocks in the grid.
  std::uint64_t blocks() const { return std::uint64_t(grid.x) * grid.y * grid.z; }
  /// Threads in one block.
  std::uint64_t threads_per_block() const { return std::uint64_t(block.x) * block.y * block.z; }
  /// "3 blocks of 256 threads" (with every dimension when a grid or block is not 1-D).
  std::string describe() const;
};

/// While alive, records every kernel launch made on the calling thread (the learner's kernels:
/// wrap exactly the call to check). Not nested.
class LaunchLog {
 public:
  LaunchLog();   ///< starts recording
  ~LaunchLog();  ///< stops recording
  LaunchLog(const LaunchLog&) = delete;
  LaunchLog& operator=(const LaunchLog&) = delete;

  /// The launches so far, in order: kernel launches as the runtime sees them (a launch captured
  /// into a CUDA graph when it is captured; none when a graph runs it).
  std::vector<LaunchRecord> launches() const;
  /// The stream of each cudaGraphLaunch so far, in order.
  std::vector<cudaStream_t> graph_launches() const;

  /// True when this build can record launches.
  static bool available();
  /// Why it cannot ("" when it can), for a `not checked:` line.
  static std::string unavailable_reason();
};

/// Checks the recorded launches of a launcher that was given its configuration: every launch
/// must use `threads` threads per block and, when `blocks` > 0, `blocks` blocks. Returns "" when
/// they do, else the sentence that says what was launched instead, in terms of `launcher`
/// (e.g. "add_inplace_launch").
std::string check_configuration(const std::vector<LaunchRecord>& launches, const std::string& launcher,
                                std::int64_t blocks, int threads);

/// check_configuration() as a comparison for WB_REQUIRE_MATCH (pattern chapter_specific when the
/// configuration was not honoured). When this build cannot record launches, it is ok and the
/// summary says the configuration was not checked.
Comparison configuration_honoured(const std::vector<LaunchRecord>& launches, const std::string& launcher,
                                  std::int64_t blocks, int threads);

}  // namespace wb
