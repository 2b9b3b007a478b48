// CPU backend: stands in for CUDA's <cooperative_groups/memcpy_async.h>. A copy is made by the
// group's threads together (each copies a stride of the bytes) and is complete at cg::wait(group),
// which syncs the group, as on a GPU; nothing overlaps here, so "async" is only the name.
#pragma once
#include <cooperative_groups.h>

#include <cstddef>
#include <cstring>

namespace cooperative_groups {
/// Copies `bytes` from `src` to `dst`, every thread of `g` taking part (they all make the call).
template <class Group>
void memcpy_async(const Group& g, void* dst, const void* src, std::size_t bytes) {
  const std::size_t n = static_cast<std::size_t>(g.num_threads()), r = static_cast<std::size_t>(g.thread_rank());
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  for (std::size_t i = r; i < bytes; i += n) d[i] = s[i];
}
/// The typed form: `dst_count` elements at most, from `src_count`.
template <class Group, class T>
void memcpy_async(const Group& g, T* dst, std::size_t dst_count, const T* src, std::size_t src_count) {
  memcpy_async(g, static_cast<void*>(dst), static_cast<const void*>(src),
               (dst_count < src_count ? dst_count : src_count) * sizeof(T));
}
/// Waits for the group's copies: the group syncs, so every thread sees every byte.
template <class Group>
void wait(const Group& g, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  g.sync(file, line);
}
template <unsigned Count, class Group>
void wait_prior(const Group& g, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  g.sync(file, line);
}
}  // namespace cooperative_groups
