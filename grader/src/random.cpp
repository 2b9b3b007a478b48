#include "wb/random.hpp"

#include <catch2/catch_get_random_seed.hpp>

namespace wb {

std::mt19937_64 rng_for(std::uint64_t stream) {
  std::seed_seq seq{static_cast<std::uint64_t>(Catch::getSeed()), stream, std::uint64_t{0x9E3779B97F4A7C15ull}};
  return std::mt19937_64(seq);
}

std::vector<float> random_floats(std::size_t n, float lo, float hi, std::uint64_t stream) {
  auto rng = rng_for(stream);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

}  // namespace wb
