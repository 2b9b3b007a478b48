// Exercise 17: radix sort. This is your file: fill in the TODOs, then grade it with
//   bash cmake/workbook.sh grade x17
// The task is exercises/17-radix-sort/README.md.
#include "radix_sort.cuh"

namespace student {

constexpr int kBits = 8;       // bits per pass (4 also works: 8 passes); a digit takes 1 << kBits values
constexpr int kThreads = 256;  // threads per block

//! [count]
__global__ void digit_counts_kernel(const std::uint32_t* __restrict__ keys, std::int64_t n, int shift,
                                    std::uint32_t* __restrict__ counts, std::int64_t tiles) {
  // TODO: count how many keys of this block's tile have each digit value, (key >> shift) & ((1 << kBits) - 1),
  //       in shared memory, and write the counts where the scan will find them (digit-major:
  //       counts[digit * tiles + tile] makes one exclusive scan give every tile's offsets).
}
//! [count]

//! [scatter]
__global__ void scatter_kernel(const std::uint32_t* __restrict__ keys_in, const std::uint32_t* __restrict__ values_in,
                               std::uint32_t* __restrict__ keys_out, std::uint32_t* __restrict__ values_out,
                               std::int64_t n, int shift, const std::uint32_t* __restrict__ offsets, std::int64_t tiles) {
  // TODO: for every pair of this block's tile: its place = the tile's offset for its digit (from the
  //       scanned counts) + how many keys of the tile with the same digit come before it in the
  //       input (not merely "were counted before it": equal keys must keep their order).
}
//! [scatter]

//! [launch]
std::size_t radix_sort_scratch_bytes(std::int64_t n) {
  // TODO: room for the pairs between passes, and for the digit counts of every tile.
  return 0;
}

void radix_sort_pairs(const std::uint32_t* keys_in, const std::uint32_t* values_in, std::uint32_t* keys_out,
                      std::uint32_t* values_out, std::int64_t n, void* scratch) {
  // TODO: n may be 0; scratch holds whatever it held before.
  for (int shift = 0; shift < 32; shift += kBits) {
    // TODO: one pass per digit, least significant first: count, scan the counts (exclusive),
    //       scatter; each pass reads what the one before wrote, and the last one writes keys_out
    //       and values_out.
  }
  const unsigned tiles = 1;
  scatter_kernel<<<tiles, kThreads>>>(keys_in, values_in, keys_out, values_out, n, 0, nullptr, tiles);
}
//! [launch]

}  // namespace student
