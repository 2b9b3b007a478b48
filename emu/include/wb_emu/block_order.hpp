/// \file
/// \brief The order in which the CPU backend starts the blocks of a launch. A GPU promises no block
/// order at all, so the backend does not start them in index order either: each launch's blocks are
/// started in a scrambled order, a permutation of 0..blocks-1 drawn from the process's seed and the
/// launch's number in the process. The seed is `WB_EMU_BLOCK_SEED` when set (a run is then
/// repeatable), else drawn at start-up; `WB_EMU_BLOCK_SEED=0` starts blocks in index order, for
/// debugging. A kernel whose block waits for another block's progress (a flag a lower block sets,
/// with no ticket taken) then hangs here as it may on a GPU, and the watchdog names it. The seed is
/// printed with the first kernel fault of a process and in the watchdog's report, not on clean runs.
/// Defined in emu/src/block_order.cpp (docs/cpu-backend.md, "Block order").
#pragma once

#include <cstdint>
#include <string>

namespace wb_emu {

/// A permutation of 0..size-1 drawn from a seed, that costs no memory for any size: a bijection of
/// the smallest power-of-two range that holds `size` (rounds of an xor with a key, a multiplication
/// by an odd key and an xor-shift), walked until it lands below `size` (cycle-walking). Seed 0 is the
/// identity. The same (size, seed) always gives the same order.
class BlockOrder {
 public:
  BlockOrder(std::uint64_t size, std::uint64_t seed);
  /// The block started `position`-th (position < size).
  std::uint64_t operator()(std::uint64_t position) const;
  std::uint64_t size() const { return size_; }
  /// false for seed 0, or a size below 2: the index order.
  bool scrambled() const { return scrambled_; }

 private:
  std::uint64_t permute(std::uint64_t x) const;
  std::uint64_t size_ = 0, mask_ = 0;
  unsigned shift_ = 1;
  bool scrambled_ = false;
  std::uint64_t key_[3] = {0, 0, 0}, mul_[3] = {1, 1, 1};
};

/// The process's block-order seed: `WB_EMU_BLOCK_SEED` (decimal, or hex with 0x) when set, else one
/// drawn at the first launch (never 0). 0: blocks start in index order.
std::uint64_t block_order_seed();
/// Sets the process's seed (tests; a program may call it before its first launch) and restarts the
/// count of launches, so that the launches after it get the orders a process started with
/// WB_EMU_BLOCK_SEED=seed gives its first launches.
void set_block_order_seed(std::uint64_t seed);
/// The seed of the next launch's order, derived from the process's seed and the launch's number (0
/// when the process's seed is 0); every call counts one launch. launch.cpp calls it once per launch.
std::uint64_t next_launch_order_seed();
/// "blocks ran in a scrambled order, seed S; WB_EMU_BLOCK_SEED=S repeats it (WB_EMU_BLOCK_SEED=0
/// runs them in index order)", or "blocks ran in index order (WB_EMU_BLOCK_SEED=0)" when the seed is 0.
std::string block_order_note();

}  // namespace wb_emu
