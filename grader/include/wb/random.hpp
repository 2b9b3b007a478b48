/// \file
/// \brief Reproducible random inputs: seeded from Catch2's `--rng-seed` (printed at the start of
/// every run) and the case, so a failure can be replayed exactly.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace wb {

/// A generator for one case: the run's seed mixed with `stream` (e.g. n).
std::mt19937_64 rng_for(std::uint64_t stream);

/// n floats uniform in [lo, hi). Keep lo > 0 (a non-zero mean) so a dropped element always shows.
std::vector<float> random_floats(std::size_t n, float lo, float hi, std::uint64_t stream);

}  // namespace wb
