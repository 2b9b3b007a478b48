// Exercise 02, reference solution: a single-pass inclusive scan with decoupled look-back.
// Each block scans one tile of the input in registers and shared memory, publishes the tile's
// total at once, then looks back at the tiles before it for the sum of everything earlier (the
// carry), adds it, and stores. Every element is read once and written once: the scan runs at the
// speed of a copy.
#include "scan.cuh"

#include <cstdint>

namespace solution {

// ---- the tiles' status words (in the caller's scratch memory) ----
//! [status]
// One 64-bit word per tile: the flag in the high half, a float in the low half, so a tile's
// state and its value are written and read together (one 8-byte access is never torn).
enum : unsigned { kNotReady = 0, kAggregate = 1, kPrefix = 2 };  // kAggregate: the tile's own total;
                                                                // kPrefix: the total of tiles 0..tile

__device__ __forceinline__ unsigned long long pack(unsigned flag, float value) {
  return (static_cast<unsigned long long>(flag) << 32) | __float_as_uint(value);
}
//! [status]

// scratch = [ticket counter][status of tile 0][status of tile 1]...: 8 bytes each.
template <int kTile>
std::int64_t tiles_for(std::int64_t n) {
  return (n + kTile - 1) / kTile;
}

// ---- kernels ----
//! [look back]
// Warp 0 of tile `tile` finds the sum of tiles 0..tile-1. Its lanes read the statuses of the 32
// tiles before a window's end at once (lane 0 the nearest); they wait until none is kNotReady,
// then add up the values from the nearest tile through the first one with a kPrefix (whose value
// already covers everything before it); with no kPrefix in the window they add all 32
// aggregates and move the window 32 tiles back. Atomic reads: another block writes these words.
template <class Status>
__device__ float look_back(Status status, std::int64_t tile, int lane) {
  float carry = 0.0f;
  for (std::int64_t end = tile;; end -= 32) {
    const std::int64_t t = end - 1 - lane;
    unsigned long long word = pack(kPrefix, 0.0f);  // before tile 0: nothing, and nothing further back
    unsigned flag;
    do {
      if (t >= 0) word = atomicAdd(&status[t], 0ull);
      flag = static_cast<unsigned>(word >> 32);
    } while (__any_sync(0xffffffffu, flag == kNotReady));
    const unsigned prefixes = __ballot_sync(0xffffffffu, flag == kPrefix);
    const int last = prefixes ? __ffs(static_cast<int>(prefixes)) - 1 : 31;  // the farthest lane that counts
    float v = lane <= last ? __uint_as_float(static_cast<unsigned>(word)) : 0.0f;
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);  // same sum in every lane
    carry += v;
    if (prefixes) return carry;
  }
}
//! [look back]

//! [kernel]
// One block scans one tile of kTile = kThreads x 4 x kVecs floats. Warp w owns the tile's w-th
// segment of 32 x 4 x kVecs floats; lane l holds float4 number j x 32 + l of it (j < kVecs), so
// each load instruction of a warp reads 512 contiguous bytes.
template <int kThreads, int kVecs>
__global__ void __launch_bounds__(kThreads)
    scan_tiles_kernel(const float* __restrict__ in, float* __restrict__ out, std::int64_t n,
                      unsigned long long* __restrict__ scratch) {
  constexpr int kWarps = kThreads / 32, kSegment = 32 * 4 * kVecs, kTile = kWarps * kSegment;
  __shared__ unsigned long long tile_ticket;
  __shared__ float warp_total[kWarps];
  __shared__ float tile_carry;
  // Tiles are numbered in the order blocks start, not by blockIdx: a block only ever waits for
  // tiles whose blocks are already running, so the look-back cannot wait for a block that has
  // no multiprocessor yet.
  if (threadIdx.x == 0) tile_ticket = atomicAdd(&scratch[0], 1ull);
  __syncthreads();
  const std::int64_t tile = static_cast<std::int64_t>(tile_ticket);
  auto status = scratch + 1;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const std::int64_t segment = tile * kTile + std::int64_t(warp) * kSegment;

  // 1. Load (zeros past n) and scan each float4 within the thread.
  float4 v[kVecs];
#pragma unroll
  for (int j = 0; j < kVecs; ++j) {
    const std::int64_t i = segment + 4 * (j * 32 + lane);
    if (i + 3 < n) {
      v[j] = reinterpret_cast<const float4*>(in)[i / 4];
    } else {  // the tile's last float4s: element by element, zeros past n
      v[j] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      if (i < n) v[j].x = in[i];
      if (i + 1 < n) v[j].y = in[i + 1];
      if (i + 2 < n) v[j].z = in[i + 2];
    }
    v[j].y += v[j].x;
    v[j].z += v[j].y;
    v[j].w += v[j].z;  // w: the float4's total
  }
  // 2. Scan the lanes' float4 totals across the warp (kVecs scans side by side), and add to each
  //    float4 the totals of everything before it in the warp's segment.
  float t[kVecs];
#pragma unroll
  for (int j = 0; j < kVecs; ++j) t[j] = v[j].w;
#pragma unroll
  for (int offset = 1; offset < 32; offset *= 2) {
#pragma unroll
    for (int j = 0; j < kVecs; ++j) {
      const float up = __shfl_up_sync(0xffffffffu, t[j], offset);
      if (lane >= offset) t[j] += up;
    }
  }
  float before = 0.0f;  // the totals of the warp's earlier float4 rows
#pragma unroll
  for (int j = 0; j < kVecs; ++j) {
    const float add = before + (t[j] - v[j].w);  // everything in the segment before this float4
    v[j].x += add;
    v[j].y += add;
    v[j].z += add;
    v[j].w += add;
    before += __shfl_sync(0xffffffffu, t[j], 31);
  }
  if (lane == 0) warp_total[warp] = before;
  __syncthreads();  // every warp's total is in before any thread adds them up

  // 3. The warps before this one, and the whole tile (every thread adds in the same order).
  float warp_offset = 0.0f, tile_total = 0.0f;
#pragma unroll
  for (int w = 0; w < kWarps; ++w) {
    const float total = warp_total[w];
    if (w < warp) warp_offset += total;
    tile_total += total;
  }
  // 4. Publish the tile's total at once, look back for the carry, publish the inclusive prefix.
  if (warp == 0) {
    float carry = 0.0f;
    if (tile == 0) {
      if (lane == 0) atomicExch(&status[0], pack(kPrefix, tile_total));
    } else {
      if (lane == 0) atomicExch(&status[tile], pack(kAggregate, tile_total));
      carry = look_back(status, tile, lane);
      if (lane == 0) atomicExch(&status[tile], pack(kPrefix, carry + tile_total));
    }
    if (lane == 0) tile_carry = carry;
  }
  __syncthreads();  // tile_carry is written before every thread reads it

  // 5. Add the carry and the warp's offset; store (only what lies below n).
  const float add = tile_carry + warp_offset;
#pragma unroll
  for (int j = 0; j < kVecs; ++j) {
    const std::int64_t i = segment + 4 * (j * 32 + lane);
    const float4 r = make_float4(v[j].x + add, v[j].y + add, v[j].z + add, v[j].w + add);
    if (i + 3 < n) {
      reinterpret_cast<float4*>(out)[i / 4] = r;
    } else {
      if (i < n) out[i] = r.x;
      if (i + 1 < n) out[i + 1] = r.y;
      if (i + 2 < n) out[i + 2] = r.z;
    }
  }
}
//! [kernel]

// ---- launcher ----
//! [launch]
template <int kThreads, int kVecs>
std::size_t scratch_bytes_for(std::int64_t n) {
  return sizeof(unsigned long long) * (1 + tiles_for<kThreads * 4 * kVecs>(n));
}

template <int kThreads, int kVecs>
void scan_decoupled(const float* in, float* out, std::int64_t n, void* scratch) {
  if (n == 0) return;
  // The ticket counter starts at 0 and every tile's status at kNotReady (0), at every call.
  cudaMemsetAsync(scratch, 0, scratch_bytes_for<kThreads, kVecs>(n));
  const std::int64_t tiles = tiles_for<kThreads * 4 * kVecs>(n);
  scan_tiles_kernel<kThreads, kVecs>
      <<<static_cast<unsigned>(tiles), kThreads>>>(in, out, n, static_cast<unsigned long long*>(scratch));
}
//! [launch]

// 256 threads x 4 float4 = 4096 floats per tile (see bench/scan_variants.cu)
std::size_t inclusive_scan_scratch_bytes(std::int64_t n) { return scratch_bytes_for<256, 4>(n); }

void inclusive_scan(const float* in, float* out, std::int64_t n, void* scratch) {
  scan_decoupled<256, 4>(in, out, n, scratch);
}

}  // namespace solution
