// What the GEMM exercises' timing cases share: the learner's C after the timing runs, checked
// against the C the library anchor (cuBLAS, timed beside it) wrote in the same run.
#pragma once

#include <string>

#include "wb/buffer.hpp"
#include "wb/compare.hpp"

namespace exercise {

/// `got` against `library` element by element (exact where the inputs make every product and
/// sum exact, as the GEMM exercises' timing inputs do). `context` e.g. "4096 x 4096 x 4096,
/// against cuBLAS's C".
inline wb::Comparison against_library(const wb::DeviceBuffer<float>& library, const wb::DeviceBuffer<float>& got,
                                      const std::string& array, const std::string& context) {
  wb::CompareOptions opt;
  opt.array = array;
  wb::Comparison c = wb::compare(library.download(), got, opt);
  c.context = context;
  return c;
}

}  // namespace exercise
