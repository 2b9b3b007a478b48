/// \file
/// \brief Device buffers with guard zones: every byte a kernel writes outside its array is
/// caught after the launch (and, on the CPU backend's instrumented builds, every access there is a
/// kernel fault at the access).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "wb/cuda_check.hpp"

namespace wb {

/// Byte the guard zones are filled with (as a float, 0xFEFEFEFE is about -1.7e38: no kernel
/// here computes it).
inline constexpr unsigned char guard_byte = 0xFE;
/// Byte an output is filled with before the kernel runs (0xFFFFFFFF is a NaN that arithmetic
/// does not produce): an element that still holds it was never written.
inline constexpr unsigned char poison_byte = 0xFF;

/// True when the element's bytes are all `byte`.
template <class T>
bool holds_pattern(const T& value, unsigned char byte) {
  unsigned char raw[sizeof(T)];
  std::memcpy(raw, &value, sizeof(T));
  for (unsigned char c : raw)
    if (c != byte) return false;
  return true;
}

/// True when a downloaded output element was never written by the kernel.
template <class T>
bool never_written(const T& value) {
  return holds_pattern(value, poison_byte);
}

/// A write found in a guard zone: `index` counts from the array's first element, so -1 is just
/// before it and `size()` just past it.
struct GuardHit {
  std::int64_t index;  ///< the written element's index, counted from the array's element 0
};

/// An array of `n` elements of T on the device with `guard` elements of a known pattern on each
/// side. `data()` points at element 0.
template <class T>
class DeviceBuffer {
  static_assert(std::is_trivially_copyable_v<T>, "DeviceBuffer holds plain data");

 public:
  static constexpr std::size_t default_guard = 1024;  ///< elements; more than a block could overrun by

#ifdef WB_EMU
  /// `n` elements, uninitialised, with `guard` guard elements on each side. The CPU backend is
  /// told the array's extent: in instrumented builds a kernel's access to a guard zone is a fault
  /// naming this array by its size and where it was made (`file`:`line`, the caller's).
  explicit DeviceBuffer(std::size_t n, std::size_t guard = default_guard, const char* file = __builtin_FILE(),
                        int line = __builtin_LINE())
      : n_(n), guard_(guard) {
    WB_CUDA_CHECK(cudaMalloc(&base_, bytes_total()));
    fill_guards();
    wb_emu::set_logical_extent(data(), n_ * sizeof(T), sizeof(T), file, line);
  }
  /// A copy of `host` on the device, with guard zones.
  DeviceBuffer(const std::vector<T>& host, std::size_t guard = default_guard, const char* file = __builtin_FILE(),
               int line = __builtin_LINE())
      : DeviceBuffer(host.size(), guard, file, line) {
    upload(host);
  }
#else
  /// `n` elements, uninitialised, with `guard` guard elements on each side. In the copy of the
  /// grader that compute-sanitizer runs (wb/sanitizer.hpp) the default guard is left out (what a
  /// wb::Misalignment adds to it stays), so that memcheck sees a read past the array, which a
  /// guard zone would keep inside the allocation.
  explicit DeviceBuffer(std::size_t n, std::size_t guard = default_guard)
      : n_(n), guard_(std::getenv("WB_SANITIZER_CHILD") ? guard % default_guard : guard) {
    WB_CUDA_CHECK(cudaMalloc(&base_, bytes_total()));
    fill_guards();
  }
  /// A copy of `host` on the device, with guard zones.
  DeviceBuffer(const std::vector<T>& host, std::size_t guard = default_guard) : DeviceBuffer(host.size(), guard) {
    upload(host);
  }
#endif
  ~DeviceBuffer() { cudaFree(base_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  /// Device pointer to element 0: what a kernel gets.
  T* data() { return base_ + guard_; }
  /// Device pointer to element 0, for a kernel's read-only input.
  const T* data() const { return base_ + guard_; }
  /// Number of elements (the guard zones not counted).
  std::size_t size() const { return n_; }

  /// Copies `host` (exactly size() elements) into the array; the guard zones are untouched.
  void upload(const std::vector<T>& host) {
    if (host.size() != n_) throw std::invalid_argument("DeviceBuffer::upload: size mismatch");
    if (n_) WB_CUDA_CHECK(cudaMemcpy(data(), host.data(), n_ * sizeof(T), cudaMemcpyHostToDevice));
  }
  /// Copies the array to the host.
  std::vector<T> download() const {
    std::vector<T> host(n_);
    if (n_) WB_CUDA_CHECK(cudaMemcpy(host.data(), data(), n_ * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
  }
  /// Fills the array with wb::poison_byte, so elements the kernel does not write stand out.
  void poison() {
    if (n_) WB_CUDA_CHECK(cudaMemset(data(), poison_byte, n_ * sizeof(T)));
  }

  /// Refills the guard zones (after a reported overrun, so the next check starts clean).
  void reset_guards() { fill_guards(); }

  /// Guard elements that no longer hold the guard pattern (at most `max_hits` of them).
  std::vector<GuardHit> guard_hits(std::size_t max_hits = 8) const {
    std::vector<GuardHit> hits;
    if (guard_ == 0) return hits;
    std::vector<T> zone_copy(guard_);
    auto scan = [&](const T* zone, std::int64_t first_index) {
      WB_CUDA_CHECK(cudaMemcpy(zone_copy.data(), zone, guard_bytes(), cudaMemcpyDeviceToHost));
      for (std::size_t k = 0; k < guard_; ++k) {
        if (holds_pattern(zone_copy[k], guard_byte)) continue;
        hits.push_back({first_index + std::int64_t(k)});
        if (hits.size() >= max_hits) return;
      }
    };
    scan(base_, -std::int64_t(guard_));
    if (hits.size() < max_hits) scan(data() + n_, std::int64_t(n_));
    return hits;
  }

 private:
  std::size_t guard_bytes() const { return guard_ * sizeof(T); }
  std::size_t bytes_total() const {
    std::size_t b = (n_ + 2 * guard_) * sizeof(T);
    return b ? b : 1;
  }
  void fill_guards() {
    if (!guard_) return;
    WB_CUDA_CHECK(cudaMemset(base_, guard_byte, guard_bytes()));
    WB_CUDA_CHECK(cudaMemset(data() + n_, guard_byte, guard_bytes()));
  }

  std::size_t n_, guard_;
  T* base_ = nullptr;
};

}  // namespace wb
