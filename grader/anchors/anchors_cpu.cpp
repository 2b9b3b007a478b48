// The CPU backend has no library anchors: its timings say nothing about a GPU, and every timing
// test skips there before it could call these.
#include <stdexcept>

#include "wb/anchors.hpp"

namespace wb::anchors {

void thrust_add_inplace(const float*, float*, std::int64_t) {
  throw std::logic_error("wb::anchors: no library anchors on the CPU backend");
}
void cub_reduce_sum(const float*, float*, std::int64_t) {
  throw std::logic_error("wb::anchors: no library anchors on the CPU backend");
}
void device_copy(const float*, float*, std::int64_t) {
  throw std::logic_error("wb::anchors: no library anchors on the CPU backend");
}

}  // namespace wb::anchors
