// Accepted variant: 4-bit digits, 8 passes, and the simplest stable scatter: one thread per tile
// walks the tile's keys in order and writes each to the next free place of its digit (a counting
// sort of the tile). The digit counts are scanned by one block, a chunk per thread. Slow on a
// GPU, but correct for every n.
#include "radix_sort.cuh"

namespace student {

constexpr int kBits = 4;
constexpr int kDigits = 1 << kBits;
constexpr int kTile = 256;  // keys per tile
constexpr int kCountThreads = 256;

std::int64_t tiles_for(std::int64_t n) { return (n + kTile - 1) / kTile; }

__global__ void count_kernel(const std::uint32_t* keys, std::int64_t n, int shift, std::uint32_t* counts,
                             std::int64_t tiles) {
  __shared__ unsigned int bins[kDigits];
  if (threadIdx.x < kDigits) bins[threadIdx.x] = 0;
  __syncthreads();
  for (std::int64_t i = std::int64_t(blockIdx.x) * kTile + threadIdx.x; i < n && i < std::int64_t(blockIdx.x + 1) * kTile;
       i += blockDim.x)
    atomicAdd(&bins[(keys[i] >> shift) % kDigits], 1u);
  __syncthreads();
  if (threadIdx.x < kDigits) counts[threadIdx.x * tiles + blockIdx.x] = bins[threadIdx.x];
}

// One block: thread t sums its chunk of counts, thread 0 scans the chunk sums, thread t writes
// its chunk's exclusive prefix.
constexpr int kScanThreads = 1024;
__global__ void chunked_exclusive_scan(std::uint32_t* counts, std::int64_t m) {
  __shared__ std::uint32_t chunk_start[kScanThreads];
  const std::int64_t chunk = (m + kScanThreads - 1) / kScanThreads;
  const std::int64_t first = threadIdx.x * chunk, last = first + chunk < m ? first + chunk : m;
  std::uint32_t sum = 0;
  for (std::int64_t i = first; i < last; ++i) sum += counts[i];
  chunk_start[threadIdx.x] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    std::uint32_t total = 0;
    for (int t = 0; t < kScanThreads; ++t) {
      const std::uint32_t c = chunk_start[t];
      chunk_start[t] = total;
      total += c;
    }
  }
  __syncthreads();
  sum = chunk_start[threadIdx.x];
  for (std::int64_t i = first; i < last; ++i) {
    const std::uint32_t c = counts[i];
    counts[i] = sum;
    sum += c;
  }
}

// One thread per tile: the tile's keys in input order, each to the next place of its digit.
__global__ void scatter_kernel(const std::uint32_t* keys_in, const std::uint32_t* values_in, std::uint32_t* keys_out,
                               std::uint32_t* values_out, std::int64_t n, int shift, const std::uint32_t* offsets,
                               std::int64_t tiles) {
  std::uint32_t at[kDigits];
  for (int d = 0; d < kDigits; ++d) at[d] = offsets[d * tiles + blockIdx.x];
  const std::int64_t first = std::int64_t(blockIdx.x) * kTile;
  const std::int64_t last = first + kTile < n ? first + kTile : n;
  for (std::int64_t i = first; i < last; ++i) {
    const std::uint32_t key = keys_in[i];
    const unsigned d = (key >> shift) % kDigits;
    keys_out[at[d]] = key;
    values_out[at[d]] = values_in[i];
    ++at[d];
  }
}

std::size_t radix_sort_scratch_bytes(std::int64_t n) {
  return sizeof(std::uint32_t) * std::size_t(2 * n + kDigits * tiles_for(n));
}

void radix_sort_pairs(const std::uint32_t* keys_in, const std::uint32_t* values_in, std::uint32_t* keys_out,
                      std::uint32_t* values_out, std::int64_t n, void* scratch) {
  if (n == 0) return;
  const std::int64_t tiles = tiles_for(n);
  std::uint32_t* tmp_keys = static_cast<std::uint32_t*>(scratch);
  std::uint32_t* tmp_values = tmp_keys + n;
  std::uint32_t* counts = tmp_values + n;
  const std::uint32_t* from_keys = keys_in;
  const std::uint32_t* from_values = values_in;
  for (int shift = 0; shift < 32; shift += kBits) {
    const bool to_tmp = (shift / kBits) % 2 == 0;  // 8 passes: the last one writes keys_out
    std::uint32_t* to_keys = to_tmp ? tmp_keys : keys_out;
    std::uint32_t* to_values = to_tmp ? tmp_values : values_out;
    count_kernel<<<unsigned(tiles), kCountThreads>>>(from_keys, n, shift, counts, tiles);
    chunked_exclusive_scan<<<1, kScanThreads>>>(counts, kDigits * tiles);
    scatter_kernel<<<unsigned(tiles), 1>>>(from_keys, from_values, to_keys, to_values, n, shift, counts, tiles);
    from_keys = to_keys;
    from_values = to_values;
  }
}

}  // namespace student
