// What the exercises' graders (07 onwards) share: inputs whose results float32 holds exactly,
// and the names of matrix elements in messages.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "wb/random.hpp"

namespace exercise {

/// n floats holding random integers from lo to hi, never 0 (a dropped or doubled element always
/// shows). Sums and products of a few thousand of them are exact in float32, in any order, so
/// a grader can compare them exactly.
inline std::vector<float> random_ints(std::size_t n, int lo, int hi, std::uint64_t stream) {
  auto rng = wb::rng_for(stream);
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) {
    int k = 0;
    while (k == 0) k = d(rng);
    x = float(k);
  }
  return v;
}

/// "out[3][17]": element (r, c) of a row-major matrix, as the exercise's page writes it.
inline std::string cell(const std::string& array, std::int64_t r, std::int64_t c) {
  return array + "[" + std::to_string(r) + "][" + std::to_string(c) + "]";
}

/// "1000 x 33": a shape, rows first.
inline std::string shape(std::int64_t rows, std::int64_t cols) {
  return std::to_string(rows) + " x " + std::to_string(cols);
}

}  // namespace exercise
