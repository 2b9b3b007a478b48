/// \file
/// \brief Reproducible random inputs: seeded from Catch2's `--rng-seed` (printed at the start of
/// every run) and the case, so a failure can be replayed exactly. Counter-based: element i
/// depends only on the seed, the case's stream and i, so large inputs are made in parallel, and
/// any element can be recomputed on its own.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace wb {

/// A generator for one case: the run's seed mixed with `stream` (e.g. n).
std::mt19937_64 rng_for(std::uint64_t stream);

/// The key of one case's random sequence: the run's seed mixed with `stream`.
std::uint64_t random_key(std::uint64_t stream);

/// 64 random bits for element `i` of the sequence `key` (a splitmix64 step of key and i).
inline std::uint64_t random_bits(std::uint64_t key, std::uint64_t i) {
  std::uint64_t z = key + (i + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// Element `i` of the sequence `key` as a float uniform in [lo, hi): 24 random bits, so every
/// value is exact in float.
inline float random_float_at(std::uint64_t key, std::uint64_t i, float lo, float hi) {
  const float u = float(random_bits(key, i) >> 40) * (1.0f / 16777216.0f);  // [0, 1), 24 bits
  const float v = lo + (hi - lo) * u;
  return v < hi ? v : lo;  // rounding may reach hi: fold it back
}

/// n floats uniform in [lo, hi) (element i is random_float_at(random_key(stream), i, lo, hi)),
/// made on every core for a large n. Keep lo > 0 (a non-zero mean) so a dropped element always
/// shows.
std::vector<float> random_floats(std::size_t n, float lo, float hi, std::uint64_t stream);

namespace detail {
void parallel_ranges_impl(std::size_t n, std::size_t serial_below, void (*call)(void*, std::size_t, std::size_t),
                          void* ctx);
}

/// Runs body(first, last) over [0, n) in chunks on every core, or in one call when n is below
/// `serial_below` (threads cost more than they save): for making and checking large inputs on
/// the host.
template <class Body>
void parallel_ranges(std::size_t n, Body body, std::size_t serial_below = std::size_t(1) << 20) {
  detail::parallel_ranges_impl(
      n, serial_below, [](void* ctx, std::size_t first, std::size_t last) { (*static_cast<Body*>(ctx))(first, last); },
      &body);
}

}  // namespace wb
