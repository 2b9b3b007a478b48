#include "wb/random.hpp"

#include <catch2/catch_get_random_seed.hpp>

#include <algorithm>
#include <thread>

namespace wb {

std::mt19937_64 rng_for(std::uint64_t stream) {
  std::seed_seq seq{static_cast<std::uint64_t>(Catch::getSeed()), stream, std::uint64_t{0x9E3779B97F4A7C15ull}};
  return std::mt19937_64(seq);
}

std::uint64_t random_key(std::uint64_t stream) {
  return random_bits(random_bits(static_cast<std::uint64_t>(Catch::getSeed()), stream), 0x5EEDull);
}

namespace detail {
void parallel_ranges_impl(std::size_t n, std::size_t serial_below, void (*call)(void*, std::size_t, std::size_t),
                          void* ctx) {
  const std::size_t workers = std::min<std::size_t>(std::max(1u, std::thread::hardware_concurrency()), 32);
  if (n < serial_below || workers == 1) {
    if (n) call(ctx, 0, n);
    return;
  }
  std::vector<std::thread> pool;
  const std::size_t chunk = (n + workers - 1) / workers;
  for (std::size_t w = 0; w < workers; ++w) {
    const std::size_t first = w * chunk, last = std::min(n, first + chunk);
    if (first < last) pool.emplace_back([=] { call(ctx, first, last); });
  }
  for (auto& t : pool) t.join();
}
}  // namespace detail

std::vector<float> random_floats(std::size_t n, float lo, float hi, std::uint64_t stream) {
  const std::uint64_t key = random_key(stream);
  std::vector<float> v(n);
  parallel_ranges(n, [&](std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last; ++i) v[i] = random_float_at(key, i, lo, hi);
  });
  return v;
}

}  // namespace wb
