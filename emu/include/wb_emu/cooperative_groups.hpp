/// \file
/// \brief CUDA's cooperative groups (<cooperative_groups.h>, <cooperative_groups/reduce.h>,
/// <cooperative_groups/scan.h>) on the CPU backend, built on its barriers and warp operations:
/// a thread_block's sync() is `__syncthreads()`, a thread_block_tile's operations are the warp's
/// `__shfl*_sync`, `__ballot_sync` and `__syncwarp` with the tile's width and a mask of the tile's
/// lanes, so a tile whose lanes do not all reach an operation is the same fault, naming the same
/// line, as a warp operation with a bad mask. Each operation takes the caller's file and line as
/// default arguments (the messages name the learner's line, not this header's).
///
/// A block whose size is not a multiple of the tile size ends with a partial tile: its mask names
/// only the lanes that exist, size() is still the tile size (as in CUDA, where such a tile is
/// undefined), and reduce() and the scans combine only the lanes that exist.
#pragma once

#include <wb_emu/block.hpp>
#include <wb_emu/builtins.hpp>

#include <type_traits>

namespace wb_emu {
namespace detail {
/// Whether the running kernel was launched by cudaLaunchCooperativeKernel (emu/src/cooperative.cpp).
bool in_cooperative_launch();
/// grid_group::sync(): every thread of the grid waits there (a cooperative launch), or a kernel
/// fault that says why it cannot (emu/src/cooperative.cpp).
void grid_sync(const char* file, int line);
/// The calling thread's rank in its block, x fastest, as the scheduler numbers threads into warps.
inline unsigned block_thread_rank() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
inline unsigned block_threads() { return blockDim.x * blockDim.y * blockDim.z; }
}  // namespace detail
}  // namespace wb_emu

namespace cooperative_groups {

/// Any group: what every group can do (size, rank, sync). A thread_block and a tile convert to it,
/// and tiled_partition(group, n) makes one of a size known only at run time.
class thread_group {
 public:
  /// The number of threads in the group.
  unsigned long long num_threads() const { return tile_ ? tile_ : wb_emu::detail::block_threads(); }
  unsigned long long size() const { return num_threads(); }
  /// The calling thread's rank in the group, from 0.
  unsigned long long thread_rank() const {
    const unsigned r = wb_emu::detail::block_thread_rank();
    return tile_ ? r % tile_ : r;
  }
  /// Waits for every thread of the group: __syncthreads() for a block, __syncwarp() of the tile's
  /// lanes for a tile.
  void sync(const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
    if (tile_ == 0)
      __syncthreads(file, line);
    else
      __syncwarp(tile_mask(tile_), file, line);
  }

  /// The lanes of the calling thread's warp in its tile of `n` threads (n a power of 2, at most
  /// 32) that exist in the block.
  static unsigned tile_mask(unsigned n) {
    const unsigned r = wb_emu::detail::block_thread_rank(), lane = r % 32, base = r - lane;
    const unsigned live = wb_emu::detail::block_threads() - base;  // lanes of this warp that exist
    const unsigned exist = live >= 32 ? 0xffffffffu : (1u << live) - 1;
    const unsigned tile = n >= 32 ? 0xffffffffu : ((1u << n) - 1) << (lane / n * n);
    return tile & exist;
  }

 protected:
  explicit thread_group(unsigned tile) : tile_(tile) {}
  unsigned tile_;  ///< 0: the whole block; else the tile size
  friend thread_group tiled_partition(const thread_group& parent, unsigned tile_size);
};

/// The calling thread's block: `cg::this_thread_block()`.
class thread_block : public thread_group {
 public:
  thread_block() : thread_group(0) {}
  /// __syncthreads(), at the caller's line.
  void sync(const char* file = __builtin_FILE(), int line = __builtin_LINE()) const { __syncthreads(file, line); }
  unsigned int thread_rank() const { return wb_emu::detail::block_thread_rank(); }
  unsigned int size() const { return wb_emu::detail::block_threads(); }
  unsigned int num_threads() const { return size(); }
  /// blockIdx, threadIdx and blockDim, as CUDA's members name them.
  dim3 group_index() const { return blockIdx; }
  dim3 thread_index() const { return threadIdx; }
  dim3 group_dim() const { return blockDim; }
  dim3 dim_threads() const { return blockDim; }
};

inline thread_block this_thread_block() { return thread_block(); }

/// A tile of `Size` consecutive threads of a block (1, 2, 4, 8, 16 or 32), from tiled_partition.
/// Its lanes lie in one warp; its shuffles and votes are the warp's, with the tile's mask and width.
template <unsigned Size, class Parent = void>
class thread_block_tile : public thread_group {
  static_assert(Size >= 1 && Size <= 32 && (Size & (Size - 1)) == 0,
                "the CPU backend supports thread_block_tile sizes 1, 2, 4, 8, 16 and 32 (tiles of a warp or less)");

 public:
  thread_block_tile() : thread_group(Size) {}
  /// A tile of the same size, whatever parent type it names.
  template <class P>
  thread_block_tile(const thread_block_tile<Size, P>&) : thread_group(Size) {}

  static constexpr unsigned int num_threads() { return Size; }
  static constexpr unsigned int size() { return Size; }
  unsigned int thread_rank() const { return wb_emu::detail::block_thread_rank() % Size; }
  /// This tile's rank among the block's tiles, and how many tiles the block has.
  unsigned int meta_group_rank() const { return wb_emu::detail::block_thread_rank() / Size; }
  unsigned int meta_group_size() const { return (wb_emu::detail::block_threads() + Size - 1) / Size; }
  /// The tile's lanes that exist (fewer than Size only in a block's last, partial tile).
  unsigned int wb_members() const {
    const unsigned first = wb_emu::detail::block_thread_rank() / Size * Size;
    const unsigned left = wb_emu::detail::block_threads() - first;
    return left < Size ? left : Size;
  }
  /// The warp-lane mask of the tile (its existing lanes), for the warp operations.
  unsigned int wb_mask() const { return tile_mask(Size); }

  void sync(const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
    __syncwarp(wb_mask(), file, line);
  }
  /// The value of `var` in the tile's thread `src` (taken modulo Size).
  template <class T>
  T shfl(T var, int src, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
    return __shfl_sync(wb_mask(), var, src, Size, file, line);
  }
  /// The value of the thread `delta` ranks above (below, for shfl_up); the caller's own past the tile's end.
  template <class T>
  T shfl_down(T var, unsigned delta, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
    return __shfl_down_sync(wb_mask(), var, delta, Size, file, line);
  }
  template <class T>
  T shfl_up(T var, unsigned delta, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
    return __shfl_up_sync(wb_mask(), var, delta, Size, file, line);
  }
  template <class T>
  T shfl_xor(T var, unsigned mask, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
    return __shfl_xor_sync(wb_mask(), var, static_cast<int>(mask), Size, file, line);
  }
  /// Bit r set for each thread rank r whose `pred` is nonzero (the tile's bits, from bit 0).
  unsigned ballot(int pred, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
    const unsigned first = wb_emu::detail::block_thread_rank() % 32 / Size * Size;
    return __ballot_sync(wb_mask(), pred, file, line) >> first;
  }
  int any(int pred, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
    return __any_sync(wb_mask(), pred, file, line);
  }
  int all(int pred, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
    return __all_sync(wb_mask(), pred, file, line);
  }
  /// The ranks (as bits) of the tile's threads whose `value` equals the caller's: one shuffle per
  /// lane of the tile, so it costs Size rendezvous.
  template <class T>
  unsigned match_any(T value, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
    unsigned bits = 0;
    const unsigned members = wb_members();
    for (unsigned r = 0; r < Size; ++r) {
      const T other = shfl(value, static_cast<int>(r), file, line);
      if (r < members && other == value) bits |= 1u << r;
    }
    return bits;
  }
  /// All the tile's ranks (as bits) when every thread has the same `value`, else 0; `pred` says which.
  template <class T>
  unsigned match_all(T value, int& pred, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
    const T first = shfl(value, 0, file, line);
    pred = all(first == value, file, line);
    const unsigned members = wb_members();
    return pred ? (members >= 32 ? 0xffffffffu : (1u << members) - 1) : 0u;
  }
};

/// The block split into tiles of Size threads: the calling thread's tile.
template <unsigned Size, class P>
thread_block_tile<Size, P> tiled_partition(const P&) {
  return thread_block_tile<Size, P>();
}
/// A tile of `tile_size` threads (a power of 2, at most 32) of a block or of a larger tile, as a
/// thread_group: rank, size and sync.
inline thread_group tiled_partition(const thread_group&, unsigned tile_size) { return thread_group(tile_size); }

/// The whole grid: `cg::this_grid()`. sync() needs a cooperative launch (cudaLaunchCooperativeKernel).
class grid_group {
 public:
  /// True in a kernel launched by cudaLaunchCooperativeKernel, whose grid can sync.
  bool is_valid() const { return wb_emu::detail::in_cooperative_launch(); }
  void sync(const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
    wb_emu::detail::grid_sync(file, line);
  }
  unsigned long long num_blocks() const {
    return static_cast<unsigned long long>(gridDim.x) * gridDim.y * gridDim.z;
  }
  unsigned long long block_rank() const {
    const unsigned long long gx = gridDim.x, gy = gridDim.y;
    return blockIdx.x + gx * (blockIdx.y + gy * blockIdx.z);
  }
  unsigned long long num_threads() const { return num_blocks() * wb_emu::detail::block_threads(); }
  unsigned long long size() const { return num_threads(); }
  unsigned long long thread_rank() const {
    return block_rank() * wb_emu::detail::block_threads() + wb_emu::detail::block_thread_rank();
  }
  dim3 group_dim() const { return gridDim; }
  dim3 dim_blocks() const { return gridDim; }
  dim3 block_index() const { return blockIdx; }
};

inline grid_group this_grid() { return grid_group(); }

/// coalesced_threads() needs the lanes that reach the call together; the CPU backend runs a warp's
/// lanes one after another, so it cannot know them: a clear error instead of a wrong group.
template <class T = void>
thread_group coalesced_threads() {
  static_assert(!std::is_same<T, T>::value,
                "the CPU backend has no cg::coalesced_threads(): it runs a warp's lanes one after another and cannot "
                "tell which of them took the same branch. Use a tile of the whole warp, "
                "cg::tiled_partition<32>(cg::this_thread_block()), before the branch, and its ballot(condition)");
  return this_thread_block();
}

/// \name Free forms of the group members
///@{
template <class G>
void sync(const G& g, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  g.sync(file, line);
}
template <class G>
auto thread_rank(const G& g) -> decltype(g.thread_rank()) {
  return g.thread_rank();
}
template <class G>
auto num_threads(const G& g) -> decltype(g.num_threads()) {
  return g.num_threads();
}
template <class G>
auto group_size(const G& g) -> decltype(g.num_threads()) {
  return g.num_threads();
}
///@}

// ---- reductions and scans over a tile (<cooperative_groups/reduce.h>, <cooperative_groups/scan.h>) ----
/// \name The operators reduce and the scans take
///@{
/// As CUDA's: plus adds, less keeps the lesser value, greater the greater, bit_* combine the bits.
template <class T>
struct plus {
  T operator()(const T& a, const T& b) const { return a + b; }
};
template <class T>
struct less {
  T operator()(const T& a, const T& b) const { return b < a ? b : a; }
};
template <class T>
struct greater {
  T operator()(const T& a, const T& b) const { return a < b ? b : a; }
};
template <class T>
struct bit_and {
  T operator()(const T& a, const T& b) const { return a & b; }
};
template <class T>
struct bit_or {
  T operator()(const T& a, const T& b) const { return a | b; }
};
template <class T>
struct bit_xor {
  T operator()(const T& a, const T& b) const { return a ^ b; }
};
///@}

/// `op` over the values of every thread of the tile, returned to each: a tree of shuffles down to
/// rank 0 (combining lower ranks on the left, so `op` need only be associative), then a broadcast.
/// A partial tile combines its existing lanes only.
template <unsigned Size, class P, class T, class Op>
T reduce(const thread_block_tile<Size, P>& g, T value, Op op, const char* file = __builtin_FILE(),
         int line = __builtin_LINE()) {
  const unsigned rank = g.thread_rank(), members = g.wb_members();
  for (unsigned offset = 1; offset < Size; offset <<= 1) {
    const T other = g.shfl_down(value, offset, file, line);
    if (rank + offset < members) value = op(value, other);
  }
  return g.shfl(value, 0, file, line);
}

/// The inclusive scan of the tile's values by rank: rank r gets op over ranks 0 to r.
template <unsigned Size, class P, class T, class Op>
T inclusive_scan(const thread_block_tile<Size, P>& g, T value, Op op, const char* file = __builtin_FILE(),
                 int line = __builtin_LINE()) {
  const unsigned rank = g.thread_rank();
  for (unsigned offset = 1; offset < Size; offset <<= 1) {
    const T other = g.shfl_up(value, offset, file, line);
    if (rank >= offset) value = op(other, value);
  }
  return value;
}
template <unsigned Size, class P, class T>
T inclusive_scan(const thread_block_tile<Size, P>& g, T value, const char* file = __builtin_FILE(),
                 int line = __builtin_LINE()) {
  return inclusive_scan(g, value, plus<T>(), file, line);
}
/// The exclusive scan: rank r gets op over ranks 0 to r - 1; rank 0 gets T{} (CUDA leaves it undefined).
template <unsigned Size, class P, class T, class Op>
T exclusive_scan(const thread_block_tile<Size, P>& g, T value, Op op, const char* file = __builtin_FILE(),
                 int line = __builtin_LINE()) {
  const T inclusive = inclusive_scan(g, value, op, file, line);
  const T before = g.shfl_up(inclusive, 1, file, line);
  return g.thread_rank() == 0 ? T{} : before;
}
template <unsigned Size, class P, class T>
T exclusive_scan(const thread_block_tile<Size, P>& g, T value, const char* file = __builtin_FILE(),
                 int line = __builtin_LINE()) {
  return exclusive_scan(g, value, plus<T>(), file, line);
}

}  // namespace cooperative_groups
