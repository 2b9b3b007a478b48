// The CPU backend has no library anchors: its timings say nothing about a GPU, and every timing
// case skips there before it could call these.
#include <stdexcept>

#include "wb/library_anchors.hpp"

namespace wb::anchors {
namespace {
[[noreturn]] void none() { throw std::logic_error("wb::anchors: no library anchors on the CPU backend"); }
}  // namespace

void cub_inclusive_sum(const float*, float*, std::int64_t) { none(); }
void cub_histogram_bytes(const std::uint8_t*, std::int64_t, unsigned int*) { none(); }
void cublas_sgemm(int, int, int, const float*, const float*, float*) { none(); }
void cublas_sgemv(int, int, const float*, const float*, float*) { none(); }
void cublas_gemm_f16_f32(int, int, int, const __half*, const __half*, float*) { none(); }
void cub_radix_sort_pairs(const std::uint32_t*, const std::uint32_t*, std::uint32_t*, std::uint32_t*, std::int64_t) {
  none();
}
void cub_select_greater(const float*, std::int64_t, float, float*, std::int64_t*) { none(); }

}  // namespace wb::anchors
