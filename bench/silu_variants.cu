// Developer benchmark (CUDA backend only): variants of chapter 05's SiLU forward and backward
// kernels, to choose the solution's shape. Raw kernels on float32 inputs drawn like the grader's
// (x in [-6, 4)), no libtorch: timed with the graders' method (events, L2 flushed, interleaved)
// against a device-to-device copy.
//   build/gpu/bench/bench-silu-variants (WB_BENCH_LOG2N=<log2 n>, default 28; a Catch2 program on the graders' main)
// Each variant: elements per thread per step (1 float or a float4, times an unroll), precise
// (expf, IEEE division) or fast (__expf, __fdividef) math.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "wb/anchors.hpp"
#include "wb/buffer.hpp"
#include "wb/device.hpp"
#include "wb/grader.hpp"
#include "wb/timing.hpp"

namespace {

template <bool Fast>
__device__ __forceinline__ float exp_neg(float x) {
  if constexpr (Fast) return __expf(-x);
  else return expf(-x);
}
template <bool Fast>
__device__ __forceinline__ float divide(float a, float b) {
  if constexpr (Fast) return __fdividef(a, b);
  else return a / b;
}

template <bool Fast>
__device__ __forceinline__ float forward1(float x) {
  return divide<Fast>(x, 1.0f + exp_neg<Fast>(x));
}
// s (1 + x (1 - s)), as the solution writes it
template <bool Fast>
__device__ __forceinline__ float backward1(float g, float x) {
  const float s = divide<Fast>(1.0f, 1.0f + exp_neg<Fast>(x));
  return g * s * (1.0f + x * (1.0f - s));
}

template <bool Fast>
__device__ __forceinline__ float4 forward4(float4 x) {
  return {forward1<Fast>(x.x), forward1<Fast>(x.y), forward1<Fast>(x.z), forward1<Fast>(x.w)};
}
template <bool Fast>
__device__ __forceinline__ float4 backward4(float4 g, float4 x) {
  return {backward1<Fast>(g.x, x.x), backward1<Fast>(g.y, x.y), backward1<Fast>(g.z, x.z), backward1<Fast>(g.w, x.w)};
}

// V: float or float4. Each step a block handles blockDim.x * U items (thread t: items t, t +
// blockDim.x, ...); the grid strides over such tiles.
template <class V, int U, bool Fast>
__global__ void forward_kernel(const V* __restrict__ x, V* __restrict__ y, std::int64_t items) {
  const std::int64_t tile = std::int64_t(blockDim.x) * U;
#pragma unroll 1  // a plain loop: no trip count (a 64-bit division) computed up front
  for (std::int64_t base = std::int64_t(blockIdx.x) * tile + threadIdx.x; base < items; base += tile * gridDim.x) {
    V v[U];
#pragma unroll
    for (int k = 0; k < U; ++k)
      if (base + k * blockDim.x < items) v[k] = x[base + k * blockDim.x];
#pragma unroll
    for (int k = 0; k < U; ++k)
      if (base + k * blockDim.x < items) {
        if constexpr (sizeof(V) == 4) y[base + k * blockDim.x] = forward1<Fast>(v[k]);
        else y[base + k * blockDim.x] = forward4<Fast>(v[k]);
      }
  }
}

template <class V, int U, bool Fast>
__global__ void backward_kernel(const V* __restrict__ g, const V* __restrict__ x, V* __restrict__ gx,
                                std::int64_t items) {
  const std::int64_t tile = std::int64_t(blockDim.x) * U;
#pragma unroll 1  // a plain loop: no trip count (a 64-bit division) computed up front
  for (std::int64_t base = std::int64_t(blockIdx.x) * tile + threadIdx.x; base < items; base += tile * gridDim.x) {
    V a[U], b[U];
#pragma unroll
    for (int k = 0; k < U; ++k)
      if (base + k * blockDim.x < items) {
        a[k] = g[base + k * blockDim.x];
        b[k] = x[base + k * blockDim.x];
      }
#pragma unroll
    for (int k = 0; k < U; ++k)
      if (base + k * blockDim.x < items) {
        if constexpr (sizeof(V) == 4) gx[base + k * blockDim.x] = backward1<Fast>(a[k], b[k]);
        else gx[base + k * blockDim.x] = backward4<Fast>(a[k], b[k]);
      }
  }
}

// No loop, 32-bit indices, one float4 per thread, 128 threads: the shape of PyTorch's
// vectorized elementwise kernels.
template <bool Fast>
__global__ void forward_flat(const float4* __restrict__ x, float4* __restrict__ y, int items) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < items) y[i] = forward4<Fast>(x[i]);
}

// x in [-6, 4) as the grader draws it (a hash of the index), g in [0.5, 1.5).
__global__ void fill(float* x, float* g, std::int64_t n) {
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += std::int64_t(blockDim.x) * gridDim.x) {
    std::uint32_t h = static_cast<std::uint32_t>(i) * 2654435761u;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    const float u = (h >> 8) * (1.0f / 16777216.0f);
    x[i] = -6.0f + 10.0f * u;
    g[i] = 0.5f + u;
  }
}

struct Arrays {
  const float *x, *g;
  float *y, *gx;
  std::int64_t n;
};

// blocks_per_sm 0: one pass (the grid covers the array); otherwise that many blocks per SM.
template <class V, int U, bool Fast>
std::vector<wb::Timed> variant(const Arrays& a, int threads, int blocks_per_sm = 0) {
  const int w = sizeof(V) / 4;
  const std::int64_t items = a.n / w;
  const std::int64_t blocks = blocks_per_sm ? std::int64_t(wb::multiprocessor_count()) * blocks_per_sm
                                            : (items + std::int64_t(threads) * U - 1) / (std::int64_t(threads) * U);
  const std::string name = std::string(w == 4 ? "float4" : "float") + " x" + std::to_string(U) + ", " +
                           (Fast ? "fast" : "precise") + ", " + std::to_string(threads) + " thr" +
                           (blocks_per_sm ? ", " + std::to_string(blocks_per_sm) + " blk/SM" : "");
  return {{"fwd " + name,
           [=] {
             forward_kernel<V, U, Fast><<<static_cast<int>(blocks), threads>>>(reinterpret_cast<const V*>(a.x),
                                                                              reinterpret_cast<V*>(a.y), items);
           },
           8.0 * a.n},
          {"bwd " + name,
           [=] {
             backward_kernel<V, U, Fast><<<static_cast<int>(blocks), threads>>>(
                 reinterpret_cast<const V*>(a.g), reinterpret_cast<const V*>(a.x), reinterpret_cast<V*>(a.gx), items);
           },
           12.0 * a.n}};
}

}  // namespace

TEST_CASE("variants against the library", "[bench]") {
  WB_REQUIRE_GPU("a benchmark times a GPU");
  const char* env = std::getenv("WB_BENCH_LOG2N");
  const int log2n = env ? std::atoi(env) : 28;
  const std::int64_t n = std::int64_t(1) << log2n;
  wb::DeviceBuffer<float> x(n), g(n), y(n), gx(n);
  fill<<<1024, 256>>>(x.data(), g.data(), n);
  WB_CUDA_CHECK(cudaDeviceSynchronize());
  const Arrays a{x.data(), g.data(), y.data(), gx.data(), n};
  std::vector<wb::Timed> v;
  auto add = [&v](std::vector<wb::Timed> pair) { v.insert(v.end(), pair.begin(), pair.end()); };
  add(variant<float, 1, false>(a, 256));  // the scalar grid-stride pair
  add(variant<float4, 1, false>(a, 128));
  add(variant<float4, 1, false>(a, 256));
  add(variant<float4, 1, false>(a, 512));
  add(variant<float4, 1, false>(a, 1024));
  add(variant<float4, 2, false>(a, 256));
  for (bool fast : {false, true})
    v.push_back({std::string("fwd float4 flat, ") + (fast ? "fast" : "precise") + ", 128 thr",
                 [=] {
                   const int items = static_cast<int>(n / 4);
                   const auto* xp = reinterpret_cast<const float4*>(a.x);
                   auto* yp = reinterpret_cast<float4*>(a.y);
                   if (fast) forward_flat<true><<<(items + 127) / 128, 128>>>(xp, yp, items);
                   else forward_flat<false><<<(items + 127) / 128, 128>>>(xp, yp, items);
                 },
                 8.0 * n});
  v.push_back({"device-to-device copy", [&] { wb::anchors::device_copy(x.data(), y.data(), n); }, 8.0 * n});
  wb::TimingOptions o;
  o.budget_s = 30;
  o.max_samples = 40;
  const auto t = wb::time_interleaved(v, 8.0 * n, o);
  std::cout << wb::format_timings("SiLU kernel variants, 2^" + std::to_string(log2n) + " floats", t,
                                  "device-to-device copy");
}
